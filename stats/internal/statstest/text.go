package statstest

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// EqualWordVariance divides each word column j with sd[j] > 0 by sd[j],
// in the words and in their dense copy (whose word columns start at
// column off). With sd the training words' sds (stats.CSR.ColumnMeanSD),
// every varying training word column then has sd 1, so a dense fit's
// per-column z-scores and k-NN's pooled word factor coincide up to
// rounding (the k-NN families' words tests); held-out rows are scaled by
// the same sd.
func EqualWordVariance(sd []float64, w *stats.CSR, full *mat.Dense, off int) {
	for k, j := range w.Indices {
		if s := sd[j]; s > 0 {
			w.Data[k] /= s
		}
	}
	r, _ := full.Dims()
	for i := range r {
		for j, s := range sd {
			if s > 0 {
				full.Set(i, off+j, full.At(i, off+j)/s)
			}
		}
	}
}
