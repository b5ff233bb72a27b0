package bench_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// classData is the directory of the classification sets, relative to
// this package; smallClass is classification.py's output for iris and one
// repeat of the folds of seed 1 (regenerate with
// BENCH_UPDATE_FIXTURE=1 go test ./bench -run ClassReportPython).
const (
	classData  = "../stats/classify/testdata"
	smallClass = "testdata/sklearn-iris-1x5.json"
)

func readLabels(t testing.TB, set string) []string {
	t.Helper()
	f, err := os.Open(classData + "/" + set + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[len(r)-1])
	}
	return out
}

func TestStratifiedFolds(t *testing.T) {
	for _, set := range bench.ClassificationSets {
		labels := readLabels(t, set)
		folds, err := bench.StratifiedFolds(labels, 5, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(folds) != 15 {
			t.Fatalf("%s: %d folds, want 15", set, len(folds))
		}
		for r := range 3 {
			seen := make([]int, len(labels))
			var sizes []int
			perClass := map[string][]int{}
			for k, f := range folds[r*5 : r*5+5] {
				if !slices.IsSorted(f) {
					t.Errorf("%s repeat %d fold %d is not sorted", set, r, k)
				}
				sizes = append(sizes, len(f))
				counts := map[string]int{}
				for _, i := range f {
					seen[i]++
					counts[labels[i]]++
				}
				for c, n := range counts {
					perClass[c] = append(perClass[c], n)
				}
			}
			for i, n := range seen {
				if n != 1 {
					t.Fatalf("%s repeat %d: row %d is in %d test folds, want 1", set, r, i, n)
				}
			}
			if slices.Max(sizes)-slices.Min(sizes) > 1 {
				t.Errorf("%s repeat %d: fold sizes %v differ by more than 1", set, r, sizes)
			}
			for c, ns := range perClass {
				if len(ns) != 5 || slices.Max(ns)-slices.Min(ns) > 1 {
					t.Errorf("%s repeat %d: class %s has per-fold counts %v, want 5 within 1", set, r, c, ns)
				}
			}
		}
		if slices.Equal(folds[0], folds[5]) {
			t.Errorf("%s: repeats 1 and 2 share their first fold", set)
		}
		again, _ := bench.StratifiedFolds(labels, 5, 3, 1)
		other, _ := bench.StratifiedFolds(labels, 5, 3, 2)
		if !slices.EqualFunc(folds, again, slices.Equal) {
			t.Errorf("%s: the same seed gave other folds", set)
		}
		if slices.EqualFunc(folds, other, slices.Equal) {
			t.Errorf("%s: seeds 1 and 2 gave the same folds", set)
		}
	}
	// The fixture's folds are those of seed 1, one repeat.
	rep := readClassFixture(t)
	folds, _ := bench.StratifiedFolds(readLabels(t, "iris"), 5, 1, 1)
	for k, f := range rep.Folds {
		if !slices.Equal(f.Test, folds[k]) {
			t.Errorf("fixture fold %d differs from StratifiedFolds(iris, 5, 1, 1)", k+1)
		}
	}
	// Degenerate input: errors, never a panic.
	for _, c := range []struct {
		labels          []string
		splits, repeats int
	}{
		{nil, 5, 1},
		{[]string{"a", "b", "a"}, 5, 1},
		{[]string{"a", "a", "a", "a", "a", "b", "b", "b", "b"}, 5, 1}, // b has 4 rows
		{[]string{"a", "b"}, 1, 1},
		{[]string{"a", "b", "a", "b"}, 2, 0},
	} {
		if f, err := bench.StratifiedFolds(c.labels, c.splits, c.repeats, 1); err == nil {
			t.Errorf("StratifiedFolds(%q, %d, %d) = %v, nil, want an error", c.labels, c.splits, c.repeats, f)
		}
	}
	// One class is not an error here (the server's contest refuses it).
	if f, err := bench.StratifiedFolds(slices.Repeat([]string{"x"}, 10), 5, 1, 1); err != nil || len(f) != 5 || len(f[0]) != 2 {
		t.Errorf("StratifiedFolds(one class) = %v, %v, want 5 folds of 2", f, err)
	}
}

func TestMacroF1(t *testing.T) {
	// The recorded confusion matrix [[210, 9], [16, 121]] (MODELLING §7.2).
	var want, pred []string
	add := func(a, p string, n int) {
		for range n {
			want, pred = append(want, a), append(pred, p)
		}
	}
	add("0", "0", 210)
	add("0", "1", 9)
	add("1", "0", 16)
	add("1", "1", 121)
	if f1, err := bench.MacroF1([]string{"0", "1"}, want, pred); err != nil || math.Abs(f1-0.9250936330) > 5e-11 {
		t.Errorf("MacroF1(recorded matrix) = %.10f, %v, want 0.9250936330", f1, err)
	}
	// A class absent from both counts as 0, as f1_score(labels=…) does:
	// perfect on a and b, 0 on c → 2/3.
	if f1, err := bench.MacroF1([]string{"a", "b", "c"}, []string{"a", "b"}, []string{"a", "b"}); err != nil || math.Abs(f1-2.0/3) > 1e-15 {
		t.Errorf("MacroF1 with an absent class = %v, %v, want 2/3", f1, err)
	}
	for _, c := range [][3][]string{
		{{"a", "b"}, {"a"}, {"a", "b"}},
		{{"a", "b"}, {}, {}},
		{{"a", "b"}, {"a"}, {"z"}},
	} {
		if _, err := bench.MacroF1(c[0], c[1], c[2]); err == nil {
			t.Errorf("MacroF1(%q) = nil error, want one", c)
		}
	}
}

func readClassFixture(t testing.TB) *bench.ClassReport {
	t.Helper()
	f, err := os.Open(smallClass)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := bench.ParseClassReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestParseClassReport(t *testing.T) {
	rep := readClassFixture(t)
	if rep.Rows != 150 || len(rep.Folds) != 5 || len(rep.Models) != 6 || rep.Target != "species" ||
		!slices.Equal(rep.Classes, []string{"setosa", "versicolor", "virginica"}) {
		t.Errorf("report: %d rows, %d folds, %d models, target %q, classes %q; want 150, 5, 6, species and iris's",
			rep.Rows, len(rep.Folds), len(rep.Models), rep.Target, rep.Classes)
	}
	best := rep.Best()
	for _, m := range rep.Models {
		if m.MeanF1() > best.MeanF1() {
			t.Errorf("Best = %s (%v), but %s has %v", best.Key, best.MeanF1(), m.Key, m.MeanF1())
		}
	}
	results := rep.Results("iris")
	got := countByName(results)
	if len(results) != 5*7 || got["Classification/iris/contest/impl=sklearn"] != 5 || got["Classification/iris/fit/model=hist_gbm/impl=sklearn"] != 5 {
		t.Errorf("Results gave %d results %v, want 5 of each of 7 names", len(results), got)
	}
	var fits time.Duration
	for _, r := range results[:6] {
		fits += r.Elapsed
	}
	c := results[6]
	if f1, _ := c.Metric(bench.UnitMacroF1); c.Name != "Classification/iris/contest/impl=sklearn" || c.Elapsed != fits ||
		f1 != best.MacroF1[0] || c.Labels[bench.LabelBest] != best.Key {
		t.Errorf("first contest line %+v, want elapsed %v, macro-F1 %v, best %s", c, fits, best.MacroF1[0], best.Key)
	}

	b, _ := os.ReadFile(smallClass)
	bad := func(what string, edit func(map[string]any)) {
		t.Helper()
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		e, _ := json.Marshal(d)
		if _, err := bench.ParseClassReport(bytes.NewReader(e)); err == nil {
			t.Errorf("ParseClassReport(%s) = nil error, want one", what)
		}
	}
	model := func(d map[string]any) map[string]any { return d["models"].([]any)[0].(map[string]any) }
	bad("no folds", func(d map[string]any) { d["folds"] = []any{} })
	bad("no models", func(d map[string]any) { d["models"] = []any{} })
	bad("one class", func(d map[string]any) { d["classes"] = []any{"setosa"} })
	bad("row out of range", func(d map[string]any) { d["rows"] = 10.0 })
	bad("target not last", func(d map[string]any) { d["target"] = "sepal_length" })
	bad("missing macro-F1", func(d map[string]any) { model(d)["macroF1"] = []any{1.0} })
	bad("macro-F1 above 1", func(d map[string]any) { model(d)["macroF1"] = []any{1.5, 1, 1, 1, 1} })
	if _, err := bench.ParseClassReport(strings.NewReader("sklearn: knn …")); err == nil {
		t.Error("ParseClassReport(not JSON) = nil error, want one")
	}
}

func TestClassificationChecks(t *testing.T) {
	f1 := func(v float64) bench.Metric { return bench.Metric{Value: v, Unit: bench.UnitMacroF1} }
	champ := func(k string) map[string]string { return map[string]string{bench.LabelChampion: k} }
	var results []bench.Result
	// iris, two folds: knn 0.90 (fits 1 s), svc 0.96 (fits 1 s); ours 0.95
	// and 0.96 → −0.005 PASS (the edge). wine, one fold: rf 0.98 (fits
	// 2 s); ours 0.97 → −0.01 MISS. Time: iris 2 s + 1 s of ours vs 4 s,
	// wine 3 s vs 2 s → 6 s ÷ 6 s = 1.0 PASS.
	for range 2 {
		results = append(results,
			bench.Result{Name: "Classification/iris/fit/model=knn/impl=sklearn", Elapsed: time.Second, Metrics: []bench.Metric{f1(0.90)}},
			bench.Result{Name: "Classification/iris/fit/model=svc_rbf/impl=sklearn", Elapsed: time.Second, Metrics: []bench.Metric{f1(0.96)}},
			bench.Result{Name: "Classification/iris/contest/impl=sklearn", Elapsed: 2 * time.Second, Metrics: []bench.Metric{f1(0.96)}})
	}
	results = append(results,
		bench.Result{Name: "Classification/wine/fit/model=random_forest/impl=sklearn", Elapsed: 2 * time.Second, Metrics: []bench.Metric{f1(0.98)}},
		bench.Result{Name: "Classification/wine/contest/impl=sklearn", Elapsed: 2 * time.Second, Metrics: []bench.Metric{f1(0.98)}},
		bench.Result{Name: "Classification/iris/contest/impl=vatic", Elapsed: 2 * time.Second, Labels: champ("knn"),
			Metrics: []bench.Metric{f1(0.95), {Value: 2.5e9, Unit: bench.UnitClientNs}}},
		bench.Result{Name: "Classification/iris/contest/impl=vatic", Elapsed: time.Second, Labels: champ("gbm"),
			Metrics: []bench.Metric{f1(0.96), {Value: 1.5e9, Unit: bench.UnitClientNs}}},
		bench.Result{Name: "Classification/wine/contest/impl=vatic", Elapsed: 3 * time.Second, Labels: champ("knn"),
			Metrics: []bench.Metric{f1(0.97)}},
		bench.Result{Name: "Classification/predict/csv/impl=vatic", Elapsed: time.Second, Labels: champ("gbm"),
			Metrics: []bench.Metric{rowsPerSec(2e5), {Value: 0, Unit: bench.UnitBadScores}}},
		bench.Result{Name: "Classification/predict/json/impl=vatic", Elapsed: time.Second, Labels: champ("gbm"),
			Metrics: []bench.Metric{rowsPerSec(1e5), {Value: 3, Unit: bench.UnitBadScores}}},
	)
	type check struct {
		workload, what string
		value          float64
		text           string
		pass, note     bool
	}
	want := []check{
		{"Classification/iris", "macro-F1 vatic−best sklearn", -0.005, "", true, false},
		{"Classification/iris", "time vatic÷sklearn fits", 0.75, "", false, true},
		{"Classification/iris", "champions", 0, "gbm×1 knn×1", false, true},
		{"Classification/iris/sklearn", "knn macro-F1", 0.90, "", false, true},
		{"Classification/iris/sklearn", "svc_rbf macro-F1", 0.96, "", false, true},
		{"Classification/wine", "macro-F1 vatic−best sklearn", -0.01, "", false, false},
		{"Classification/wine", "time vatic÷sklearn fits", 1.5, "", false, true},
		{"Classification/wine", "champions", 0, "knn×1", false, true},
		{"Classification/wine/sklearn", "random_forest macro-F1", 0.98, "", false, true},
		{"Classification", "time vatic÷sklearn fits", 1, "", true, false},
		{"Classification/predict/csv", "rows/s over HTTP", 2e5, "", false, true},
		{"Classification/predict/csv", "rows with bad class scores", 0, "", true, false},
		{"Classification/predict/json", "rows/s over HTTP", 1e5, "", false, true},
		{"Classification/predict/json", "rows with bad class scores", 3, "", false, false},
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
	if out := b.String(); strings.Count(out, "PASS") != 3 || strings.Count(out, "MISS") != 2 {
		t.Errorf("WriteSummary =\n%s\nwant 3 PASS and 2 MISS", out)
	}
}

// TestClassificationEndToEnd runs the classification workload, small (iris,
// one repeat, 1 000 predicted rows), against the real binary named by
// VATIC_BIN and the real scikit-learn:
//
//	make build && VATIC_BIN=$PWD/bin/vatic go test ./bench -run ClassificationEndToEnd -v
//
// It checks that the harness works against the server, not the targets.
func TestClassificationEndToEnd(t *testing.T) {
	bin := os.Getenv("VATIC_BIN")
	if bin == "" {
		t.Skip("VATIC_BIN is not set; build bin/vatic (with classification sessions, issue 14) and point VATIC_BIN at it")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn, numpy").Run(); err != nil {
		t.Skipf("%s cannot import sklearn and numpy (%v): apt-get install python3-sklearn", py, err)
	}
	var progress strings.Builder
	cfg := bench.Config{Vatic: bin, Python: py, Seed: 1, Dir: t.TempDir(), Runs: 1, Progress: &progress,
		Classification: bench.ClassificationConfig{Data: classData, Sets: []string{"iris"}, Repeats: 1, PredictRows: 1000}}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadClassification})
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := countByName(results)
	if len(results) != 5*7+5+2 || got["Classification/iris/contest/impl=vatic"] != 5 || got["Classification/predict/csv/impl=vatic"] != 1 {
		t.Errorf("Run gave %d results %v, want 5 folds of 7 scikit-learn lines, 5 of our contests and 2 predict lines", len(results), got)
	}
	for _, r := range results {
		if r.Name != "Classification/iris/contest/impl=vatic" {
			continue
		}
		// Iris is easy: any working contest scores well above chance.
		if f1, ok := r.Metric(bench.UnitMacroF1); !ok || f1 < 0.8 || r.Elapsed <= 0 || r.Labels[bench.LabelChampion] == "" {
			t.Errorf("result %+v: want a macro-F1 above 0.8, a time and a champion", r)
		}
	}
	var out strings.Builder
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, bench.Checks(results))
	t.Logf("report:\n%s", out.String())
	for _, c := range bench.Checks(results) {
		if c.What == "rows with bad class scores" && !c.Pass {
			t.Errorf("check %+v: the class scores are not probabilities", c)
		}
	}
}

