package classify_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
)

// TestNaiveBayesMatchesSklearn compares the probabilities of the first
// four test rows with scikit-learn 1.2.1's GaussianNB() (var_smoothing
// 1e-9), unweighted and with balance weights as sample_weight
// (reference_linear.py). Tolerance 1e-9 relative: both compute the same
// sums in a different order, and the smallest probabilities (1e-150) are
// exponentials of log-odds of a few hundred whose last bits differ.
func TestNaiveBayesMatchesSklearn(t *testing.T) {
	for _, name := range linDatasets {
		train, test := linSplit(loadCSV(t, name))
		x4 := test.X.Slice(0, 4, 0, test.X.RawMatrix().Cols)
		for _, weighted := range []bool{false, true} {
			d, ref := train, name+".nb.proba"
			if weighted {
				d, ref = linBalance(train), name+".nbw.proba"
			}
			m, err := classify.NaiveBayes{}.Fit(d, classify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := proba(m, x4).RawMatrix().Data
			for i, want := range linRef[ref] {
				if !linRelClose(got[i], want, 1e-9) {
					t.Errorf("%s: NaiveBayes proba[%d] = %v, want %v", ref, i, got[i], want)
				}
			}
			checkProba(t, ref, proba(m, test.X))
		}
	}
}

// TestNaiveBayesDegenerate fits constant columns, a single row and a class
// with no rows: no error, no NaN, and the empty class gets probability 0.
func TestNaiveBayesDegenerate(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 5, 1, 5, 1, 5, 1, 5})
	d := classify.Data{X: x, Y: []int{0, 0, 1, 0}, K: 3}
	m, err := classify.NaiveBayes{}.Fit(d, classify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := proba(m, x)
	checkProba(t, "constant columns", p)
	if got := p.RawRowView(0); !linClose(got[0], 0.75, 1e-12) || !linClose(got[1], 0.25, 1e-12) || got[2] != 0 {
		t.Errorf("NaiveBayes(constant columns) proba = %v, want the priors [0.75 0.25 0]", got)
	}
	one := classify.Data{X: mat.NewDense(1, 2, []float64{3, 4}), Y: []int{1}, K: 2}
	m, err = classify.NaiveBayes{}.Fit(one, classify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkProba(t, "one row", proba(m, mat.NewDense(2, 2, []float64{3, 4, -1e6, 1e6})))
}
