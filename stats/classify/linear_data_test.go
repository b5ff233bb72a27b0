package classify_test

import (
	"encoding/csv"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
)

// Shared fixtures of the logistic, naive Bayes and k-NN tests.

// linLoad reads testdata/<name>.csv (copies of iris, wine and
// breast_cancer from the shared data, UCI, CC BY 4.0): every column but
// the last is a feature; the last is the class, coded 0..K−1 in sorted
// label order as reference_linear.py (np.unique) and the engine
// (MODELLING §7.1) do.
func linLoad(tb testing.TB, name string) classify.Data {
	tb.Helper()
	f, err := os.Open("testdata/" + name + ".csv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	recs = recs[1:]
	p := len(recs[0]) - 1
	var labels []string
	for _, r := range recs {
		labels = append(labels, r[p])
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	d := classify.Data{X: mat.NewDense(len(recs), p, nil), Y: make([]int, len(recs)), K: len(labels)}
	for i, r := range recs {
		for j := range p {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				tb.Fatal(err)
			}
			d.X.Set(i, j, v)
		}
		d.Y[i], _ = slices.BinarySearch(labels, r[p])
	}
	return d
}

// linSplit splits d as reference_linear.py does: rows whose index is a
// multiple of 4 test, the others train.
func linSplit(d classify.Data) (train, test classify.Data) {
	var tr, te []int
	for i := range d.Y {
		if i%4 == 0 {
			te = append(te, i)
		} else {
			tr = append(tr, i)
		}
	}
	return linRows(d, tr), linRows(d, te)
}

// linRows returns the given rows of d.
func linRows(d classify.Data, rows []int) classify.Data {
	_, p := d.X.Dims()
	out := classify.Data{X: mat.NewDense(len(rows), p, nil), Y: make([]int, len(rows)), K: d.K}
	if d.W != nil {
		out.W = make([]float64, len(rows))
	}
	for i, r := range rows {
		out.X.SetRow(i, d.X.RawRowView(r))
		out.Y[i] = d.Y[r]
		if d.W != nil {
			out.W[i] = d.W[r]
		}
	}
	return out
}

// linBalance returns d with the balance weights of MODELLING §7.5,
// w_k = n / (K·n_k).
func linBalance(d classify.Data) classify.Data {
	count := make([]float64, d.K)
	for _, c := range d.Y {
		count[c]++
	}
	d.W = make([]float64, len(d.Y))
	for i, c := range d.Y {
		d.W[i] = float64(len(d.Y)) / (float64(d.K) * count[c])
	}
	return d
}

// linProba returns m's class probabilities for the rows of x.
func linProba(m classify.Model, x mat.Matrix) *mat.Dense {
	n, _ := x.Dims()
	p := mat.NewDense(n, m.Classes(), nil)
	m.Proba(x, p)
	return p
}

// linClose reports |got − want| ≤ tol·max(1, |want|).
func linClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// linRelClose reports |got − want| ≤ tol·|want| (or both below 1e-300).
func linRelClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want) || (math.Abs(got) < 1e-300 && math.Abs(want) < 1e-300)
}

// linCVFolds assigns the j-th row of each class to fold j mod 5, the
// unshuffled stratified folds of reference_linear.py.
func linCVFolds(y []int, k int) []int {
	seen := make([]int, k)
	fold := make([]int, len(y))
	for i, c := range y {
		fold[i] = seen[c] % 5
		seen[c]++
	}
	return fold
}

// linCheckProba fails unless every entry of p is in [0, 1] and every row
// sums to 1 within 1e-12.
func linCheckProba(tb testing.TB, name string, p *mat.Dense) {
	tb.Helper()
	r, c := p.Dims()
	for i := range r {
		var s float64
		for j := range c {
			v := p.At(i, j)
			if !(v >= 0 && v <= 1) {
				tb.Fatalf("%s: Proba row %d = %v, want entries in [0, 1]", name, i, p.RawRowView(i))
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			tb.Fatalf("%s: Proba row %d sums to %v, want 1", name, i, s)
		}
	}
}

// linDatasets are the reference data sets.
var linDatasets = []string{"iris", "wine", "breast_cancer"}
