package regress_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

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
		m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 1, Workers: 1})
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

// Every model refits on rows with more columns than it was fitted on, as a
// session's saved model does when the preparation refitted on every row
// one-hot encodes levels the training rows lacked, and predicts at the new
// width.
func TestRefitOnWiderRows(t *testing.T) {
	x, y := friedmanHead(t, 120)
	n, d := x.Dims()
	wide := mat.NewDense(n, d+3, nil)
	wide.Slice(0, n, 0, d).(*mat.Dense).Copy(x)
	for i := range n {
		wide.Set(i, d+i%3, 1) // one-hot levels seen only now
	}
	for _, a := range regress.Algorithms() {
		m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 1, Workers: 1})
		if err != nil {
			t.Fatalf("%s.Fit error %v", a.Key(), err)
		}
		r, err := m.Refit(regress.Data{X: wide, Y: y}, regress.Options{Seed: 1, Workers: 1})
		if err != nil {
			t.Errorf("%s.Refit with %d columns after %d: %v", a.Key(), d+3, d, err)
			continue
		}
		pred := make([]float64, n)
		r.Predict(wide, pred)
		for i, p := range pred {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				t.Errorf("%s refitted predicts %v for row %d", a.Key(), p, i)
				break
			}
		}
	}
}
