package engine

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// BenchmarkForecastSession runs a forecast session on the 256 months of
// elec_equip_monthly (../shared/data), the 24 months after its end,
// from CreateSession to completed, against the bare contest on the same
// history (forecast.Contest as runForecast calls it): the difference is
// what a session adds (bucketing SQL, the catalog, the results tables).
//
//	go test -tags duckdb_arrow -run '^$' -bench ForecastSession -benchtime 5x -cpu 2 ./engine
//
// Measured (2 cores, another test run beside it): session 0.89–0.94 s,
// contest 0.62–0.84 s. Timed inside runForecast: 17–36 ms before the
// contest (the bucketing SQL and the plan) and 60–120 ms of result
// writes after it; the remaining 70–170 ms are the catalog transactions
// around the run (create, claim, clearing earlier outputs, the status
// changes), each a DuckDB commit.
func BenchmarkForecastSession(b *testing.B) {
	text, err := os.ReadFile("../../shared/data/elec_equip_monthly.csv")
	if err != nil {
		b.Skipf("elec_equip_monthly.csv: %v", err)
	}
	e := newBenchEngine(b)
	if _, _, err := e.PutDataset(b.Context(), PutRequest{Name: "elec", Body: strings.NewReader(string(text)), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		b.Fatal(err)
	}
	req := SessionRequest{Type: SessionForecast, DataSourceName: "elec", TargetColumn: "orders",
		StartDate: "2016-06-01", EndDate: "2018-05-01", ResultInterval: "month"}
	b.Run("impl=session", func(b *testing.B) {
		for b.Loop() {
			s, err := e.CreateSession(b.Context(), req)
			if err != nil {
				b.Fatal(err)
			}
			if s = waitSessionB(b, e, s.ID); s.Status != StatusCompleted {
				b.Fatalf("session %s", s.Status)
			}
		}
	})
	b.Run("impl=contest", func(b *testing.B) {
		var y []float64
		for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n")[1:] {
			_, v, _ := strings.Cut(line, ",")
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				b.Fatal(err)
			}
			y = append(y, f)
		}
		for b.Loop() {
			if _, err := forecast.Contest(y, forecast.ContestOptions{Seasons: forecastSeasons("month"), Holdout: 24, Horizon: 24, Smoothed: true, Seed: 1, Workers: 2}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
