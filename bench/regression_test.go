package bench_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// The fixture is regression.py's output for the first 100 rows of
// friedman1.csv, so the regression workload runs without Python:
//
//	cd bench && /usr/bin/python3 regression.py testdata/friedman-small.csv > testdata/sklearn-friedman-small.json
const (
	smallFriedman = "testdata/friedman-small.csv"
	smallSklearn  = "testdata/sklearn-friedman-small.json"
)

// withRegression points cfg at the fixtures, with a small linear dataset.
func withRegression(cfg bench.Config) bench.Config {
	cfg.Friedman, cfg.SklearnJSON = smallFriedman, smallSklearn
	cfg.PredictRows, cfg.LinearTrainRows = 300, 200
	return cfg
}

func readFixture(t testing.TB) *bench.SklearnReport {
	t.Helper()
	f, err := os.Open(smallSklearn)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := bench.ParseSklearnReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestParseSklearnReport(t *testing.T) {
	rep := readFixture(t)
	if rep.Rows != 100 || len(rep.Folds) != 25 || len(rep.Models) != 7 || rep.Target != "y" {
		t.Errorf("report: %d rows, %d folds, %d models, target %q; want 100, 25, 7, y", rep.Rows, len(rep.Folds), len(rep.Models), rep.Target)
	}
	// RepeatedKFold: every repeat puts every row in exactly one test fold.
	seen := make([]int, rep.Rows)
	for _, f := range rep.Folds {
		for _, i := range f.Test {
			seen[i]++
		}
	}
	for i, n := range seen {
		if n != 5 {
			t.Errorf("row %d is in %d test folds, want 5", i, n)
			break
		}
	}
	best := rep.Best()
	for _, m := range rep.Models {
		if m.MeanRMSE() < best.MeanRMSE() {
			t.Errorf("Best = %s (%v), but %s has %v", best.Key, best.MeanRMSE(), m.Key, m.MeanRMSE())
		}
	}
	results := rep.Results()
	got := countByName(results)
	if len(results) != 25*8 || got["Regression/contest/impl=sklearn"] != 25 || got["Regression/fit/model=ols/impl=sklearn"] != 25 {
		t.Errorf("Results gave %d results %v, want 25 of each of 8 names", len(results), got)
	}
	// A fold's contest line sums its fits and carries the best model's RMSE.
	var fits time.Duration
	for _, r := range results[:7] {
		fits += r.Elapsed
	}
	c := results[7]
	if rmse, _ := c.Metric(bench.UnitRMSE); c.Name != "Regression/contest/impl=sklearn" || c.Elapsed != fits ||
		rmse != best.RMSE[0] || c.Labels[bench.LabelBest] != best.Key {
		t.Errorf("first contest line %+v, want elapsed %v, rmse %v, best %s", c, fits, best.RMSE[0], best.Key)
	}

	b, _ := os.ReadFile(smallSklearn)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	bad := func(what string, edit func(map[string]any)) {
		t.Helper()
		var d map[string]any
		json.Unmarshal(b, &d)
		edit(d)
		e, _ := json.Marshal(d)
		if _, err := bench.ParseSklearnReport(bytes.NewReader(e)); err == nil {
			t.Errorf("ParseSklearnReport(%s) = nil error, want one", what)
		}
	}
	bad("no folds", func(d map[string]any) { d["folds"] = []any{} })
	bad("no models", func(d map[string]any) { d["models"] = []any{} })
	bad("row out of range", func(d map[string]any) { d["rows"] = 10.0 })
	bad("target not last", func(d map[string]any) { d["target"] = "x0" })
	bad("missing RMSE", func(d map[string]any) {
		d["models"].([]any)[0].(map[string]any)["rmse"] = []any{1.0}
	})
	if _, err := bench.ParseSklearnReport(strings.NewReader("sklearn: ols …")); err == nil {
		t.Error("ParseSklearnReport(not JSON) = nil error, want one")
	}
}

func TestSessionContestTime(t *testing.T) {
	s := bench.Session{SessionID: "s", StatusHistory: []bench.StatusChange{
		{Date: "2026-11-22T05:43:39.190936+00:00", Status: "requested"},
		{Date: "2026-11-22T05:43:39.2+00:00", Status: "started"},
		{Date: "2026-11-22T06:43:40.7000001+01:00", Status: "completed"},
	}}
	if d, err := s.ContestTime(); err != nil || d != 1500*time.Millisecond+100 {
		t.Errorf("ContestTime = %v, %v, want 1.5000001s", d, err)
	}
	s.StatusHistory = s.StatusHistory[:2]
	if _, err := s.ContestTime(); err == nil {
		t.Error("ContestTime without completed = nil error, want one")
	}
	s.StatusHistory = []bench.StatusChange{{Date: "yesterday", Status: "started"}}
	if _, err := s.ContestTime(); err == nil {
		t.Error("ContestTime with a bad date = nil error, want one")
	}
}

func TestRegressionChecks(t *testing.T) {
	rmse := func(v float64) bench.Metric { return bench.Metric{Value: v, Unit: bench.UnitRMSE} }
	champ := func(k string) map[string]string { return map[string]string{bench.LabelChampion: k} }
	var results []bench.Result
	// Two folds: ols 2.0 (fits 1 s), gbm 1.0 (fits 3 s); ours 1.0 and 1.04
	// → RMSE ratio 1.02 MISS; contests 1 s + 2 s vs fits 8 s → 0.375 PASS.
	for range 2 {
		results = append(results,
			bench.Result{Name: "Regression/fit/model=ols/impl=sklearn", Elapsed: time.Second, Metrics: []bench.Metric{rmse(2)}},
			bench.Result{Name: "Regression/fit/model=gbm/impl=sklearn", Elapsed: 3 * time.Second, Metrics: []bench.Metric{rmse(1)}},
			bench.Result{Name: "Regression/contest/impl=sklearn", Elapsed: 4 * time.Second, Metrics: []bench.Metric{rmse(1)}})
	}
	results = append(results,
		bench.Result{Name: "Regression/contest/impl=vatic", Elapsed: time.Second, Labels: champ("gbm"),
			Metrics: []bench.Metric{rmse(1), {Value: 1.5e9, Unit: bench.UnitClientNs}}},
		bench.Result{Name: "Regression/contest/impl=vatic", Elapsed: 2 * time.Second, Labels: champ("random_forest"),
			Metrics: []bench.Metric{rmse(1.04), {Value: 2.5e9, Unit: bench.UnitClientNs}}},
		bench.Result{Name: "Regression/linear/impl=vatic", Elapsed: time.Second, Labels: champ("gbm")},
		bench.Result{Name: "Regression/predict/json/impl=vatic", Elapsed: time.Second, Metrics: []bench.Metric{rowsPerSec(2e6)}},
		bench.Result{Name: "Regression/predict/csv/impl=vatic", Elapsed: time.Second, Metrics: []bench.Metric{rowsPerSec(5e5)}},
	)
	type check struct {
		workload, what string
		value          float64
		text           string
		pass, note     bool
	}
	want := []check{
		{"Regression", "RMSE vatic÷best sklearn", 1.02, "", false, false},
		{"Regression", "time vatic÷sklearn fits", 0.375, "", true, false},
		{"Regression", "client time s", 4, "", false, true},
		{"Regression", "champions", 0, "gbm×1 random_forest×1", false, true},
		{"Regression/vatic", "RMSE", 1.02, "", false, true},
		{"Regression/sklearn", "ols RMSE", 2, "", false, true},
		{"Regression/sklearn", "gbm RMSE", 1, "", false, true},
		{"Regression/linear", "champion", 0, "gbm×1", false, false},
		{"Regression/predict/json", "rows/s over HTTP", 2e6, "", true, false},
		{"Regression/predict/csv", "rows/s over HTTP", 5e5, "", false, true},
	}
	got := bench.Checks(results)
	if len(got) != len(want) {
		t.Fatalf("Checks = %+v, want %d checks", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Workload != w.workload || g.What != w.what || g.Text != w.text || g.Pass != w.pass || g.Note != w.note ||
			math.Abs(g.Value-w.value) > 1e-9*math.Max(1, w.value) {
			t.Errorf("Checks[%d] = %+v, want %+v", i, g, w)
		}
	}
	var b strings.Builder
	if err := bench.WriteSummary(&b, 1, got); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "PASS") != 2 || strings.Count(out, "MISS") != 2 || !strings.Contains(out, "gbm×1 random_forest×1") {
		t.Errorf("WriteSummary =\n%s\nwant 2 PASS, 2 MISS and the champions", out)
	}
}

func TestRunRegression(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	srv, err := bench.StartServer(t.Context(), bench.ServerOptions{Bin: bin, DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	var progress bytes.Buffer
	cfg := withRegression(bench.Config{BaseURL: srv.Client.BaseURL, APIKey: srv.Client.APIKey, Vatic: bin, Dir: dir, Runs: 1, Progress: &progress})
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadRegression})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	got := countByName(results)
	if len(results) != 25*8+25+3 || got["Regression/contest/impl=vatic"] != 25 {
		t.Errorf("Run gave %d results %v, want 25 sklearn folds of 8 lines, 25 of our contests and 3 more", len(results), got)
	}
	for _, r := range results {
		if r.Name != "Regression/contest/impl=vatic" {
			continue
		}
		v, ok := r.Metric(bench.UnitRMSE)
		client, _ := r.Metric(bench.UnitClientNs)
		// The fake's contest is 50 ms long and its model predicts the
		// training mean: friedman1's y spreads about 5 around it.
		if !ok || v < 1 || v > 10 || r.Elapsed != 50*time.Millisecond || client <= 0 || r.Labels[bench.LabelChampion] != "ridge" {
			t.Errorf("result %+v: want an RMSE in [1, 10], 50 ms, a client time and champion ridge", r)
			break
		}
	}
	for _, c := range bench.Checks(results) {
		if c.Workload == "Regression/linear" && (!c.Pass || c.Text != "ridge×1") {
			t.Errorf("linear champion check %+v, want ridge×1 PASS", c)
		}
	}
	for _, want := range []string{"fold 25/25: champion ridge", "linear: 200 rows × 20 features, champion ridge (linear)", "predict/csv"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	// Every dataset and session the run created was deleted.
	for _, path := range []string{"/data", "/sessions"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.Client.BaseURL+path, nil)
		req.Header.Set("api-key", srv.Client.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != `{"totalCount":0}` {
			t.Errorf("GET %s after Run = %s, want nothing left", path, b)
		}
	}
}

func TestRunRegressionErrors(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	// A session that fails: 12 rows, one fold training on 10 (the fake
	// wants 20).
	csvPath, jsonPath := filepath.Join(dir, "tiny.csv"), filepath.Join(dir, "tiny.json")
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 12 {
		b.WriteString(strings.Repeat("1,", 2) + string(rune('0'+i%10)) + "\n")
	}
	os.WriteFile(csvPath, []byte(b.String()), 0o644)
	os.WriteFile(jsonPath, []byte(`{"rows":12,"columns":["a","b","y"],"target":"y","folds":[{"test":[0,1]}],`+
		`"models":[{"key":"ols","rmse":[1],"fitSeconds":[0.1]}]}`), 0o644)
	cfg := bench.Config{Vatic: bin, Dir: dir, Runs: 1, Friedman: csvPath, SklearnJSON: jsonPath}
	_, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadRegression})
	if err == nil || !strings.Contains(err.Error(), "ended failed") || !strings.Contains(err.Error(), "too few data points") {
		t.Errorf("Run on a failing session = %v, want its status and message", err)
	}
	// A report about another file.
	cfg.Friedman = smallFriedman
	if _, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadRegression}); err == nil || !strings.Contains(err.Error(), "report is about 12 rows") {
		t.Errorf("Run with a mismatched report = %v, want an error", err)
	}
	// No scikit-learn: the error says how to get it.
	cfg.SklearnJSON, cfg.Python = "", filepath.Join(dir, "no-python")
	if _, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadRegression}); err == nil || !strings.Contains(err.Error(), "python3-sklearn") {
		t.Errorf("Run without Python = %v, want an error naming python3-sklearn", err)
	}
	cfg.Friedman = ""
	if _, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadRegression}); err == nil || !strings.Contains(err.Error(), "Friedman") {
		t.Errorf("Run without Friedman = %v, want an error", err)
	}
}
