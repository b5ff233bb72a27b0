package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// BenchmarkForecastSession runs a forecast session from CreateSession to
// completed against the bare contest on the same history
// (forecast.Contest as runForecast calls it): the difference is what a
// session adds (bucketing SQL, the catalog, the results tables), and the
// session reports the statements and commits it asked of DuckDB
// (sessionBench). Two
// series of ../shared/data (VATIC_SHARED_DATA, else the repository's
// sibling shared/data, from a clone or a worktree): elec_equip_monthly's
// 256 months with the 24 after them as the window, where the contest
// dominates, and nile_yearly's 100 years with the 8 after them, where
// the session's fixed cost does.
//
//	go test -tags duckdb_arrow -run '^$' -bench ForecastSession -benchtime 5x -cpu 2 ./engine
//
// Measured before the fixed cost was cut (2 cores, another test run
// beside it): on elec, session 0.89–0.94 s against a 0.62–0.84 s
// contest. Cutting it (one claim that reads the session, no clearing of
// a fresh session's outputs, multi-row catalog inserts, one UPDATE to
// complete) took nile_yearly from 43.2 to 20.1 statements and from 5 to
// 4 commits per session (the fourth is the worker's empty claim after
// it), and its session − contest from 382 to 226 ms (medians of 3 runs
// of 10x alternating with the former code, at load 16–19).
func BenchmarkForecastSession(b *testing.B) {
	for _, c := range []struct {
		name, file, target, start, end, interval string
		h                                        int
	}{
		{"elec_equip_monthly", "elec_equip_monthly.csv", "orders", "2016-06-01", "2018-05-01", "month", 24},
		{"nile_yearly", "nile_yearly.csv", "volume", "1971-01-01", "1978-01-01", "year", 8},
	} {
		b.Run("series="+c.name, func(b *testing.B) {
			text := sharedDataB(b, c.file)
			sb := newSessionBench(b)
			sb.put(b, "s", text)
			b.Run("impl=session", func(b *testing.B) {
				sb.run(b, SessionRequest{Type: SessionForecast, DataSourceName: "s", TargetColumn: c.target,
					StartDate: c.start, EndDate: c.end, ResultInterval: c.interval})
			})
			b.Run("impl=contest", func(b *testing.B) {
				var y []float64
				for _, line := range strings.Split(strings.TrimSpace(text), "\n")[1:] {
					_, v, _ := strings.Cut(line, ",")
					f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					if err != nil {
						b.Fatal(err)
					}
					y = append(y, f)
				}
				for b.Loop() {
					if _, err := forecast.Contest(y, forecast.ContestOptions{Seasons: forecastSeasons(c.interval), Holdout: c.h, Horizon: c.h, Smoothed: true, Seed: 1, Workers: 2}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// sharedDataB reads a file of the shared data directory
// (VATIC_SHARED_DATA, else the repository's sibling shared/data, from a
// clone or a worktree), or skips the benchmark.
func sharedDataB(b *testing.B, file string) string {
	b.Helper()
	dirs := []string{os.Getenv("VATIC_SHARED_DATA"), "../../shared/data", "../../../shared/data"}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if text, err := os.ReadFile(filepath.Join(d, file)); err == nil {
			return string(text)
		}
	}
	b.Skipf("no %s in %v (set VATIC_SHARED_DATA)", file, dirs)
	return ""
}
