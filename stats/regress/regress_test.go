package regress_test

import (
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/regress"
)

// TestAlgorithms pins the line-up of MODELLING §6.2: its keys in order
// (simpler models first, since the contest breaks ties by position), and
// that every algorithm's fitted model decodes through Unmarshal.
func TestAlgorithms(t *testing.T) {
	var keys []string
	for _, a := range regress.Algorithms() {
		keys = append(keys, a.Key())
	}
	want := []string{"ols", "ridge", "lasso", "knn", "random_forest", "gbm"}
	if !slices.Equal(keys, want) {
		t.Fatalf("Algorithms() keys = %q, want %q", keys, want)
	}
	x, y := friedmanHead(t, 120)
	for _, a := range regress.Algorithms() {
		m, err := a.Fit(x, y, regress.Options{Seed: 1, Workers: 1})
		if err != nil {
			t.Fatalf("%s.Fit error %v", a.Key(), err)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("%s MarshalBinary error %v", a.Key(), err)
		}
		u, err := regress.Unmarshal(b)
		if err != nil {
			t.Fatalf("Unmarshal(%s bytes) error %v", a.Key(), err)
		}
		if u.Key() != a.Key() {
			t.Errorf("Unmarshal(%s bytes).Key() = %q, want %q", a.Key(), u.Key(), a.Key())
		}
	}
}
