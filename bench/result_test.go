package bench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

func TestWriteResults(t *testing.T) {
	var b strings.Builder
	err := bench.WriteResults(&b, []bench.Result{
		{Name: "ImportCSV/plain/impl=vatic", Elapsed: 1834 * time.Millisecond, Metrics: []bench.Metric{
			{Value: 1090512.7, Unit: bench.UnitRowsPerSec}, {Value: 70.884, Unit: bench.UnitMBPerSec},
			{Value: 188743680, Unit: bench.UnitRSSGrowth},
		}},
		{Name: "ColumnStats/impl=duckdb", Elapsed: 95 * time.Millisecond, Metrics: []bench.Metric{{Value: 0.5, Unit: "x"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkImportCSV/plain/impl=vatic\t1\t1834000000 ns/op\t1090513 rows/s\t70.88 MB/s\t188743680 peak-rss-growth-B\n" +
		"BenchmarkColumnStats/impl=duckdb\t1\t95000000 ns/op\t0.5 x\n"
	if got := b.String(); got != want {
		t.Errorf("WriteResults =\n%s\nwant\n%s", got, want)
	}
}

func TestWriteHeader(t *testing.T) {
	var b strings.Builder
	if err := bench.WriteHeader(&b, 2000000, 1); err != nil {
		t.Fatal(err)
	}
	// benchstat reads "key: value" lines whose key is lower case without spaces.
	for line := range strings.Lines(b.String()) {
		if strings.HasPrefix(line, "Unit ") {
			continue // unit metadata
		}
		k, _, ok := strings.Cut(line, ": ")
		if !ok || k != strings.ToLower(k) || strings.ContainsAny(k, " \t") {
			t.Errorf("WriteHeader line %q is not a benchstat configuration line", line)
		}
	}
	for _, want := range []string{"rows: 2000000\n", "Unit rows/s better=higher\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteHeader = %q, want a line %q", b.String(), want)
		}
	}
}

func res(name string, elapsed time.Duration, metrics ...bench.Metric) bench.Result {
	return bench.Result{Name: name, Elapsed: elapsed, Metrics: metrics}
}

func rowsPerSec(v float64) bench.Metric { return bench.Metric{Value: v, Unit: bench.UnitRowsPerSec} }

func TestChecks(t *testing.T) {
	results := []bench.Result{
		// plain: medians 900k vs 1000k → 0.90, PASS; RSS max 300 MB → MISS.
		res("ImportCSV/plain/impl=vatic", time.Second, rowsPerSec(900e3), bench.Metric{Value: 100 << 20, Unit: bench.UnitRSSGrowth}),
		res("ImportCSV/plain/impl=vatic", time.Second, rowsPerSec(100e3), bench.Metric{Value: 300 << 20, Unit: bench.UnitRSSGrowth}),
		res("ImportCSV/plain/impl=vatic", time.Second, rowsPerSec(950e3), bench.Metric{Value: 120 << 20, Unit: bench.UnitRSSGrowth}),
		res("ImportCSV/plain/impl=duckdb", time.Second, rowsPerSec(1000e3)),
		res("ImportCSV/plain/impl=duckdb", time.Second, rowsPerSec(1100e3)),
		res("ImportCSV/plain/impl=duckdb", time.Second, rowsPerSec(500e3)),
		// gzip: 0.5 → MISS; no RSS (external server).
		res("ImportCSV/gzip/impl=vatic", time.Second, rowsPerSec(500e3)),
		res("ImportCSV/gzip/impl=duckdb", time.Second, rowsPerSec(1000e3)),
		// stats: medians 110 ms vs 100 ms → 1.10, PASS.
		res("ColumnStats/impl=vatic", 100*time.Millisecond), res("ColumnStats/impl=vatic", 120*time.Millisecond),
		res("ColumnStats/impl=duckdb", 100*time.Millisecond), res("ColumnStats/impl=duckdb", 100*time.Millisecond),
		// concurrent stats: peak 400 MB → PASS; slowest 3 s, a note.
		res("ColumnStats/concurrent=16/impl=vatic", 2*time.Second, bench.Metric{Value: 3e9, Unit: bench.UnitMaxLatency},
			bench.Metric{Value: 2, Unit: bench.UnitBusy}, bench.Metric{Value: 400 << 20, Unit: bench.UnitPeakRSS}),
		// csv: 0.9 M rows/s → MISS.
		res("ReadCSV/impl=vatic", time.Second, rowsPerSec(0.9e6)),
	}
	type check struct {
		workload string
		value    float64
		pass     bool
	}
	want := []check{
		{"ImportCSV/plain", 0.9, true},
		{"ImportCSV/plain", 300, false},
		{"ImportCSV/gzip", 0.5, false},
		{"ColumnStats", 1.1, true},
		{"ColumnStats/concurrent=16", 400, true},
		{"ColumnStats/concurrent=16", 3, false},
		{"ReadCSV", 0.9e6, false},
	}
	got := bench.Checks(results)
	if len(got) != len(want) {
		t.Fatalf("Checks = %+v, want %d checks", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Workload != w.workload || g.Pass != w.pass || g.Value < w.value*0.999 || g.Value > w.value*1.001 {
			t.Errorf("Checks[%d] = %s %v pass=%v, want %s %v pass=%v", i, g.Workload, g.Value, g.Pass, w.workload, w.value, w.pass)
		}
	}

	var b strings.Builder
	if err := bench.WriteSummary(&b, 3, got); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for line := range strings.Lines(strings.TrimLeft(out, "\n")) {
		if !strings.HasPrefix(line, "# ") {
			t.Errorf("summary line %q does not start with \"# \" (benchstat must ignore it)", line)
		}
	}
	if strings.Count(out, "PASS") != 3 || strings.Count(out, "MISS") != 3 {
		t.Errorf("WriteSummary =\n%s\nwant 3 PASS and 3 MISS", out)
	}
}

func TestParseWorkloads(t *testing.T) {
	got, err := bench.ParseWorkloads(" csv,import,csv ")
	if err != nil || strings.Join(got, ",") != "import,csv" {
		t.Errorf(`ParseWorkloads(" csv,import,csv ") = %v, %v, want [import csv], nil`, got, err)
	}
	for _, bad := range []string{"", "import,bogus"} {
		if _, err := bench.ParseWorkloads(bad); err == nil {
			t.Errorf("ParseWorkloads(%q) = nil error, want one", bad)
		}
	}
}
