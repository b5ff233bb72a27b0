package regress_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/vaticml/vatic/stats/internal/statstest"
	"github.com/vaticml/vatic/stats/regress"
	"gonum.org/v1/gonum/mat"
)

// treeAlgorithms are the tree ensembles the shared tests below cover.
var treeAlgorithms = []regress.Algorithm{regress.RandomForest{}, regress.GradientBoosting{}}

// friedmanHead returns the first n friedman1 rows.
func friedmanHead(tb testing.TB, n int) (*mat.Dense, []float64) {
	tb.Helper()
	x, y := loadFriedman(tb)
	return rowsOf(x, y, 0, n)
}

func predictAll(m regress.Model, x mat.Matrix) []float64 {
	r, _ := x.Dims()
	p := make([]float64, r)
	m.Predict(x, p)
	return p
}

func TestTreeModelsDeterministic(t *testing.T) {
	x, y := friedmanHead(t, 500)
	for _, a := range treeAlgorithms {
		t.Run(a.Key(), func(t *testing.T) {
			t.Parallel()
			var preds [][]float64
			for _, w := range []int{1, 4, 1} {
				m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 42, Workers: w})
				if err != nil {
					t.Fatalf("%s.Fit(workers %d) error %v", a.Key(), w, err)
				}
				preds = append(preds, predictAll(m, x))
			}
			for k := 1; k < len(preds); k++ {
				if !slices.Equal(preds[0], preds[k]) {
					t.Errorf("%s.Fit(seed 42) predictions differ between runs with workers 1, 4, 1", a.Key())
				}
			}
			m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 43, Workers: 2})
			if err != nil {
				t.Fatalf("%s.Fit(seed 43) error %v", a.Key(), err)
			}
			if a.Key() == "random_forest" && slices.Equal(preds[0], predictAll(m, x)) {
				t.Errorf("%s.Fit(seed 43) = Fit(seed 42), want other bootstraps", a.Key())
			}
		})
	}
}

func TestTreeModelsMarshal(t *testing.T) {
	x, y := friedmanHead(t, 300)
	for _, a := range treeAlgorithms {
		m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 1, Workers: 2})
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
		if got, want := predictAll(u, x), predictAll(m, x); !slices.Equal(got, want) {
			t.Errorf("Unmarshal(%s bytes).Predict differs from the fitted model's", a.Key())
		}
		if got, want := u.Importance(), m.Importance(); !slices.Equal(got, want) {
			t.Errorf("Unmarshal(%s bytes).Importance() = %v, want %v", a.Key(), got, want)
		}
		// A decoded model refits like the fitted one.
		r1, err1 := m.Refit(regress.Data{X: x, Y: y}, regress.Options{Seed: 2, Workers: 1})
		r2, err2 := u.Refit(regress.Data{X: x, Y: y}, regress.Options{Seed: 2, Workers: 1})
		if err1 != nil || err2 != nil {
			t.Fatalf("%s Refit errors %v, %v", a.Key(), err1, err2)
		}
		if !slices.Equal(predictAll(r1, x), predictAll(r2, x)) {
			t.Errorf("%s: Refit of the decoded model differs from Refit of the fitted one", a.Key())
		}
		for _, cut := range []int{len(b) - 1, len(b) / 2, 1 + len(a.Key()) + 1} {
			if _, err := regress.Unmarshal(b[:cut]); err == nil {
				t.Errorf("Unmarshal(%s bytes[:%d]) error nil, want an error", a.Key(), cut)
			}
		}
	}
}

func TestTreeModelsDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(int, int) float64 { return rng.Float64() }
	seq := func(n int, f func(i int) float64) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = f(i)
		}
		return y
	}
	cases := []struct {
		name string
		x    *mat.Dense
		y    []float64
		// flat: nothing to split on, so every prediction is the same (the
		// forest's mean of bootstrap means, the boosting's mean of y).
		flat bool
	}{
		{"constant y", statstest.Dense(50, 3, noise), seq(50, func(int) float64 { return 7.25 }), true},
		{"constant y large", statstest.Dense(50, 3, noise), seq(50, func(int) float64 { return 1e12 + 0.1 }), true},
		{"constant columns", statstest.Dense(60, 4, func(int, int) float64 { return 3 }), seq(60, func(i int) float64 { return float64(i % 7) }), true},
		{"duplicate rows", statstest.Dense(80, 2, func(i, j int) float64 { return float64((i / 8) * (j + 1)) }), seq(80, func(i int) float64 { return float64(i / 8) }), false},
		{"one column", statstest.Dense(100, 1, noise), seq(100, func(i int) float64 { return float64(i) }), false},
		{"ten rows", statstest.Dense(10, 3, noise), seq(10, func(i int) float64 { return float64(i) }), false},
		{"two values", statstest.Dense(40, 2, func(i, j int) float64 { return float64(i % 2) }), seq(40, func(i int) float64 { return float64(i%2) * 5 }), false},
	}
	for _, a := range treeAlgorithms {
		for _, c := range cases {
			m, err := a.Fit(regress.Data{X: c.x, Y: c.y}, regress.Options{Seed: 3, Workers: 2})
			if err != nil {
				t.Errorf("%s.Fit(%s) error %v", a.Key(), c.name, err)
				continue
			}
			p := predictAll(m, c.x)
			lo, hi := slices.Min(c.y), slices.Max(c.y)
			for i, v := range p {
				if math.IsNaN(v) || v < lo-1e-9*math.Abs(lo) || v > hi+1e-9*math.Abs(hi) {
					t.Errorf("%s.Fit(%s).Predict(row %d) = %g, want within [%g, %g]", a.Key(), c.name, i, v, lo, hi)
					break
				}
				if c.flat && v != p[0] {
					t.Errorf("%s.Fit(%s).Predict(row %d) = %g, want %g as row 0", a.Key(), c.name, i, v, p[0])
					break
				}
			}
			if imp := m.Importance(); len(imp) != c.x.RawMatrix().Cols {
				t.Errorf("%s.Fit(%s).Importance() has %d values, want %d", a.Key(), c.name, len(imp), c.x.RawMatrix().Cols)
			}
		}
		if _, err := a.Fit(regress.Data{X: statstest.Dense(9, 2, noise), Y: seq(9, func(i int) float64 { return float64(i) })}, regress.Options{Workers: 1}); !errors.Is(err, regress.ErrTooFewRows) {
			t.Errorf("%s.Fit(9 rows) error %v, want ErrTooFewRows", a.Key(), err)
		}
		if _, err := a.Fit(regress.Data{X: statstest.Dense(20, 2, noise), Y: make([]float64, 19)}, regress.Options{Workers: 1}); err == nil {
			t.Errorf("%s.Fit(20 rows, 19 targets) error nil, want an error", a.Key())
		}
	}
}

func TestTreeModelsConcurrentPredict(t *testing.T) {
	x, y := friedmanHead(t, 300)
	for _, a := range treeAlgorithms {
		m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 1, Workers: 2})
		if err != nil {
			t.Fatalf("%s.Fit error %v", a.Key(), err)
		}
		want := predictAll(m, x)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				// A non-Dense matrix takes the At path.
				var in mat.Matrix = x
				if g%2 == 1 {
					in = x.T().T()
				}
				if got := predictAll(m, in); !slices.Equal(got, want) {
					t.Errorf("%s concurrent Predict differs from serial", a.Key())
				}
			})
		}
		wg.Wait()
	}
}

func FuzzTreeUnmarshal(f *testing.F) {
	x, y := friedmanHead(f, 60)
	for _, a := range treeAlgorithms {
		m, err := a.Fit(regress.Data{X: x, Y: y}, regress.Options{Seed: 1, Workers: 1})
		if err != nil {
			f.Fatal(err)
		}
		b, _ := m.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte("\x03gbm\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := regress.Unmarshal(data)
		if err != nil {
			return // rejecting bytes is fine; panics and endless walks are not
		}
		d := len(m.Importance())
		row := make([]float64, d)
		for j := range row {
			row[j] = float64(j) - 0.5
		}
		m.Predict(mat.NewDense(1, d, row), make([]float64, 1))
	})
}
