package bench

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTextReportPython runs text.py on 40 quotations of each default
// topic and checks that the report is about that corpus and its folds.
func TestTextReportPython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	if _, err := os.Stat(FortunesDir); err != nil {
		t.Skipf("%v: apt-get install fortunes", err)
	}
	c, err := LoadTextCorpus(TextConfig{MaxPerTopic: 40}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	cfg := Config{Python: py, Progress: &progress}.withDefaults()
	rep, err := textReport(t.Context(), cfg, c, t.TempDir())
	if err != nil {
		t.Fatalf("textReport = %v\n%s", err, progress.String())
	}
	if len(rep.Models) != 3 || len(rep.Folds) != TextSplits || rep.Rows != len(c.Texts) {
		t.Errorf("report has %d models, %d folds, %d rows; want 3, %d, %d", len(rep.Models), len(rep.Folds), rep.Rows, TextSplits, len(c.Texts))
	}
	// Eight topics: chance is 1/8; the better pipeline beats it even on
	// 32 training quotations a topic.
	if best := max(rep.Models[0].MeanF1(), rep.Models[1].MeanF1(), rep.Models[2].MeanF1()); best < 0.2 {
		t.Errorf("the better pipeline's mean macro-F1 is %.4f, want above 0.2", best)
	}
	if !strings.Contains(progress.String(), "sklearn: text fold 5/5 multinomial_nb: macro-F1") || !strings.Contains(rep.Tokenizer, "no stop words") {
		t.Errorf("progress lacks the script's lines, or the tokeniser %q is not said:\n%s", rep.Tokenizer, progress.String())
	}
	// Another assignment of the folds is not this one.
	other := *c
	other.Fold = append([]int(nil), c.Fold...)
	for i := range other.Fold {
		if other.Fold[i] == 0 {
			other.Fold[i] = 1
			break
		}
	}
	if err := other.matches(rep); err == nil || !strings.Contains(err.Error(), "fold 1") {
		t.Errorf("matches(other folds) = %v, want an error naming fold 1", err)
	}
}

func TestParseTextReport(t *testing.T) {
	const good = `{"rows": 10, "classes": ["a", "b"], "folds": [{"train": 5, "test": 5, "features": [3]}, {"train": 5, "test": 5, "features": [4]}],
		"models": [{"key": "k", "macroF1": [0.5, 0.75], "fitSeconds": [1, 2], "predictSeconds": [0.5, 0.25]}]}`
	rep, err := ParseTextReport(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results()
	if len(rs) != 2 || rs[1].Name != "Text/fortunes/model=k/impl=sklearn" || rs[1].Elapsed != 2250*time.Millisecond || rs[1].Labels[LabelFold] != "2" {
		t.Errorf("Results = %+v, want per fold the fit and predict time and the fold", rs)
	}
	if v, _ := rs[1].Metric(UnitPredictNs); v != 0.25e9 {
		t.Errorf("Results[1] predict-ns = %v, want 2.5e8", v)
	}
	for _, bad := range []string{
		`{"rows": 10, "classes": ["a"], "folds": [{"train": 5, "test": 5, "features": [3]}, {"train": 5, "test": 5, "features": [4]}], "models": [{"key": "k", "macroF1": [0.5, 0.75], "fitSeconds": [1, 2], "predictSeconds": [0.5, 0.25]}]}`,
		`{"rows": 11, "classes": ["a", "b"], "folds": [{"train": 5, "test": 5, "features": [3]}, {"train": 5, "test": 5, "features": [4]}], "models": [{"key": "k", "macroF1": [0.5, 0.75], "fitSeconds": [1, 2], "predictSeconds": [0.5, 0.25]}]}`,
		`{"rows": 10, "classes": ["a", "b"], "folds": [{"train": 5, "test": 5, "features": [3]}, {"train": 5, "test": 5, "features": [4]}], "models": [{"key": "k", "macroF1": [0.5, 1.5], "fitSeconds": [1, 2], "predictSeconds": [0.5, 0.25]}]}`,
		`{"rows": 10, "classes": ["a", "b"], "folds": [{"train": 5, "test": 5, "features": [3]}, {"train": 5, "test": 5, "features": [4]}], "models": [{"key": "k", "macroF1": [0.5, 0.75], "fitSeconds": [1, 2]}]}`,
		`{"rows": 10, "classes": ["a", "b"], "folds": [{"train": 10, "test": 0, "features": [3]}], "models": []}`,
		`[]`,
	} {
		if _, err := ParseTextReport(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseTextReport(%s) = nil error, want one", bad)
		}
	}
}

func TestTextChecks(t *testing.T) {
	var results []Result
	add := func(name string, k int, f1 float64, elapsed time.Duration) {
		results = append(results, Result{Name: name, Elapsed: elapsed,
			Metrics: []Metric{{f1, UnitMacroF1}, {float64(elapsed / 10), UnitPredictNs}},
			Labels:  map[string]string{LabelFold: strconv.Itoa(k), LabelChampion: "logistic_regression"}})
	}
	const ours, lr, nb = "Text/fortunes/impl=vatic", "Text/fortunes/model=logistic_regression/impl=sklearn", "Text/fortunes/model=multinomial_nb/impl=sklearn"
	for k := 1; k <= 2; k++ {
		add(lr, k, 0.60, time.Second)
		add(nb, k, 0.50, time.Second/2)
	}
	// Two runs of two folds: fold 1 at 0.58 and 0.60, fold 2 at 0.60 twice.
	add(ours, 1, 0.58, 3*time.Second)
	add(ours, 2, 0.60, 3*time.Second)
	add(ours, 1, 0.60, 3*time.Second)
	add(ours, 2, 0.60, 3*time.Second)
	checks := textChecks(results)
	find := func(what string) Check {
		for _, c := range checks {
			if c.What == what {
				return c
			}
		}
		t.Fatalf("textChecks lack %q: %+v", what, checks)
		return Check{}
	}
	if c := find("macro-F1 vatic−best sklearn"); !c.Pass || c.Value > -0.004999 || c.Value < -0.005001 || !strings.Contains(c.Detail, "logistic_regression") {
		t.Errorf("verdict %+v, want PASS at −0.005 against logistic_regression", c)
	}
	if c := find("macro-F1 per fold"); c.Text != "0.590 0.600" {
		t.Errorf("per-fold check %+v, want 0.590 0.600", c)
	}
	if c := find("multinomial_nb macro-F1 per fold"); c.Text != "0.500 0.500" {
		t.Errorf("multinomial_nb per-fold check %+v, want 0.500 0.500", c)
	}
	// One run's two sessions (6 s) against two fits of the better (2 s).
	if c := find("time vatic÷logistic_regression"); c.Value != 3 {
		t.Errorf("time check %+v, want 3", c)
	}
	results[len(results)-1].Metrics[0].Value = 0.50 // ours now 0.57
	if c := textChecks(results)[0]; c.Pass {
		t.Errorf("verdict %+v at −0.03, want MISS", c)
	}
	if checks := textChecks(results[:4]); len(checks) != 2 {
		t.Errorf("textChecks(scikit-learn only) = %+v, want the two per-fold notes", checks)
	}
}
