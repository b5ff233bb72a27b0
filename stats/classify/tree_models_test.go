package classify_test

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/statstest"
	"gonum.org/v1/gonum/mat"
)

// treeAlgorithms are the tree ensembles the shared tests below cover.
var treeAlgorithms = []classify.Algorithm{classify.RandomForest{}, classify.GradientBoosting{}}

// proba returns m's class probabilities for the rows of x.
func proba(m classify.Model, x mat.Matrix) *mat.Dense {
	n, _ := x.Dims()
	p := mat.NewDense(n, m.Classes(), nil)
	m.Proba(x, p)
	return p
}

// checkProba reports rows of p outside [0, 1] or not summing to 1.
func checkProba(t testing.TB, name string, p *mat.Dense) {
	t.Helper()
	r, k := p.Dims()
	for i := range r {
		var s float64
		for c := range k {
			v := p.At(i, c)
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s.Proba(row %d)[%d] = %g, want in [0, 1]", name, i, c, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("%s.Proba(row %d) sums to %.17g, want 1", name, i, s)
		}
	}
}

func TestTreeModelsRegistered(t *testing.T) {
	var keys []string
	for _, a := range classify.Algorithms() {
		keys = append(keys, a.Key())
	}
	// Ranks 5 and 6 (MODELLING §7.6): after whatever ranks 1…4 hold.
	if n := len(keys); n < 2 || keys[n-2] != "random_forest_classification" || keys[n-1] != "gbm" {
		t.Errorf("Algorithms() keys = %v, want …, random_forest_classification, gbm", keys)
	}
}

func TestTreeModelsProba(t *testing.T) {
	d := loadCSV(t, "wine")
	d.W = balanced(d.Y, d.K)
	bc := loadCSV(t, "breast_cancer")
	for _, a := range treeAlgorithms {
		for _, data := range []classify.Data{d, bc} {
			m, err := a.Fit(data, classify.Options{Seed: 1, Workers: 2})
			if err != nil {
				t.Fatalf("%s.Fit error %v", a.Key(), err)
			}
			if m.Classes() != data.K || m.Key() != a.Key() {
				t.Errorf("%s.Fit: Classes() %d, Key() %q, want %d, %q", a.Key(), m.Classes(), m.Key(), data.K, a.Key())
			}
			want := proba(m, data.X)
			checkProba(t, a.Key(), want)
			if imp := m.Importance(); len(imp) != data.X.RawMatrix().Cols || slices.Max(imp) <= 0 {
				t.Errorf("%s.Importance() = %v, want one positive-summing value a column", a.Key(), imp)
			}
			// Concurrent Proba, on Dense and on a non-Dense view (the At
			// path), agrees with the serial one.
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					var in mat.Matrix = data.X
					if g%2 == 1 {
						in = data.X.T().T()
					}
					if got := proba(m, in); !mat.Equal(got, want) {
						t.Errorf("%s concurrent Proba differs from serial", a.Key())
					}
				})
			}
			wg.Wait()
		}
	}
}

func TestTreeModelsDeterministic(t *testing.T) {
	d := loadCSV(t, "wine")
	for _, a := range treeAlgorithms {
		t.Run(a.Key(), func(t *testing.T) {
			t.Parallel()
			var ps []*mat.Dense
			for _, w := range []int{1, 4, 1} {
				m, err := a.Fit(d, classify.Options{Seed: 42, Workers: w})
				if err != nil {
					t.Fatalf("%s.Fit(workers %d) error %v", a.Key(), w, err)
				}
				ps = append(ps, proba(m, d.X))
			}
			if !mat.Equal(ps[0], ps[1]) || !mat.Equal(ps[0], ps[2]) {
				t.Errorf("%s.Fit(seed 42) probabilities differ between runs with workers 1, 4, 1", a.Key())
			}
		})
	}
}

func TestTreeModelsMarshal(t *testing.T) {
	d := loadCSV(t, "iris")
	for _, a := range treeAlgorithms {
		m, err := a.Fit(d, classify.Options{Seed: 1, Workers: 2})
		if err != nil {
			t.Fatalf("%s.Fit error %v", a.Key(), err)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("%s MarshalBinary error %v", a.Key(), err)
		}
		u, err := classify.Unmarshal(b)
		if err != nil {
			t.Fatalf("Unmarshal(%s bytes) error %v", a.Key(), err)
		}
		if u.Key() != a.Key() || u.Classes() != d.K {
			t.Errorf("Unmarshal(%s bytes): Key() %q, Classes() %d, want %q, %d", a.Key(), u.Key(), u.Classes(), a.Key(), d.K)
		}
		if !mat.Equal(proba(u, d.X), proba(m, d.X)) {
			t.Errorf("Unmarshal(%s bytes).Proba differs from the fitted model's", a.Key())
		}
		if got, want := u.Importance(), m.Importance(); !slices.Equal(got, want) {
			t.Errorf("Unmarshal(%s bytes).Importance() = %v, want %v", a.Key(), got, want)
		}
		// A decoded model refits like the fitted one.
		r1, err1 := m.Refit(d, classify.Options{Seed: 2, Workers: 1})
		r2, err2 := u.Refit(d, classify.Options{Seed: 2, Workers: 1})
		if err1 != nil || err2 != nil {
			t.Fatalf("%s Refit errors %v, %v", a.Key(), err1, err2)
		}
		if !mat.Equal(proba(r1, d.X), proba(r2, d.X)) {
			t.Errorf("%s: Refit of the decoded model differs from Refit of the fitted one", a.Key())
		}
		if _, err := m.Refit(classify.Data{X: d.X, Y: d.Y, K: 4}, classify.Options{Workers: 1}); err == nil {
			t.Errorf("%s.Refit(K 4 for a K 3 model) error nil, want an error", a.Key())
		}
		for _, cut := range []int{len(b) - 1, len(b) / 2, 1 + len(a.Key()) + 1} {
			if _, err := classify.Unmarshal(b[:cut]); err == nil {
				t.Errorf("Unmarshal(%s bytes[:%d]) error nil, want an error", a.Key(), cut)
			}
		}
	}
}

