package bench

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// textPy is the scikit-learn side of the text workload; see its docstring
// for the document it prints ([TextReport]).
//
//go:embed text.py
var textPy []byte

// Fixed parameters, units, labels and targets of the text workload.
const (
	// TextSplits is the number of stratified folds of the text workload.
	TextSplits = 5
	// TextF1Margin is how far our mean macro-F1 may fall below the better
	// scikit-learn pipeline's, over the same folds (issue 16).
	TextF1Margin = 0.01
	// FortunesDir is where Debian's fortunes package installs its files.
	FortunesDir = "/usr/share/games/fortunes"
	// UnitPredictNs is the time of one predict request (ours, the client's
	// from sending it to reading the answer) or of one predict call
	// (scikit-learn's, the pipeline's transform and classifier), ns.
	UnitPredictNs = "predict-ns"
	// LabelFold is the 1-based fold of a text result.
	LabelFold = "fold"
	// textSet names the corpus in the results: Text/fortunes/….
	textSet = "fortunes"
)

// TextTopics are the text workload's default topics: files of Debian's
// fortunes package (1:1.99.1) whose quotations share a subject, rather
// than a form (songs-poems, limericks) or nothing (cookie, miscellaneous,
// fortunes). The six largest such files, 625 to 1250 quotations each,
// and two small ones (food 198, love 150), so that macro-F1 also weighs
// minority classes.
var TextTopics = []string{"people", "definitions", "computers", "politics", "science", "work", "food", "love"}

// TextConfig configures the text workload (a part of [Config]); the zero
// value of each field means the documented default.
type TextConfig struct {
	// Dir is the directory of the fortune files, one per topic; default
	// [FortunesDir].
	Dir string
	// Topics are the files to read, one class each; default [TextTopics].
	// At least two.
	Topics []string
	// MaxPerTopic, when above 0, keeps at most this many quotations of a
	// topic, a sample drawn with the workload's seed (for quick runs);
	// default 0, every quotation.
	MaxPerTopic int
}

func (c TextConfig) withDefaults() TextConfig {
	if c.Dir == "" {
		c.Dir = FortunesDir
	}
	if len(c.Topics) == 0 {
		c.Topics = TextTopics
	}
	return c
}

