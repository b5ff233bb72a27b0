package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// classDataDir holds the workload's sets, relative to this package.
const classDataDir = "../stats/classify/testdata"

// TestClassReportPython runs classification.py on iris with one repeat of
// the folds and checks that the report is about those rows and folds. With
// BENCH_UPDATE_FIXTURE=1 it rewrites testdata/sklearn-iris-1x5.json, the
// fixture of the tests that run without Python.
func TestClassReportPython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	d, err := loadClassTable(classDataDir, "iris")
	if err != nil {
		t.Fatal(err)
	}
	folds, err := StratifiedFolds(d.labels, ClassificationSplits, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	cfg := Config{Python: py, Progress: &progress, Classification: ClassificationConfig{Data: classDataDir}}.withDefaults()
	s := classSet{data: d, folds: folds}
	rep, err := classReport(t.Context(), cfg, s, t.TempDir())
	if err != nil {
		t.Fatalf("classReport = %v\n%s", err, progress.String())
	}
	if len(rep.Models) != 6 || len(rep.Folds) != 5 {
		t.Errorf("report has %d models and %d folds, want 6 and 5", len(rep.Models), len(rep.Folds))
	}
	// Iris is easy: every default model scores well above chance.
	for _, m := range rep.Models {
		if m.MeanF1() < 0.85 {
			t.Errorf("%s: mean macro-F1 %.4f on iris, want above 0.85", m.Key, m.MeanF1())
		}
	}
	if !strings.Contains(progress.String(), "sklearn: iris.csv hist_gbm: mean macro-F1") {
		t.Errorf("progress lacks the script's lines:\n%s", progress.String())
	}
	// Another set's folds are not these.
	other := classSet{data: d, folds: append([][]int{folds[1]}, folds[1:]...)}
	if err := other.matches(rep); err == nil || !strings.Contains(err.Error(), "fold 1") {
		t.Errorf("matches(other folds) = %v, want an error naming fold 1", err)
	}
	if os.Getenv("BENCH_UPDATE_FIXTURE") == "1" {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "sklearn-iris-1x5.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckClassScores(t *testing.T) {
	classes := []string{"a", "b"}
	rows := []map[string]string{
		{"y": "a", "y:a": "0.75", "y:b": "0.25"},
		{"y": "b", "y:a": "0.5", "y:b": "0.5"},             // a tie: either class is the most likely
		{"y": "a", "y:a": "0.4", "y:b": "0.6"},             // not the arg-max
		{"y": "b", "y:a": "0.2", "y:b": "0.9"},             // sums to 1.1
		{"y": "a", "y:a": "1.2", "y:b": "-0.2"},            // outside [0, 1]
		{"y": "b", "y:a": "0.3333333", "y:b": "0.6666667"}, // rounded
	}
	get := func(rs []map[string]string) func(int, string) (string, bool) {
		return func(i int, col string) (string, bool) { v, ok := rs[i][col]; return v, ok }
	}
	truth := []string{"a", "a", "b", "b", "a", "a"}
	bad, acc, err := checkClassScores(len(rows), get(rows), "y", classes, truth)
	if err != nil || bad != 3 || acc != 3.0/6 {
		t.Errorf("checkClassScores = %d, %v, %v; want 3 bad rows, accuracy 0.5", bad, acc, err)
	}
	for _, r := range []map[string]string{
		{"y:a": "1", "y:b": "0"},             // no class
		{"y": "c", "y:a": "1", "y:b": "0"},   // unknown class
		{"y": "a", "y:a": "1"},               // no score for b
		{"y": "a", "y:a": "one", "y:b": "0"}, // not a number
	} {
		if _, _, err := checkClassScores(1, get([]map[string]string{r}), "y", classes, []string{"a"}); err == nil {
			t.Errorf("checkClassScores(%v) = nil error, want one", r)
		}
	}
	if _, _, err := checkClassScores(0, get(nil), "y", classes, nil); err == nil {
		t.Error("checkClassScores(no rows) = nil error, want one")
	}
}

func TestResampleRows(t *testing.T) {
	d, err := loadClassTable(classDataDir, ClassificationPredictSet)
	if err != nil {
		t.Fatal(err)
	}
	rows, labels, err := resampleRows(d, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := resampleRows(d, 500, 1)
	if len(rows) != 500 || len(labels) != 500 || len(rows[0]) != len(d.header)-1 || !slicesEqual2(rows, again) {
		t.Fatalf("resampleRows gave %d rows of %d values (want 500 of %d), or differed on the same seed", len(rows), len(rows[0]), len(d.header)-1)
	}
	for _, l := range labels {
		if l != "benign" && l != "malignant" {
			t.Fatalf("label %q, want benign or malignant", l)
		}
	}
	bad := &classTable{name: "bad", header: []string{"x", "y"}, rows: [][]string{{"NA", "a"}}, labels: []string{"a"}}
	if _, _, err := resampleRows(bad, 3, 1); err == nil {
		t.Error("resampleRows(a non-number) = nil error, want one")
	}
}

func slicesEqual2(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") {
			return false
		}
	}
	return true
}

