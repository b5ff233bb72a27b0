package anomaly_test

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/mat"
)

// Reference numbers: printed by testdata/reference.py (scikit-learn
// 1.2.1, NumPy 1.24.2, SciPy 1.10.1); the tests never run Python.

// labelled is one anomaly task per seed (reference.py's task): the
// picked anomalous rows (file indices) and scikit-learn's ROC-AUC of
// IsolationForest(random_state=0) and EllipticEnvelope(random_state=0).
type labelled struct {
	picked      []int
	iso, ee     float64
	isoSelfRank float64 // Spearman of IsolationForest random_state 0 vs 1
	isoMean     float64 // mean score_samples, random_state 0
}

var (
	benign      = []string{"benign"}
	wineNormal  = []string{"class_0", "class_1"}
	breastTasks = []labelled{
		{[]int{5, 12, 41, 78, 127, 129, 156, 171, 186, 214, 253, 264, 282, 321, 351, 487, 516, 562}, 0.9471, 0.9421, 0.9452, -0.41622},
		{[]int{4, 18, 36, 39, 54, 62, 72, 86, 108, 171, 181, 328, 417, 487, 535, 536, 562, 563}, 0.9166, 0.9360, 0.9533, -0.41374},
		{[]int{10, 13, 26, 28, 45, 54, 172, 181, 233, 274, 277, 280, 282, 302, 328, 352, 441, 444}, 0.9525, 0.9374, 0.9441, -0.41536},
		{[]int{72, 126, 127, 198, 199, 259, 262, 353, 389, 400, 430, 444, 451, 479, 498, 509, 517, 533}, 0.9619, 0.9460, 0.9558, -0.41891},
		{[]int{1, 11, 18, 38, 117, 146, 168, 177, 202, 215, 274, 283, 366, 414, 514, 517, 521, 564}, 0.9528, 0.9185, 0.9362, -0.41401},
	}
	wineTasks = []labelled{
		{[]int{134, 156, 159, 160, 162, 167}, 0.9410, 0.9628, 0.9325, -0.44098},
		{[]int{132, 133, 153, 163, 166, 168}, 0.9308, 0.9833, 0.9337, -0.44232},
		{[]int{142, 146, 153, 165, 172, 173}, 0.9731, 0.9910, 0.9338, -0.44068},
		{[]int{139, 142, 158, 161, 168, 175}, 0.9282, 0.9833, 0.9305, -0.44043},
		{[]int{134, 136, 141, 142, 161, 177}, 0.9154, 0.9513, 0.9228, -0.44126},
	}
)

// sklearnScores reads testdata/sklearn_scores.csv: per row of the seed-0
// task, IsolationForest's score_samples and EllipticEnvelope's D².
func sklearnScores(tb testing.TB, name string) (iso, ee []float64) {
	tb.Helper()
	f, err := os.Open("testdata/sklearn_scores.csv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r[0] != name {
			continue
		}
		a, _ := strconv.ParseFloat(r[2], 64)
		b, _ := strconv.ParseFloat(r[3], 64)
		iso, ee = append(iso, a), append(ee, b)
	}
	return iso, ee
}

func scores(tb testing.TB, a anomaly.Algorithm, x *mat.Dense, seed uint64) ([]float64, anomaly.Model) {
	tb.Helper()
	m, err := a.Fit(x, anomaly.Options{Seed: seed, Workers: 2})
	if err != nil {
		tb.Fatalf("%s.Fit error %v", a.Key(), err)
	}
	r, _ := x.Dims()
	s := make([]float64, r)
	m.Score(x, s)
	return s, m
}

func TestExploreReference(t *testing.T) {
	for _, c := range []struct {
		name   string
		normal []string
		tasks  []labelled
	}{{"breast_cancer", benign, breastTasks}, {"wine", wineNormal, wineTasks}} {
		skIso, skEE := sklearnScores(t, c.name)
		for s, tk := range c.tasks {
			x, y := task(t, c.name, c.normal, tk.picked)
			iso, im := scores(t, anomaly.IsolationForest{}, x, uint64(s))
			mcd, mm := scores(t, anomaly.RobustMahalanobis{}, x, uint64(s))
			var mean float64
			for _, v := range iso {
				mean += v + im.Offset()
			}
			mean /= float64(len(iso))
			t.Logf("%s seed %d: AUC iforest %.4f (sk %.4f) mcd %.4f (sk ee %.4f) mean raw %.5f (sk %.5f) pct %.4f %.4f",
				c.name, s, aucOf(y, negate(iso)), tk.iso, aucOf(y, negate(mcd)), tk.ee, mean, tk.isoMean, im.PercentAnomalies(), mm.PercentAnomalies())
			if s == 0 {
				t.Logf("  spearman(ours, sk iforest) %.4f (sk self %.4f); spearman(mcd, sk ee) %.6f", spearman(iso, skIso), tk.isoSelfRank, spearman(negate(mcd), skEE))
			}
		}
	}
}
