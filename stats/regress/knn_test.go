package regress_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/regress"
)

// Reference values printed by testdata/reference_linear.py (scikit-learn
// 1.2.1): KNeighborsRegressor(n_neighbors=k, weights=w, algorithm="brute")
// fitted on friedman1's first 1600 rows z-scored with the sample sd,
// predicting the first five test rows (scaled with the training
// statistics) and scored on all 400. scikit-learn computes distances as
// ‖a‖² + ‖b‖² − 2a·b, we sum squared differences, so the tolerance is
// 1e-9 relative.
var knnRefs = []struct {
	k        int
	distance bool
	pred     []float64
	rmse     float64
}{
	{5, false, []float64{10.039535999999998, 10.3838852, 18.5309226, 16.4053038, 11.876115800000001}, 2.6990607777970297},
	{10, true, []float64{9.815188320857093, 10.068070360737153, 17.83872218093766, 15.764601540010418, 9.643097986017187}, 2.603311638416489},
}

// knnCVTestRMSE is the test RMSE of GridSearchCV over the same grid
// (k ∈ {3,5,10,20} × uniform/distance, 5 shuffled folds other than ours),
// which chose k = 10 with distance weights.
const knnCVTestRMSE = 2.603311638416489

func TestKNNFixedMatchesSklearn(t *testing.T) {
	xtr, ytr, xte, yte := linFriedman(t)
	for _, ref := range knnRefs {
		m, err := regress.FitKNNAt(xtr, ytr, ref.k, ref.distance)
		if err != nil {
			t.Fatal(err)
		}
		pred := linPredict(m, xte)
		for i, want := range ref.pred {
			if !linClose(pred[i], want, 1e-9) {
				t.Errorf("FitKNNAt(friedman1, %d, %v) prediction %d = %v, want %v", ref.k, ref.distance, i, pred[i], want)
			}
		}
		if got := linRMSE(yte, pred); !linClose(got, ref.rmse, 1e-9) {
			t.Errorf("FitKNNAt(friedman1, %d, %v) test RMSE = %v, want %v", ref.k, ref.distance, got, ref.rmse)
		}
	}
}

func TestKNNCrossValidation(t *testing.T) {
	xtr, ytr, xte, yte := linFriedman(t)
	m, err := regress.KNN{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	km := m.(*regress.KNNModel)
	if !slices.Contains([]int{3, 5, 10, 20}, km.K()) {
		t.Errorf("KNN.Fit(friedman1).K() = %d, want one of 3, 5, 10, 20", km.K())
	}
	if got := linRMSE(yte, linPredict(m, xte)); got > knnCVTestRMSE*1.05 {
		t.Errorf("KNN test RMSE = %v (k=%d, distance %v), want ≤ %v (GridSearchCV %v + 5%%)", got, km.K(), km.DistanceWeighted(), knnCVTestRMSE*1.05, knnCVTestRMSE)
	}
	if m.Importance() != nil {
		t.Errorf("KNN Importance() = %v, want nil", m.Importance())
	}
	m1, err := regress.KNN{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(linPredict(m, xte), linPredict(m1, xte)) {
		t.Errorf("KNN.Fit(seed 3) with 2 and 1 workers predict differently")
	}
}

// TestKNNTreeMatchesBrute checks that the k-d tree returns the brute-force
// neighbours, ties included: on a coarse integer grid many rows sit at the
// same distance and both searches must break ties by row index.
func TestKNNTreeMatchesBrute(t *testing.T) {
	xtr, ytr, xte, _ := linFriedman(t)
	coarse := func(x *mat.Dense) *mat.Dense {
		var c mat.Dense
		c.Apply(func(_, _ int, v float64) float64 { return math.Round(v * 3) }, x)
		return &c
	}
	for _, tc := range []struct {
		name   string
		xtr    *mat.Dense
		xte    *mat.Dense
		k      int
		weight bool
	}{
		{"friedman1", xtr, xte, 5, false},
		{"friedman1/distance", xtr, xte, 20, true},
		{"coarse", coarse(xtr), coarse(xte), 10, false},
		{"coarse/distance", coarse(xtr), coarse(xte), 3, true},
		{"coarse/training rows", coarse(xtr), coarse(xtr), 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := regress.FitKNNAt(tc.xtr, ytr, tc.k, tc.weight)
			if err != nil {
				t.Fatal(err)
			}
			if regress.KNNUsesTree(m) {
				t.Fatalf("KNNUsesTree(1600 rows) = true, want false")
			}
			tree := regress.KNNWithTree(m)
			if got, want := linPredict(tree, tc.xte), linPredict(m, tc.xte); !slices.Equal(got, want) {
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("tree prediction %d = %v, want brute force %v", i, got[i], want[i])
						break
					}
				}
			}
		})
	}
}

// TestKNNLargeUsesTree fits above the brute-force limit: the model must
// search with a tree and agree with brute force bit for bit.
func TestKNNLargeUsesTree(t *testing.T) {
	if testing.Short() {
		t.Skip("20 001 rows")
	}
	x, y := linRandom(20_001, 5, 2)
	m, err := regress.FitKNNAt(x, y, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	if !regress.KNNUsesTree(m) {
		t.Fatalf("KNNUsesTree(20 001 rows × 5) = false, want true")
	}
	q, _ := linRandom(500, 5, 3)
	if got, want := linPredict(m, q), linPredict(regress.KNNBrute(m), q); !slices.Equal(got, want) {
		t.Errorf("tree predictions differ from brute force")
	}
}

// BenchmarkKNNFit times the 5-fold search on 5 000 rows × 10 columns.
func BenchmarkKNNFit(b *testing.B) {
	const rows = 5_000
	x, y := linRandom(rows, 10, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (regress.KNN{}).Fit(regress.Data{X: x, Y: y}, regress.Options{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkKNNPredict times prediction of 1 000 rows against 20 000
// training rows × 10 columns (brute force) and 100 000 × 5 (k-d tree).
func BenchmarkKNNPredict(b *testing.B) {
	for _, size := range []struct{ n, p int }{{20_000, 10}, {100_000, 5}} {
		b.Run(fmt.Sprintf("%dx%d", size.n, size.p), func(b *testing.B) {
			x, y := linRandom(size.n, size.p, 1)
			m, err := regress.FitKNNAt(x, y, 10, true)
			if err != nil {
				b.Fatal(err)
			}
			const rows = 1000
			q, _ := linRandom(rows, size.p, 2)
			dst := make([]float64, rows)
			b.ReportAllocs()
			for b.Loop() {
				m.Predict(q, dst)
			}
			b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
