package classify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// mnbRef is testdata/reference_multinomial_nb.json, written by
// reference_multinomial_nb.py (scikit-learn 1.2.1); see the script for
// the data and the keys of Proba.
type mnbRef struct {
	Sklearn string               `json:"sklearn"`
	Cols    int                  `json:"cols"`
	Used    []int                `json:"used"`
	X       []float64            `json:"x"`
	Y       []int                `json:"y"`
	W       []float64            `json:"w"`
	TestX   []float64            `json:"test_x"`
	Proba   map[string][]float64 `json:"proba"`
}

// loadMNBRef reads the reference and returns it with its training set
// (unit weights) and test rows.
func loadMNBRef(tb testing.TB) (mnbRef, classify.Data, *mat.Dense) {
	tb.Helper()
	b, err := os.ReadFile("testdata/reference_multinomial_nb.json")
	if err != nil {
		tb.Fatal(err)
	}
	var ref mnbRef
	if err := json.Unmarshal(b, &ref); err != nil {
		tb.Fatal(err)
	}
	d := classify.Data{X: mat.NewDense(len(ref.Y), ref.Cols, ref.X), Y: ref.Y, K: 3}
	return ref, d, mat.NewDense(len(ref.TestX)/ref.Cols, ref.Cols, ref.TestX)
}

// TestMultinomialNBMatchesSklearn compares the probabilities of every test
// row with scikit-learn's MultinomialNB(alpha, fit_prior=True) at α = 1
// and 0.1, unweighted and with sample weights, fitted there on the
// columns with no negative value (column 6 has some, and the Go model is
// given it). Tolerance 1e-10 relative: the same sums in another order.
func TestMultinomialNBMatchesSklearn(t *testing.T) {
	ref, d, test := loadMNBRef(t)
	for key, want := range ref.Proba {
		t.Run(key, func(t *testing.T) {
			fit := d
			alphaText, weighted := strings.CutSuffix(key, "w")
			if weighted {
				fit.W = ref.W
			}
			alpha, err := strconv.ParseFloat(alphaText, 64)
			if err != nil {
				t.Fatal(err)
			}
			m, err := classify.FitMultinomialNBAt(fit, alpha)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Columns(); !slices.Equal(got, ref.Used) {
				t.Errorf("Columns() = %v, want %v", got, ref.Used)
			}
			got := proba(m, test).RawMatrix().Data
			for i, w := range want {
				if !linRelClose(got[i], w, 1e-10) {
					t.Errorf("proba[%d] = %v, want %v (scikit-learn %s)", i, got[i], w, ref.Sklearn)
				}
			}
			checkProba(t, key, proba(m, test))
		})
	}
}

