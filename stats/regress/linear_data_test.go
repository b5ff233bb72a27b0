package regress_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/regress"
)

// Shared fixtures of the linear and k-NN tests.

// linFriedman reads testdata/friedman1.csv (2000 rows of x0..x9, y from
// scikit-learn's make_friedman1) and splits it as reference_linear.py
// does: the first 1600 rows train, the last 400 test.
func linFriedman(tb testing.TB) (xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64) {
	tb.Helper()
	x, y := loadFriedman(tb)
	if n, p := x.Dims(); n != 2000 || p != 10 {
		tb.Fatalf("friedman1.csv has %d rows of %d inputs, want 2000 of 10", n, p)
	}
	const ntr = 1600
	xtr, ytr = rowsOf(x, y, 0, ntr)
	xte, yte = rowsOf(x, y, ntr, 2000)
	return xtr, ytr, xte, yte
}

// linRMSE is the root mean squared error of yhat against y.
func linRMSE(y, yhat []float64) float64 {
	var s float64
	for i, v := range y {
		e := v - yhat[i]
		s += e * e
	}
	return math.Sqrt(s / float64(len(y)))
}

// linClose reports |got − want| ≤ tol·max(1, |want|).
func linClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// linPredict returns m's predictions for the rows of x.
func linPredict(m regress.Model, x mat.Matrix) []float64 {
	n, _ := x.Dims()
	dst := make([]float64, n)
	m.Predict(x, dst)
	return dst
}

// linRandom returns n rows of p standard normal columns and
// y = Σ_j (j+1)·x_j + noise, from a fixed seed.
func linRandom(n, p int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
			y[i] += float64(j+1) * row[j]
		}
		y[i] += rng.NormFloat64()
	}
	return x, y
}
