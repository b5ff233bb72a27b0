package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/anomaly"
)

// scoreRows gives every detector's m.Score of all rows, bit for bit, for
// any number of workers, over chunks of which the last is short.
func TestScoreRowsMatchesScore(t *testing.T) {
	const n, d = 2*scoreChunk + 123, 3
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	for _, a := range anomaly.Algorithms() {
		m, err := a.Fit(x, anomaly.Options{Seed: 7, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", a.Key(), err)
		}
		want := make([]float64, n)
		m.Score(x, want)
		for _, w := range []int{1, 2, 5} {
			if got := scoreRows(m, x, w); !slices.Equal(got, want) {
				t.Errorf("%s, %d workers: scores differ from Score", a.Key(), w)
			}
		}
	}
}
