package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// classificationPy is the scikit-learn side of the classification workload;
// see its docstring for the document it prints ([ClassReport]).
//
//go:embed classification.py
var classificationPy []byte

// Fixed parameters of the classification workload.
const (
	// ClassificationSplits is the number of folds of one repeat of the
	// stratified cross-validation.
	ClassificationSplits = 5
	// ClassificationPredictSet is the set whose rows, resampled with noise,
	// the predict part scores.
	ClassificationPredictSet = "breast_cancer"
	// predictNoise is the relative standard deviation of the noise on the
	// resampled rows of the predict part.
	predictNoise = 0.02
	// scoreTolerance is how far from 1 the class scores of a predicted row
	// may sum, and how far outside [0, 1] one may lie: the scores arrive
	// as decimal strings.
	scoreTolerance = 1e-6
)

// ClassificationSets are the default sets of the classification workload:
// CSV files <name>.csv of ClassificationConfig.Data, the target last.
var ClassificationSets = []string{"iris", "wine", "breast_cancer"}

// Units of the classification workload.
const (
	UnitMacroF1 = "macro-f1" // macroAverageF1Score (MODELLING §7.2) of predictions on held-out rows
	// UnitBadScores counts predicted rows whose class scores are not
	// probabilities summing to 1 with the predicted class among the
	// highest (MODELLING §7.4).
	UnitBadScores = "bad-score-rows"
)

// Labels of the classification workload's results (besides
// [LabelChampion] and [LabelBest]).
const LabelSet = "set" // the data set of a contest

// ClassificationConfig configures the classification workload (a part of
// [Config]); the zero value of each field means the documented default.
type ClassificationConfig struct {
	// Data is the directory of the sets' CSV files; default
	// stats/classify/testdata (copies of ../shared/data's), relative to
	// the working directory.
	Data string
	// Sets are the sets to run, file names without .csv; default
	// [ClassificationSets].
	Sets []string
	// Repeats is how many times the 5-fold stratified cross-validation is
	// repeated, each time on a new shuffle; default 5.
	Repeats int
	// PredictRows is the number of rows, resampled from breast_cancer with
	// noise, that its champion predicts with class scores in one request;
	// default 100,000. At least 100.
	PredictRows int
}

func (c ClassificationConfig) withDefaults() ClassificationConfig {
	if c.Data == "" {
		c.Data = "stats/classify/testdata"
	}
	if len(c.Sets) == 0 {
		c.Sets = ClassificationSets
	}
	if c.Repeats == 0 {
		c.Repeats = 5
	}
	if c.PredictRows == 0 {
		c.PredictRows = 100_000
	}
	return c
}

