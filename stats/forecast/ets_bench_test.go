package forecast_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// etsDailySeries is a positive series with a weekly season, a slow trend
// and AR(1) noise, like the contest's 2000-day histories.
func etsDailySeries(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	y := make([]float64, n)
	var ar float64
	for t := range y {
		ar = 0.5*ar + 3*r.NormFloat64()
		y[t] = 100 + 0.01*float64(t) + 10*math.Sin(2*math.Pi*float64(t)/7) + ar
	}
	return y
}

// go test -run '^$' -bench ETSAuto -count 6 ./stats/forecast/ | benchstat -
func BenchmarkETSAuto(b *testing.B) {
	air := forecast.LoadSeries(b, "AirPassengers")
	for _, c := range []struct {
		name   string
		y      []float64
		period int
	}{
		{"AirPassengers", air.X, 12},
		{"daily2000", etsDailySeries(2000, 1), 7},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := forecast.ETS(c.y, c.period, forecast.ETSOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
