package classify

import (
	"math"
	"testing"
)

func TestBrierRow(t *testing.T) {
	for _, c := range []struct {
		p    []float64
		y    int
		want float64
	}{
		{[]float64{1, 0, 0}, 0, 0},
		{[]float64{0, 1, 0}, 0, 2},
		{[]float64{1. / 3, 1. / 3, 1. / 3}, 2, 2. / 3},
		{[]float64{0.8, 0.2}, 1, 0.64 + 0.64},
	} {
		if got := brierRow(c.p, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("brierRow(%v, %d) = %v, want %v", c.p, c.y, got, c.want)
		}
	}
}

// TestWithinCVSEs checks the one-SE rule of the ridge's C search on
// hand-made fold losses: five folds of weight 10, three grid points.
func TestWithinCVSEs(t *testing.T) {
	wsum := []float64{10, 10, 10, 10, 10}
	// Fold means at the lowest point (g = 2): 0.1 0.2 0.3 0.4 0.5, mean
	// 0.3, sample sd √0.025, SE √0.025/√5 = 0.0707.
	loss := func(g0, g1 float64) [][]float64 {
		out := make([][]float64, 5)
		for f := range out {
			out[f] = []float64{10 * g0, 10 * g1, float64(f+1) * 1}
		}
		return out
	}
	for _, c := range []struct {
		name   string
		g0, g1 float64
		ses    float64
		want   int
	}{
		{"earliest within one SE", 0.36, 0.32, 1, 0},
		{"first outside, second within", 0.38, 0.35, 1, 1},
		{"both outside", 0.38, 0.372, 1, 2},
		{"zero SEs keeps the lowest", 0.36, 0.32, 0, 2},
		{"two SEs reach further", 0.44, 0.5, 2, 0},
	} {
		if got := withinCVSEs(loss(c.g0, c.g1), wsum, 2, c.ses); got != c.want {
			t.Errorf("%s: withinCVSEs = %d, want %d", c.name, got, c.want)
		}
	}
	// Fewer than two folds with validation weight: no SE, the lowest.
	l := loss(0.3, 0.3)
	if got := withinCVSEs(l, []float64{50, 0, 0, 0, 0}, 2, 1); got != 2 {
		t.Errorf("one weighted fold: withinCVSEs = %d, want 2", got)
	}
	// Equal fold means: SE 0, only an equal pooled loss qualifies.
	flat := [][]float64{{3, 2, 2}, {3, 2, 2}}
	if got := withinCVSEs(flat, []float64{10, 10}, 2, 1); got != 1 {
		t.Errorf("flat: withinCVSEs = %d, want 1", got)
	}
}