func TestSessionTime(t *testing.T) {
	s := Session{SessionID: "s", StatusHistory: []StatusChange{
		{Date: "2026-11-22T05:43:39.1+00:00", Status: "requested"},
		{Date: "2026-11-22T05:43:39.2+00:00", Status: "started"},
		{Date: "2026-11-22T06:43:40.6+01:00", Status: "completed"},
	}}
	if d, err := sessionTime(s); err != nil || d != 1500*time.Millisecond {
		t.Errorf("sessionTime = %v, %v, want 1.5s", d, err)
	}
	s.StatusHistory = s.StatusHistory[:2]
	if _, err := sessionTime(s); err == nil {
		t.Error("sessionTime without completed = nil error, want one")
	}
	s.StatusHistory = []StatusChange{{Date: "yesterday", Status: "requested"}, {Date: "2026-11-22T05:43:39.2+00:00", Status: "completed"}}
	if _, err := sessionTime(s); err == nil {
		t.Error("sessionTime with a bad date = nil error, want one")
	}
}

func TestLoadClassTable(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"one-class": "x,y\n1,a\n2,a\n",
		"header":    "x,y\n",
		"narrow":    "y\na\nb\n",
		"ragged":    "x,y\n1,a\n2\n",
	} {
		os.WriteFile(filepath.Join(dir, name+".csv"), []byte(body), 0o644)
		if _, err := loadClassTable(dir, name); err == nil {
			t.Errorf("loadClassTable(%s) = nil error, want one", name)
		}
	}
	if _, err := loadClassTable(dir, "absent"); err == nil {
		t.Error("loadClassTable(absent) = nil error, want one")
	}
	d, err := loadClassTable(classDataDir, "wine")
	if err != nil || len(d.rows) != 178 || d.target() != "cultivar" || len(d.classes) != 3 {
		t.Errorf("loadClassTable(wine) = %d rows, target %q, classes %q, %v; want 178, cultivar, 3", len(d.rows), d.target(), d.classes, err)
	}
}

func TestPythonEnv(t *testing.T) {
	if got := pythonEnv([]string{"A=1"}); strings.Join(got, " ") != "A=1 OMP_NUM_THREADS=1" {
		t.Errorf("pythonEnv = %q, want OMP_NUM_THREADS=1 added", got)
	}
	if got := pythonEnv([]string{"OMP_NUM_THREADS=2"}); strings.Join(got, " ") != "OMP_NUM_THREADS=2" {
		t.Errorf("pythonEnv = %q, want the caller's OMP_NUM_THREADS kept", got)
	}
}

func TestClassReportNoPython(t *testing.T) {
	d, err := loadClassTable(classDataDir, "iris")
	if err != nil {
		t.Fatal(err)
	}
	folds, _ := StratifiedFolds(d.labels, ClassificationSplits, 1, 1)
	dir := t.TempDir()
	cfg := Config{Python: filepath.Join(dir, "no-python"), Classification: ClassificationConfig{Data: classDataDir}}.withDefaults()
	if _, err := classReport(t.Context(), cfg, classSet{data: d, folds: folds}, dir); err == nil || !strings.Contains(err.Error(), "python3-sklearn") {
		t.Errorf("classReport without Python = %v, want an error naming python3-sklearn", err)
	}
}
