package parallel_test

import (
	"testing"

	"github.com/vaticml/vatic/stats/internal/parallel"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 0}, {5, 1}, {100, 3}, {3, 10}} {
		calls := make([]int, tc.n)
		parallel.For(tc.n, tc.workers, func(i int) { calls[i]++ })
		for i, c := range calls {
			if c != 1 {
				t.Errorf("For(%d, %d): index %d called %d times, want 1", tc.n, tc.workers, i, c)
			}
		}
	}
}