// TestMultinomialNBLineup checks that multinomial naive Bayes is the text
// line-up and not the default one, its key and name, and that the searched
// fit gives valid probabilities, round-trips through MarshalBinary and
// Unmarshal, and answers Proba concurrently (run with -race).
func TestMultinomialNBLineup(t *testing.T) {
	var keys []string
	for _, a := range classify.TextAlgorithms() {
		keys = append(keys, a.Key())
	}
	if !slices.Equal(keys, []string{"multinomial_naive_bayes"}) {
		t.Errorf("TextAlgorithms() keys = %v, want [multinomial_naive_bayes]", keys)
	}
	for _, a := range classify.Algorithms() {
		if a.Key() == "multinomial_naive_bayes" {
			t.Error("Algorithms() holds multinomial_naive_bayes, want it only in TextAlgorithms()")
		}
	}
	a := classify.MultinomialNB{}
	if a.Name() != "Multinomial Naive Bayes" || a.Scaled() {
		t.Errorf("Name, Scaled = %q, %v, want %q, false", a.Name(), a.Scaled(), "Multinomial Naive Bayes")
	}
	ref, d, test := loadMNBRef(t)
	d.W = ref.W
	m, err := a.Fit(d, classify.Options{Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Key() != "multinomial_naive_bayes" || m.Classes() != d.K || m.Importance() != nil {
		t.Errorf("Fit: Key, Classes, Importance = %q, %d, %v, want multinomial_naive_bayes, %d, nil", m.Key(), m.Classes(), m.Importance(), d.K)
	}
	if alpha := m.(*classify.MultinomialNBModel).Alpha(); !slices.Contains([]float64{1, 0.3, 0.1, 0.03, 0.01}, alpha) {
		t.Errorf("Fit chose α = %v, want one of the grid", alpha)
	}
	if one, err := a.Fit(d, classify.Options{Seed: 1, Workers: 1}); err != nil || !bytes.Equal(marshal(t, one), marshal(t, m)) {
		t.Errorf("Fit with 1 worker differs from Fit with 2 (error %v)", err)
	}
	prob := proba(m, test)
	checkProba(t, "multinomial_naive_bayes", prob)
	if f1 := stats.ClassificationMetrics(d.Y, classify.Predict(proba(m, d.X)), d.K, nil)[stats.MacroAverageF1Score]; f1 < 0.8 {
		t.Errorf("training macro-F1 = %v, want ≥ 0.8", f1)
	}
	b := marshal(t, m)
	u, err := classify.Unmarshal(b)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !mat.Equal(proba(u, test), prob) {
		t.Error("decoded model gives different probabilities")
	}
	if !bytes.Equal(marshal(t, u), b) {
		t.Error("decoded model re-encodes differently")
	}
	done := make(chan bool)
	for range 4 {
		go func() { done <- mat.Equal(proba(m, test), prob) }()
	}
	for range 4 {
		if !<-done {
			t.Error("concurrent Proba differs")
		}
	}
}

// TestMultinomialNBNegativeColumns adds a column with negative training
// values: the fit (searched and at fixed α) ignores it, so it predicts as
// the fit without it, whatever the column holds in the rows predicted;
// the refit keeps α and again uses only the non-negative columns.
func TestMultinomialNBNegativeColumns(t *testing.T) {
	_, d, test := loadMNBRef(t)
	n, p := d.X.Dims()
	keep := []int{0, 1, 2, 3, 4, 5, 7, 8} // column 6 has negative values
	narrow := func(x *mat.Dense) *mat.Dense {
		r, _ := x.Dims()
		out := mat.NewDense(r, len(keep), nil)
		for i := range r {
			for u, j := range keep {
				out.Set(i, u, x.At(i, j))
			}
		}
		return out
	}
	without := classify.Data{X: narrow(d.X), Y: d.Y, K: d.K}
	opt := classify.Options{Seed: 3, Workers: 1}
	m, err := classify.MultinomialNB{}.Fit(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := classify.MultinomialNB{}.Fit(without, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.(*classify.MultinomialNBModel).Columns(), keep; !slices.Equal(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
	scrambled := mat.DenseCopyOf(test)
	r, _ := scrambled.Dims()
	for i := range r {
		scrambled.Set(i, 6, float64(i*i)-50)
	}
	if want := proba(ref, narrow(test)); !mat.Equal(proba(m, test), want) || !mat.Equal(proba(m, scrambled), want) {
		t.Errorf("fit with the negative column predicts differently from the fit without it")
	}
	// A refit on rows where column 6 is non-negative uses it.
	pos := mat.DenseCopyOf(d.X)
	for i := range n {
		pos.Set(i, 6, float64(i%3))
	}
	re, err := m.Refit(classify.Data{X: pos, Y: d.Y, K: d.K}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := re.(*classify.MultinomialNBModel).Columns(); len(got) != p {
		t.Errorf("Refit on non-negative rows uses columns %v, want all %d", got, p)
	}
}

// TestMultinomialNBNoCountColumns: when every column has a negative
// training value the fit, the fixed-α fit and a refit fail with
// ErrNoCountColumns; below 10 rows the search fails with ErrTooFewRows.
func TestMultinomialNBNoCountColumns(t *testing.T) {
	_, d, _ := loadMNBRef(t)
	neg := mat.DenseCopyOf(d.X)
	n, p := neg.Dims()
	for j := range p {
		neg.Set(j%n, j, -1)
	}
	bad := classify.Data{X: neg, Y: d.Y, K: d.K}
	if _, err := (classify.MultinomialNB{}).Fit(bad, classify.Options{}); !errors.Is(err, classify.ErrNoCountColumns) {
		t.Errorf("Fit(every column negative somewhere) error %v, want ErrNoCountColumns", err)
	}
	if _, err := classify.FitMultinomialNBAt(bad, 1); !errors.Is(err, classify.ErrNoCountColumns) {
		t.Errorf("fit at α = 1 error %v, want ErrNoCountColumns", err)
	}
	m, err := classify.FitMultinomialNBAt(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Refit(bad, classify.Options{}); !errors.Is(err, classify.ErrNoCountColumns) {
		t.Errorf("Refit(every column negative somewhere) error %v, want ErrNoCountColumns", err)
	}
	few := subset(d, []int{0, 1, 2, 3, 4, 5, 6, 7, 8})
	if _, err := (classify.MultinomialNB{}).Fit(few, classify.Options{}); !errors.Is(err, classify.ErrTooFewRows) {
		t.Errorf("Fit(9 rows) error %v, want ErrTooFewRows", err)
	}
	if _, err := m.Refit(classify.Data{X: d.X, Y: d.Y, K: 4}, classify.Options{}); err == nil {
		t.Error("Refit with 4 classes for a 3-class model succeeded, want an error")
	}
}

// TestMultinomialNBWeights: integer weights act as repeated rows (the fit
// at fixed α on the rows weighted 1, 2 or 3 equals the unweighted fit on
// the rows repeated that often), and a class with no rows gets
// probability 0.
func TestMultinomialNBWeights(t *testing.T) {
	_, d, test := loadMNBRef(t)
	n, _ := d.X.Dims()
	w := make([]float64, n)
	var rows []int
	for i := range n {
		w[i] = float64(1 + i%3)
		for range 1 + i%3 {
			rows = append(rows, i)
		}
	}
	weighted, err := classify.FitMultinomialNBAt(classify.Data{X: d.X, Y: d.Y, K: d.K, W: w}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	repeated, err := classify.FitMultinomialNBAt(subset(d, rows), 0.3)
	if err != nil {
		t.Fatal(err)
	}
	unit, err := classify.FitMultinomialNBAt(d, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	got, want := proba(weighted, test), proba(repeated, test)
	if !mat.EqualApprox(got, want, 1e-12) {
		t.Errorf("weighted fit proba %v, want the repeated rows' %v", mat.Formatted(got), mat.Formatted(want))
	}
	if mat.EqualApprox(got, proba(unit, test), 1e-3) {
		t.Error("weighted fit predicts as the unweighted one, want the weights to matter")
	}
	four, err := classify.FitMultinomialNBAt(classify.Data{X: d.X, Y: d.Y, K: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p4 := proba(four, test)
	checkProba(t, "empty class", p4)
	if c := mat.Col(nil, 3, p4); slices.Max(c) != 0 {
		t.Errorf("class with no rows has probabilities %v, want 0", c)
	}
}

// FuzzMultinomialNBUnmarshal feeds arbitrary payloads under the key:
// decoding may fail but must not panic; what decodes re-encodes to the
// same bytes and answers Proba with valid probabilities or a panic of
// its own (wrong width), never a runtime error.
func FuzzMultinomialNBUnmarshal(f *testing.F) {
	_, d, _ := loadMNBRef(f)
	m, err := classify.FitMultinomialNBAt(d, 0.1)
	if err != nil {
		f.Fatal(err)
	}
	const key = "multinomial_naive_bayes"
	b, err := m.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[1+len(key):])
	f.Fuzz(func(t *testing.T, payload []byte) {
		if len(payload) > 1<<16 {
			return // keep allocations bounded
		}
		data := append([]byte{byte(len(key))}, key...)
		data = append(data, payload...)
		u, err := classify.Unmarshal(data)
		if err != nil {
			return
		}
		if b, err := u.MarshalBinary(); err != nil || !bytes.Equal(b, data) {
			t.Errorf("Unmarshal(payload).MarshalBinary() = %x, %v, want the input", b, err)
		}
		if u.Classes() > 1<<10 {
			return
		}
		for _, cols := range []int{1, 9} {
			func() {
				defer func() {
					if r, ok := recover().(runtime.Error); ok {
						t.Errorf("decoded model: Proba of %d columns: %v", cols, r)
					}
				}()
				x := mat.NewDense(2, cols, nil)
				x.Set(1, 0, 1)
				checkProba(t, "decoded", proba(u, x))
			}()
		}
	})
}
