package stats_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats"
)

func TestRegressionMetrics(t *testing.T) {
	// Worked by hand (and matching scikit-learn's mean_absolute_error,
	// root_mean_squared_error and r2_score on the same arrays):
	//   y = [3, -0.5, 2, 7, 0], yhat = [2.5, 0, 2, 8, 0.5]
	//   SSE = 1.75, mean(y) = 2.3, SST = 35.8
	// MAPE with denominator 1 for the zero actual:
	//   (0.5/3 + 0.5/0.5 + 0 + 1/7 + 0.5/1) / 5
	y := []float64{3, -0.5, 2, 7, 0}
	yhat := []float64{2.5, 0, 2, 8, 0.5}
	got := stats.RegressionMetrics(y, yhat)
	want := map[string]float64{
		stats.MeanAbsoluteError:        0.5,
		stats.RootMeanSquareError:      math.Sqrt(0.35),
		stats.RSquared:                 1 - 1.75/35.8,
		stats.MeanAbsolutePercentError: (0.5/3 + 1 + 0 + 1.0/7 + 0.5) / 5,
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("RegressionMetrics()[%s] = %v, want %v", k, g, w)
		}
	}
	if _, ok := stats.RegressionMetrics([]float64{1, 1}, []float64{1, 2})[stats.RSquared]; ok {
		t.Errorf("RegressionMetrics(constant y) has rSquared, want it left out")
	}
}

func TestRandIsStable(t *testing.T) {
	a := stats.Rand(42, "split").Uint64()
	b := stats.Rand(42, "split").Uint64()
	c := stats.Rand(42, "rf/tree1").Uint64()
	if a != b || a == c {
		t.Errorf("Rand: same name gave %d and %d, other name %d", a, b, c)
	}
	if stats.SeedOf([16]byte{1}) == stats.SeedOf([16]byte{2}) {
		t.Errorf("SeedOf gives the same seed for two ids")
	}
}
