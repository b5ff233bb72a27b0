package regress

import (
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

// FitCART grows one CART tree on every row of x with every feature tried
// at each node and leaves of at least minLeaf rows: scikit-learn's
// DecisionTreeRegressor(min_samples_leaf=minLeaf), for the reference test.
func FitCART(x *mat.Dense, y []float64, minLeaf int) Model {
	_, d := x.Dims()
	return fitForest(x, y, tree.CARTParams{MTry: d, MinLeaf: minLeaf}, 1, Options{Workers: 1})
}

// FitGBMFixed boosts rounds trees of at most leaves leaves with L2 penalty
// lambda on every row, without a validation slice: scikit-learn's
// HistGradientBoostingRegressor(max_iter=rounds, max_leaf_nodes=leaves,
// l2_regularization=lambda, early_stopping=False), for the reference test.
func FitGBMFixed(x *mat.Dense, y []float64, leaves, rounds int, lambda float64) Model {
	return FitGBMParallel(x, y, leaves, rounds, lambda, 1)
}

// FitGBMParallel is FitGBMFixed with workers goroutines building every
// histogram, however small, to test that the split over columns changes
// nothing.
func FitGBMParallel(x *mat.Dense, y []float64, leaves, rounds int, lambda float64, workers int) Model {
	return FitGBMWords(Data{X: x, Y: y}, leaves, rounds, lambda, workers)
}

// FitGBMWords is FitGBMParallel on d's rows, words and all.
func FitGBMWords(d Data, leaves, rounds int, lambda float64, workers int) Model {
	p := tree.HistParams{Leaves: leaves, MinLeaf: gbmMinLeaf, Lambda: lambda, Rate: gbmRate, ParallelCells: 1}
	return fitGBM(tree.Bin(d.X, d.Words, tree.MaxBins, nil), d.Y, p, rounds, workers)
}

// GBMShape returns a gradient-boosting model's leaves and rounds.
func GBMShape(m Model) (leaves, rounds int) {
	g := m.(*gbmModel)
	return g.leaves, len(g.trees)
}
