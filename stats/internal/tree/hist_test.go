package tree

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrowUnitHessians checks that Hessians given as ones grow the same
// trees as the unit-Hessian path (hess nil) of squared loss: the sums of
// ones are exact, so every split and leaf value agrees to the bit. The
// Hessian path is the one the classification losses take.
func TestGrowUnitHessians(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 500, 4
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	grad := make([]float64, n)
	for i := range grad {
		grad[i] = x[i] - 2*x[n+i]*x[2*n+i] + 0.1*rng.NormFloat64()
	}
	ones := slices.Repeat([]float64{1}, n)
	edges, bins := Binning(x, n, d, nil)
	for _, lambda := range []float64{0, 1} {
		p := HistParams{Leaves: 15, MinLeaf: 20, Lambda: lambda, Rate: 0.1}
		predA, predB := make([]float64, n), make([]float64, n)
		impA, impB := make([]float64, d), make([]float64, d)
		a := NewGrower(bins, n, edges, p, 1).Grow(grad, nil, predA, impA, nil)
		b := NewGrower(bins, n, edges, p, 2).Grow(grad, ones, predB, impB, nil)
		if !slices.Equal(a, b) || !slices.Equal(predA, predB) || !slices.Equal(impA, impB) {
			t.Errorf("λ %g: Grow with unit Hessians differs from Grow with nil Hessians", lambda)
		}
		if len(a) < 2*p.Leaves-1 {
			t.Errorf("λ %g: Grow made %d nodes, want %d", lambda, len(a), 2*p.Leaves-1)
		}
	}
}

func TestSubset(t *testing.T) {
	bins := []uint8{0, 1, 2, 3, 10, 11, 12, 13} // 4 rows, 2 columns
	got, m := Subset(bins, 4, 2, []bool{true, false, false, true})
	if want := []uint8{0, 3, 10, 13}; m != 2 || !slices.Equal(got, want) {
		t.Errorf("Subset = %v, %d rows, want %v, 2", got, m, want)
	}
}