// validate reports the problems of c after defaults.
func (c ClassificationConfig) validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Repeats < 1 {
		errs = append(errs, fmt.Errorf("bench: Classification.Repeats = %d, want at least 1", c.Repeats))
	}
	if c.PredictRows < minPredictRows {
		errs = append(errs, fmt.Errorf("bench: Classification.PredictRows = %d, want at least %d", c.PredictRows, minPredictRows))
	}
	for _, s := range c.Sets {
		if s == "" || strings.ContainsAny(s, `/\`) {
			errs = append(errs, fmt.Errorf("bench: classification set %q is not a file name", s))
		}
	}
	return errors.Join(errs...)
}

// StratifiedFolds splits the rows of labels into splits folds, repeats
// times, and returns the test rows (0-based, ascending) of every fold,
// repeat after repeat. In each repeat the rows of every class are shuffled
// (a PCG stream of seed and the repeat) and dealt in turn to the folds,
// the classes one after another in sorted order: every row is in exactly
// one test fold per repeat, fold sizes differ by at most one, and so do a
// class's counts in two folds, as scikit-learn's StratifiedKFold promises
// (the shuffles differ from its). It is an error when a class has fewer
// rows than splits, or splits < 2.
func StratifiedFolds(labels []string, splits, repeats int, seed uint64) ([][]int, error) {
	if splits < 2 || repeats < 1 {
		return nil, fmt.Errorf("bench: %d splits × %d repeats, want at least 2 × 1", splits, repeats)
	}
	if len(labels) < splits {
		return nil, fmt.Errorf("bench: %d rows, fewer than the %d folds", len(labels), splits)
	}
	byClass := map[string][]int{}
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	classes := slices.Sorted(func(yield func(string) bool) {
		for c := range byClass {
			if !yield(c) {
				return
			}
		}
	})
	for _, c := range classes {
		if len(byClass[c]) < splits {
			return nil, fmt.Errorf("bench: class %q has %d rows, fewer than the %d folds", c, len(byClass[c]), splits)
		}
	}
	var out [][]int
	for r := range repeats {
		rng := rand.New(rand.NewPCG(seed, 0x636c617373+uint64(r)))
		folds := make([][]int, splits)
		p := 0 // position in the concatenation of the shuffled classes
		for _, c := range classes {
			rows := slices.Clone(byClass[c])
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			for _, i := range rows {
				folds[p%splits] = append(folds[p%splits], i)
				p++
			}
		}
		for _, f := range folds {
			slices.Sort(f)
		}
		out = append(out, folds...)
	}
	return out, nil
}

// ClassReport is the JSON document bench/classification.py prints: per
// scikit-learn model, the test macro-F1 and the fit time of every fold of
// one set.
type ClassReport struct {
	Sklearn string      `json:"sklearn"` // scikit-learn version
	Python  string      `json:"python"`
	Rows    int         `json:"rows"`
	Columns []string    `json:"columns"` // the CSV header
	Target  string      `json:"target"`  // the last column
	Classes []string    `json:"classes"` // sorted as strings
	CPUs    int         `json:"cpus"`
	LoadAvg [][]float64 `json:"loadAvg"` // os.getloadavg() before the first fit and after the last
	Folds   []struct {
		Test []int `json:"test"` // 0-based row indices of the test fold
	} `json:"folds"`
	Models []ClassModel `json:"models"`
}

// ClassModel is one scikit-learn classifier of a [ClassReport].
type ClassModel struct {
	Key        string    `json:"key"`       // logistic_regression, naive_bayes, knn, svc_rbf, random_forest, hist_gbm
	Estimator  string    `json:"estimator"` // its class name(s)
	MacroF1    []float64 `json:"macroF1"`   // per fold
	FitSeconds []float64 `json:"fitSeconds"`
}

// MeanF1 is the mean of the model's fold macro-F1 scores.
func (m ClassModel) MeanF1() float64 { return mean(m.MacroF1) }

// check says what is wrong with a model's figures for n folds: it needs a
// key, and one macro-F1 in [0, 1] and one fit time per fold.
func (m ClassModel) check(n int) error {
	if m.Key == "" || len(m.MacroF1) != n || len(m.FitSeconds) != n {
		return fmt.Errorf("model %q has %d macro-F1 and %d fit times, want %d of each", m.Key, len(m.MacroF1), len(m.FitSeconds), n)
	}
	for _, v := range m.MacroF1 {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("model %q: macro-F1 %v outside [0, 1]", m.Key, v)
		}
	}
	return nil
}

// ParseClassReport decodes a classification.py document and checks that
// it is complete: at least two classes, every fold with test rows within
// Rows, every model with one macro-F1 in [0, 1] and one fit time per fold.
func ParseClassReport(r io.Reader) (*ClassReport, error) {
	var rep ClassReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: decode scikit-learn report: %w", err)
	}
	var errs []error
	if rep.Rows < 1 || len(rep.Columns) < 2 || rep.Target != rep.Columns[len(rep.Columns)-1] {
		errs = append(errs, fmt.Errorf("rows %d, columns %q, target %q: want rows, columns and the last as target", rep.Rows, rep.Columns, rep.Target))
	}
	if len(rep.Classes) < 2 {
		errs = append(errs, fmt.Errorf("classes %q, want at least two", rep.Classes))
	}
	if len(rep.Folds) == 0 || len(rep.Models) == 0 {
		errs = append(errs, fmt.Errorf("%d folds and %d models, want some of each", len(rep.Folds), len(rep.Models)))
	}
	for k, f := range rep.Folds {
		if len(f.Test) == 0 || len(f.Test) >= rep.Rows {
			errs = append(errs, fmt.Errorf("fold %d has %d test rows of %d", k+1, len(f.Test), rep.Rows))
		}
		for _, i := range f.Test {
			if i < 0 || i >= rep.Rows {
				errs = append(errs, fmt.Errorf("fold %d: test row %d out of range", k+1, i))
				break
			}
		}
	}
	for _, m := range rep.Models {
		if err := m.check(len(rep.Folds)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bench: scikit-learn report: %w", err)
	}
	return &rep, nil
}

// Best returns the model with the highest mean macro-F1 over the folds,
// the first listed among equals; the zero ClassModel when there is none.
func (r *ClassReport) Best() ClassModel {
	if len(r.Models) == 0 {
		return ClassModel{}
	}
	return slices.MaxFunc(r.Models, func(a, b ClassModel) int { return cmp.Compare(a.MeanF1(), b.MeanF1()) })
}

// Results returns the scikit-learn side of set as benchmark results, fold
// by fold: Classification/SET/fit/model=KEY/impl=sklearn (one fit: its
// time and test macro-F1) for every model, then
// Classification/SET/contest/impl=sklearn, whose time is the sum of the
// models' fit times on the fold and whose macro-F1 is that of the best
// model ([ClassReport.Best], chosen knowing every test fold). A report
// [ParseClassReport] did not accept gives nil.
func (r *ClassReport) Results(set string) []Result {
	for _, m := range r.Models {
		if len(m.MacroF1) != len(r.Folds) || len(m.FitSeconds) != len(r.Folds) {
			return nil
		}
	}
	if len(r.Models) == 0 {
		return nil
	}
	best := r.Best()
	w := "Classification/" + set
	var out []Result
	for k := range r.Folds {
		var sum time.Duration
		for _, m := range r.Models {
			d := seconds(m.FitSeconds[k])
			sum += d
			out = append(out, Result{Name: w + "/fit/model=" + m.Key + "/impl=sklearn", Elapsed: d,
				Metrics: []Metric{{m.MacroF1[k], UnitMacroF1}}})
		}
		out = append(out, Result{Name: w + "/contest/impl=sklearn", Elapsed: sum,
			Metrics: []Metric{{best.MacroF1[k], UnitMacroF1}}, Labels: map[string]string{LabelBest: best.Key}})
	}
	return out
}

// classTable is a CSV file of numeric features and a class label, held as
// its text; the target is the last column.
type classTable struct {
	name    string // the set
	header  []string
	rows    [][]string
	labels  []string // the last column of rows
	classes []string // distinct labels, sorted
}

func (t *classTable) target() string     { return t.header[len(t.header)-1] }
func (t *classTable) features() []string { return t.header[:len(t.header)-1] }

// loadClassTable reads set from dir: a header and rows of at least two
// columns, all as long as the header, with two or more distinct labels.
func loadClassTable(dir, set string) (*classTable, error) {
	path := filepath.Join(dir, set+".csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	if len(recs) < 2 || len(recs[0]) < 2 {
		return nil, fmt.Errorf("bench: %s: want a header and rows of at least two columns", path)
	}
	t := &classTable{name: set, header: recs[0], rows: recs[1:], labels: make([]string, len(recs)-1)}
	for i, r := range t.rows {
		t.labels[i] = r[len(r)-1]
	}
	t.classes = slices.Compact(slices.Sorted(slices.Values(t.labels)))
	if len(t.classes) < 2 {
		return nil, fmt.Errorf("bench: %s: target %q has %d class(es), want at least two", path, t.target(), len(t.classes))
	}
	return t, nil
}

// classSet is one set of the workload with its folds and scikit-learn's
// side.
type classSet struct {
	data  *classTable
	folds [][]int
	rep   *ClassReport
}

// classReport runs classification.py with cfg.Python on set's file and
// folds (written to scratch), its progress going to cfg.Progress, and
// checks that the report is about that file and those folds.
func classReport(ctx context.Context, cfg Config, s classSet, scratch string) (*ClassReport, error) {
	script := filepath.Join(scratch, "classification.py")
	if err := os.WriteFile(script, classificationPy, 0o644); err != nil {
		return nil, err
	}
	type fold struct {
		Test []int `json:"test"`
	}
	doc := struct {
		Folds []fold `json:"folds"`
	}{}
	for _, f := range s.folds {
		doc.Folds = append(doc.Folds, fold{f})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	foldsPath := filepath.Join(scratch, s.data.name+"-folds.json")
	if err := os.WriteFile(foldsPath, b, 0o644); err != nil {
		return nil, err
	}
	csvPath := filepath.Join(cfg.Classification.Data, s.data.name+".csv")
	fmt.Fprintf(cfg.Progress, "sklearn: %s classification.py %s (%d folds)\n", cfg.Python, csvPath, len(s.folds))
	start := time.Now()
	stdout, err := runPython(ctx, cfg, pythonEnv(os.Environ()), "the classification workload", "", script, csvPath, foldsPath)
	if err != nil {
		return nil, err
	}
	rep, err := ParseClassReport(stdout)
	if err != nil {
		return nil, err
	}
	if err := s.matches(rep); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: scikit-learn %s, python %s, %s done in %v\n", rep.Sklearn, rep.Python, s.data.name, time.Since(start).Round(time.Millisecond))
	return rep, nil
}

// runPython runs the scikit-learn side script (written to disk) with args
// under cfg.Python and env (nil: this process's), its standard error
// echoed to cfg.Progress, and returns its standard output. A failure
// names the command, the end of its standard error and what workload
// needs (numpy and scikit-learn), with hint's other ways out.
func runPython(ctx context.Context, cfg Config, env []string, workload, hint, script string, args ...string) (*bytes.Buffer, error) {
	var stdout bytes.Buffer
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, cfg.Python, append([]string{script}, args...)...)
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(cfg.Progress, &stderr)
	cmd.Env = env
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: %s %s: %w\n%s(%s needs numpy and scikit-learn: apt-get install python3-sklearn; or pass -python%s)",
			cfg.Python, strings.Join(append([]string{filepath.Base(script)}, args...), " "), err, tail(stderr.String(), 2000), workload, hint)
	}
	return &stdout, nil
}

// pythonEnv returns env with OMP_NUM_THREADS=1 added when it sets no
// OMP_NUM_THREADS. HistGradientBoostingClassifier's OpenMP threads spin
// while they wait: on a machine whose other processes keep the CPUs busy
// one fit on iris took seconds instead of milliseconds, which would make
// the time target meaningless. One thread is also the faster setting on
// sets this small, so the target only gets stricter for us.
func pythonEnv(env []string) []string {
	for _, e := range env {
		if strings.HasPrefix(e, "OMP_NUM_THREADS=") {
			return env
		}
	}
	return append(env, "OMP_NUM_THREADS=1")
}

// matches checks that rep is about s's rows, classes and folds.
func (s classSet) matches(rep *ClassReport) error {
	d := s.data
	if rep.Rows != len(d.rows) || !slices.Equal(rep.Columns, d.header) || !slices.Equal(rep.Classes, d.classes) {
		return fmt.Errorf("bench: the scikit-learn report is about %d rows of %q, classes %q, but %s has %d rows of %q, classes %q",
			rep.Rows, rep.Columns, rep.Classes, d.name, len(d.rows), d.header, d.classes)
	}
	if len(rep.Folds) != len(s.folds) {
		return fmt.Errorf("bench: the scikit-learn report of %s has %d folds, want %d", d.name, len(rep.Folds), len(s.folds))
	}
	for k, f := range rep.Folds {
		if !slices.Equal(f.Test, s.folds[k]) {
			return fmt.Errorf("bench: the scikit-learn report of %s has other test rows in fold %d", d.name, k+1)
		}
	}
	return nil
}

// RunClassification runs the classification workload, cfg.Runs times on
// a fresh server (or on cfg.BaseURL):
//
//   - Classification/SET/contest: the folds of [StratifiedFolds] (5 folds
//     × cfg.Classification.Repeats, seeded with cfg.Seed) over every set.
//     For every fold, the training rows are uploaded as a dataset, a
//     classification session (balance at its default) runs its contest on
//     them (polled every 20 ms), and its model predicts the test rows
//     (JSON); the result's time is the session's, from the requested to
//     the completed entry of its statusHistory, with the test macro-F1
//     (stats.ClassificationMetrics over the set's classes), the client's
//     time from POST to seeing completed and the champion's key. The
//     dataset, session and model are deleted afterwards.
//   - Classification/predict/{csv,json}: a session on the whole of
//     breast_cancer, then its model predicting
//     cfg.Classification.PredictRows rows resampled from it with noise, in
//     one CSV request with includeClassScores (the query form: a CSV body
//     has no extraParameters), answered as CSV and as JSON: rows/s over
//     HTTP, MB/s of both bodies, and the rows whose class scores are not
//     probabilities summing to 1 with the predicted class the most likely.
//
// scikit-learn's side ([ClassReport.Results]) on the same folds is
// measured once per set, first.
func RunClassification(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	cc := cfg.Classification
	if err := cc.validate(); err != nil {
		return nil, err
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	var sets []classSet
	var results []Result
	for _, name := range cc.Sets {
		d, err := loadClassTable(cc.Data, name)
		if err != nil {
			return results, err
		}
		folds, err := StratifiedFolds(d.labels, ClassificationSplits, cc.Repeats, uint64(cfg.Seed))
		if err != nil {
			return results, fmt.Errorf("%s: %w", name, err)
		}
		s := classSet{data: d, folds: folds}
		if s.rep, err = classReport(ctx, cfg, s, scratch); err != nil {
			return results, err
		}
		if la := s.rep.LoadAvg; len(la) == 2 && len(la[0]) > 0 && len(la[1]) > 0 {
			fmt.Fprintf(cfg.Progress, "sklearn: %s: load average %.2f before the fits, %.2f after, on %d CPUs\n", name, la[0][0], la[1][0], s.rep.CPUs)
		}
		for _, m := range s.rep.Models {
			fmt.Fprintf(cfg.Progress, "sklearn: %-14s %-20s mean macro-F1 %.4f  fits %8.3fs  (%s)\n", name, m.Key, m.MeanF1(), sum(m.FitSeconds), m.Estimator)
		}
		results = append(results, s.rep.Results(name)...)
		sets = append(sets, s)
	}
	predictData, err := loadClassTable(cc.Data, ClassificationPredictSet)
	if err != nil {
		return results, err
	}
	for run := range cfg.Runs {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("classification-%d", run))
		if err != nil {
			return results, err
		}
		rs, err := classificationRun(ctx, cfg, t.c, sets, predictData, scratch, run)
		results = append(results, rs...)
		err = t.explain(err)
		t.close(cfg)
		if err != nil {
			return results, fmt.Errorf("%s run %d: %w", "Classification", run+1, err)
		}
	}
	return results, nil
}

func classificationRun(ctx context.Context, cfg Config, c *Client, sets []classSet, predictData *classTable, scratch string, run int) ([]Result, error) {
	var out []Result
	for _, s := range sets {
		best := s.rep.Best()
		for k, test := range s.folds {
			r, err := classificationFold(ctx, cfg, c, s.data, test, k, scratch)
			if err != nil {
				return out, fmt.Errorf("%s fold %d: %w", s.data.name, k+1, err)
			}
			f1, _ := r.Metric(UnitMacroF1)
			client, _ := r.Metric(UnitClientNs)
			fmt.Fprintf(cfg.Progress, "run %d/%d %s fold %d/%d: champion %-28s macro-F1 %.4f (sklearn %s %.4f)  session %v (client %v)\n",
				run+1, cfg.Runs, s.data.name, k+1, len(s.folds), r.Labels[LabelChampion], f1, best.Key, best.MacroF1[k],
				r.Elapsed.Round(time.Millisecond), time.Duration(client).Round(time.Millisecond))
			out = append(out, r)
		}
	}
	rs, err := classificationPredict(ctx, cfg, c, predictData, scratch, run)
	return append(out, rs...), err
}

// classificationFold runs one fold of d: the contest on the rows not in
// test, the champion's predictions for the rows in test, scored by
// macro-F1 over d's classes.
func classificationFold(ctx context.Context, cfg Config, c *Client, d *classTable, test []int, k int, scratch string) (Result, error) {
	inTest := make([]bool, len(d.rows))
	for _, i := range test {
		inTest[i] = true
	}
	var train [][]string
	for i, r := range d.rows {
		if !inTest[i] {
			train = append(train, r)
		}
	}
	path := filepath.Join(scratch, "fold.csv")
	if err := writeCSVFile(path, d.header, train); err != nil {
		return Result{}, err
	}
	name := datasetName(fmt.Sprintf("%s-fold-%d", strings.ReplaceAll(d.name, "_", "-"), k+1))
	s, client, err := trainClassSession(ctx, c, name, path, d.target(), len(train))
	defer deleteCascade(ctx, cfg, c, name)
	if err != nil {
		return Result{}, err
	}
	wall, err := sessionTime(s)
	if err != nil {
		return Result{}, err
	}
	rows := make([][]string, len(test))
	want := make([]string, len(test))
	for j, i := range test {
		rows[j], want[j] = d.rows[i][:len(d.header)-1], d.labels[i]
	}
	b, err := c.Predict(ctx, s.ModelID, predictJSON(d.features(), rows), "application/json", "application/json")
	if err != nil {
		return Result{}, err
	}
	pred, err := jsonClasses(b, d.target())
	if err != nil {
		return Result{}, err
	}
	f1, err := MacroF1(d.classes, want, pred)
	if err != nil {
		return Result{}, err
	}
	return Result{Name: "Classification/" + d.name + "/contest/impl=vatic", Elapsed: wall,
		Metrics: []Metric{{f1, UnitMacroF1}, {float64(client), UnitClientNs}},
		Labels:  map[string]string{LabelChampion: s.AlgorithmKey(), LabelSet: d.name}}, nil
}

// trainClassSession uploads the CSV file at path as dataset name, checks
// its row count, and runs a classification session on it to completion.
// It returns the completed session and the client's time from POST to
// seeing it completed.
func trainClassSession(ctx context.Context, c *Client, name, path, target string, rows int) (Session, time.Duration, error) {
	put, err := c.PutCSV(ctx, name, path, false)
	if err != nil {
		return Session{}, 0, err
	}
	if put.RowCount >= 0 && put.RowCount != int64(rows) {
		return Session{}, 0, fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", name, put.RowCount, rows)
	}
	start := time.Now()
	s, err := c.CreateModelSession(ctx, name, target, "classification")
	if err != nil {
		return Session{}, 0, err
	}
	s, err = c.WaitSession(ctx, s.SessionID, sessionPoll)
	elapsed := time.Since(start)
	if err != nil {
		return Session{}, 0, err
	}
	if s.ModelID == "" {
		return Session{}, 0, fmt.Errorf("bench: session %s completed without a modelId", s.SessionID)
	}
	return s, elapsed, nil
}

// sessionTime is the session's wall time by its own statusHistory, from
// the first entry (requested, when the POST created it) to the completed
// one: queueing included, polling not.
func sessionTime(s Session) (time.Duration, error) {
	var created, completed time.Time
	for i, h := range s.StatusHistory {
		if i > 0 && h.Status != "completed" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, h.Date)
		if err != nil {
			return 0, fmt.Errorf("bench: session %s: statusHistory date %q: %w", s.SessionID, h.Date, err)
		}
		if i == 0 {
			created = t
		}
		if h.Status == "completed" {
			completed = t
		}
	}
	if created.IsZero() || completed.IsZero() {
		return 0, fmt.Errorf("bench: session %s: statusHistory %+v lacks a first or a completed entry", s.SessionID, s.StatusHistory)
	}
	return completed.Sub(created), nil
}

// MacroF1 is macroAverageF1Score (MODELLING §7.2, by
// stats.ClassificationMetrics) of pred against want over classes, which
// must hold every label of both; the F1 of a class absent from both
// counts as 0, as it does on the scikit-learn side (f1_score with
// labels=classes, zero_division=0).
func MacroF1(classes, want, pred []string) (float64, error) {
	if len(want) != len(pred) || len(want) == 0 {
		return 0, fmt.Errorf("bench: %d predictions for %d rows", len(pred), len(want))
	}
	index := make(map[string]int, len(classes))
	for i, c := range classes {
		index[c] = i
	}
	a, p := make([]int, len(want)), make([]int, len(pred))
	for i := range want {
		var ok1, ok2 bool
		a[i], ok1 = index[want[i]]
		p[i], ok2 = index[pred[i]]
		if !ok1 || !ok2 {
			return 0, fmt.Errorf("bench: row %d: actual %q, predicted %q: want classes of %q", i, want[i], pred[i], classes)
		}
	}
	return stats.ClassificationMetrics(a, p, len(classes), nil)[stats.MacroAverageF1Score], nil
}

// ROCAUC is rocAreaUnderCurve (MODELLING §7.2, by
// stats.ClassificationMetrics) of score against positive: the
// Mann–Whitney estimate of P(score of a positive row > score of a negative
// one) + ½·P(tie), as scikit-learn's roc_auc_score computes it. Both
// classes must occur and no score may be NaN.
func ROCAUC(positive []bool, score []float64) (float64, error) {
	n := len(positive)
	if len(score) != n || n == 0 {
		return 0, fmt.Errorf("bench: %d scores for %d rows", len(score), n)
	}
	actual := make([]int, n)
	scores := mat.NewDense(n, 2, nil) // column 1 is the positive class's
	npos := 0
	for i, p := range positive {
		if math.IsNaN(score[i]) {
			return 0, fmt.Errorf("bench: row %d: the score is NaN", i)
		}
		if p {
			actual[i] = 1
			npos++
		}
		scores.Set(i, 1, score[i])
	}
	if npos == 0 || npos == n {
		return 0, fmt.Errorf("bench: %d positive rows of %d: the ROC needs both classes", npos, n)
	}
	// The predicted classes do not enter the AUC; the actual ones stand in.
	return stats.ClassificationMetrics(actual, actual, 2, scores)[stats.RocAreaUnderCurve], nil
}

// jsonClasses reads the target column of every row of a JSON predict
// answer as a string (a number or boolean as its JSON text).
func jsonClasses(body []byte, target string) ([]string, error) {
	rows, err := jsonRows(body)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		v, ok := row[target]
		if !ok {
			return nil, fmt.Errorf("bench: predict answer row %d lacks %q", i, target)
		}
		out[i] = v
	}
	return out, nil
}

// jsonRows reads the data rows of a JSON predict answer, every value as a
// string (a number or boolean as its JSON text).
func jsonRows(body []byte) ([]map[string]string, error) {
	var ans struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("bench: decode predict answer: %w", err)
	}
	out := make([]map[string]string, len(ans.Data))
	for i, row := range ans.Data {
		m := make(map[string]string, len(row))
		for k, raw := range row {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw)
			}
			m[k] = s
		}
		out[i] = m
	}
	return out, nil
}

// resampleRows returns n rows drawn with replacement from d's rows, each
// feature multiplied by 1 + predictNoise·N(0, 1) and printed with six
// significant digits, with the label of the row drawn; it depends only on
// d, n and seed.
func resampleRows(d *classTable, n int, seed uint64) (rows [][]string, labels []string, err error) {
	r := rand.New(rand.NewPCG(seed, 0x7072656469637400))
	nf := len(d.header) - 1
	rows, labels = make([][]string, n), make([]string, n)
	for i := range rows {
		k := r.IntN(len(d.rows))
		src := d.rows[k]
		row := make([]string, nf)
		for j := range nf {
			v, err := strconv.ParseFloat(src[j], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("bench: %s row %d: %s = %q is not a number", d.name, k+1, d.header[j], src[j])
			}
			row[j] = strconv.FormatFloat(v*(1+predictNoise*r.NormFloat64()), 'g', 6, 64)
		}
		rows[i], labels[i] = row, d.labels[k]
	}
	return rows, labels, nil
}

// classificationPredict runs the predict part: a session on the whole of
// d, then one predict request of cfg.Classification.PredictRows rows
// resampled from d with class scores, answered as CSV and as JSON.
func classificationPredict(ctx context.Context, cfg Config, c *Client, d *classTable, scratch string, run int) ([]Result, error) {
	path := filepath.Join(scratch, "predict-train.csv")
	if err := writeCSVFile(path, d.header, d.rows); err != nil {
		return nil, err
	}
	name := datasetName(strings.ReplaceAll(d.name, "_", "-"))
	s, _, err := trainClassSession(ctx, c, name, path, d.target(), len(d.rows))
	defer deleteCascade(ctx, cfg, c, name)
	if err != nil {
		return nil, err
	}
	champ := s.AlgorithmKey()
	rows, truth, err := resampleRows(d, cfg.Classification.PredictRows, uint64(cfg.Seed))
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	w := csv.NewWriter(&body)
	w.Write(d.features())
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return nil, err
	}
	var out []Result
	for _, f := range []struct{ format, mime string }{{"csv", "text/csv"}, {"json", "application/json"}} {
		start := time.Now()
		b, err := c.predictQuery(ctx, s.ModelID, url.Values{"includeClassScores": {"true"}}, body.Bytes(), "text/csv", f.mime)
		elapsed := time.Since(start)
		if err != nil {
			return out, err
		}
		var get func(i int, col string) (string, bool)
		var n int
		if f.format == "csv" {
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(recs) == 0 {
				return out, fmt.Errorf("bench: read CSV predict answer: %v (%d records)", err, len(recs))
			}
			n = len(recs) - 1
			get = func(i int, col string) (string, bool) {
				j := slices.Index(recs[0], col)
				if j < 0 || j >= len(recs[i+1]) {
					return "", false
				}
				return recs[i+1][j], true
			}
		} else {
			jr, err := jsonRows(b)
			if err != nil {
				return out, err
			}
			n = len(jr)
			get = func(i int, col string) (string, bool) { v, ok := jr[i][col]; return v, ok }
		}
		if n != len(rows) {
			return out, fmt.Errorf("bench: predict as %s answered %d rows, want %d", f.format, n, len(rows))
		}
		bad, acc, err := checkClassScores(n, get, d.target(), d.classes, truth)
		if err != nil {
			return out, fmt.Errorf("predict as %s: %w", f.format, err)
		}
		r := Result{Name: "Classification/predict/" + f.format + "/impl=vatic", Elapsed: elapsed,
			Metrics: append(speed(n, int64(body.Len()+len(b)), elapsed), Metric{float64(bad), UnitBadScores}),
			Labels:  map[string]string{LabelChampion: champ, LabelSet: d.name}}
		fmt.Fprintf(cfg.Progress, "run %d/%d predict %d rows of %s with class scores, %s answer: champion %s, accuracy on the noisy rows %.4f, %d bad score rows: ",
			run+1, cfg.Runs, n, d.name, f.format, champ, acc, bad)
		WriteResults(cfg.Progress, []Result{r})
		out = append(out, r)
	}
	return out, nil
}

// checkClassScores reads the n predicted rows through get (row, column →
// value) and counts those whose scores (<target>:<class> for every class)
// are not probabilities summing to 1, within scoreTolerance, or whose
// predicted class does not have the highest score. It also returns the
// accuracy of the predicted classes against truth. A missing column, an
// unreadable score or an unknown predicted class is an error.
func checkClassScores(n int, get func(i int, col string) (string, bool), target string, classes, truth []string) (bad int, accuracy float64, err error) {
	if n == 0 || len(truth) != n || len(classes) == 0 {
		return 0, 0, fmt.Errorf("bench: %d predicted rows for %d, %d classes", n, len(truth), len(classes))
	}
	cols := make([]string, len(classes))
	for k, c := range classes {
		cols[k] = target + ":" + c
	}
	scores := make([]float64, len(classes))
	var correct int
	for i := range n {
		pred, ok := get(i, target)
		if !ok {
			return 0, 0, fmt.Errorf("bench: predicted row %d lacks %q", i, target)
		}
		p := slices.Index(classes, pred)
		if p < 0 {
			return 0, 0, fmt.Errorf("bench: predicted row %d: class %q is not one of %q", i, pred, classes)
		}
		if pred == truth[i] {
			correct++
		}
		var total float64
		ok = true
		for k, col := range cols {
			v, found := get(i, col)
			if !found {
				return 0, 0, fmt.Errorf("bench: predicted row %d lacks the class score %q (includeClassScores)", i, col)
			}
			s, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("bench: predicted row %d: %s = %q is not a number", i, col, v)
			}
			scores[k] = s
			total += s
			ok = ok && s >= -scoreTolerance && s <= 1+scoreTolerance
		}
		if !ok || math.Abs(total-1) > scoreTolerance || scores[p] < slices.Max(scores)-scoreTolerance {
			bad++
		}
	}
	return bad, float64(correct) / float64(n), nil
}

// predictQuery is [Client.Predict] with the query q: POST
// /models/{id}/predict?q, the whole answer read into memory.
func (c *Client) predictQuery(ctx context.Context, modelID string, q url.Values, body []byte, contentType, accept string) ([]byte, error) {
	u := strings.TrimRight(c.BaseURL, "/") + "/models/" + url.PathEscape(modelID) + "/predict?" + q.Encode()
	req, err := c.newRequest(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", accept)
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("bench: read answer to predict with model %s: %w", modelID, err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != accept {
		return nil, fmt.Errorf("bench: predict with model %s: Content-Type %q, want %s", modelID, resp.Header.Get("Content-Type"), accept)
	}
	return b, nil
}

// Targets of the classification workload.
const (
	// ClassificationF1Margin is how far our champions' mean test macro-F1
	// may fall below the best scikit-learn model's on a set, over the same
	// folds.
	ClassificationF1Margin = 0.005
	// ClassificationTimeTarget bounds our sessions' summed wall time
	// (statusHistory, requested to completed, every fold of every set) ÷
	// the summed fit time of the scikit-learn models on the same folds.
	ClassificationTimeTarget = 1.0
)

// classificationChecks evaluates the classification workload: per set,
// our champions' mean macro-F1 against the best scikit-learn model's, with
// notes on the time, the champions and every scikit-learn model; over all
// sets, our sessions' time against the models' summed fit times; the
// predict throughput with class scores and the rows whose scores are not
// probabilities.
func classificationChecks(results []Result) []Check {
	const w = "Classification"
	var sets []string // in order of appearance
	for _, r := range results {
		if s, ok := strings.CutPrefix(r.Name, w+"/"); ok {
			if s, _, ok = strings.Cut(s, "/contest/"); ok && !slices.Contains(sets, s) {
				sets = append(sets, s)
			}
		}
	}
	var out []Check
	var oursTotal, sklearnTotal float64
	timed := 0 // sets with both sides timed
	for _, set := range sets {
		ws := w + "/" + set
		var keys []string // scikit-learn models, in order of appearance
		for _, r := range results {
			if k, ok := strings.CutPrefix(r.Name, ws+"/fit/model="); ok {
				if k, ok = strings.CutSuffix(k, "/impl=sklearn"); ok && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		fitName := func(k string) string { return ws + "/fit/model=" + k + "/impl=sklearn" }
		ours := values(results, ws+"/contest/impl=vatic", UnitMacroF1)
		oursTimes := elapsedSeconds(results, ws+"/contest/impl=vatic")
		folds := len(elapsedSeconds(results, ws+"/contest/impl=sklearn"))
		bestKey, best := "", math.Inf(-1)
		for _, k := range keys {
			if m := mean(values(results, fitName(k), UnitMacroF1)); m > best {
				bestKey, best = k, m
			}
		}
		if len(ours) > 0 && bestKey != "" {
			d := mean(ours) - best
			out = append(out, Check{
				Workload: ws, What: "macro-F1 vatic−best sklearn", Value: d,
				Detail: fmt.Sprintf("%.4f vs %.4f %s, %s", mean(ours), best, bestKey, foldsNote(len(ours), folds)),
				Target: fmt.Sprintf(">= -%.3f", ClassificationF1Margin), Pass: d >= -ClassificationF1Margin-1e-12,
			})
		}
		sklearnTime := sum(elapsedSeconds(results, ws+"/contest/impl=sklearn"))
		if len(oursTimes) > 0 && folds > 0 && sklearnTime > 0 {
			oursTime := mean(oursTimes) * float64(folds) // one run's sessions
			oursTotal += oursTime
			sklearnTotal += sklearnTime
			timed++
			out = append(out, Check{
				Workload: ws, What: "time vatic÷sklearn fits", Value: oursTime / sklearnTime, Note: true,
				Detail: fmt.Sprintf("sessions %s vs %d models' fits %s, %d folds", secs(oursTime), len(keys), secs(sklearnTime), folds),
			})
		}
		if tally := labelTally(results, ws+"/contest/impl=vatic", LabelChampion); tally != "" {
			out = append(out, Check{Workload: ws, What: "champions", Text: tally, Note: true,
				Detail: fmt.Sprintf("algorithm.key per fold, %d folds", len(ours))})
		}
		for _, k := range keys {
			out = append(out, Check{Workload: ws + "/sklearn", What: k + " macro-F1", Value: mean(values(results, fitName(k), UnitMacroF1)), Note: true,
				Detail: fmt.Sprintf("fits %s summed over %d folds", secs(sum(elapsedSeconds(results, fitName(k)))), folds)})
		}
	}
	if timed > 0 {
		r := oursTotal / sklearnTotal
		out = append(out, Check{
			Workload: w, What: "time vatic÷sklearn fits", Value: r,
			Detail: fmt.Sprintf("sessions %s vs fits %s, %d set(s); statusHistory requested→completed", secs(oursTotal), secs(sklearnTotal), timed),
			Target: fmt.Sprintf("<= %.2f", ClassificationTimeTarget), Pass: r <= ClassificationTimeTarget,
		})
	}
	for _, f := range []string{"csv", "json"} {
		name := w + "/predict/" + f + "/impl=vatic"
		v, ok := median(results, name, UnitRowsPerSec)
		if !ok {
			continue
		}
		mb, _ := median(results, name, UnitMBPerSec)
		out = append(out, Check{
			Workload: w + "/predict/" + f, What: "rows/s over HTTP", Value: v, Note: true,
			Detail: fmt.Sprintf("%s rows/s, %.1f MB/s in and out, CSV in, class scores, champion %s", si(v), mb, labelTally(results, name, LabelChampion)),
		})
		if bad, ok := maxMetric(results, name, UnitBadScores); ok {
			out = append(out, Check{
				Workload: w + "/predict/" + f, What: "rows with bad class scores", Value: bad,
				Detail: "scores in [0, 1] summing to 1, the predicted class the most likely", Target: "= 0", Pass: bad == 0,
			})
		}
	}
	return out
}
