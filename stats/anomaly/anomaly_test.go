package anomaly_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/mat"
)

// distinct returns n distinct raw scores in random order.
func distinct(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0))
	s := make([]float64, n)
	for i := range s {
		s[i] = -0.3 - 0.4*float64(i)/float64(n)
	}
	rng.Shuffle(n, func(a, b int) { s[a], s[b] = s[b], s[a] })
	return s
}

// TestThresholdRecorded: the recorded percentAnomalies 184/1831, 15/148
// and 18/178 (MODELLING §8.1) come out of the type-7 10 % quantile with
// the "≤ 0" flag rule, ⌊0.1·(n−1)⌋ + 1 of n rows; and out of a fit on n
// rows. (gonum's stat.Quantile would flag one row fewer, §0.)
func TestThresholdRecorded(t *testing.T) {
	gen := func(n int) *mat.Dense {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		x := mat.NewDense(n, 3, nil)
		for i := range n {
			for j := range 3 {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		return x
	}
	wine, _ := loadCSV(t, "wine")
	for _, c := range []struct {
		n, flagged int
		x          *mat.Dense
	}{{1831, 184, gen(1831)}, {148, 15, gen(148)}, {178, 18, wine}} {
		if k := int(math.Floor(0.1*float64(c.n-1))) + 1; k != c.flagged {
			t.Fatalf("⌊0.1·(%d−1)⌋ + 1 = %d, recorded %d", c.n, k, c.flagged)
		}
		s := distinct(c.n, 7)
		off := anomaly.Threshold(s, false)
		for i := range s {
			s[i] -= off
		}
		if got := anomaly.Flagged(s) * float64(c.n); math.Round(got) != float64(c.flagged) {
			t.Errorf("Threshold on %d distinct scores flags %g rows, want %d", c.n, got, c.flagged)
		}
		for _, a := range anomaly.Algorithms() {
			m, err := a.Fit(c.x, anomaly.Options{Seed: 3, Workers: 2})
			if err != nil {
				t.Fatalf("%s.Fit(%d rows) error %v", a.Key(), c.n, err)
			}
			if got, want := m.PercentAnomalies(), float64(c.flagged)/float64(c.n); got != want {
				t.Errorf("%s.Fit(%d rows).PercentAnomalies() = %g, want %d/%d", a.Key(), c.n, got, c.flagged, c.n)
			}
		}
	}
	// Type 7 at p = 0.1 over 1…10 is 1.9; clean puts the offset just
	// below the minimum.
	one := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	if got := anomaly.Threshold(one, false); math.Abs(got-1.9) > 1e-15 {
		t.Errorf("Threshold(1…10, false) = %g, want 1.9", got)
	}
	if got := anomaly.Threshold(one, true); got >= 1 || got < 1-1e-11 {
		t.Errorf("Threshold(1…10, true) = %.17g, want just below 1", got)
	}
	if !math.IsNaN(anomaly.Threshold(nil, false)) {
		t.Errorf("Threshold(nil) is not NaN")
	}
}

// TestClean: with containsAnomalies false no training row is flagged, and
// a far-away row is.
func TestClean(t *testing.T) {
	x, _ := loadCSV(t, "wine")
	r, c := x.Dims()
	far := mat.NewDense(1, c, nil)
	for j := range c {
		far.Set(0, j, 10*mat.Max(x.ColView(j)))
	}
	for _, a := range anomaly.Algorithms() {
		m, err := a.Fit(x, anomaly.Options{Seed: 1, Workers: 2, Clean: true})
		if err != nil {
			t.Fatalf("%s.Fit error %v", a.Key(), err)
		}
		s := make([]float64, r)
		m.Score(x, s)
		if m.PercentAnomalies() != 0 || slices.Min(s) <= 0 {
			t.Errorf("%s.Fit(clean): PercentAnomalies %g, min anomaly %g, want 0 and > 0", a.Key(), m.PercentAnomalies(), slices.Min(s))
		}
		one := make([]float64, 1)
		m.Score(far, one)
		if one[0] >= 0 {
			t.Errorf("%s.Fit(clean).Score(far row) = %g, want < 0", a.Key(), one[0])
		}
	}
}

// TestDeterministic: the same seed gives the same scores whatever the
// workers; another seed gives other forest scores; concurrent Score calls
// on Dense and non-Dense inputs agree. (Worker independence of the
// multi-chunk kernels is TestCovariance's.)
func TestDeterministic(t *testing.T) {
	x, _ := loadCSV(t, "wine")
	r, _ := x.Dims()
	for _, a := range anomaly.Algorithms() {
		var want []float64
		for _, w := range []int{1, 3, 1} {
			m, err := a.Fit(x, anomaly.Options{Seed: 42, Workers: w})
			if err != nil {
				t.Fatalf("%s.Fit error %v", a.Key(), err)
			}
			s := make([]float64, r)
			m.Score(x, s)
			if want == nil {
				want = s
			} else if !slices.Equal(s, want) {
				t.Errorf("%s.Fit(seed 42, workers %d) scores differ from workers 1", a.Key(), w)
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					var in mat.Matrix = x
					if g%2 == 1 {
						in = x.T().T()
					}
					got := make([]float64, r)
					m.Score(in, got)
					if !slices.Equal(got, s) {
						t.Errorf("%s concurrent Score differs from serial", a.Key())
					}
				})
			}
			wg.Wait()
		}
	}
	m1, _ := anomaly.IsolationForest{}.Fit(x, anomaly.Options{Seed: 1})
	m2, _ := anomaly.IsolationForest{}.Fit(x, anomaly.Options{Seed: 2})
	a, b := make([]float64, r), make([]float64, r)
	m1.Score(x, a)
	m2.Score(x, b)
	if slices.Equal(a, b) {
		t.Errorf("IsolationForest seeds 1 and 2 give identical scores")
	}
}

