package bench_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vaticml/vatic/bench"
)

// TestEndToEnd runs every workload, small, against the real binary named by
// VATIC_BIN (make build && VATIC_BIN=$PWD/bin/vatic go test ./bench -run EndToEnd -v).
// It checks that the harness works against the server, not the targets:
// timings at this size say nothing. The regression workload runs on the
// 100-row fixture of friedman1.csv.
func TestEndToEnd(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic and point VATIC_BIN at it")
	}
	var progress strings.Builder
	cfg := bench.Config{Vatic: bin, Rows: 20_000, ViewRows: 20_000, Seed: 1, Dir: t.TempDir(), Runs: 1, Progress: &progress}
	cfg = withRegression(cfg) // the scikit-learn side from the fixture: no Python needed
	if args := os.Getenv("VATIC_BENCH_SERVE_ARGS"); args != "" {
		cfg.ServeArgs = strings.Fields(args)
	}
	results, err := bench.Run(t.Context(), cfg, bench.Workloads)
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	// 13 names of the table and view workloads; 12 of regression (our
	// contest, scikit-learn's, its 7 fits, linear, predict json and csv).
	if got := countByName(results); len(got) != 25 {
		t.Errorf("Run gave results %v, want 25 names", got)
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, bench.Checks(results))
	t.Logf("report:\n%s", out.String())
}

// TestEndToEndSeries runs the forecastsession and impact workloads, tiny,
// against the real binary named by VATIC_BIN: two series (the shared
// nile_yearly when ../shared/data is there, else AirPassengers) and the
// daily series with a feature, then one impact window with and without
// its shift. It checks that the harness drives the server, not the
// targets.
func TestEndToEndSeries(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic and point VATIC_BIN at it")
	}
	var progress strings.Builder
	cfg := forecastConfig(t)
	cfg.Vatic, cfg.Runs, cfg.Progress = bin, 1, &progress
	cfg.Forecaster, cfg.ForecasterName = bench.ContestForecaster, bench.ContestLabel
	cfg.ForecastOnly = []string{"AirPassengers"}
	if cfg.ForecastData != "no-such-dir" {
		cfg.ForecastOnly = []string{"nile_yearly"}
	}
	cfg.ImpactWindows, cfg.ImpactConcurrency = 1, 2
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadForecastSession, bench.WorkloadImpact})
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got := countByName(results); len(got) != 5 {
		t.Errorf("Run gave results %v, want 5 names", got)
	}
	checks := bench.Checks(results)
	for _, c := range checks {
		if c.What == "MASE session" && !c.Pass {
			t.Errorf("the session's MASE differs from the contest's: %+v", c)
		}
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, checks)
	t.Logf("report:\n%s", out.String())
}

// TestEndToEndAnomalies runs the anomalies workload, small (wine and
// iris, two seeds), against the real binary named by VATIC_BIN and the
// real scikit-learn:
//
//	make build && VATIC_BIN=$PWD/bin/vatic go test ./bench -run EndToEndAnomalies -v
//
// It checks that the harness drives the server, not the targets: every
// session's score column ranks the planted anomalies well above chance.
func TestEndToEndAnomalies(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic and point VATIC_BIN at it")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	var progress strings.Builder
	cfg := bench.Config{Vatic: bin, Python: py, Dir: t.TempDir(), Runs: 1, Progress: &progress,
		Anomalies: bench.AnomalyConfig{Data: classData, Tasks: []string{"wine", "iris"}, Seeds: 2}}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadAnomalies})
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := countByName(results)
	// Per task: 2 sessions, each with its champion's line and one per
	// other contestant (robust Mahalanobis), and 2 fits of each
	// scikit-learn detector.
	if len(results) != 2*2*4 || got["Anomalies/wine/impl=vatic"] != 2 || got["Anomalies/iris/model=elliptic_envelope/impl=sklearn"] != 2 {
		t.Errorf("Run gave %d results %v, want per task 2 sessions with 2 contestants and 2 fits of each scikit-learn detector", len(results), got)
	}
	for _, r := range results {
		if !strings.HasSuffix(r.Name, "/impl=vatic") {
			continue
		}
		if auc, ok := r.Metric(bench.UnitROCAUC); !ok || auc < 0.75 {
			t.Errorf("result %+v: want a ROC-AUC above 0.75", r)
		}
		if !strings.Contains(r.Name, "/contestant=") && (r.Elapsed <= 0 || r.Labels[bench.LabelChampion] == "") {
			t.Errorf("result %+v: want a session time and a champion", r)
		}
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, bench.Checks(results))
	t.Logf("report:\n%s", out.String())
}

// TestEndToEndText runs the text workload, small (30 quotations of each
// default topic), against the real binary named by VATIC_BIN, the real
// scikit-learn and the installed fortunes:
//
//	make build && VATIC_BIN=$PWD/bin/vatic go test ./bench -run EndToEndText -v
//
// It checks that the harness drives the server: every fold's session
// completes and its model predicts every held-out quotation's topic.
func TestEndToEndText(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic and point VATIC_BIN at it")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	if _, err := os.Stat(bench.FortunesDir); err != nil {
		t.Skipf("%v: apt-get install fortunes", err)
	}
	var progress strings.Builder
	cfg := bench.Config{Vatic: bin, Python: py, Dir: t.TempDir(), Runs: 1, Progress: &progress,
		Text: bench.TextConfig{MaxPerTopic: 30}}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadText})
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := countByName(results)
	// 5 folds of ours and of each scikit-learn pipeline.
	if len(results) != 3*bench.TextSplits || got["Text/fortunes/impl=vatic"] != bench.TextSplits {
		t.Errorf("Run gave %d results %v, want %d sessions and %d fits of each pipeline", len(results), got, bench.TextSplits, bench.TextSplits)
	}
	for _, r := range results {
		if r.Name != "Text/fortunes/impl=vatic" {
			continue
		}
		if _, ok := r.Metric(bench.UnitMacroF1); !ok || r.Elapsed <= 0 || r.Labels[bench.LabelChampion] == "" {
			t.Errorf("result %+v: want a macro-F1, a time and a champion", r)
		}
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, bench.Checks(results))
	t.Logf("report:\n%s", out.String())
}

// TestEndToEndColumnar runs the columnar workload, small, against the real
// binary named by VATIC_BIN: the CSV and JSON parts must run; Arrow IPC
// and Parquet run when the server speaks them (the report says which).
func TestEndToEndColumnar(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic and point VATIC_BIN at it")
	}
	var progress strings.Builder
	cfg := bench.Config{Vatic: bin, Rows: 20_000, Seed: 1, Dir: t.TempDir(), Runs: 1, PredictRows: 2000, LinearTrainRows: 1000,
		Columnar: bench.ColumnarConfig{BigPredictRows: 20_000}, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadColumnar})
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := countByName(results)
	for _, name := range []string{
		"Columnar/predict/model=linear/format=csv/impl=vatic", "Columnar/predict/model=tree/format=json/impl=vatic",
		"Columnar/predict-big/format=csv/impl=vatic", "Columnar/upload/format=json/impl=vatic",
		"Columnar/upload/format=parquet/impl=duckdb", "Columnar/export/format=json/impl=vatic", "Columnar/export/format=parquet/impl=duckdb",
	} {
		if got[name] != 1 {
			t.Errorf("Run gave %d results named %s, want 1 (all: %v)", got[name], name, got)
		}
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, bench.Checks(results))
	t.Logf("report:\n%s", out.String())
}