// validate reports the problems of c after defaults.
func (c TextConfig) validate() error {
	c = c.withDefaults()
	var errs []error
	if c.MaxPerTopic < 0 {
		errs = append(errs, fmt.Errorf("bench: Text.MaxPerTopic = %d, want at least 0", c.MaxPerTopic))
	}
	if len(c.Topics) < 2 {
		errs = append(errs, fmt.Errorf("bench: text topics %q, want at least two", c.Topics))
	}
	for i, t := range c.Topics {
		if t == "" || strings.ContainsAny(t, `/\`) || strings.HasSuffix(t, ".dat") || strings.HasSuffix(t, ".u8") {
			errs = append(errs, fmt.Errorf("bench: text topic %q is not a fortune file name", t))
		}
		if slices.Contains(c.Topics[:i], t) {
			errs = append(errs, fmt.Errorf("bench: text topic %q given twice", t))
		}
	}
	return errors.Join(errs...)
}

// ReadFortunes reads a fortune file (strfile's source format): quotations
// separated by lines holding only "%". The bytes are UTF-8 when valid as
// such, else Latin-1, every byte one code point. Each line is rendered as a terminal shows it, backspace
// overstriking resolved ([overstrike]); a quotation's whitespace runs,
// line ends included, become single spaces, which neither tokeniser of
// the workload tells apart, so that every quotation is one CSV line.
// Empty quotations are dropped.
func ReadFortunes(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	s := string(b)
	if !utf8.Valid(b) {
		rs := make([]rune, len(b))
		for i, c := range b {
			rs[i] = rune(c)
		}
		s = string(rs)
	}
	var out []string
	var cur []string
	flush := func() {
		if q := strings.Join(strings.Fields(strings.Join(cur, " ")), " "); q != "" {
			out = append(out, q)
		}
		cur = cur[:0]
	}
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		if line == "%" {
			flush()
			continue
		}
		cur = append(cur, overstrike(line))
	}
	flush()
	return out, nil
}

// overstrike renders a line written for a printing terminal: a backspace
// moves back one cell and the next character overwrites that cell. Of two
// characters struck on one cell the later stays, unless it is an
// underscore (underlining: "_\bn", "____\b\b\b\bword" and "word\b\b\b\b____"
// all read as the letters; "'\be" keeps the e).
func overstrike(line string) string {
	if !strings.ContainsRune(line, '\b') {
		return line
	}
	var cells []rune
	pos := 0
	for _, c := range line {
		switch {
		case c == '\b':
			pos = max(pos-1, 0)
		case pos < len(cells):
			if c != '_' {
				cells[pos] = c
			}
			pos++
		default:
			cells = append(cells, c)
			pos++
		}
	}
	return string(cells)
}

// TextCorpus is the text workload's table: one row per quotation, its
// text, its topic and its test fold.
type TextCorpus struct {
	Texts   []string
	Topics  []string // the class of every row
	Classes []string // the distinct topics, sorted
	Fold    []int    // 0-based test fold of every row, [TextFolds]
	// Duplicates counts the quotations left out because the same text
	// (after [ReadFortunes]) came earlier, in the same topic or another.
	Duplicates int
}

// LoadTextCorpus reads every topic of c from c.Dir, topics in c's order
// and quotations in file order, keeps the first of texts that occur more
// than once (the same words filed under two topics have no right answer,
// and a copy on each side of a split is a free hit), samples c.MaxPerTopic
// of each topic when set, and assigns the folds with seed. A missing
// directory or topic file is an error that says how to install the
// package.
func LoadTextCorpus(c TextConfig, seed uint64) (*TextCorpus, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("bench: the text workload reads Debian's fortunes from %s, which is not a directory (%v): apt-get install fortunes, or pass -text-dir", c.Dir, err)
	}
	t := &TextCorpus{}
	seen := map[string]bool{}
	for _, topic := range c.Topics {
		f, err := os.Open(filepath.Join(c.Dir, topic))
		if err != nil {
			return nil, fmt.Errorf("bench: text topic %s: %w (apt-get install fortunes installs the topics %s)", topic, err, strings.Join(TextTopics, ", "))
		}
		qs, err := ReadFortunes(bufio.NewReader(f))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("bench: read text topic %s: %w", topic, err)
		}
		var kept []string
		for _, q := range qs {
			if seen[q] {
				t.Duplicates++
				continue
			}
			seen[q] = true
			kept = append(kept, q)
		}
		if c.MaxPerTopic > 0 && len(kept) > c.MaxPerTopic {
			rng := rand.New(rand.NewPCG(seed, 0x746578742d6361))
			pick := rng.Perm(len(kept))[:c.MaxPerTopic]
			slices.Sort(pick)
			sample := make([]string, len(pick))
			for i, j := range pick {
				sample[i] = kept[j]
			}
			kept = sample
		}
		for _, q := range kept {
			t.Texts = append(t.Texts, q)
			t.Topics = append(t.Topics, topic)
		}
	}
	t.Classes = slices.Compact(slices.Sorted(slices.Values(t.Topics)))
	folds, err := TextFolds(t.Topics, seed)
	if err != nil {
		return nil, err
	}
	t.Fold = folds
	return t, nil
}

// TextFolds assigns every row of labels its test fold (0 … [TextSplits]−1)
// by one repeat of [StratifiedFolds] with seed: every class spread over
// the folds as evenly as its count allows.
func TextFolds(labels []string, seed uint64) ([]int, error) {
	folds, err := StratifiedFolds(labels, TextSplits, 1, seed)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(labels))
	for k, test := range folds {
		for _, i := range test {
			out[i] = k
		}
	}
	return out, nil
}

// rows returns the text and topic of the rows whose fold is (test) or is
// not (training) k.
func (t *TextCorpus) rows(k int, test bool) (texts, topics []string) {
	for i, f := range t.Fold {
		if (f == k) == test {
			texts = append(texts, t.Texts[i])
			topics = append(topics, t.Topics[i])
		}
	}
	return texts, topics
}

// writeCSV writes the corpus as text,topic,fold, the file text.py reads.
func (t *TextCorpus) writeCSV(path string) error {
	rows := make([][]string, len(t.Texts))
	for i := range rows {
		rows[i] = []string{t.Texts[i], t.Topics[i], strconv.Itoa(t.Fold[i])}
	}
	return writeCSVFile(path, []string{"text", "topic", "fold"}, rows)
}

// TextReport is the JSON document bench/text.py prints: per scikit-learn
// pipeline, the test macro-F1, fit and predict times of every fold.
type TextReport struct {
	Sklearn   string      `json:"sklearn"` // scikit-learn version
	Python    string      `json:"python"`
	Rows      int         `json:"rows"`
	Classes   []string    `json:"classes"` // sorted
	CPUs      int         `json:"cpus"`
	Tokenizer string      `json:"tokenizer"` // how the vectorizer tokenises, said once
	LoadAvg   [][]float64 `json:"loadAvg"`   // os.getloadavg() before the first fit and after the last
	Folds     []struct {
		Train    int   `json:"train"`
		Test     int   `json:"test"`
		Features []int `json:"features"` // vocabulary size, per model
	} `json:"folds"`
	Models []TextModel `json:"models"`
}

// TextModel is one scikit-learn pipeline of a [TextReport].
type TextModel struct {
	// ClassModel holds the key (logistic_regression, multinomial_nb,
	// logistic_regression_balanced), the pipeline's class names, and the
	// fold macro-F1 scores and fit times.
	ClassModel
	PredictSeconds []float64 `json:"predictSeconds"`
}

// ParseTextReport decodes a text.py document and checks that it is
// complete: at least two classes, folds that split the rows, every model
// with one macro-F1 in [0, 1], one fit and one predict time per fold.
func ParseTextReport(r io.Reader) (*TextReport, error) {
	var rep TextReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: decode scikit-learn report: %w", err)
	}
	var errs []error
	if len(rep.Classes) < 2 {
		errs = append(errs, fmt.Errorf("classes %q, want at least two", rep.Classes))
	}
	if len(rep.Folds) < 2 || len(rep.Models) == 0 {
		errs = append(errs, fmt.Errorf("%d folds and %d models, want two or more folds and a model", len(rep.Folds), len(rep.Models)))
	}
	tested := 0
	for k, f := range rep.Folds {
		tested += f.Test
		if f.Test < 1 || f.Train < 1 || f.Train+f.Test != rep.Rows || len(f.Features) != len(rep.Models) {
			errs = append(errs, fmt.Errorf("fold %d: %d training and %d test rows of %d, %d vocabulary sizes for %d models",
				k+1, f.Train, f.Test, rep.Rows, len(f.Features), len(rep.Models)))
		}
	}
	if tested != rep.Rows {
		errs = append(errs, fmt.Errorf("the folds test %d rows of %d", tested, rep.Rows))
	}
	for _, m := range rep.Models {
		if err := m.check(len(rep.Folds)); err != nil {
			errs = append(errs, err)
		} else if len(m.PredictSeconds) != len(rep.Folds) {
			errs = append(errs, fmt.Errorf("model %q has %d predict times, want %d", m.Key, len(m.PredictSeconds), len(rep.Folds)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bench: scikit-learn report: %w", err)
	}
	return &rep, nil
}

// Results returns the scikit-learn side as benchmark results, fold by
// fold: Text/fortunes/model=KEY/impl=sklearn for every pipeline, its time
// the fit's and the predict's together, with the test macro-F1 and the
// predict time. A report [ParseTextReport] did not accept gives nil.
func (r *TextReport) Results() []Result {
	for _, m := range r.Models {
		if len(m.MacroF1) != len(r.Folds) || len(m.FitSeconds) != len(r.Folds) || len(m.PredictSeconds) != len(r.Folds) {
			return nil
		}
	}
	var out []Result
	for k := range r.Folds {
		for _, m := range r.Models {
			out = append(out, Result{Name: "Text/" + textSet + "/model=" + m.Key + "/impl=sklearn",
				Elapsed: seconds(m.FitSeconds[k] + m.PredictSeconds[k]),
				Metrics: []Metric{{m.MacroF1[k], UnitMacroF1}, {m.PredictSeconds[k] * 1e9, UnitPredictNs}},
				Labels:  map[string]string{LabelFold: strconv.Itoa(k + 1)}})
		}
	}
	return out
}

// matches checks that rep is about t's rows, classes and folds.
func (t *TextCorpus) matches(rep *TextReport) error {
	if rep.Rows != len(t.Texts) || !slices.Equal(rep.Classes, t.Classes) || len(rep.Folds) != TextSplits {
		return fmt.Errorf("bench: the scikit-learn report is about %d rows, classes %q, %d folds; the corpus has %d rows, classes %q, %d folds",
			rep.Rows, rep.Classes, len(rep.Folds), len(t.Texts), t.Classes, TextSplits)
	}
	for k, f := range rep.Folds {
		texts, _ := t.rows(k, true)
		if f.Test != len(texts) {
			return fmt.Errorf("bench: the scikit-learn report's fold %d has %d test rows, the corpus's %d", k+1, f.Test, len(texts))
		}
	}
	return nil
}

// textReport runs text.py with cfg.Python on the corpus (written to
// scratch), its progress going to cfg.Progress, and checks that the
// report is about that corpus.
func textReport(ctx context.Context, cfg Config, t *TextCorpus, scratch string) (*TextReport, error) {
	script := filepath.Join(scratch, "text.py")
	if err := os.WriteFile(script, textPy, 0o644); err != nil {
		return nil, err
	}
	path := filepath.Join(scratch, "text-corpus.csv")
	if err := t.writeCSV(path); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: %s text.py %s (%d rows, %d folds)\n", cfg.Python, path, len(t.Texts), TextSplits)
	start := time.Now()
	stdout, err := runPython(ctx, cfg, pythonEnv(os.Environ()), "the text workload", "", script, path)
	if err != nil {
		return nil, err
	}
	rep, err := ParseTextReport(stdout)
	if err != nil {
		return nil, err
	}
	if err := t.matches(rep); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: scikit-learn %s, python %s, done in %v; tokeniser: %s\n", rep.Sklearn, rep.Python, time.Since(start).Round(time.Millisecond), rep.Tokenizer)
	return rep, nil
}

// textColumns is the column metadata of the text workload's sessions:
// the quotation is a text feature, the topic the target.
var textColumns = map[string]ColumnMetadata{
	"text":  {DataType: "text", Role: "feature"},
	"topic": {DataType: "string", Role: "target"},
}

// RunText runs the text workload: the quotations of cfg.Text's topics of
// Debian's fortunes ([LoadTextCorpus]), classified by topic over 5
// stratified folds ([TextFolds], seeded with cfg.Seed). scikit-learn's
// side (text.py, [TextReport.Results]) runs once, first. Then, cfg.Runs
// times on a fresh server (or on cfg.BaseURL), for every fold the training
// rows (text, topic) are uploaded as a dataset, a classification session
// runs on them with text a text feature and topic the target (polled every
// 20 ms), and its model predicts the test rows' topics (one JSON request);
// Text/fortunes/impl=vatic gets the test macro-F1, the time of the session
// (statusHistory, requested to completed) plus that of the predict
// request, the predict time alone, the client's session time and the
// champion. The dataset, session, model and vocabulary are deleted
// afterwards.
func RunText(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Text.validate(); err != nil {
		return nil, err
	}
	t, err := LoadTextCorpus(cfg.Text, uint64(cfg.Seed))
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, c := range t.Topics {
		counts[c]++
	}
	var parts []string
	for _, c := range cfg.Text.Topics {
		parts = append(parts, fmt.Sprintf("%s %d", c, counts[c]))
	}
	fmt.Fprintf(cfg.Progress, "text: %d quotations from %s (%s), %d duplicates left out\n", len(t.Texts), cfg.Text.Dir, strings.Join(parts, ", "), t.Duplicates)
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	rep, err := textReport(ctx, cfg, t, scratch)
	if err != nil {
		return nil, err
	}
	if la := rep.LoadAvg; len(la) == 2 && len(la[0]) > 0 && len(la[1]) > 0 {
		fmt.Fprintf(cfg.Progress, "sklearn: text: load average %.2f before the fits, %.2f after, on %d CPUs\n", la[0][0], la[1][0], rep.CPUs)
	}
	for _, m := range rep.Models {
		fmt.Fprintf(cfg.Progress, "sklearn: text %-20s mean macro-F1 %.4f  fits %8.3fs  predicts %7.3fs  (%s)\n",
			m.Key, m.MeanF1(), sum(m.FitSeconds), sum(m.PredictSeconds), m.Estimator)
	}
	results := rep.Results()
	for run := range cfg.Runs {
		target, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("text-%d", run))
		if err != nil {
			return results, err
		}
		for k := range TextSplits {
			var r Result
			r, err = textFold(ctx, cfg, target.c, t, k, scratch)
			if err != nil {
				err = fmt.Errorf("fold %d: %w", k+1, err)
				break
			}
			f1, _ := r.Metric(UnitMacroF1)
			pred, _ := r.Metric(UnitPredictNs)
			var sk []string
			for _, m := range rep.Models {
				sk = append(sk, fmt.Sprintf("%s %.4f", m.Key, m.MacroF1[k]))
			}
			fmt.Fprintf(cfg.Progress, "run %d/%d text fold %d/%d: champion %-28s macro-F1 %.4f (sklearn %s)  session %v + predict %v\n",
				run+1, cfg.Runs, k+1, TextSplits, r.Labels[LabelChampion], f1, strings.Join(sk, ", "),
				(r.Elapsed - time.Duration(pred)).Round(time.Millisecond), time.Duration(pred).Round(time.Millisecond))
			results = append(results, r)
		}
		err = target.explain(err)
		target.close(cfg)
		if err != nil {
			return results, fmt.Errorf("text run %d: %w", run+1, err)
		}
	}
	return results, nil
}

// textFold runs fold k of t: a classification session on the other folds'
// rows, then its model's predictions for fold k's rows, scored by
// macro-F1 over t's classes. The session's warnings go to cfg.Progress.
func textFold(ctx context.Context, cfg Config, c *Client, t *TextCorpus, k int, scratch string) (Result, error) {
	texts, topics := t.rows(k, false)
	train := make([][]string, len(texts))
	for i := range texts {
		train[i] = []string{texts[i], topics[i]}
	}
	path := filepath.Join(scratch, "text-fold.csv")
	if err := writeCSVFile(path, []string{"text", "topic"}, train); err != nil {
		return Result{}, err
	}
	name := datasetName(fmt.Sprintf("text-fold-%d", k+1))
	defer func() {
		if err := c.DeleteCascade(context.WithoutCancel(ctx), name, "session", "model", "vocabulary"); err != nil {
			fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
		}
	}()
	if err := putRows(ctx, c, name, path, len(train)); err != nil {
		return Result{}, err
	}
	start := time.Now()
	s, err := c.CreateModelSessionColumns(ctx, name, "topic", "classification", textColumns)
	if err != nil {
		return Result{}, err
	}
	s, err = c.WaitSession(ctx, s.SessionID, sessionPoll)
	client := time.Since(start)
	if err != nil {
		return Result{}, err
	}
	for _, m := range s.Messages {
		if m.Severity != "informational" {
			fmt.Fprintf(cfg.Progress, "text fold %d: session %s: %s: %s\n", k+1, s.SessionID, m.Severity, m.Message)
		}
	}
	if s.ModelID == "" {
		return Result{}, fmt.Errorf("bench: session %s completed without a modelId", s.SessionID)
	}
	wall, err := sessionTime(s)
	if err != nil {
		return Result{}, err
	}
	texts, want := t.rows(k, true)
	test := make([][]string, len(texts))
	for i, q := range texts {
		test[i] = []string{q}
	}
	start = time.Now()
	b, err := c.Predict(ctx, s.ModelID, predictJSON([]string{"text"}, test), "application/json", "application/json")
	predict := time.Since(start)
	if err != nil {
		return Result{}, err
	}
	pred, err := jsonClasses(b, "topic")
	if err != nil {
		return Result{}, err
	}
	f1, err := MacroF1(t.Classes, want, pred)
	if err != nil {
		return Result{}, err
	}
	return Result{Name: "Text/" + textSet + "/impl=vatic", Elapsed: wall + predict,
		Metrics: []Metric{{f1, UnitMacroF1}, {float64(predict), UnitPredictNs}, {float64(client), UnitClientNs}},
		Labels:  map[string]string{LabelChampion: s.AlgorithmKey(), LabelFold: strconv.Itoa(k + 1)}}, nil
}

// textChecks evaluates the text workload: our mean macro-F1 over every
// fold and run against the best scikit-learn pipeline's mean over the
// folds, with notes on the per-fold figures and the times of both sides.
func textChecks(results []Result) []Check {
	w := "Text/" + textSet
	ourName := w + "/impl=vatic"
	var keys []string // scikit-learn pipelines, in order of appearance
	for _, r := range results {
		if k, ok := strings.CutPrefix(r.Name, w+"/model="); ok {
			if k, ok = strings.CutSuffix(k, "/impl=sklearn"); ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	modelName := func(k string) string { return w + "/model=" + k + "/impl=sklearn" }
	ours := values(results, ourName, UnitMacroF1)
	bestKey, best := "", math.Inf(-1)
	for _, k := range keys {
		if m := mean(values(results, modelName(k), UnitMacroF1)); m > best {
			bestKey, best = k, m
		}
	}
	var out []Check
	if len(ours) > 0 && bestKey != "" {
		d := mean(ours) - best
		out = append(out, Check{
			Workload: w, What: "macro-F1 vatic−best sklearn", Value: d,
			Detail: fmt.Sprintf("%.4f vs %.4f %s; %d sessions, %d folds; sklearn's TfidfVectorizer with its default tokeniser",
				mean(ours), best, bestKey, len(ours), len(values(results, modelName(bestKey), UnitMacroF1))),
			Target: fmt.Sprintf(">= -%.2f", TextF1Margin), Pass: d >= -TextF1Margin-1e-12,
		})
	}
	// foldFigures prints the mean macro-F1 of every fold (over the runs)
	// of the results named name.
	foldFigures := func(name string) string {
		byFold := map[string][]float64{}
		var folds []string
		for _, r := range results {
			if r.Name != name {
				continue
			}
			f := r.Labels[LabelFold]
			if v, ok := r.Metric(UnitMacroF1); ok {
				if _, seen := byFold[f]; !seen {
					folds = append(folds, f)
				}
				byFold[f] = append(byFold[f], v)
			}
		}
		var parts []string
		for _, f := range folds {
			parts = append(parts, fmt.Sprintf("%.3f", mean(byFold[f])))
		}
		return strings.Join(parts, " ")
	}
	if len(ours) > 0 {
		wall := elapsedSeconds(results, ourName)
		predict := sum(values(results, ourName, UnitPredictNs)) / 1e9
		out = append(out, Check{Workload: w + "/vatic", What: "macro-F1 per fold", Text: foldFigures(ourName), Note: true,
			Detail: fmt.Sprintf("mean %.4f, min %.4f, max %.4f over %d sessions; champion %s", mean(ours), slices.Min(ours), slices.Max(ours),
				len(ours), labelTally(results, ourName, LabelChampion))})
		out = append(out, Check{Workload: w + "/vatic", What: "session+predict s", Value: sum(wall), Note: true,
			Detail: fmt.Sprintf("summed over %d sessions (%s predicting); statusHistory requested→completed", len(wall), secs(predict))})
	}
	for _, k := range keys {
		vs := values(results, modelName(k), UnitMacroF1)
		wall := elapsedSeconds(results, modelName(k))
		predict := sum(values(results, modelName(k), UnitPredictNs)) / 1e9
		out = append(out, Check{Workload: w + "/sklearn", What: k + " macro-F1 per fold", Text: foldFigures(modelName(k)), Note: true,
			Detail: fmt.Sprintf("mean %.4f; fit+predict %s summed over %d folds (%s predicting)", mean(vs), secs(sum(wall)), len(vs), secs(predict))})
	}
	if len(ours) > 0 && bestKey != "" {
		// One run's sessions against one pass of the best pipeline.
		folds := len(values(results, modelName(bestKey), UnitMacroF1))
		oursTime := mean(elapsedSeconds(results, ourName)) * float64(folds)
		theirs := sum(elapsedSeconds(results, modelName(bestKey)))
		if theirs > 0 {
			out = append(out, Check{Workload: w, What: "time vatic÷" + bestKey, Value: oursTime / theirs, Note: true,
				Detail: fmt.Sprintf("sessions+predicts %s vs fits+predicts %s, %d folds", secs(oursTime), secs(theirs), folds)})
		}
	}
	return out
}
