package regress_test

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/statstest"
)

// loadFriedman reads testdata/friedman1.csv: 2000 rows of x0..x9 and y
// (scikit-learn's make_friedman1, noise 1).
func loadFriedman(tb testing.TB) (*mat.Dense, []float64) {
	tb.Helper()
	return loadCSV(tb, "friedman1.csv")
}

// loadCSV reads testdata/<file>: a header, then numbers, the last column
// the target.
func loadCSV(tb testing.TB, file string) (*mat.Dense, []float64) {
	tb.Helper()
	_, recs := statstest.ReadCSV(tb, "testdata/"+file)
	d := len(recs[0]) - 1
	x := mat.NewDense(len(recs), d, nil)
	y := make([]float64, len(recs))
	for i, rec := range recs {
		for j, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatalf("%s row %d: %v", file, i+2, err)
			}
			if j < d {
				x.Set(i, j, v)
			} else {
				y[i] = v
			}
		}
	}
	return x, y
}

// rowsOf returns rows [lo, hi) of x as a new matrix and of y as a slice.
func rowsOf(x *mat.Dense, y []float64, lo, hi int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	return mat.DenseCopyOf(x.Slice(lo, hi, 0, d)), append([]float64(nil), y[lo:hi]...)
}

// treeRMSE is the root mean square error of m's predictions on x, y.
func treeRMSE(predict func(mat.Matrix, []float64), x mat.Matrix, y []float64) float64 {
	p := make([]float64, len(y))
	predict(x, p)
	var s float64
	for i, v := range y {
		s += (v - p[i]) * (v - p[i])
	}
	return math.Sqrt(s / float64(len(y)))
}
