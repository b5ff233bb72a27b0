package anomaly

import "testing"

// TestForestSize: from 1 024 rows the forest is scikit-learn's default
// (ψ = 256, 100 trees); below, each tree sees a quarter of the rows (at
// least 2) and the forest samples at least as many rows as the default.
func TestForestSize(t *testing.T) {
	for _, c := range []struct{ n, psi, trees int }{
		{2, 2, 1000}, {7, 2, 1000}, {20, 5, 1000}, {105, 26, 985}, {137, 34, 753},
		{368, 92, 279}, {1023, 255, 101}, {1024, 256, 100}, {1 << 20, 256, 100},
	} {
		psi, trees := forestSize(c.n)
		if psi != c.psi || trees != c.trees {
			t.Errorf("forestSize(%d) = %d, %d; want %d, %d", c.n, psi, trees, c.psi, c.trees)
		}
		if psi > c.n || (psi*trees < forestBudget && trees < forestMaxTrees) || psi*(trees-1) >= forestBudget {
			t.Errorf("forestSize(%d) = %d, %d: ψ above n, or not the fewest trees sampling %d rows", c.n, psi, trees, forestBudget)
		}
	}
}
