package stats_test

import (
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
)

// StratifiedFolds deals each class round-robin across the folds, carrying
// on where the previous class stopped: per-class counts per fold differ by
// at most one, and so do the fold sizes.
func TestStratifiedFolds(t *testing.T) {
	y := []int{0, 0, 0, 0, 0, 1, 1, 1, 2, 0, 0, 1, 2, 2}
	const k = 4
	fold := stats.StratifiedFolds(y, 3, k, stats.Rand(1, "folds"))
	size := make([]int, k)
	count := make([][k]int, 3)
	for i, f := range fold {
		if f < 0 || f >= k {
			t.Fatalf("StratifiedFolds()[%d] = %d, want in [0, %d)", i, f, k)
		}
		size[f]++
		count[y[i]][f]++
	}
	spread := func(v []int) int { return slices.Max(v) - slices.Min(v) }
	if spread(size) > 1 {
		t.Errorf("fold sizes = %v, want within one", size)
	}
	for c, per := range count {
		if spread(per[:]) > 1 {
			t.Errorf("class %d per fold = %v, want within one", c, per)
		}
	}
}