// wrapped hides an Algorithm's type from FitScores, which then takes its
// generic path (Fit, then Score).
type wrapped struct{ anomaly.Algorithm }

// TestFitScores: FitScores gives the model a.Fit gives and, bit for bit,
// its Score of every training row, whatever the workers; on rows over
// several chunks of both kernels, with full rank and with a column that
// is the sum of two others (the robust fit's projected path).
func TestFitScores(t *testing.T) {
	const n = 17_000 // over one chunk of D2 (16 384 rows)
	rng := rand.New(rand.NewPCG(4, 5))
	full, singular := mat.NewDense(n, 3, nil), mat.NewDense(n, 3, nil)
	for i := range n {
		a, b, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		full.SetRow(i, []float64{a, b + 0.3*a, c})
		singular.SetRow(i, []float64{a, b, a + b})
	}
	if e, err := anomaly.FitMCD(singular, anomaly.Options{Seed: 9}); err != nil || !e.Projected {
		t.Fatalf("the singular rows' robust fit is not projected (error %v)", err)
	}
	for name, x := range map[string]*mat.Dense{"full": full, "singular": singular} {
		algos := anomaly.Algorithms()
		if name == "full" {
			algos = append(algos, wrapped{anomaly.IsolationForest{}})
		}
		for _, a := range algos {
			for _, w := range []int{1, 3} {
				opt := anomaly.Options{Seed: 9, Workers: w}
				m, got, err := anomaly.FitScores(a, x, opt)
				if err != nil {
					t.Fatalf("%s %s: %v", name, a.Key(), err)
				}
				want := make([]float64, n)
				m.Score(x, want)
				if !slices.Equal(got, want) {
					t.Errorf("%s %s, %d workers: FitScores' scores differ from Score", name, a.Key(), w)
				}
				if w > 1 {
					continue // Fit's model does not depend on workers (TestDeterministic)
				}
				ref, err := a.Fit(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				mb, _ := m.MarshalBinary()
				rb, _ := ref.MarshalBinary()
				if !slices.Equal(mb, rb) {
					t.Errorf("%s %s, %d workers: FitScores' model differs from Fit's", name, a.Key(), w)
				}
			}
		}
	}
}

// TestMarshal: a decoded model scores exactly as the original.
func TestMarshal(t *testing.T) {
	x, _ := loadCSV(t, "wine")
	r, _ := x.Dims()
	for _, a := range anomaly.Algorithms() {
		m, err := a.Fit(x, anomaly.Options{Seed: 5, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := anomaly.Unmarshal(b)
		if err != nil {
			t.Fatalf("Unmarshal(%s) error %v", a.Key(), err)
		}
		s1, s2 := make([]float64, r), make([]float64, r)
		m.Score(x, s1)
		got.Score(x, s2)
		if got.Key() != a.Key() || got.Columns() != m.Columns() || got.Offset() != m.Offset() ||
			got.PercentAnomalies() != m.PercentAnomalies() || !slices.Equal(s1, s2) {
			t.Errorf("Unmarshal(%s) differs from the fitted model", a.Key())
		}
		if _, err := anomaly.Unmarshal(b[:len(b)-1]); err == nil {
			t.Errorf("Unmarshal(%s truncated) error nil, want an error", a.Key())
		}
	}
	for _, bad := range [][]byte{nil, {5, 'a'}, []byte("\x03xyz")} {
		if _, err := anomaly.Unmarshal(bad); err == nil {
			t.Errorf("Unmarshal(%q) error nil, want an error", bad)
		}
	}
}

// TestFitEdgeCases: degenerate training data give an error or finite
// scores, never a panic.
func TestFitEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	wide := mat.NewDense(6, 12, nil) // more columns than rows
	for i := range 6 {
		for j := range 12 {
			wide.Set(i, j, rng.NormFloat64())
		}
	}
	constCol := mat.NewDense(40, 3, nil) // a constant column
	oneHot := mat.NewDense(60, 5, nil)   // two numeric columns and a full one-hot block
	oneCol := mat.NewDense(30, 1, nil)
	twoRows := mat.NewDense(2, 2, []float64{0, 1, 2, 5})
	for i := range 60 {
		if i < 40 {
			constCol.SetRow(i, []float64{rng.NormFloat64(), 3, rng.NormFloat64()})
		}
		if i < 30 {
			oneCol.Set(i, 0, rng.NormFloat64())
		}
		oneHot.SetRow(i, []float64{rng.NormFloat64(), rng.NormFloat64(), 0, 0, 0})
		oneHot.Set(i, 2+i%3, 1)
	}
	// Below scikit-learn's 1e-7 no isolation tree splits; the robust
	// distances are scale-free and still work.
	tinyErr := map[string]error{"isolation_forest_anomalies": anomaly.ErrIdentical}
	for _, a := range anomaly.Algorithms() {
		for _, c := range []struct {
			name string
			x    *mat.Dense
			err  error
		}{
			{"nil", nil, anomaly.ErrTooFewRows},
			{"one row", mat.NewDense(1, 3, []float64{1, 2, 3}), anomaly.ErrTooFewRows},
			{"identical rows", mat.NewDense(5, 2, []float64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2}), anomaly.ErrIdentical},
			{"NaN", mat.NewDense(3, 1, []float64{1, math.NaN(), 2}), anomaly.ErrNotFinite},
			{"tiny spread", mat.NewDense(4, 1, []float64{1, 1 + 1e-9, 1, 1 - 1e-9}), tinyErr[a.Key()]},
			{"Inf", mat.NewDense(3, 1, []float64{1, math.Inf(1), 2}), anomaly.ErrNotFinite},
			{"two rows", twoRows, nil},
			{"more columns than rows", wide, nil},
			{"constant column", constCol, nil},
			{"one-hot block", oneHot, nil},
			{"one column", oneCol, nil},
		} {
			m, err := a.Fit(c.x, anomaly.Options{Seed: 1, Workers: 2})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Errorf("%s.Fit(%s) error %v, want %v", a.Key(), c.name, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s.Fit(%s) error %v, want a model", a.Key(), c.name, err)
				continue
			}
			r, _ := c.x.Dims()
			s := make([]float64, r)
			m.Score(c.x, s)
			for i, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s.Fit(%s).Score[%d] = %g, want finite", a.Key(), c.name, i, v)
				}
			}
			if p := m.PercentAnomalies(); !(p > 0 && p <= 1) {
				t.Errorf("%s.Fit(%s).PercentAnomalies() = %g, want in (0, 1]", a.Key(), c.name, p)
			}
		}
	}
}