func TestTreeModelsDegenerate(t *testing.T) {
	mod := func(n, k int) []int {
		y := make([]int, n)
		for i := range y {
			y[i] = i % k
		}
		return y
	}
	noise := func(i, j int) float64 { return math.Sin(float64(i*7 + j*13)) }
	cases := []struct {
		name string
		d    classify.Data
		// flat: nothing to split on, so every row gets the same
		// probabilities.
		flat bool
	}{
		{"one class present", classify.Data{X: statstest.Dense(40, 3, noise), Y: make([]int, 40), K: 2}, true},
		{"one class of three", classify.Data{X: statstest.Dense(40, 3, noise), Y: make([]int, 40), K: 3}, true},
		{"constant columns", classify.Data{X: statstest.Dense(60, 4, func(int, int) float64 { return 3 }), Y: mod(60, 3), K: 3}, true},
		{"ten rows", classify.Data{X: statstest.Dense(10, 2, noise), Y: mod(10, 2), K: 2}, false},
		{"duplicate rows", classify.Data{X: statstest.Dense(80, 2, func(i, j int) float64 { return float64((i / 8) * (j + 1)) }), Y: mod(80, 2), K: 2}, false},
		{"separable", classify.Data{X: statstest.Dense(100, 1, func(i, _ int) float64 { return float64(i) }), Y: func() []int {
			y := make([]int, 100)
			for i := 50; i < 100; i++ {
				y[i] = 1
			}
			return y
		}(), K: 2}, false},
		{"tiny weights", classify.Data{X: statstest.Dense(50, 2, noise), Y: mod(50, 2), K: 2, W: slices.Repeat([]float64{1e-9}, 50)}, false},
	}
	for _, a := range treeAlgorithms {
		for _, c := range cases {
			m, err := a.Fit(c.d, classify.Options{Seed: 3, Workers: 2})
			if err != nil {
				t.Errorf("%s.Fit(%s) error %v", a.Key(), c.name, err)
				continue
			}
			p := proba(m, c.d.X)
			checkProba(t, a.Key()+"("+c.name+")", p)
			if c.flat {
				for i := range c.d.Y {
					if !slices.Equal(p.RawRowView(i), p.RawRowView(0)) {
						t.Errorf("%s.Fit(%s).Proba(row %d) = %v, want %v as row 0", a.Key(), c.name, i, p.RawRowView(i), p.RawRowView(0))
						break
					}
				}
			}
		}
		x := statstest.Dense(20, 2, noise)
		for _, c := range []struct {
			name string
			d    classify.Data
		}{
			{"9 rows", classify.Data{X: statstest.Dense(9, 2, noise), Y: mod(9, 2), K: 2}},
			{"19 classes for 20 rows", classify.Data{X: x, Y: mod(19, 2), K: 2}},
			{"K 1", classify.Data{X: x, Y: make([]int, 20), K: 1}},
			{"class out of range", classify.Data{X: x, Y: mod(20, 3), K: 2}},
			{"negative weight", classify.Data{X: x, Y: mod(20, 2), K: 2, W: append(slices.Repeat([]float64{1}, 19), -1)}},
			{"NaN weight", classify.Data{X: x, Y: mod(20, 2), K: 2, W: append(slices.Repeat([]float64{1}, 19), math.NaN())}},
			{"short weights", classify.Data{X: x, Y: mod(20, 2), K: 2, W: []float64{1}}},
			{"nil x", classify.Data{Y: mod(20, 2), K: 2}},
		} {
			_, err := a.Fit(c.d, classify.Options{Workers: 1})
			if err == nil {
				t.Errorf("%s.Fit(%s) error nil, want an error", a.Key(), c.name)
			}
			if c.name == "9 rows" && !errors.Is(err, classify.ErrTooFewRows) {
				t.Errorf("%s.Fit(9 rows) error %v, want ErrTooFewRows", a.Key(), err)
			}
		}
	}
}

func FuzzTreeUnmarshal(f *testing.F) {
	d := loadCSV(f, "iris")
	d = subset(d, []int{0, 1, 2, 3, 4, 50, 51, 52, 53, 54, 100, 101, 102, 103, 104})
	bin := d
	bin.K, bin.Y = 2, slices.Clone(d.Y)
	for i := range bin.Y {
		bin.Y[i] = min(bin.Y[i], 1)
	}
	for _, a := range treeAlgorithms {
		for _, data := range []classify.Data{d, bin} {
			m, err := a.Fit(data, classify.Options{Seed: 1, Workers: 1})
			if err != nil {
				f.Fatal(err)
			}
			b, _ := m.MarshalBinary()
			f.Add(b)
		}
	}
	f.Add([]byte("\x03gbm\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m, err := classify.Unmarshal(data)
		if err != nil {
			return // rejecting bytes is fine; panics and endless walks are not
		}
		c := len(m.Importance())
		row := make([]float64, c)
		for j := range row {
			row[j] = float64(j) - 0.5
		}
		var p mat.Dense
		m.Proba(mat.NewDense(1, c, row), &p)
	})
}
