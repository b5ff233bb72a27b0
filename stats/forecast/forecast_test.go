package forecast_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

func TestGaussianQuantiles(t *testing.T) {
	f := forecast.Forecast{Mean: []float64{10, 20}}
	forecast.GaussianQuantiles(&f, []float64{1, 2})
	// R: qnorm(0.95) = 1.644853626951472
	if got, want := f.Quantiles[5][1], 20+2*1.644853626951472; math.Abs(got-want) > 1e-12 {
		t.Errorf("0.95 quantile = %v, want %v", got, want)
	}
	if f.Quantiles[forecast.MedianLevel][0] != 10 {
		t.Errorf("median = %v, want the mean", f.Quantiles[forecast.MedianLevel][0])
	}
}

func TestQuantile7(t *testing.T) {
	// R: quantile(c(1, 2, 4, 8), c(0.05, 0.5, 0.9)) = 1.15 3.00 6.80
	s := []float64{1, 2, 4, 8}
	for _, c := range []struct{ p, want float64 }{{0.05, 1.15}, {0.5, 3}, {0.9, 6.8}, {0, 1}, {1, 8}} {
		if got := forecast.Quantile7(s, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile7(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if !math.IsNaN(forecast.Quantile7(nil, 0.5)) {
		t.Error("Quantile7 of nothing is not NaN")
	}
}

func TestEmpiricalQuantilesNeverCross(t *testing.T) {
	f := forecast.Forecast{Mean: []float64{100}} // a point forecast far above the paths
	paths := make([][]float64, 100)
	for k := range paths {
		paths[k] = []float64{float64(k)}
	}
	forecast.EmpiricalQuantiles(&f, paths)
	for i := 1; i < forecast.NumLevels; i++ {
		if f.Quantiles[i][0] < f.Quantiles[i-1][0] {
			t.Fatalf("level %d below level %d: %v", i, i-1, f.Quantiles)
		}
	}
}

func TestSeriesFixture(t *testing.T) {
	s := forecast.LoadSeries(t, "AirPassengers")
	if s.Period() != 12 || len(s.X) != 144 || s.X[0] != 112 {
		t.Fatalf("AirPassengers = period %d, %d values starting %v", s.Period(), len(s.X), s.X[0])
	}
}
