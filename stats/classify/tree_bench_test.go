package classify_test

import (
	"testing"

	"github.com/vaticml/vatic/stats/classify"
)

// BenchmarkTreeFit times Fit of each tree ensemble, 2 workers, on
// breast_cancer (569 × 30, two classes) and on the 10 000 × 20
// three-class synthetic set of reference_trees.py, which also times
// scikit-learn's fits of the same data:
//
//	go test ./stats/classify -run '^$' -bench TreeFit -count 6 | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkTreeFit(b *testing.B) {
	sets := []struct {
		name string
		d    classify.Data
	}{
		{"breast_cancer", loadCSV(b, "breast_cancer")},
		{"synthetic10000x20", synthetic(10_000, 20)},
	}
	for _, a := range treeAlgorithms {
		for _, s := range sets {
			b.Run(a.Key()+"/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Fit(s.d, classify.Options{Seed: 1, Workers: 2}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(len(s.d.Y))/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// TestSyntheticHoldout scores both ensembles fitted on the 10 000
// synthetic rows on the next 2 000, against scikit-learn's
// RandomForestClassifier(200) and HistGradientBoostingClassifier() macro-F1
// (reference_trees.py, scikit-learn 1.2.1), within cvTolerance.
func TestSyntheticHoldout(t *testing.T) {
	if testing.Short() {
		t.Skip("10 000-row fits; skipped with -short")
	}
	all := synthetic(12_000, 20)
	rows := make([]int, 12_000)
	for i := range rows {
		rows[i] = i
	}
	train, test := subset(all, rows[:10_000]), subset(all, rows[10_000:])
	want := map[string]float64{"random_forest_classification": sklearnSynthetic[0], "gbm": sklearnSynthetic[1]}
	for _, a := range treeAlgorithms {
		m, err := a.Fit(train, classify.Options{Seed: 1, Workers: 2})
		if err != nil {
			t.Fatalf("%s.Fit(synthetic) error %v", a.Key(), err)
		}
		got := macroF1(test.Y, classify.Predict(proba(m, test.X)), 3)
		t.Logf("%s synthetic holdout macro-F1 %.4f, scikit-learn %.4f", a.Key(), got, want[a.Key()])
		if got < want[a.Key()]-cvTolerance {
			t.Errorf("%s synthetic holdout macro-F1 = %.4f, want ≥ %.4f − %.2f", a.Key(), got, want[a.Key()], cvTolerance)
		}
	}
}

// sklearnSynthetic is scikit-learn's synthetic holdout macro-F1:
// RandomForestClassifier(200), HistGradientBoostingClassifier().
var sklearnSynthetic = [2]float64{0.7818, 0.8220}
