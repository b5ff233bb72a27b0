package regress

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/scale"
)

// Test hooks for the linear family and k-NN (black-box tests in
// regress_test reach fixed-hyper-parameter fits through these).

// FitRidgeAt fits Ridge at per-row penalty alpha without the LOO search.
func FitRidgeAt(x *mat.Dense, y []float64, alpha float64) (Model, error) {
	return fitRidgeAt(Data{X: x, Y: y}, alpha)
}

// FitLassoAt fits Lasso at alpha without cross-validation, converged to a
// duality gap of tol·‖y − ȳ‖².
func FitLassoAt(x *mat.Dense, y []float64, alpha, tol float64) (Model, error) {
	return fitLassoAtTol(Data{X: x, Y: y}, alpha, tol)
}

// FitKNNAt builds a k-NN model with fixed k and weighting.
func FitKNNAt(x *mat.Dense, y []float64, k int, distance bool) (Model, error) {
	return fitKNNAt(x, y, k, distance)
}

// RidgeLOO returns Ridge's leave-one-out MSE for each per-row alpha.
func RidgeLOO(x *mat.Dense, y []float64, alphas []float64) []float64 {
	st := scale.New(x)
	_, yc := linearCenterY(y)
	dec, err := newRidgeSVD(st.Transform(x), yc)
	if err != nil {
		panic(err)
	}
	return dec.looMSE(alphas)
}

// KNNWithTree returns a copy of a k-NN model that searches with a k-d tree
// whatever its size.
func KNNWithTree(m Model) Model {
	k := *m.(*KNNModel)
	k.index = k.index.WithTree()
	return &k
}

// KNNUsesTree reports whether a k-NN model searches with a k-d tree.
func KNNUsesTree(m Model) bool { return m.(*KNNModel).index.HasTree() }

// KNNBrute returns a copy of a k-NN model that searches by brute force.
func KNNBrute(m Model) Model {
	k := *m.(*KNNModel)
	k.index = k.index.Brute()
	return &k
}
