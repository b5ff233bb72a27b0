package regress_test

import (
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/regress"
)

// Reference values printed by testdata/reference_linear.py (scikit-learn
// 1.2.1): Lasso(alpha=0.05, tol=1e-14, max_iter=1e6) on friedman1's first
// 1600 rows z-scored with the sample sd (same objective
// (1/2n)‖y − b − Zβ‖² + α‖β‖₁), coefficients mapped back to the input
// scale. Both solvers stop on a duality gap; ours is asked for
// 1e-12·‖y − ȳ‖² here, so the tolerance is 1e-9 relative (observed 1e-11).
var (
	lassoFixedCoef = []float64{
		6.443314890832726, 6.429679564522867, 0, 9.89806622774217, 4.7584427382433505,
		0.09699619454949839, 0, 0, 0, 0.20945617078327414,
	}
	lassoFixedIntercept = 0.45705295142304614
	lassoFixedPred      = []float64{10.839666878054368, 10.7784502128089, 17.262407943808544, 13.891737855289618, 8.284397250840252}
	// LassoCV(cv=KFold(5, shuffle=True, random_state=0)) on the same rows:
	// other folds than ours, so only the order of magnitude of α and the
	// test RMSE are comparable.
	lassoCVAlpha    = 0.035800143718156936
	lassoCVAlphaMax = 2.903860031649883
	lassoCVTestRMSE = 2.602510059512598
)

func TestLassoFixedAlphaMatchesSklearn(t *testing.T) {
	xtr, ytr, xte, _ := linFriedman(t)
	m, err := regress.FitLassoAt(xtr, ytr, 0.05, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*regress.LinearModel)
	for j, c := range lm.Coefficients() {
		if !linClose(c, lassoFixedCoef[j], 1e-9) || (c == 0) != (lassoFixedCoef[j] == 0) {
			t.Errorf("FitLassoAt(friedman1, 0.05).Coefficients()[%d] = %v, want %v", j, c, lassoFixedCoef[j])
		}
	}
	if got := lm.Intercept(); !linClose(got, lassoFixedIntercept, 1e-9) {
		t.Errorf("FitLassoAt(friedman1, 0.05).Intercept() = %v, want %v", got, lassoFixedIntercept)
	}
	pred := linPredict(m, xte.Slice(0, 5, 0, 10))
	for i, p := range pred {
		if !linClose(p, lassoFixedPred[i], 1e-9) {
			t.Errorf("FitLassoAt(friedman1, 0.05) prediction %d = %v, want %v", i, p, lassoFixedPred[i])
		}
	}
}

func TestLassoCrossValidation(t *testing.T) {
	xtr, ytr, xte, yte := linFriedman(t)
	m, err := regress.Lasso{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	alpha := m.(*regress.LinearModel).Alpha()
	// The chosen α lies on the path from α_max to α_max/1000 and, like
	// scikit-learn's, near its small end where the noise columns drop out.
	if alpha > lassoCVAlphaMax*1.000001 || alpha < lassoCVAlphaMax*1e-3*0.999999 || alpha > 10*lassoCVAlpha {
		t.Errorf("Lasso.Fit(friedman1).Alpha() = %v, want in [%v, %v]", alpha, lassoCVAlphaMax*1e-3, 10*lassoCVAlpha)
	}
	if got := linRMSE(yte, linPredict(m, xte)); got > lassoCVTestRMSE*1.01 {
		t.Errorf("Lasso test RMSE = %v, want ≤ %v (LassoCV %v + 1%%)", got, lassoCVTestRMSE*1.01, lassoCVTestRMSE)
	}
	// Same seed, any worker count: the same model.
	m1, err := regress.Lasso{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(linPredict(m, xte), linPredict(m1, xte)) {
		t.Errorf("Lasso.Fit(seed 1) with 2 and 1 workers predict differently")
	}
}

// BenchmarkLassoFit times the 5-fold path search and fit on 20 000 rows ×
// 20 columns.
func BenchmarkLassoFit(b *testing.B) {
	const rows = 20_000
	x, y := linRandom(rows, 20, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (regress.Lasso{}).Fit(regress.Data{X: x, Y: y}, regress.Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}
