package regress_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/regress"
)

// Reference values printed by testdata/reference_linear.py (scikit-learn
// 1.2.1) on friedman1's first 1600 rows z-scored with the sample sd:
//   - Ridge(alpha=0.5*1600, solver="svd") for Ridge's per-row α = 0.5,
//     coefficients mapped back to the input scale; same closed form, so
//     tolerance 1e-9 relative;
//   - RidgeCV(alphas=np.logspace(-4, 4, 50)*1600, gcv_mode="svd"), which
//     scores the grid by exact leave-one-out error as Ridge does: the
//     chosen index and its mean LOO squared error (1e-9 relative).
var (
	ridgeFixedCoef = []float64{
		4.44855484250554, 4.377521550299769, -0.11696746110004133, 6.6736928351784615, 3.2611486772828724,
		0.16191896817242626, 0.14231672145514127, 0.2581271054724073, 0.019002666072157358, 0.22175885632360187,
	}
	ridgeFixedIntercept = 4.621814496533149
	ridgeCVIndex        = 9
	ridgeCVAlpha        = 0.0029470517025518093
	ridgeCVBestLOO      = 7.055635833022404
	ridgeCVTestRMSE     = 2.6034144881414845
)

func TestRidgeFixedAlphaMatchesSklearn(t *testing.T) {
	xtr, ytr, _, _ := linFriedman(t)
	m, err := regress.FitRidgeAt(xtr, ytr, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*regress.LinearModel)
	for j, c := range lm.Coefficients() {
		if !linClose(c, ridgeFixedCoef[j], 1e-9) {
			t.Errorf("FitRidgeAt(friedman1, 0.5).Coefficients()[%d] = %v, want %v", j, c, ridgeFixedCoef[j])
		}
	}
	if got := lm.Intercept(); !linClose(got, ridgeFixedIntercept, 1e-9) {
		t.Errorf("FitRidgeAt(friedman1, 0.5).Intercept() = %v, want %v", got, ridgeFixedIntercept)
	}
}

func TestRidgeChoosesLOOAlpha(t *testing.T) {
	xtr, ytr, xte, yte := linFriedman(t)
	grid := regress.RidgeAlphas()
	if len(grid) != 50 || !linClose(grid[0], 1e-4, 1e-12) || !linClose(grid[49], 1e4, 1e-12) {
		t.Fatalf("RidgeAlphas() = %d values from %v to %v, want 50 from 1e-4 to 1e4", len(grid), grid[0], grid[len(grid)-1])
	}
	loo := regress.RidgeLOO(xtr, ytr, grid)
	best := 0
	for i, v := range loo {
		if v < loo[best] {
			best = i
		}
	}
	if best != ridgeCVIndex || !linClose(loo[best], ridgeCVBestLOO, 1e-9) {
		t.Errorf("RidgeLOO(friedman1) minimum = %v at %d, want %v at %d", loo[best], best, ridgeCVBestLOO, ridgeCVIndex)
	}
	m, err := regress.Ridge{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*regress.LinearModel).Alpha(); !linClose(got, ridgeCVAlpha, 1e-12) {
		t.Errorf("Ridge.Fit(friedman1).Alpha() = %v, want %v", got, ridgeCVAlpha)
	}
	if got := linRMSE(yte, linPredict(m, xte)); !linClose(got, ridgeCVTestRMSE, 1e-9) {
		t.Errorf("Ridge test RMSE = %v, want %v", got, ridgeCVTestRMSE)
	}
}

// TestRidgeImportance checks Importance against the coefficient on the
// standardised scale, recovered by fitting on z-scored columns.
func TestRidgeImportance(t *testing.T) {
	xtr, ytr, _, _ := linFriedman(t)
	m, err := regress.FitRidgeAt(xtr, ytr, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	coef := m.(*regress.LinearModel).Coefficients()
	for j, imp := range m.Importance() {
		if imp < 0 || math.Abs(imp-math.Abs(coef[j])*linSD(xtr.RawMatrix().Data, 10, j)) > 1e-12*max(1, imp) {
			t.Errorf("Ridge Importance()[%d] = %v, want |β·sd| = %v", j, imp, math.Abs(coef[j])*linSD(xtr.RawMatrix().Data, 10, j))
		}
	}
}

// linSD is the sample sd of column j of a row-major matrix with p columns.
func linSD(data []float64, p, j int) float64 {
	n := len(data) / p
	var mean, ss float64
	for i := range n {
		mean += data[i*p+j]
	}
	mean /= float64(n)
	for i := range n {
		d := data[i*p+j] - mean
		ss += d * d
	}
	return math.Sqrt(ss / float64(n-1))
}

// BenchmarkRidgeFit times the LOO search and fit on 20 000 rows × 20
// columns.
func BenchmarkRidgeFit(b *testing.B) {
	const rows = 20_000
	x, y := linRandom(rows, 20, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (regress.Ridge{}).Fit(regress.Data{X: x, Y: y}, regress.Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}
