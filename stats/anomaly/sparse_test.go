package anomaly_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/mat"
)

// sparseRows is n rows of 3 dense normal columns and w word columns
// holding a few TF-IDF-like values each, as the engine encodes a session
// with a text column; dense false leaves the dense block out.
func sparseRows(n, w int, dense bool, seed uint64) *stats.SparseMatrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	var x *mat.Dense
	if dense {
		x = mat.NewDense(n, 3, nil)
		for i := range n {
			for j := range 3 {
				x.Set(i, j, rng.NormFloat64())
			}
		}
	}
	words := stats.NewCSR(n, w, 4*n)
	for range n {
		var cols []int32
		for range 1 + rng.IntN(6) {
			cols = append(cols, int32(rng.IntN(w)))
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		vals := make([]float64, len(cols))
		for k := range vals {
			vals[k] = 0.1 + rng.Float64()
		}
		words.AppendRow(cols, vals)
	}
	return stats.NewSparseMatrix(x, words)
}

// TestForestSparseEqualsDense: Isolation Forest fitted on a session's rows
// with the words as CSR is the forest fitted on the same rows made dense,
// bit for bit (model bytes, training scores, scores of new rows), with and
// without a dense block, on small data (ψ < 256) and on more rows than
// one scoring chunk.
func TestForestSparseEqualsDense(t *testing.T) {
	for _, tc := range []struct {
		n     int
		dense bool
	}{{60, true}, {60, false}, {9000, true}} {
		xs := sparseRows(tc.n, 40, tc.dense, uint64(tc.n))
		xd := xs.ToDense()
		opt := anomaly.Options{Seed: 11, Workers: 2}
		ms, ss, err := anomaly.FitScores(anomaly.IsolationForest{}, xs, opt)
		if err != nil {
			t.Fatal(err)
		}
		md, sd, err := anomaly.FitScores(anomaly.IsolationForest{}, xd, opt)
		if err != nil {
			t.Fatal(err)
		}
		bs, _ := ms.MarshalBinary()
		bd, _ := md.MarshalBinary()
		if !slices.Equal(bs, bd) {
			t.Fatalf("n=%d dense=%v: the models differ", tc.n, tc.dense)
		}
		if !slices.Equal(ss, sd) {
			t.Fatalf("n=%d dense=%v: the training scores differ", tc.n, tc.dense)
		}
		fresh := sparseRows(500, 40, tc.dense, 99)
		a, b := make([]float64, 500), make([]float64, 500)
		ms.Score(fresh, a)
		md.Score(fresh.ToDense(), b)
		if !slices.Equal(a, b) {
			t.Fatalf("n=%d dense=%v: the scores of new rows differ", tc.n, tc.dense)
		}
	}
}

// TestSparseBadInput: identical sparse rows are ErrIdentical, and the
// robust Mahalanobis detector, which reads dense columns, refuses a
// sparse matrix with an error rather than densifying it.
func TestSparseBadInput(t *testing.T) {
	words := stats.NewCSR(20, 5, 20)
	for range 20 {
		words.AppendRow([]int32{2}, []float64{0.5})
	}
	xs := stats.NewSparseMatrix(nil, words)
	if _, _, err := anomaly.FitScores(anomaly.IsolationForest{}, xs, anomaly.Options{Seed: 1}); !errors.Is(err, anomaly.ErrIdentical) {
		t.Fatalf("identical rows: %v, want ErrIdentical", err)
	}
	if _, _, err := anomaly.FitScores(anomaly.RobustMahalanobis{}, sparseRows(50, 5, true, 1), anomaly.Options{Seed: 1}); err == nil {
		t.Fatal("robust Mahalanobis fitted a sparse matrix")
	}
}
