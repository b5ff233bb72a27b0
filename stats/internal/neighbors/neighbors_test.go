package neighbors_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/internal/neighbors"
)

// TestSearchTreeMatchesBrute checks that the k-d tree returns exactly the
// brute-force neighbours, ties included (coarse integer coordinates put
// many points at equal distances), and that k beyond the point count
// returns every point.
func TestSearchTreeMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dim = 2000, 3
	rows := make([]float64, n*dim)
	for i := range rows {
		rows[i] = math.Round(rng.NormFloat64() * 2)
	}
	brute := neighbors.New(rows, n, dim)
	if brute.HasTree() {
		t.Fatalf("New(%d rows).HasTree() = true, want false", n)
	}
	tree := brute.WithTree()
	var sb, st neighbors.Searcher
	q := make([]float64, dim)
	for range 200 {
		for j := range q {
			q[j] = math.Round(rng.NormFloat64() * 2)
		}
		for _, k := range []int{1, 7, 30} {
			want := slices.Clone(brute.Search(q, k, &sb))
			if got := tree.Search(q, k, &st); !slices.Equal(got, want) {
				t.Fatalf("tree Search(%v, %d) = %v, want %v", q, k, got, want)
			}
			for i := 1; i < len(want); i++ {
				if a, b := want[i-1], want[i]; a.D2 > b.D2 || (a.D2 == b.D2 && a.Row > b.Row) {
					t.Fatalf("Search(%v, %d) not ordered by (distance, row): %v", q, k, want)
				}
			}
		}
	}
	small := neighbors.New([]float64{0, 1, 2}, 3, 1)
	if got := small.Search([]float64{1.2}, 10, &sb); len(got) != 3 || got[0].Row != 1 {
		t.Errorf("Search(k=10 over 3 points) = %v, want all three, row 1 first", got)
	}
	if got := small.Search([]float64{1.2}, 0, &sb); len(got) != 0 {
		t.Errorf("Search(k=0) = %v, want none", got)
	}
}