// FuzzUnmarshal feeds arbitrary bytes to Unmarshal: rejecting is fine;
// panics are not, and a decoded model scores a row without panicking.
func FuzzUnmarshal(f *testing.F) {
	x := mat.NewDense(12, 2, []float64{0, 1, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6, 5, 7, 9, 8, 7, 9, 8, 10, 12, 30, -4})
	for _, a := range anomaly.Algorithms() {
		m, err := a.Fit(x, anomaly.Options{Seed: 1})
		if err != nil {
			f.Fatal(err)
		}
		b, _ := m.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte("\x1cisolation_forest_anomalies\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m, err := anomaly.Unmarshal(data)
		if err != nil {
			return
		}
		c := m.Columns()
		row := make([]float64, c)
		for j := range row {
			row[j] = float64(j) - 0.5
		}
		m.Score(mat.NewDense(1, c, row), make([]float64, 1))
	})
}

// TestUnmarshalCorrupt runs what FuzzUnmarshal checks over systematic
// corruptions of valid encodings (every truncation of the first 200
// bytes, byte flips at every header position and at 500 random
// positions), so the property holds without the fuzzing engine.
func TestUnmarshalCorrupt(t *testing.T) {
	x := mat.NewDense(12, 2, []float64{0, 1, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6, 5, 7, 9, 8, 7, 9, 8, 10, 12, 30, -4})
	rng := rand.New(rand.NewPCG(3, 3))
	try := func(b []byte) {
		m, err := anomaly.Unmarshal(b)
		if err != nil {
			return
		}
		row := make([]float64, m.Columns())
		m.Score(mat.NewDense(1, m.Columns(), row), make([]float64, 1))
	}
	for _, a := range anomaly.Algorithms() {
		m, err := a.Fit(x, anomaly.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.MarshalBinary()
		for i := range min(len(b), 200) {
			try(b[:i])
		}
		pos := make([]int, 0, 600)
		for i := range min(len(b), 100) {
			pos = append(pos, i)
		}
		for range 500 {
			pos = append(pos, rng.IntN(len(b)))
		}
		for _, i := range pos {
			for _, v := range []byte{0, 1, 0x7f, 0xff, b[i] ^ 0x80} {
				c := slices.Clone(b)
				c[i] = v
				try(c)
			}
		}
	}
}

// TestSupportDegenerate: when more than half the rows coincide the robust
// half-sample has no spread; the robust fit fails with ErrSupport and
// the forest still fits.
func TestSupportDegenerate(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	for i := 20; i < 30; i++ {
		x.SetRow(i, []float64{float64(i), float64(i * i % 7)})
	}
	if _, err := (anomaly.RobustMahalanobis{}).Fit(x, anomaly.Options{Seed: 1}); !errors.Is(err, anomaly.ErrSupport) {
		t.Errorf("RobustMahalanobis.Fit(20 of 30 rows equal) error %v, want ErrSupport", err)
	}
	if _, err := (anomaly.IsolationForest{}).Fit(x, anomaly.Options{Seed: 1}); err != nil {
		t.Errorf("IsolationForest.Fit(20 of 30 rows equal) error %v, want a model", err)
	}
}
