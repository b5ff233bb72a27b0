package classify_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

func TestGBMWordsFixedMatchesDense(t *testing.T) {
	for _, c := range []struct{ n, words, k int }{{300, 60, 3}, {300, 60, 2}, {600, 700, 3}} {
		split, full := wordsData(c.n, c.words, c.k, 1)
		split.W = make([]float64, c.n)
		for i := range split.W {
			split.W[i] = 0.5 + float64((i*7919)%1000)/1000
		}
		dense := classify.Data{X: full, Y: split.Y, K: split.K, W: split.W}
		xs := stats.NewSparseMatrix(split.X, split.Words)
		for _, rounds := range []int{1, 2, 5, 20} {
			want := mat.NewDense(c.n, c.k, nil)
			classify.FitGBMFixed(dense, 31, rounds, 0, 1).Proba(full, want)
			got := mat.NewDense(c.n, c.k, nil)
			classify.FitGBMFixed(split, 31, rounds, 0, 1).Proba(xs, got)
			t.Logf("%d×%d K %d rounds %d: %g", c.n, c.words, c.k, rounds, maxDiff(got, want))
		}
	}
}
