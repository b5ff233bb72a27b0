package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Classification metric keys (MODELLING §7.2, §15), as the API returns them.
const (
	Accuracy                       = "accuracy"
	MacroAveragePrecision          = "macroAveragePrecision"
	MacroAverageRecall             = "macroAverageRecall"
	MacroAverageF1Score            = "macroAverageF1Score"
	MatthewsCorrelationCoefficient = "matthewsCorrelationCoefficient"
	RocAreaUnderCurve              = "rocAreaUnderCurve"
)

// ConfusionMatrix counts the pairs (actual, predicted) of class indices in
// [0, k): row = actual class, column = predicted class (MODELLING §7.3),
// so row sums are the actual class counts. It panics when the lengths
// differ or a label is outside [0, k) (programmer errors).
func ConfusionMatrix(actual, predicted []int, k int) [][]int {
	if len(actual) != len(predicted) {
		panic("stats: ConfusionMatrix length mismatch")
	}
	cm := make([][]int, k)
	cells := make([]int, k*k)
	for i := range cm {
		cm[i] = cells[i*k : (i+1)*k : (i+1)*k]
	}
	for i, a := range actual {
		p := predicted[i]
		if a < 0 || a >= k || p < 0 || p >= k {
			panic(fmt.Sprintf("stats: ConfusionMatrix label (%d, %d) outside [0, %d)", a, p, k))
		}
		cm[a][p]++
	}
	return cm
}

// ClassificationMetrics scores predicted class indices against actual
// ones, both in [0, k), with the keys and formulas of MODELLING §7.2:
//
//	accuracy                        Σ TP_k / n
//	macroAveragePrecision           (1/K) Σ P_k,  P_k = TP_k / (TP_k + FP_k)
//	macroAverageRecall              (1/K) Σ R_k,  R_k = TP_k / (TP_k + FN_k)
//	macroAverageF1Score             (1/K) Σ 2·P_k·R_k / (P_k + R_k)
//	matthewsCorrelationCoefficient  (c·s − Σ p_k·t_k) / √((s² − Σ p_k²)(s² − Σ t_k²))
//	rocAreaUnderCurve               binary only (see below)
//
// with c the correct predictions, s = n, p_k the predicted and t_k the
// true counts of class k. Every average runs over all k classes, also
// those absent from both vectors. A ratio whose denominator is 0 counts
// as 0, as scikit-learn's zero_division default does: P_k when nothing is
// predicted as k, R_k when class k never occurs (a class with an empty
// confusion-matrix row), F1_k when P_k + R_k = 0, and MCC when every row
// is predicted as one class or every actual is one class (Σp_k² or Σt_k²
// equals s²), where the predictions carry no information about the
// actuals.
//
// rocAreaUnderCurve is present only when k == 2, scores is not nil and
// both classes occur: the area under the ROC of the positive class's
// score (column 1 of scores, n × k; the positive class is the second
// entry of `classes`), computed as the Mann–Whitney statistic
// U / (n₁·n₀) from average ranks, so tied scores count ½. An empty input
// gives an empty map; no value is ever NaN. It panics when the lengths
// differ, a label is outside [0, k) or scores has the wrong shape.
func ClassificationMetrics(actual, predicted []int, k int, scores *mat.Dense) map[string]float64 {
	cm := ConfusionMatrix(actual, predicted, k)
	out := make(map[string]float64, 6)
	n := len(actual)
	if n == 0 {
		return out
	}
	if scores != nil {
		if r, c := scores.Dims(); r != n || c != k {
			panic(fmt.Sprintf("stats: ClassificationMetrics scores are %d×%d, want %d×%d", r, c, n, k))
		}
	}
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	pred := make([]float64, k) // p_k, column sums
	truth := make([]float64, k)
	var correct float64
	for a := range k {
		for p := range k {
			v := float64(cm[a][p])
			truth[a] += v
			pred[p] += v
		}
		correct += float64(cm[a][a])
	}
	var sp, sr, sf, sumPT, sumP2, sumT2 float64
	for c := range k {
		tp := float64(cm[c][c])
		p := ratio(tp, pred[c])
		r := ratio(tp, truth[c])
		sp += p
		sr += r
		sf += ratio(2*p*r, p+r)
		sumPT += pred[c] * truth[c]
		sumP2 += pred[c] * pred[c]
		sumT2 += truth[c] * truth[c]
	}
	s := float64(n)
	kf := float64(k)
	out[Accuracy] = correct / s
	out[MacroAveragePrecision] = sp / kf
	out[MacroAverageRecall] = sr / kf
	out[MacroAverageF1Score] = sf / kf
	// The two factors are ≥ 0 in exact arithmetic; sqrt of each keeps the
	// product from overflowing for large n.
	out[MatthewsCorrelationCoefficient] = ratio(correct*s-sumPT, math.Sqrt(s*s-sumP2)*math.Sqrt(s*s-sumT2))
	if k == 2 && scores != nil && truth[0] > 0 && truth[1] > 0 {
		out[RocAreaUnderCurve] = rocAUC(actual, scores.ColView(1))
	}
	return out
}

// rocAUC is the Mann–Whitney estimate of P(score of a positive > score of
// a negative) + ½·P(tie), from average ranks: AUC = (R₁ − n₁(n₁+1)/2)/(n₁n₀)
// with R₁ the rank sum of the positives (label 1). Both classes occur.
func rocAUC(actual []int, score mat.Vector) float64 {
	n := len(actual)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		sa, sb := score.AtVec(a), score.AtVec(b)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	var rankPos, npos float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && score.AtVec(order[j]) == score.AtVec(order[i]) {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of the 1-based ranks i+1 … j
		for _, r := range order[i:j] {
			if actual[r] == 1 {
				rankPos += avg
				npos++
			}
		}
		i = j
	}
	nneg := float64(n) - npos
	return (rankPos - npos*(npos+1)/2) / (npos * nneg)
}
