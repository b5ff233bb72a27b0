package stats_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// fromConfusion builds actual and predicted vectors whose confusion matrix
// is cm.
func fromConfusion(cm [][]int) (actual, predicted []int) {
	for a, row := range cm {
		for p, c := range row {
			for range c {
				actual = append(actual, a)
				predicted = append(predicted, p)
			}
		}
	}
	return actual, predicted
}

// TestClassificationMetricsRecorded reproduces the metrics the former
// service recorded with the confusion matrix [[210, 9], [16, 121]] (RB
// session_get_confusion_matrix, MODELLING §7.2) to the ten digits given.
func TestClassificationMetricsRecorded(t *testing.T) {
	cm := [][]int{{210, 9}, {16, 121}}
	actual, predicted := fromConfusion(cm)
	if got := stats.ConfusionMatrix(actual, predicted, 2); !slices.EqualFunc(got, cm, slices.Equal) {
		t.Fatalf("ConfusionMatrix = %v, want %v", got, cm)
	}
	got := stats.ClassificationMetrics(actual, predicted, 2, nil)
	want := map[string]float64{
		stats.Accuracy:                       0.9297752809,
		stats.MacroAveragePrecision:          0.9299863853,
		stats.MacroAverageRecall:             0.9210578942,
		stats.MacroAverageF1Score:            0.9250936330,
		stats.MatthewsCorrelationCoefficient: 0.8509974428,
	}
	if len(got) != len(want) {
		t.Errorf("ClassificationMetrics(no scores) keys = %v, want the five of §7.2 without AUC", got)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 5e-11 {
			t.Errorf("ClassificationMetrics(recorded)[%s] = %.12f, want %.10f", k, g, w)
		}
	}
}

// TestClassificationMetricsEdges checks the zero-denominator conventions
// against scikit-learn 1.2.1 (precision_score, recall_score, f1_score with
// average="macro", labels=range(k), zero_division=0; matthews_corrcoef),
// which agree with the formulas to the last bit on these small counts.
func TestClassificationMetricsEdges(t *testing.T) {
	f := func(name string, actual, predicted []int, k int, want map[string]float64) {
		t.Helper()
		got := stats.ClassificationMetrics(actual, predicted, k, nil)
		for key, w := range want {
			if g, ok := got[key]; !ok || math.Abs(g-w) > 1e-15 {
				t.Errorf("%s: ClassificationMetrics()[%s] = %v, want %v", name, key, g, w)
			}
		}
		for key, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: ClassificationMetrics()[%s] = %v, want finite", name, key, v)
			}
		}
	}
	// Class 3 never occurs (an empty row and column: P_3 = R_3 = 0), and
	// every class average runs over K = 4.
	f("empty class",
		[]int{0, 0, 0, 1, 1, 2, 2, 2, 2}, []int{0, 1, 0, 1, 1, 0, 2, 2, 1}, 4,
		map[string]float64{
			stats.Accuracy:                       0.6666666666666666,
			stats.MacroAveragePrecision:          0.5416666666666666,
			stats.MacroAverageRecall:             0.5416666666666666,
			stats.MacroAverageF1Score:            0.5,
			stats.MatthewsCorrelationCoefficient: 0.5576923076923077,
		})
	// Only class 0 is predicted: P_1 = P_2 = 0 (nothing predicted), and the
	// MCC denominator is 0 (Σ p_k² = s²), reported as 0.
	f("one predicted class",
		[]int{0, 1, 2, 2, 1, 0}, []int{0, 0, 0, 0, 0, 0}, 3,
		map[string]float64{
			stats.Accuracy:                       1.0 / 3,
			stats.MacroAveragePrecision:          0.1111111111111111,
			stats.MacroAverageRecall:             0.3333333333333333,
			stats.MacroAverageF1Score:            0.16666666666666666,
			stats.MatthewsCorrelationCoefficient: 0,
		})
	// One actual class, all correct: MCC denominator 0 again.
	f("one actual class", []int{1, 1, 1}, []int{1, 1, 1}, 2,
		map[string]float64{stats.Accuracy: 1, stats.MatthewsCorrelationCoefficient: 0, stats.MacroAverageRecall: 0.5})
	if got := stats.ClassificationMetrics(nil, nil, 3, nil); len(got) != 0 {
		t.Errorf("ClassificationMetrics(empty) = %v, want an empty map", got)
	}
}

// TestClassificationMetricsAUC checks the Mann–Whitney AUC with ties
// against scikit-learn 1.2.1's roc_auc_score (0.46875), and that AUC is
// left out when one class is missing or k ≠ 2.
func TestClassificationMetricsAUC(t *testing.T) {
	y := []int{0, 0, 1, 1, 0, 1, 0, 1}
	s := []float64{0.1, 0.4, 0.35, 0.8, 0.5, 0.5, 0.9, 0.2}
	scores := mat.NewDense(len(y), 2, nil)
	pred := make([]int, len(y))
	for i, v := range s {
		scores.Set(i, 0, 1-v)
		scores.Set(i, 1, v)
		if v > 0.5 {
			pred[i] = 1
		}
	}
	got := stats.ClassificationMetrics(y, pred, 2, scores)
	if g, ok := got[stats.RocAreaUnderCurve]; !ok || math.Abs(g-0.46875) > 1e-15 {
		t.Errorf("ClassificationMetrics(AUC example)[%s] = %v, want 0.46875", stats.RocAreaUnderCurve, g)
	}
	ones := []int{1, 1, 1, 1, 1, 1, 1, 1}
	if g, ok := stats.ClassificationMetrics(ones, pred, 2, scores)[stats.RocAreaUnderCurve]; ok {
		t.Errorf("ClassificationMetrics(one class)[%s] = %v, want no key", stats.RocAreaUnderCurve, g)
	}
	three := mat.NewDense(len(y), 3, nil)
	if g, ok := stats.ClassificationMetrics(y, pred, 3, three)[stats.RocAreaUnderCurve]; ok {
		t.Errorf("ClassificationMetrics(k=3)[%s] = %v, want no key", stats.RocAreaUnderCurve, g)
	}
	// A perfect ranking gives 1, a reversed one 0.
	for _, tc := range []struct {
		flip bool
		want float64
	}{{false, 1}, {true, 0}} {
		sc := mat.NewDense(4, 2, nil)
		for i, v := range []float64{0.1, 0.2, 0.7, 0.9} {
			if tc.flip {
				v = 1 - v
			}
			sc.Set(i, 1, v)
			sc.Set(i, 0, 1-v)
		}
		if g := stats.ClassificationMetrics([]int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 2, sc)[stats.RocAreaUnderCurve]; g != tc.want {
			t.Errorf("AUC(flip %v) = %v, want %v", tc.flip, g, tc.want)
		}
	}
}
