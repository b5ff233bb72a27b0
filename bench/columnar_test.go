package bench_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vaticml/vatic/bench"
)

// The columnar workload against the fake server, which speaks CSV and
// JSON only (as vatic did before issue 17) and whose champion is always
// ridge: Arrow IPC and Parquet are skipped, said so and reported as not
// measured, DuckDB's read_parquet and COPY … TO parquet still run, the
// tree model's champion is caught, and nothing is left in Dir but the
// generated table.
func TestRunColumnar(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	cfg := bench.Config{Vatic: bin, Rows: 3000, Seed: 4, Dir: dir, Runs: 2, PredictRows: 500, LinearTrainRows: 100,
		Columnar: bench.ColumnarConfig{BigPredictRows: 1200}, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadColumnar})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	want := map[string]int{
		"Columnar/train/model=linear/impl=vatic": 1, "Columnar/train/model=tree/impl=vatic": 1,
		"Columnar/predict/model=linear/format=csv/impl=vatic": 2, "Columnar/predict/model=linear/format=json/impl=vatic": 2,
		"Columnar/predict/model=tree/format=csv/impl=vatic": 2, "Columnar/predict/model=tree/format=json/impl=vatic": 2,
		"Columnar/predict-big/format=csv/impl=vatic": 2,
		"Columnar/upload/format=csv/impl=vatic":      2, "Columnar/upload/format=csv/impl=duckdb": 2,
		"Columnar/upload/format=json/impl=vatic": 2, "Columnar/upload/format=parquet/impl=duckdb": 2,
		"Columnar/upload/format=arrow/impl=duckdb": 2,
		"Columnar/export/format=csv/impl=vatic":    2, "Columnar/export/format=csv/impl=duckdb": 2,
		"Columnar/export/format=json/impl=vatic": 2, "Columnar/export/format=parquet/impl=duckdb": 2,
	}
	got := countByName(results)
	for name, n := range want {
		if got[name] != n {
			t.Errorf("Run gave %d results named %s, want %d", got[name], name, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Run gave results %v, want only %v", got, want)
	}
	for _, r := range results {
		if strings.HasPrefix(r.Name, "Columnar/predict-big/") {
			if v, ok := r.Metric(bench.UnitPeakRSS); !ok || v <= 0 {
				t.Errorf("%s: peak RSS %v, %v; want a positive figure", r.Name, v, ok)
			}
			if v, _ := r.Metric(bench.UnitRowsPerSec); v*r.Elapsed.Seconds() < 1499 || v*r.Elapsed.Seconds() > 1501 {
				t.Errorf("%s: %v rows/s over %v, want 1500 rows (three times 500)", r.Name, v, r.Elapsed)
			}
		}
		if strings.HasPrefix(r.Name, "Columnar/predict/") && r.Labels[bench.LabelChampion] != "ridge" {
			t.Errorf("%s: champion label %q, want ridge", r.Name, r.Labels[bench.LabelChampion])
		}
	}
	for _, f := range []string{"upload/format=arrow", "upload/format=parquet", "export/format=arrow", "predict/model=tree/format=parquet"} {
		if !strings.Contains(progress.String(), "columnar: Columnar/"+f+" skipped") {
			t.Errorf("progress does not say Columnar/%s was skipped:\n%s", f, progress.String())
		}
	}
	verdicts := map[string]string{}
	for _, c := range bench.Checks(results) {
		v := "-"
		switch {
		case c.Note:
		case c.Pass:
			v = "PASS"
		default:
			v = "MISS"
		}
		verdicts[c.Workload+" "+c.What] = v
	}
	for check, v := range map[string]string{
		"Columnar/train/model=linear champion":             "PASS",
		"Columnar/train/model=tree champion":               "MISS", // ridge is no tree ensemble
		"Columnar/predict/model=linear/format=csv rows/s":  "MISS",
		"Columnar/predict/model=linear/format=json rows/s": "MISS",
		"Columnar/predict/model=tree/format=csv rows/s":    "MISS",
		"Columnar/predict/model=tree/format=arrow rows/s":  "-",
		"Columnar/predict-big/format=csv peak RSS MB":      "-",
		"Columnar/upload/format=csv rows/s vatic÷duckdb":   "-",
		"Columnar/upload/format=parquet rows/s":            "-",
		"Columnar/upload/format=arrow rows/s arrow÷csv":    "MISS",
		"Columnar/export/format=csv rows/s vatic÷duckdb":   "-",
		"Columnar/export/format=json rows/s":               "-",
		"Columnar/export/format=arrow rows/s":              "MISS",
	} {
		if verdicts[check] != v {
			t.Errorf("check %q = %q, want %q (all: %v)", check, verdicts[check], v, verdicts)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "rows3000-seed4.csv rows3000-seed4.csv.gz rows3000-seed4.json"; strings.Join(names, " ") != want {
		t.Errorf("Dir after Run holds %v, want %s", names, want)
	}
}

// Against a fake server that speaks Arrow IPC and Parquet, every format
// of every part is measured: the uploads' files are read whole by the
// server, the exports' streams and the predict answers by the harness.
func TestRunColumnarFormats(t *testing.T) {
	bin := fakeVaticBin(t)
	t.Setenv("BENCH_FAKE_COLUMNAR", "1")
	var progress bytes.Buffer
	cfg := bench.Config{Vatic: bin, Rows: 2000, Seed: 4, Dir: t.TempDir(), Runs: 1, PredictRows: 300, LinearTrainRows: 100,
		Columnar: bench.ColumnarConfig{BigPredictRows: 300}, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadColumnar})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	got := countByName(results)
	for _, f := range []string{"csv", "json", "arrow", "parquet"} {
		for _, name := range []string{"predict/model=linear", "predict/model=tree", "upload", "export"} {
			if n := got["Columnar/"+name+"/format="+f+"/impl=vatic"]; n != 1 {
				t.Errorf("Run gave %d results named Columnar/%s/format=%s/impl=vatic, want 1 (all: %v)", n, name, f, got)
			}
		}
	}
	if strings.Contains(progress.String(), "skipped") {
		t.Errorf("progress says a format was skipped:\n%s", progress.String())
	}
	arrowChecks := 0
	for _, c := range bench.Checks(results) {
		if c.Workload == "Columnar/upload/format=arrow" {
			arrowChecks++
		}
		if c.Text == "not measured" {
			t.Errorf("check %+v: not measured", c)
		}
		if c.Workload == "Columnar/upload/format=arrow" && c.What == "rows/s arrow÷csv" &&
			(c.Value <= 0 || !strings.Contains(c.Detail, "DuckDB's table copy")) {
			t.Errorf("check %+v: want the ratio of the Arrow upload's rows/s to CSV's, and the ratio DuckDB's own table copy allows", c)
		}
		if c.Workload == "Columnar/upload/format=arrow" && c.What == "rows/s vatic÷duckdb" && !strings.Contains(c.Detail, "table copy") {
			t.Errorf("check %+v: want the Arrow upload against DuckDB's table copy", c)
		}
	}
	if arrowChecks != 2 {
		t.Errorf("%d checks of the Arrow upload, want 2 (against DuckDB's table copy, and the ratio to CSV)", arrowChecks)
	}
}

// TestRunColumnarUploadOnly runs the uploads alone: every result is an
// upload, in each format the fake server speaks.
func TestRunColumnarUploadOnly(t *testing.T) {
	bin := fakeVaticBin(t)
	var progress bytes.Buffer
	cfg := bench.Config{Vatic: bin, Rows: 2000, Seed: 4, Dir: t.TempDir(), Runs: 1,
		Columnar: bench.ColumnarConfig{UploadOnly: true}, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadColumnar})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	want := map[string]int{
		"Columnar/upload/format=csv/impl=vatic": 1, "Columnar/upload/format=csv/impl=duckdb": 1,
		"Columnar/upload/format=json/impl=vatic": 1, "Columnar/upload/format=parquet/impl=duckdb": 1,
		"Columnar/upload/format=arrow/impl=duckdb": 1,
	}
	if got := countByName(results); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Run gave results %v, want %v", got, want)
	}
	cfg.Columnar.PredictOnly = true
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepted PredictOnly with UploadOnly")
	}
}
