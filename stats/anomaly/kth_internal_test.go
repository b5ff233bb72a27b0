package anomaly

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKth compares selection with sorting, with and without ties.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		for _, levels := range []int{2, 7, 1 << 30} {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.IntN(levels))
			}
			sorted := slices.Sorted(slices.Values(v))
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				if got := kth(slices.Clone(v), k); got != sorted[k] {
					t.Errorf("kth(n %d, levels %d, k %d) = %g, want %g", n, levels, k, got, sorted[k])
				}
			}
			h := max(1, n/2)
			idx := smallest(v, h)
			if len(idx) != h || !slices.IsSorted(idx) {
				t.Fatalf("smallest(n %d, h %d) = %d indices (sorted %v), want %d in order", n, h, len(idx), slices.IsSorted(idx), h)
			}
			for _, i := range idx {
				if v[i] > sorted[h-1] {
					t.Errorf("smallest(n %d, h %d) holds %g > the h-th value %g", n, h, v[i], sorted[h-1])
				}
			}
		}
	}
}
