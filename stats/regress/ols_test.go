package regress_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/regress"
)

// Reference values printed by testdata/reference_linear.py (scikit-learn
// 1.2.1): LinearRegression().fit on friedman1's first 1600 rows. Both
// solve the same least-squares problem, so the tolerance is 1e-9
// relative.
var (
	olsCoef = []float64{
		6.606003626842653, 6.608889723791126, -0.11835743715548276, 10.067075297170751, 4.927288301930744,
		0.28232631712870426, 0.09123305462361384, 0.10009428621510112, -0.03746186271725627, 0.3921780511384849,
	}
	olsIntercept = -0.0844681642647096
	olsTestRMSE  = 2.602886517226219
)

func TestOLSMatchesSklearn(t *testing.T) {
	xtr, ytr, xte, yte := linFriedman(t)
	m, err := regress.OLS{}.Fit(regress.Data{X: xtr, Y: ytr}, regress.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*regress.LinearModel)
	for j, c := range lm.Coefficients() {
		if !linClose(c, olsCoef[j], 1e-9) {
			t.Errorf("OLS.Fit(friedman1).Coefficients()[%d] = %v, want %v", j, c, olsCoef[j])
		}
	}
	if got := lm.Intercept(); !linClose(got, olsIntercept, 1e-9) {
		t.Errorf("OLS.Fit(friedman1).Intercept() = %v, want %v", got, olsIntercept)
	}
	if got := linRMSE(yte, linPredict(m, xte)); !linClose(got, olsTestRMSE, 1e-9) {
		t.Errorf("OLS test RMSE = %v, want %v", got, olsTestRMSE)
	}
	// Importance is |β_j·sd_j| with the training sample sd.
	imp := m.Importance()
	for j := range olsCoef {
		col := mat.Col(nil, j, xtr)
		var mean, ss float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(len(col))
		for _, v := range col {
			ss += (v - mean) * (v - mean)
		}
		want := math.Abs(olsCoef[j]) * math.Sqrt(ss/float64(len(col)-1))
		if !linClose(imp[j], want, 1e-9) {
			t.Errorf("OLS Importance()[%d] = %v, want %v", j, imp[j], want)
		}
	}
}

// TestOLSMinimumNorm duplicates x0: scikit-learn (LinearRegression, which
// calls scipy's lstsq, testdata/reference_linear.py "olsDup") returns the
// minimum-norm solution, splitting x0's effect equally; tolerance 1e-8
// relative (the split rests on a singular value of order 1e-15).
func TestOLSMinimumNorm(t *testing.T) {
	want := []float64{
		3.090802723723974, 6.31068310148296, -0.28316885248495266, 10.01905548842376, 4.944390177537234,
		0.19971884951178326, -0.2157761303781405, -0.8889767876412348, 0.39366031742807744, 0.016085444343241287,
		3.0908027237239777,
	}
	const wantIntercept = 1.1163107375062573
	xtr, ytr, _, _ := linFriedman(t)
	x := mat.NewDense(200, 11, nil)
	for i := range 200 {
		copy(x.RawRowView(i), xtr.RawRowView(i))
		x.Set(i, 10, xtr.At(i, 0))
	}
	m, err := regress.OLS{}.Fit(regress.Data{X: x, Y: ytr[:200]}, regress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*regress.LinearModel)
	for j, c := range lm.Coefficients() {
		if !linClose(c, want[j], 1e-8) {
			t.Errorf("OLS.Fit(x0 twice).Coefficients()[%d] = %v, want %v", j, c, want[j])
		}
	}
	if got := lm.Intercept(); !linClose(got, wantIntercept, 1e-8) {
		t.Errorf("OLS.Fit(x0 twice).Intercept() = %v, want %v", got, wantIntercept)
	}
}

// BenchmarkOLSPredict times prediction on 100 000 rows × 20 columns.
func BenchmarkOLSPredict(b *testing.B) {
	const rows = 100_000
	x, y := linRandom(rows, 20, 1)
	m, err := regress.OLS{}.Fit(regress.Data{X: x, Y: y}, regress.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, rows)
	b.ReportAllocs()
	for b.Loop() {
		m.Predict(x, dst)
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkOLSFit times a fit on 100 000 rows × 20 columns.
func BenchmarkOLSFit(b *testing.B) {
	const rows = 100_000
	x, y := linRandom(rows, 20, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (regress.OLS{}).Fit(regress.Data{X: x, Y: y}, regress.Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}
