package classify_test

import (
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/classify"
)

// TestKNNMatchesSklearn compares with scikit-learn 1.2.1's
// KNeighborsClassifier(algorithm="brute") on the same standardised columns
// (reference_linear.py): the uniform 5-NN vote counts of every test row
// exactly, and the 10-NN distance-weighted probabilities of the first four
// test rows to 1e-12 (scikit-learn computes distances as
// ‖a‖² + ‖b‖² − 2a·b, we sum squared differences).
func TestKNNMatchesSklearn(t *testing.T) {
	for _, name := range linDatasets {
		train, test := linSplit(loadCSV(t, name))
		m, err := classify.FitKNNAt(train, 5, false)
		if err != nil {
			t.Fatal(err)
		}
		p := proba(m, test.X)
		checkProba(t, name, p)
		want := linRefVotes[name]
		var got []byte
		for _, v := range p.RawMatrix().Data {
			got = append(got, byte('0'+int(v*5+0.5)))
		}
		if string(got) != want {
			t.Errorf("%s: 5-NN votes = %s, want %s", name, got, want)
		}
		for i, v := range p.RawMatrix().Data {
			if float64(int(v*5+0.5))/5 != v {
				t.Errorf("%s: 5-NN proba[%d] = %v, want a multiple of 1/5 exactly", name, i, v)
				break
			}
		}
		md, err := classify.FitKNNAt(train, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		x4 := test.X.Slice(0, 4, 0, test.X.RawMatrix().Cols)
		linCompare(t, name+" 10-NN distance-weighted", proba(md, x4).RawMatrix().Data, linRef[name+".knn10d.proba"], 1e-12)
	}
}

// TestKNNCrossValidation checks the chosen hyper-parameters come from the
// grid and do not depend on the worker count.
func TestKNNCrossValidation(t *testing.T) {
	train, test := linSplit(loadCSV(t, "wine"))
	m1, err := classify.KNN{}.Fit(train, classify.Options{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := classify.KNN{}.Fit(train, classify.Options{Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	k := m1.(*classify.KNNModel)
	if !slices.Contains([]int{3, 5, 10, 20}, k.K()) {
		t.Errorf("KNN.Fit(wine).K() = %d, want one of 3, 5, 10, 20", k.K())
	}
	if !slices.Equal(proba(m1, test.X).RawMatrix().Data, proba(m2, test.X).RawMatrix().Data) {
		t.Errorf("KNN.Fit(seed 3) with 1 and 2 workers predict differently")
	}
}

// TestKNNBalanceWeightsVotes checks that balance weights scale the votes:
// with 10 setosa rows of weight 1 and 5 versicolor rows of weight 3 all
// voting (k = 15), p(versicolor) = 15/25.
func TestKNNBalanceWeightsVotes(t *testing.T) {
	d := loadCSV(t, "iris")
	rows := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 50, 51, 52, 53, 54} // 10 setosa, 5 versicolor
	sub := subset(d, rows)
	sub.W = make([]float64, len(rows))
	for i, c := range sub.Y {
		sub.W[i] = 1
		if c == 1 {
			sub.W[i] = 3
		}
	}
	m, err := classify.FitKNNAt(sub, 15, false) // every row votes
	if err != nil {
		t.Fatal(err)
	}
	p := proba(m, sub.X.Slice(0, 1, 0, 4))
	if got := p.At(0, 1); !linClose(got, 15.0/25, 1e-15) {
		t.Errorf("weighted 15-NN p(versicolor) = %v, want 15/25", got)
	}
}
