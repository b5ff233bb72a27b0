package regress_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/regress"
)

// wordsData is a small text-like training set: two dense columns (one far
// from zero, so that the implicit centring matters) and `words` word
// columns of TF-IDF-like non-negative values, about 10 of them non-zero a
// row, the target a linear function of both plus noise. It returns the
// split form (X and Words) and the same rows as one dense matrix.
func wordsData(n, words int, seed uint64) (split regress.Data, dense *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(n, 2, nil)
	csr := stats.NewCSR(n, words, 0)
	full := mat.NewDense(n, 2+words, nil)
	effect := make([]float64, words)
	for j := range effect {
		effect[j] = rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := range n {
		x.Set(i, 0, 1000+5*rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		present := make([]bool, words)
		for range 10 {
			present[rng.IntN(words)] = true
		}
		var cols []int32
		var vals []float64
		for j, ok := range present {
			if ok {
				cols, vals = append(cols, int32(j)), append(vals, 0.1+rng.Float64())
			}
		}
		csr.AppendRow(cols, vals)
		full.Set(i, 0, x.At(i, 0))
		full.Set(i, 1, x.At(i, 1))
		y[i] = 0.3*x.At(i, 0) - 2*x.At(i, 1) + rng.NormFloat64()
		for u, j := range cols {
			full.Set(i, 2+int(j), vals[u])
			y[i] += 3 * effect[j] * vals[u]
		}
	}
	return regress.Data{X: x, Words: csr, Y: y}, full
}

// predictOf fits a on d and returns its predictions of x.
func predictOf(t *testing.T, a regress.Algorithm, d regress.Data, x mat.Matrix) (regress.Model, []float64) {
	t.Helper()
	m, err := a.Fit(d, regress.Options{Seed: 3, Workers: 2})
	if err != nil {
		t.Fatalf("%s: %v", a.Key(), err)
	}
	r, _ := x.Dims()
	p := make([]float64, r)
	m.Predict(x, p)
	return m, p
}

// relDiff is max|a − b| / max|b|.
func relDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
		s = max(s, math.Abs(b[i]))
	}
	return d / s
}

// Every algorithm fitted on the words as a CSR block gives the model of
// its fit on the same rows as one dense matrix (below
// stats.MaxDenseWords words nothing is bounded): OLS and ridge (the Gram's
// eigendecomposition against the SVD of the rows) to 1e-9 relative, lasso
// (coordinate descent on Grams equal up to rounding) to 1e-6, the bounded
// families exactly. The model reads both the split rows and dense ones,
// survives a round trip through its bytes, rejects every truncation of
// them, and refits on a fold's split rows.
func TestWordsMatchDense(t *testing.T) {
	split, full := wordsData(400, 60, 1)
	dense := regress.Data{X: full, Y: split.Y}
	xs := stats.NewSparseMatrix(split.X, split.Words)
	for _, a := range regress.Algorithms() {
		t.Run(a.Key(), func(t *testing.T) {
			dm, want := predictOf(t, a, dense, full)
			m, got := predictOf(t, a, split, xs)
			tol := 0.0
			switch a.Key() {
			case "ols", "ridge":
				tol = 1e-9
			case "lasso":
				tol = 1e-6
			case "random_forest": // candidates in another order: forest_words_test.go
				tol = math.Inf(1)
			case "gbm":
				// Boosting bins a word column into at most
				// tree.WordBins bins, a dense one into 255: another
				// model by design. With 255 bins a word it matches the
				// dense fit to 1e-12 (TestGBMWordsMatchDense); here
				// only the reading of rows and the bytes are tested.
				tol = math.Inf(1)
			}
			d := relDiff(got, want)
			if d > tol {
				t.Fatalf("split-block predictions differ from the dense fit's by %g relative (tolerance %g)", d, tol)
			}
			t.Logf("predictions within %g of the dense fit's, relative", d)
			if lm, ok := m.(*regress.LinearModel); ok {
				dl := dm.(*regress.LinearModel)
				if math.Abs(lm.Alpha()-dl.Alpha()) > tol*dl.Alpha() {
					t.Fatalf("α %g, the dense fit's %g", lm.Alpha(), dl.Alpha())
				}
				if d := relDiff(lm.Coefficients(), dl.Coefficients()); d > tol {
					t.Fatalf("coefficients differ from the dense fit's by %g relative (tolerance %g)", d, tol)
				}
			}
			again := make([]float64, 400)
			m.Predict(full, again)
			if d := relDiff(again, got); d > 1e-12 {
				t.Fatalf("the model reads dense rows differently from split ones: %g", d)
			}
			if imp := m.Importance(); imp != nil && len(imp) != 62 {
				t.Fatalf("importance of %d columns, want 62", len(imp))
			}
			blob, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			back, err := regress.Unmarshal(blob)
			if err != nil {
				t.Fatal(err)
			}
			if back.Key() != a.Key() {
				t.Fatalf("decoded key %s", back.Key())
			}
			back.Predict(xs, again)
			for i := range got {
				if again[i] != got[i] {
					t.Fatalf("round trip changed prediction %d: %v, was %v", i, again[i], got[i])
				}
			}
			for cut := 0; cut < len(blob); cut += 1 + cut/64 { // every cut of the header, then sparser
				if _, err := regress.Unmarshal(blob[:cut]); err == nil {
					t.Fatalf("%d of %d bytes decoded without an error", cut, len(blob))
				}
			}
			var fold []int
			for r := range 400 {
				if r%5 != 0 {
					fold = append(fold, r)
				}
			}
			sub := xs.SelectRows(fold)
			fd := regress.Data{X: sub.Dense, Words: sub.Words}
			for _, r := range fold {
				fd.Y = append(fd.Y, split.Y[r])
			}
			r, err := m.Refit(fd, regress.Options{Seed: 3, Workers: 1})
			if err != nil {
				t.Fatalf("refit on a fold's split rows: %v", err)
			}
			r.Predict(xs, again)
			if relDiff(again, got) > 0.5 {
				t.Fatalf("the refit on 80 %% of the rows predicts them unlike the fit: %g", relDiff(again, got))
			}
		})
	}
}

