package regress_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/stats/regress"
	"gonum.org/v1/gonum/mat"
)

// TestTreesFriedmanCV scores the tree ensembles by 5-fold cross-validation
// on the 2000 friedman1 rows with scikit-learn's folds. It runs only when
// VATIC_FRIEDMAN_FOLDS names the fold file that
//
//	/usr/bin/python3 testdata/reference_trees.py --folds FILE
//
// writes: KFold(n_splits=5, shuffle=True, random_state=0) test indices,
// one fold a line; the script prints scikit-learn's scores on the same
// folds: HistGradientBoostingRegressor() 1.3750,
// RandomForestRegressor(200, max_features=1/3, min_samples_leaf=5) 2.0479.
func TestTreesFriedmanCV(t *testing.T) {
	path := os.Getenv("VATIC_FRIEDMAN_FOLDS")
	if path == "" {
		t.Skip("VATIC_FRIEDMAN_FOLDS not set")
	}
	folds := readFolds(t, path)
	x, y := loadFriedman(t)
	want := map[string]float64{"random_forest": 2.0479, "gbm": 1.3750}
	for _, a := range treeAlgorithms {
		for seed := uint64(1); seed <= 3; seed++ {
			var sum float64
			var fit time.Duration
			var scores []string
			for _, test := range folds {
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
				start := time.Now()
				m, err := a.Fit(xtr, ytr, regress.Options{Seed: seed, Workers: 2})
				fit += time.Since(start)
				if err != nil {
					t.Fatalf("%s.Fit(fold) error %v", a.Key(), err)
				}
				r := treeRMSE(m.Predict, xte, yte)
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

func readFolds(tb testing.TB, path string) [][]int {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var folds [][]int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fold []int
		for _, s := range strings.Fields(sc.Text()) {
			i, err := strconv.Atoi(s)
			if err != nil {
				tb.Fatalf("%s: %v", path, err)
			}
			fold = append(fold, i)
		}
		folds = append(folds, fold)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
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
