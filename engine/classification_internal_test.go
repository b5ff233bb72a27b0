package engine

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/contest"
)

func TestClassOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"10", "2", "7", "-1.5"}, []string{"-1.5", "2", "7", "10"}},
		{[]string{"b", "B", "a", "10"}, []string{"10", "B", "a", "b"}},
		{[]string{"true", "false"}, []string{"false", "true"}},
		{[]string{"1", "1.0", "NaN"}, []string{"1", "1.0", "NaN"}}, // NaN is not a number here: ordinal order
	} {
		got := slices.Clone(c.in)
		classOrder(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("classOrder(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestStratifiedSplit: round(0.2·n_c) test rows per class, at least one,
// reproducible from the seed (MODELLING §5.2; titanic's 1097 + 684 rows
// give the recorded 219 + 137 = 356).
func TestStratifiedSplit(t *testing.T) {
	var y []int
	for range 1097 {
		y = append(y, 0)
	}
	for range 684 {
		y = append(y, 1)
	}
	y = append(y, 2, 2) // a class of two rows still gets a test row
	train, test := stratifiedSplit(7, y, 3)
	counts := make([]int, 3)
	for _, p := range test {
		counts[y[p]]++
	}
	if !slices.Equal(counts, []int{219, 137, 1}) || len(train)+len(test) != len(y) {
		t.Errorf("test counts = %v (%d train), want [219 137 1]", counts, len(train))
	}
	train2, test2 := stratifiedSplit(7, y, 3)
	if !slices.Equal(train, train2) || !slices.Equal(test, test2) {
		t.Error("the split is not reproducible")
	}
	if _, test3 := stratifiedSplit(8, y, 3); slices.Equal(test, test3) {
		t.Error("another seed drew the same split")
	}
}

func TestBalanceWeights(t *testing.T) {
	w := balanceWeights([]int{0, 0, 0, 1}, 2)
	want := []float64{4.0 / 6, 4.0 / 6, 4.0 / 6, 2}
	for i := range w {
		if math.Abs(w[i]-want[i]) > 1e-15 {
			t.Fatalf("weights = %v, want %v", w, want)
		}
	}
}

func TestClassesOf(t *testing.T) {
	labels := []string{"a", "b", "a", "b", "c", "a", "b", "a", "b", "a", "b"}
	cs, rows, msgs, err := classesOf("t", labels)
	if err != nil || !slices.Equal(cs.labels, []string{"a", "b"}) || len(rows) != 10 || len(msgs) != 1 ||
		msgs[0].Text != "Target class 'c' is only specified on 1 record(s) in the dataset. Classes need a minimum of 5 records per class; this class was left out of the model." {
		t.Errorf("classesOf = %v %v %v %v", cs, rows, msgs, err)
	}
	if _, _, _, err := classesOf("t", []string{"a", "a", "a", "a", "a", "b"}); err == nil {
		t.Error("one class left: no error")
	}
}

func TestClassificationChampionTies(t *testing.T) {
	m := func(f1, mcc float64) map[string]float64 {
		return map[string]float64{stats.MacroAverageF1Score: f1, stats.MatthewsCorrelationCoefficient: mcc}
	}
	rs := []contest.Result[classificationFit]{
		{Metrics: m(0.9, 0.7)}, {Err: errors.New("failed")}, {Metrics: m(0.95, 0.8)}, {Metrics: m(0.95, 0.85)}, {Metrics: m(0.95, 0.85)},
	}
	if got := classificationChampion(rs); got != 3 {
		t.Errorf("champion = %d, want 3 (F1 tie broken by MCC, then line-up order)", got)
	}
	if got := classificationChampion([]contest.Result[classificationFit]{{Err: errors.New("x")}}); got != -1 {
		t.Errorf("champion of failures = %d", got)
	}
}