// Rows of words alone (no dense column) fit and predict in every family.
func TestWordsOnly(t *testing.T) {
	split, _ := wordsData(200, 40, 4)
	split.X = nil
	xs := stats.NewSparseMatrix(nil, split.Words)
	for _, a := range regress.Algorithms() {
		_, got := predictOf(t, a, split, xs)
		for i, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: prediction %d = %v", a.Key(), i, v)
			}
		}
	}
}

// Every family with an importance reads words past stats.MaxDenseWords,
// which a bounded block kept at most: some of the 86 words j ≡ 0 (mod 7),
// which a bounded block of the 500 best by an importance of j mod 7
// would have left out, get importance (k-NN has none; boosting's few
// early-stopped trees on 300 rows split on few words, and
// TestGBMWordsMatchDense shows it splitting past the 500th word).
func TestWordsEveryWord(t *testing.T) {
	split, _ := wordsData(300, 600, 2)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	for _, a := range regress.Algorithms() {
		m, _ := predictOf(t, a, split, xs)
		got := m.Importance()
		if got == nil || a.Key() == "gbm" {
			continue
		}
		if len(got) != 602 {
			t.Fatalf("%s: importance of %d columns, want 602", a.Key(), len(got))
		}
		low := 0
		for j, v := range got[2:] {
			if v != 0 && j%7 == 0 {
				low++
			}
		}
		if low == 0 {
			t.Fatalf("%s read none of the words a bounded block would leave out", a.Key())
		}
	}
}

// Collinear words (word 1 a copy of word 0 in every row, so the Gram is
// singular) lose one direction to the Gram's cut-off: OLS and ridge still
// predict the training rows as their dense fits do (the dense OLS from
// its SVD; the solutions differ only in how the copies share the
// effect), and the copies get equal coefficients (minimum norm on the
// standardised scale).
func TestWordsCollinear(t *testing.T) {
	split, full := wordsData(300, 30, 5)
	b := stats.NewCSR(300, 30, 0)
	for i := range 300 {
		cols, vals := split.Words.Row(i)
		var c []int32
		var v []float64
		w0 := full.At(i, 2)
		for k, j := range cols {
			switch {
			case j == 1:
			case j == 0:
				c, v = append(c, 0, 1), append(v, vals[k], vals[k])
			default:
				c, v = append(c, j), append(v, vals[k])
			}
		}
		b.AppendRow(c, v) // word 1 where word 0 is, and only there
		full.Set(i, 3, w0)
	}
	split.Words = b
	xs := stats.NewSparseMatrix(split.X, split.Words)
	for _, a := range []regress.Algorithm{regress.OLS{}, regress.Ridge{}} {
		_, want := predictOf(t, a, regress.Data{X: full, Y: split.Y}, full)
		m, got := predictOf(t, a, split, xs)
		if d := relDiff(got, want); d > 1e-9 {
			t.Errorf("%s: collinear words predict %g relative from the dense fit", a.Key(), d)
		}
		c := m.(*regress.LinearModel).Coefficients()
		if math.Abs(c[2]-c[3]) > 1e-9*math.Abs(c[2]) {
			t.Errorf("%s: copies' coefficients %g and %g, want equal", a.Key(), c[2], c[3])
		}
	}
}

// oldBounded is inner, fitted on the bounded block of 2 dense columns and
// the given words out of 600, framed and decoded as the bounded models
// earlier stops saved (stats.MarshalBounded): the old forests, boosting
// and k-NN models must still decode and predict. It returns the bytes too.
func oldBounded(t *testing.T, inner regress.Model, words []int) (regress.Model, []byte) {
	t.Helper()
	blob, err := stats.MarshalBounded(stats.Bounded{Width: 602, Dense: 2, Words: words}, inner)
	if err != nil {
		t.Fatal(err)
	}
	m, err := regress.Unmarshal(blob)
	if err != nil {
		t.Fatal(err)
	}
	return m, blob
}
