package forecast_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// seasonalSeries is a positive series of n buckets with a trend, the
// given seasons and noise.
func seasonalSeries(n int, periods ...float64) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, n)
	for t := range y {
		v := 100 + 0.01*float64(t) + r.NormFloat64()*2
		for i, p := range periods {
			v += float64(10/(i+1)) * math.Sin(2*math.Pi*float64(t)/p)
		}
		y[t] = v
	}
	return y
}

// BenchmarkContest times whole contests with both variants: the
// 2000-bucket daily series of the 30 s budget and a 10 000-bucket
// hourly one.
func BenchmarkContest(b *testing.B) {
	for _, c := range []struct {
		name    string
		y       []float64
		seasons []forecast.Season
		h       int
	}{
		{"daily2000", seasonalSeries(2000, 7, 365.25), []forecast.Season{{Period: 7, Code: "W"}, {Period: 365.25, Code: "A"}}, 28},
		{"hourly10000", seasonalSeries(10_000, 24, 168), []forecast.Season{{Period: 24, Code: "HD"}, {Period: 168, Code: "HW"}}, 48},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := forecast.Contest(c.y, forecast.ContestOptions{Seasons: c.seasons, Holdout: c.h, Horizon: c.h, Smoothed: true, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
