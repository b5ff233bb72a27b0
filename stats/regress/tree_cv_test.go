package regress_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/statstest"
	"github.com/vaticml/vatic/stats/regress"
	"gonum.org/v1/gonum/mat"
)

// TestTreesFriedmanCV scores the tree ensembles by 5-fold cross-validation
// on the 2000 friedman1 rows and holds gbm to scikit-learn's score on the
// same data: HistGradientBoostingRegressor() 1.3750 (and, logged only,
// RandomForestRegressor(200, max_features=1/3, min_samples_leaf=5) 2.0479,
// the configuration our forest had before it took every column).
//
// By default it runs gbm alone, seed 1, on folds drawn from stats.Rand
// (five fits, a few seconds), so the comparison with scikit-learn is across
// different folds of the same rows; it is skipped with -short. For the
// exact comparison, VATIC_FRIEDMAN_FOLDS names the fold file that
//
//	/usr/bin/python3 testdata/reference_trees.py --folds FILE
//
// writes (KFold(n_splits=5, shuffle=True, random_state=0) test indices, one
// fold a line, the folds of the scores above), and both ensembles run on it
// with seeds 1 to 3.
// BenchmarkTreesFriedmanCV reports the same score as a metric.
func TestTreesFriedmanCV(t *testing.T) {
	if testing.Short() {
		t.Skip("5-fold cross-validation; skipped with -short")
	}
	x, y := loadFriedman(t)
	algorithms, folds, seeds := []regress.Algorithm{regress.GradientBoosting{}}, randomFolds(len(y), 5), uint64(1)
	if path := os.Getenv("VATIC_FRIEDMAN_FOLDS"); path != "" {
		algorithms, folds, seeds = treeAlgorithms, statstest.ReadFolds(t, path), 3
	}
	want := map[string]float64{"random_forest": 2.0479, "gbm": 1.3750}
	for _, a := range algorithms {
		for seed := uint64(1); seed <= seeds; seed++ {
			var sum float64
			var fit time.Duration
			var scores []string
			for _, test := range folds {
				start := time.Now()
				r := foldRMSE(t, a, x, y, test, seed)
				fit += time.Since(start)
				sum += r
				scores = append(scores, strconv.FormatFloat(r, 'f', 4, 64))
			}
			mean := sum / float64(len(folds))
			t.Logf("%s seed %d: 5-fold mean RMSE %.4f (scikit-learn %.4f), folds %v, mean fit %v",
				a.Key(), seed, mean, want[a.Key()], scores, fit/time.Duration(len(folds)))
			if a.Key() == "gbm" && mean > want["gbm"] {
				t.Errorf("%s 5-fold mean RMSE (seed %d) = %.4f, want ≤ %.4f", a.Key(), seed, mean, want["gbm"])
			}
		}
	}
}

// BenchmarkTreesFriedmanCV times one 5-fold cross-validation of each tree
// ensemble on the 2000 friedman1 rows (the folds and seed of the default
// TestTreesFriedmanCV) and reports its mean test RMSE beside the speed, so
// that a change to the trees shows what it costs and what it buys:
//
//	go test ./stats/regress -run '^$' -bench TreesFriedmanCV -count 6 | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkTreesFriedmanCV(b *testing.B) {
	x, y := loadFriedman(b)
	folds := randomFolds(len(y), 5)
	for _, a := range treeAlgorithms {
		b.Run(a.Key(), func(b *testing.B) {
			var mean float64
			for b.Loop() {
				var sum float64
				for _, test := range folds {
					sum += foldRMSE(b, a, x, y, test, 1)
				}
				mean = sum / float64(len(folds))
			}
			b.ReportMetric(mean, "rmse")
			trainRows := len(folds) * (len(y) - len(y)/len(folds))
			b.ReportMetric(float64(b.N)*float64(trainRows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// foldRMSE fits a on every row not in test and returns its RMSE on test.
func foldRMSE(tb testing.TB, a regress.Algorithm, x *mat.Dense, y []float64, test []int, seed uint64) float64 {
	tb.Helper()
	inTest := make([]bool, len(y))
	for _, i := range test {
		inTest[i] = true
	}
	var train []int
	for i := range y {
		if !inTest[i] {
			train = append(train, i)
		}
	}
	xtr, ytr := pickRows(x, y, train)
	xte, yte := pickRows(x, y, test)
	m, err := a.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Seed: seed, Workers: 2})
	if err != nil {
		tb.Fatalf("%s.Fit(fold) error %v", a.Key(), err)
	}
	return treeRMSE(m.Predict, xte, yte)
}

// randomFolds shuffles the row indices 0…n-1 with a fixed stats.Rand
// stream and cuts them into k test folds, the first n%k one row longer
// (as scikit-learn's KFold sizes them).
func randomFolds(n, k int) [][]int {
	perm := stats.Rand(0, "friedman/folds").Perm(n)
	folds := make([][]int, k)
	start := 0
	for f := range folds {
		size := n / k
		if f < n%k {
			size++
		}
		folds[f] = perm[start : start+size]
		start += size
	}
	return folds
}

func pickRows(x *mat.Dense, y []float64, rows []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	px := mat.NewDense(len(rows), d, nil)
	py := make([]float64, len(rows))
	for k, i := range rows {
		px.SetRow(k, x.RawRowView(i))
		py[k] = y[i]
	}
	return px, py
}
