package classify_test

import (
	"math"

	"github.com/vaticml/vatic/stats/classify"
)

// Shared fixtures of the logistic, naive Bayes and k-NN tests (the data
// loader, subset, balance weights and probability checks they share with
// the tree tests are in tree_data_test.go and tree_models_test.go).

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
	return subset(d, tr), subset(d, te)
}

// linBalance returns d with the balance weights of MODELLING §7.5.
func linBalance(d classify.Data) classify.Data {
	d.W = balanced(d.Y, d.K)
	return d
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

// linDatasets are the reference data sets.
var linDatasets = []string{"iris", "wine", "breast_cancer"}
