package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// anomalyFixtureTasks are the tasks of testdata/sklearn-anomalies-small.json.
var anomalyFixtureTasks = []struct {
	name string
	seed uint64
}{{"iris", 0}, {"wine", 3}}

func loadFixtureTasks(t testing.TB) []*AnomalyTask {
	t.Helper()
	var out []*AnomalyTask
	for _, ft := range anomalyFixtureTasks {
		spec, ok := anomalySpec(ft.name)
		if !ok {
			t.Fatalf("no anomaly task %q", ft.name)
		}
		task, err := LoadAnomalyTask(classDataDir, spec, ft.seed)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, task)
	}
	return out
}

// TestAnomalyReportPython runs anomalies.py on iris (seed 0) and wine
// (seed 3) and checks its report against the tasks, scikit-learn's
// ROC-AUC against ours on its scores among them. With
// BENCH_UPDATE_FIXTURE=1 it rewrites testdata/sklearn-anomalies-small.json,
// the fixture of the tests that run without Python.
func TestAnomalyReportPython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	tasks := loadFixtureTasks(t)
	var progress strings.Builder
	cfg := Config{Python: py, Progress: &progress}.withDefaults()
	rep, err := anomalyReport(t.Context(), cfg, tasks, t.TempDir())
	if err != nil {
		t.Fatalf("anomalyReport = %v\n%s", err, progress.String())
	}
	for _, st := range rep.Tasks {
		keys := make([]string, len(st.Models))
		for i, m := range st.Models {
			keys[i] = m.Key
			// Every planted anomaly comes from another class: both
			// detectors rank them far above chance.
			if m.ROCAUC < 0.8 {
				t.Errorf("%s seed %d %s: ROC-AUC %.4f, want above 0.8", st.Task, st.Seed, m.Key, m.ROCAUC)
			}
		}
		if !slices.Equal(keys, []string{"isolation_forest", "elliptic_envelope"}) {
			t.Errorf("%s: models %q, want isolation_forest and elliptic_envelope", st.Task, keys)
		}
	}
	if !strings.Contains(progress.String(), "sklearn: wine seed 3: isolation_forest ROC-AUC") {
		t.Errorf("progress lacks the script's lines:\n%s", progress.String())
	}
	if os.Getenv("BENCH_UPDATE_FIXTURE") == "1" {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "sklearn-anomalies-small.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnomalyReportNoPython(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Python: filepath.Join(dir, "no-python")}.withDefaults()
	if _, err := anomalyReport(t.Context(), cfg, loadFixtureTasks(t), dir); err == nil || !strings.Contains(err.Error(), "python3-sklearn") {
		t.Errorf("anomalyReport without Python = %v, want an error naming python3-sklearn", err)
	}
}

// TestAnomalyTaskMatches: the fixture is about the tasks LoadAnomalyTask
// builds, and ROCAUC reproduces scikit-learn's roc_auc_score on its
// scores; another seed's or a shuffled task's labels do not.
func TestAnomalyTaskMatches(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sklearn-anomalies-small.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseAnomalyReport(f)
	if err != nil {
		t.Fatal(err)
	}
	tasks := loadFixtureTasks(t)
	if len(rep.Tasks) != len(tasks) {
		t.Fatalf("fixture has %d tasks, want %d", len(rep.Tasks), len(tasks))
	}
	for i, task := range tasks {
		if err := task.matches(rep.Tasks[i]); err != nil {
			t.Errorf("matches(%s seed %d) = %v", task.Name, task.Seed, err)
		}
	}
	// Same rows, other anomalies: the task's name, seed and counts still
	// agree, only the AUCs tell.
	wine := *tasks[1]
	wine.Anomalous = slices.Clone(wine.Anomalous)
	slices.Reverse(wine.Anomalous)
	if err := wine.matches(rep.Tasks[1]); err == nil || !strings.Contains(err.Error(), "ROC-AUC") {
		t.Errorf("matches(reversed labels) = %v, want a ROC-AUC mismatch", err)
	}
	other, err := LoadAnomalyTask(classDataDir, AnomalyTasks[1], 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.matches(rep.Tasks[1]); err == nil || !strings.Contains(err.Error(), "seed 4") {
		t.Errorf("matches(wine seed 4) = %v, want an error naming the seed", err)
	}
}

func TestAnomalyScoresRows(t *testing.T) {
	task := &AnomalyTask{Name: "t", Header: []string{"x", "y"}, Rows: [][]string{{"1", "a"}, {"2.50", "b"}, {"1e3", "c"}},
		Anomalous: []bool{false, true, false}}
	row := func(x, anomaly string) map[string]string {
		return map[string]string{"x": x, "y": "?", "anomaly": anomaly}
	}
	got, err := anomalyScores(task, []map[string]string{row("1", "0.1"), row("2.5", "-0.2"), row("1000", "0")})
	if err != nil || !slices.Equal(got, []float64{-0.1, 0.2, 0}) {
		t.Errorf("anomalyScores = %v, %v, want [-0.1 0.2 0]", got, err)
	}
	bad := func(what string, rows []map[string]string, want string) {
		t.Helper()
		if _, err := anomalyScores(task, rows); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("anomalyScores(%s) = %v, want an error containing %q", what, err, want)
		}
	}
	bad("a row short", []map[string]string{row("1", "0.1"), row("2.5", "-0.2")}, "2 scored rows")
	bad("rows swapped", []map[string]string{row("2.5", "-0.2"), row("1", "0.1"), row("1000", "0")}, "not in row order")
	bad("no score", []map[string]string{row("1", ""), row("2.5", "-0.2"), row("1000", "0")}, "not a number")
}