// FuzzParseClassReport: any document is a report or an error, never a
// panic, and an accepted one gives a result per model and fold.
func FuzzParseClassReport(f *testing.F) {
	b, err := os.ReadFile(smallClass)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"rows":3,"columns":["x","y"],"target":"y","classes":["a","b"],"folds":[{"test":[0]}],"models":[{"key":"k","macroF1":[0.5],"fitSeconds":[1]}]}`))
	f.Add([]byte(`{"models":[{}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		rep, err := bench.ParseClassReport(bytes.NewReader(doc))
		if err != nil {
			return
		}
		rep.Best()
		if got := len(rep.Results("s")); got != len(rep.Folds)*(len(rep.Models)+1) {
			t.Errorf("Results gave %d results for %d folds of %d models", got, len(rep.Folds), len(rep.Models))
		}
	})
}

// FuzzStratifiedFolds: any labels give folds that cover every row once per
// repeat, or an error, never a panic.
func FuzzStratifiedFolds(f *testing.F) {
	f.Add("aaaaabbbbb", uint8(5), uint8(2), uint64(1))
	f.Add("ab", uint8(2), uint8(1), uint64(0))
	f.Add("", uint8(0), uint8(0), uint64(7))
	f.Fuzz(func(t *testing.T, labels string, splits, repeats uint8, seed uint64) {
		ls := strings.Split(labels, "")
		folds, err := bench.StratifiedFolds(ls, int(splits%12), int(repeats%4), seed)
		if err != nil {
			return
		}
		seen := make([]int, len(ls))
		for _, f := range folds {
			for _, i := range f {
				seen[i]++
			}
		}
		for i, n := range seen {
			if n != int(repeats%4) {
				t.Fatalf("row %d in %d test folds, want %d", i, n, repeats%4)
			}
		}
	})
}
