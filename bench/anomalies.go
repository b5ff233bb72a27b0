package bench

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// anomaliesPy is the scikit-learn side of the anomalies workload; see its
// docstring for the document it prints ([AnomalyReport]).
//
//go:embed anomalies.py
var anomaliesPy []byte

// Units, labels and targets of the anomalies workload.
const (
	// UnitROCAUC is the area under the ROC curve of a detector's anomaly
	// score against the planted anomalies ([ROCAUC]).
	UnitROCAUC = "roc-auc"
	// LabelSeed is the seed of an anomaly task: its sample of anomalies
	// and scikit-learn's random_state.
	LabelSeed = "seed"
	// LabelContestant is the algorithm key of a session's contestant
	// other than the champion.
	LabelContestant = "contestant"
	// AnomalyAUCMargin is how far our mean ROC-AUC on a task may fall
	// below the better scikit-learn detector's (issue 15).
	AnomalyAUCMargin = 0.02
	// anomalyScoreTolerance bounds the difference between scikit-learn's
	// roc_auc_score and [ROCAUC] on the scores it reports: both are the
	// same exact statistic.
	anomalyScoreTolerance = 1e-9
	// anomalyPageSize is the page size the workload reads scores with, the
	// API's largest.
	anomalyPageSize = 1000
)

// AnomalyTaskSpec says how a labelled anomaly task is built from a
// classification set: every row of the normal classes, plus a random
// sample (by the task's seed) of the anomalous class's rows.
type AnomalyTaskSpec struct {
	// Name is the task's, and its set's: the file <Name>.csv, whose last
	// column is the class.
	Name string
	// Normal are the classes whose rows are all kept, as normal rows.
	Normal []string
	// Anomalous is the class the anomalies are drawn from.
	Anomalous string
	// Share sets how many anomalies are drawn: Share × the rows of the
	// anomalous class, or with OfNormal Share × the normal rows; rounded
	// half away from zero, at least 1 and at most the class's rows.
	Share    float64
	OfNormal bool
}

// AnomalyTasks are the anomalies workload's tasks, built from
// ../shared/data (UCI sets, CC BY 4.0):
//
//   - breast_cancer: the 357 benign rows and 5 % of the 212 malignant ones
//     (11) as anomalies, as issue 15 proposes;
//   - wine: cultivars class_0 and class_1 (the "classes 1–2", 130
//     rows) and 7 class_2 rows, 5 % of the normal rows;
//   - iris: setosa and versicolor (100 rows) and 5 virginica, 5 % of the
//     normal rows: virginica overlaps versicolor, so this one is hard.
var AnomalyTasks = []AnomalyTaskSpec{
	{Name: "breast_cancer", Normal: []string{"benign"}, Anomalous: "malignant", Share: 0.05},
	{Name: "wine", Normal: []string{"class_0", "class_1"}, Anomalous: "class_2", Share: 0.05, OfNormal: true},
	{Name: "iris", Normal: []string{"setosa", "versicolor"}, Anomalous: "virginica", Share: 0.05, OfNormal: true},
}

// AnomalyTaskNames lists the names of [AnomalyTasks].
func AnomalyTaskNames() []string {
	out := make([]string, len(AnomalyTasks))
	for i, s := range AnomalyTasks {
		out[i] = s.Name
	}
	return out
}

func anomalySpec(name string) (AnomalyTaskSpec, bool) {
	i := slices.IndexFunc(AnomalyTasks, func(s AnomalyTaskSpec) bool { return s.Name == name })
	if i < 0 {
		return AnomalyTaskSpec{}, false
	}
	return AnomalyTasks[i], true
}

// AnomalyConfig configures the anomalies workload (a part of [Config]);
// the zero value of each field means the documented default.
type AnomalyConfig struct {
	// Data is the directory of the tasks' sets; default ../shared/data,
	// relative to the working directory.
	Data string
	// Tasks are the tasks to run, names of [AnomalyTasks]; default all.
	Tasks []string
	// Seeds is how many seeds every task runs with: 0, 1, … Seeds−1, each
	// drawing its own anomalies and seeding scikit-learn's random_state;
	// default 5.
	Seeds int
}

func (c AnomalyConfig) withDefaults() AnomalyConfig {
	if c.Data == "" {
		c.Data = "../shared/data"
	}
	if len(c.Tasks) == 0 {
		c.Tasks = AnomalyTaskNames()
	}
	if c.Seeds == 0 {
		c.Seeds = 5
	}
	return c
}

// validate reports the problems of c after defaults.
func (c AnomalyConfig) validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Seeds < 1 {
		errs = append(errs, fmt.Errorf("bench: Anomalies.Seeds = %d, want at least 1", c.Seeds))
	}
	for _, t := range c.Tasks {
		if _, ok := anomalySpec(t); !ok {
			errs = append(errs, fmt.Errorf("bench: unknown anomaly task %q (known: %s)", t, strings.Join(AnomalyTaskNames(), ",")))
		}
	}
	return errors.Join(errs...)
}

// AnomalyTask is one labelled anomaly task: the rows' features, in the
// order of the set's file, and which rows were planted as anomalies.
type AnomalyTask struct {
	Name      string
	Seed      uint64
	Header    []string   // the feature columns
	Rows      [][]string // features only, as the file spells them
	Anomalous []bool
}

// Anomalies counts the task's planted anomalies.
func (t *AnomalyTask) Anomalies() int {
	n := 0
	for _, a := range t.Anomalous {
		if a {
			n++
		}
	}
	return n
}

// LoadAnomalyTask builds spec's task with seed from the set's file in dir.
func LoadAnomalyTask(dir string, spec AnomalyTaskSpec, seed uint64) (*AnomalyTask, error) {
	d, err := loadClassTable(dir, spec.Name)
	if err != nil {
		return nil, err
	}
	return buildAnomalyTask(d, spec, seed)
}

// buildAnomalyTask keeps every row of d's normal classes and a sample of
// its anomalous class drawn with a PCG stream of seed, in file order. A
// class of spec that d lacks is an error.
func buildAnomalyTask(d *classTable, spec AnomalyTaskSpec, seed uint64) (*AnomalyTask, error) {
	for _, c := range append(slices.Clone(spec.Normal), spec.Anomalous) {
		if !slices.Contains(d.classes, c) {
			return nil, fmt.Errorf("bench: anomaly task %s: class %q is not one of %s's %q", spec.Name, c, d.name, d.classes)
		}
	}
	var normal, candidates []int
	for i, l := range d.labels {
		switch {
		case slices.Contains(spec.Normal, l):
			normal = append(normal, i)
		case l == spec.Anomalous:
			candidates = append(candidates, i)
		}
	}
	base := len(candidates)
	if spec.OfNormal {
		base = len(normal)
	}
	k := min(max(int(math.Round(spec.Share*float64(base))), 1), len(candidates))
	rng := rand.New(rand.NewPCG(seed, 0x616e6f6d616c79))
	picked := make([]bool, len(d.rows))
	for _, j := range rng.Perm(len(candidates))[:k] {
		picked[candidates[j]] = true
	}
	nf := len(d.header) - 1
	t := &AnomalyTask{Name: spec.Name, Seed: seed, Header: d.features()}
	for i, r := range d.rows {
		if picked[i] || slices.Contains(spec.Normal, d.labels[i]) {
			t.Rows = append(t.Rows, r[:nf])
			t.Anomalous = append(t.Anomalous, picked[i])
		}
	}
	return t, nil
}

// labelled returns the task's rows with a last column "anomalous", 1 for
// the planted anomalies and 0 otherwise, and its header: the file
// anomalies.py reads.
func (t *AnomalyTask) labelled() ([]string, [][]string) {
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = append(slices.Clone(r), "0")
		if t.Anomalous[i] {
			rows[i][len(r)] = "1"
		}
	}
	return append(slices.Clone(t.Header), "anomalous"), rows
}

// AnomalyReport is the JSON document bench/anomalies.py prints: per task
// and seed, every scikit-learn detector's ROC-AUC, fit time and scores.
type AnomalyReport struct {
	Sklearn string               `json:"sklearn"` // scikit-learn version
	Python  string               `json:"python"`
	CPUs    int                  `json:"cpus"`
	Tasks   []AnomalySklearnTask `json:"tasks"`
}

// AnomalySklearnTask is scikit-learn's side of one task and seed.
type AnomalySklearnTask struct {
	Task      string         `json:"task"`
	Seed      uint64         `json:"seed"`
	Rows      int            `json:"rows"`
	Anomalies int            `json:"anomalies"`
	Models    []AnomalyModel `json:"models"`
}

// AnomalyModel is one scikit-learn detector fitted on one task.
type AnomalyModel struct {
	Key        string    `json:"key"`       // isolation_forest, elliptic_envelope
	Estimator  string    `json:"estimator"` // its class name
	ROCAUC     float64   `json:"rocAuc"`    // roc_auc_score of Scores against the planted anomalies
	FitSeconds float64   `json:"fitSeconds"`
	Scores     []float64 `json:"scores"` // −score_samples of every row, in file order
}

// ParseAnomalyReport decodes an anomalies.py document and checks that it
// is complete: every task with rows, anomalies among them, and detectors
// each with a ROC-AUC in [0, 1] and one score per row.
func ParseAnomalyReport(r io.Reader) (*AnomalyReport, error) {
	var rep AnomalyReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: decode scikit-learn report: %w", err)
	}
	var errs []error
	if len(rep.Tasks) == 0 {
		errs = append(errs, errors.New("no task"))
	}
	for _, t := range rep.Tasks {
		if t.Task == "" || t.Anomalies < 1 || t.Anomalies >= t.Rows || len(t.Models) == 0 {
			errs = append(errs, fmt.Errorf("task %q seed %d: %d anomalies of %d rows, %d models; want a name, anomalies among the rows and models",
				t.Task, t.Seed, t.Anomalies, t.Rows, len(t.Models)))
			continue
		}
		for _, m := range t.Models {
			if m.Key == "" || len(m.Scores) != t.Rows || !(m.ROCAUC >= 0 && m.ROCAUC <= 1) {
				errs = append(errs, fmt.Errorf("task %s seed %d: model %q has %d scores for %d rows and ROC-AUC %v",
					t.Task, t.Seed, m.Key, len(m.Scores), t.Rows, m.ROCAUC))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bench: scikit-learn report: %w", err)
	}
	return &rep, nil
}

// Results returns the scikit-learn side as benchmark results:
// Anomalies/TASK/model=KEY/impl=sklearn per task, seed and detector, its
// time the fit's and its metric the ROC-AUC.
func (r *AnomalyReport) Results() []Result {
	var out []Result
	for _, t := range r.Tasks {
		for _, m := range t.Models {
			out = append(out, Result{Name: "Anomalies/" + t.Task + "/model=" + m.Key + "/impl=sklearn", Elapsed: seconds(m.FitSeconds),
				Metrics: []Metric{{m.ROCAUC, UnitROCAUC}}, Labels: map[string]string{LabelSeed: strconv.FormatUint(t.Seed, 10)}})
		}
	}
	return out
}

// matches checks that sk is about t: the same task, seed, rows and
// anomalies, and ROC-AUCs that [ROCAUC] reproduces from the scores with
// t's labels, which holds only if both sides read the rows in one order.
func (t *AnomalyTask) matches(sk AnomalySklearnTask) error {
	if sk.Task != t.Name || sk.Seed != t.Seed || sk.Rows != len(t.Rows) || sk.Anomalies != t.Anomalies() {
		return fmt.Errorf("bench: the scikit-learn report is about %s seed %d, %d anomalies of %d rows, but the task is %s seed %d, %d of %d",
			sk.Task, sk.Seed, sk.Anomalies, sk.Rows, t.Name, t.Seed, t.Anomalies(), len(t.Rows))
	}
	for _, m := range sk.Models {
		auc, err := ROCAUC(t.Anomalous, m.Scores)
		if err != nil {
			return fmt.Errorf("%s seed %d %s: %w", t.Name, t.Seed, m.Key, err)
		}
		if math.Abs(auc-m.ROCAUC) > anomalyScoreTolerance {
			return fmt.Errorf("bench: %s seed %d %s: ROC-AUC %v here from scikit-learn's scores, %v there", t.Name, t.Seed, m.Key, auc, m.ROCAUC)
		}
	}
	return nil
}

// anomalyReport runs anomalies.py with cfg.Python on the tasks (their
// files written to scratch), its progress going to cfg.Progress, and
// checks that the report is about those tasks.
func anomalyReport(ctx context.Context, cfg Config, tasks []*AnomalyTask, scratch string) (*AnomalyReport, error) {
	script := filepath.Join(scratch, "anomalies.py")
	if err := os.WriteFile(script, anomaliesPy, 0o644); err != nil {
		return nil, err
	}
	type entry struct {
		Task string `json:"task"`
		Seed uint64 `json:"seed"`
		File string `json:"file"`
	}
	var doc struct {
		Tasks []entry `json:"tasks"`
	}
	for _, t := range tasks {
		path := filepath.Join(scratch, fmt.Sprintf("sklearn-%s-%d.csv", t.Name, t.Seed))
		header, rows := t.labelled()
		if err := writeCSVFile(path, header, rows); err != nil {
			return nil, err
		}
		doc.Tasks = append(doc.Tasks, entry{t.Name, t.Seed, path})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	manifest := filepath.Join(scratch, "anomaly-tasks.json")
	if err := os.WriteFile(manifest, b, 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: %s anomalies.py (%d tasks × seeds)\n", cfg.Python, len(tasks))
	start := time.Now()
	stdout, err := runPython(ctx, cfg, pythonEnv(os.Environ()), "the anomalies workload", "", script, manifest)
	if err != nil {
		return nil, err
	}
	rep, err := ParseAnomalyReport(stdout)
	if err != nil {
		return nil, err
	}
	if len(rep.Tasks) != len(tasks) {
		return nil, fmt.Errorf("bench: the scikit-learn report has %d tasks, want %d", len(rep.Tasks), len(tasks))
	}
	for i, t := range tasks {
		if err := t.matches(rep.Tasks[i]); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(cfg.Progress, "sklearn: scikit-learn %s, python %s, done in %v\n", rep.Sklearn, rep.Python, time.Since(start).Round(time.Millisecond))
	return rep, nil
}

// RunAnomalies runs the anomalies workload. Every task of
// cfg.Anomalies.Tasks is built with every seed ([AnomalyTasks],
// [LoadAnomalyTask]); scikit-learn's IsolationForest and EllipticEnvelope
// score each one once, first (anomalies.py, [AnomalyReport.Results]).
// Then, cfg.Runs times on a fresh server (or on cfg.BaseURL), each task's
// features are uploaded as a dataset, an anomalies session
// (containsAnomalies at its default, true) runs on it, polled every 20 ms,
// and every row's score is read from /results/anomalyscores, page by page:
// Anomalies/TASK/impl=vatic gets the ROC-AUC of −anomaly (negative =
// anomalous, MODELLING §8.1) against the planted anomalies, the session's
// time by its statusHistory, the client's time and the champion; every
// other contestant's scores (its contest rows) give
// Anomalies/TASK/contestant=KEY/impl=vatic, a ROC-AUC without a time. The
// dataset, session and model are deleted afterwards.
func RunAnomalies(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	ac := cfg.Anomalies
	if err := ac.validate(); err != nil {
		return nil, err
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	var tasks []*AnomalyTask
	for _, name := range ac.Tasks {
		spec, _ := anomalySpec(name)
		for seed := range uint64(ac.Seeds) {
			t, err := LoadAnomalyTask(ac.Data, spec, seed)
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, t)
		}
		last := tasks[len(tasks)-1]
		fmt.Fprintf(cfg.Progress, "anomalies: %s: %d rows, %d of them planted anomalies, with each of %d seeds\n", name, len(last.Rows), last.Anomalies(), ac.Seeds)
	}
	rep, err := anomalyReport(ctx, cfg, tasks, scratch)
	if err != nil {
		return nil, err
	}
	results := rep.Results()
	for run := range cfg.Runs {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("anomalies-%d", run))
		if err != nil {
			return results, err
		}
		for i, task := range tasks {
			var rs []Result
			rs, err = anomalySession(ctx, cfg, t.c, task, scratch)
			if err != nil {
				err = fmt.Errorf("%s seed %d: %w", task.Name, task.Seed, err)
				break
			}
			r := rs[0]
			auc, _ := r.Metric(UnitROCAUC)
			var others, sk []string
			for _, o := range rs[1:] {
				v, _ := o.Metric(UnitROCAUC)
				others = append(others, fmt.Sprintf(", %s %.4f", o.Labels[LabelContestant], v))
			}
			for _, m := range rep.Tasks[i].Models {
				sk = append(sk, fmt.Sprintf("%s %.4f", m.Key, m.ROCAUC))
			}
			fmt.Fprintf(cfg.Progress, "run %d/%d %s seed %d: ROC-AUC %.4f, champion %s%s (sklearn %s), session %v\n",
				run+1, cfg.Runs, task.Name, task.Seed, auc, r.Labels[LabelChampion], strings.Join(others, ""), strings.Join(sk, ", "), r.Elapsed.Round(time.Millisecond))
			results = append(results, rs...)
		}
		err = t.explain(err)
		t.close(cfg)
		if err != nil {
			return results, fmt.Errorf("Anomalies run %d: %w", run+1, err)
		}
	}
	return results, nil
}

// anomalySession runs one anomalies session on task's features and
// scores its anomaly column against the planted anomalies: the champion's
// (/results/anomalyscores), then every other contestant's (its contest
// rows; skipped with a warning when the key's plan has no contest
// endpoints).
func anomalySession(ctx context.Context, cfg Config, c *Client, task *AnomalyTask, scratch string) ([]Result, error) {
	path := filepath.Join(scratch, "anomaly-task.csv")
	if err := writeCSVFile(path, task.Header, task.Rows); err != nil {
		return nil, err
	}
	name := datasetName("anomalies-" + strings.ReplaceAll(task.Name, "_", "-"))
	defer deleteCascade(ctx, cfg, c, name)
	if err := putRows(ctx, c, name, path, len(task.Rows)); err != nil {
		return nil, err
	}
	start := time.Now()
	s, err := c.CreateModelSession(ctx, name, "", "anomalies")
	if err != nil {
		return nil, err
	}
	if s, err = c.WaitSession(ctx, s.SessionID, sessionPoll); err != nil {
		return nil, err
	}
	client := time.Since(start)
	wall, err := sessionTime(s)
	if err != nil {
		return nil, err
	}
	rows, err := c.AnomalyScores(ctx, s.SessionID)
	if err != nil {
		return nil, err
	}
	score, err := anomalyScores(task, rows)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.SessionID, err)
	}
	auc, err := ROCAUC(task.Anomalous, score)
	if err != nil {
		return nil, err
	}
	seed := strconv.FormatUint(task.Seed, 10)
	out := []Result{{Name: "Anomalies/" + task.Name + "/impl=vatic", Elapsed: wall,
		Metrics: []Metric{{auc, UnitROCAUC}, {float64(client), UnitClientNs}},
		Labels:  map[string]string{LabelChampion: s.AlgorithmKey(), LabelSeed: seed}}}
	cs, err := c.Contestants(ctx, s.SessionID)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusForbidden {
		fmt.Fprintf(cfg.Progress, "warning: %v; only the champion is scored\n", err)
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, ct := range cs {
		if ct.Algorithm.Key == s.AlgorithmKey() {
			continue
		}
		rows, err := c.ContestantScores(ctx, s.SessionID, ct.ID)
		if err != nil {
			return nil, err
		}
		score, err := anomalyScores(task, rows)
		if err != nil {
			return nil, fmt.Errorf("session %s contestant %s: %w", s.SessionID, ct.Algorithm.Key, err)
		}
		auc, err := ROCAUC(task.Anomalous, score)
		if err != nil {
			return nil, err
		}
		// The contestants fit in one session: only the session has a time.
		out = append(out, Result{Name: "Anomalies/" + task.Name + "/contestant=" + ct.Algorithm.Key + "/impl=vatic",
			Metrics: []Metric{{auc, UnitROCAUC}}, Labels: map[string]string{LabelSeed: seed, LabelContestant: ct.Algorithm.Key}})
	}
	return out, nil
}

// anomalyScores returns −anomaly of every row of an anomalyscores answer
// (higher = more anomalous), after checking that the answer has task's
// rows in task's order: each row's first feature equals the uploaded
// value (relative 1e-9, as the server may print a number its own way).
func anomalyScores(task *AnomalyTask, rows []map[string]string) ([]float64, error) {
	if len(rows) != len(task.Rows) {
		return nil, fmt.Errorf("bench: %d scored rows for the %d rows of %s", len(rows), len(task.Rows), task.Name)
	}
	first := task.Header[0]
	out := make([]float64, len(rows))
	for i, row := range rows {
		a, err := strconv.ParseFloat(row["anomaly"], 64)
		if err != nil {
			return nil, fmt.Errorf("bench: scored row %d: anomaly = %q is not a number", i, row["anomaly"])
		}
		got, err1 := strconv.ParseFloat(row[first], 64)
		want, err2 := strconv.ParseFloat(task.Rows[i][0], 64)
		if err1 != nil || err2 != nil || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			return nil, fmt.Errorf("bench: scored row %d has %s = %q, the uploaded row %q: the scores are not in row order", i, first, row[first], task.Rows[i][0])
		}
		out[i] = -a
	}
	return out, nil
}

// AnomalyScores reads every row of an anomalies session's
// /results/anomalyscores (REFERENCE §6.13), the champion's scores, page
// after page, each value as text (a number as its JSON text).
func (c *Client) AnomalyScores(ctx context.Context, id string) ([]map[string]string, error) {
	return c.pagedRows(ctx, "/sessions/"+url.PathEscape(id)+"/results/anomalyscores")
}

// ContestantScores reads every row a contestant of an anomalies session
// scored, /sessions/{id}/contest/contestants/{cid} (REFERENCE §7.3), as
// [Client.AnomalyScores] does.
func (c *Client) ContestantScores(ctx context.Context, id, contestant string) ([]map[string]string, error) {
	return c.pagedRows(ctx, "/sessions/"+url.PathEscape(id)+"/contest/contestants/"+url.PathEscape(contestant))
}

// Contestant is a session's contestant as GET
// /sessions/{id}/contest/contestants lists it.
type Contestant struct {
	ID        string `json:"id"`
	Algorithm struct {
		Key string `json:"key"`
	} `json:"algorithm"`
}

// Contestants lists a session's contestants (REFERENCE §7.3).
func (c *Client) Contestants(ctx context.Context, id string) ([]Contestant, error) {
	var ans struct {
		Items []Contestant `json:"items"`
	}
	if err := c.getJSON(ctx, strings.TrimRight(c.BaseURL, "/")+"/sessions/"+url.PathEscape(id)+"/contest/contestants", "the contestants of session "+id, &ans); err != nil {
		return nil, err
	}
	return ans.Items, nil
}

// pagedRows reads every row of the paged JSON resource at path (under
// BaseURL), page after page, each value as text.
func (c *Client) pagedRows(ctx context.Context, path string) ([]map[string]string, error) {
	var out []map[string]string
	for page := 0; ; page++ {
		u := fmt.Sprintf("%s%s?page=%d&pageSize=%d", strings.TrimRight(c.BaseURL, "/"), path, page, anomalyPageSize)
		req, err := c.newRequest(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := c.do(req)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("bench: read %s: %w", path, err)
		}
		rows, err := jsonRows(b)
		if err != nil {
			return nil, err
		}
		var paging struct {
			TotalCount int `json:"totalCount"`
		}
		if err := json.Unmarshal(b, &paging); err != nil {
			return nil, fmt.Errorf("bench: decode %s: %w", path, err)
		}
		out = append(out, rows...)
		if len(out) >= paging.TotalCount || len(rows) == 0 {
			if len(out) != paging.TotalCount {
				return nil, fmt.Errorf("bench: %s: %d rows read, totalCount %d", path, len(out), paging.TotalCount)
			}
			return out, nil
		}
	}
}

// anomalyChecks evaluates the anomalies workload per task: our champions'
// mean ROC-AUC over every session (seeds × runs) against the better
// scikit-learn detector's mean over the seeds, with notes on each side,
// our other contestants included.
func anomalyChecks(results []Result) []Check {
	const w = "Anomalies"
	var tasks []string // in order of appearance
	for _, r := range results {
		if s, ok := strings.CutPrefix(r.Name, w+"/"); ok {
			if t, _, ok := strings.Cut(s, "/"); ok && !slices.Contains(tasks, t) {
				tasks = append(tasks, t)
			}
		}
	}
	var out []Check
	for _, task := range tasks {
		wt := w + "/" + task
		var keys []string // scikit-learn detectors, in order of appearance
		for _, r := range results {
			if k, ok := strings.CutPrefix(r.Name, wt+"/model="); ok {
				if k, ok = strings.CutSuffix(k, "/impl=sklearn"); ok && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		var contestants []string // our other detectors, in order of appearance
		for _, r := range results {
			if k, ok := strings.CutPrefix(r.Name, wt+"/contestant="); ok {
				if k, ok = strings.CutSuffix(k, "/impl=vatic"); ok && !slices.Contains(contestants, k) {
					contestants = append(contestants, k)
				}
			}
		}
		modelName := func(k string) string { return wt + "/model=" + k + "/impl=sklearn" }
		ours := values(results, wt+"/impl=vatic", UnitROCAUC)
		bestKey, best := "", math.Inf(-1)
		for _, k := range keys {
			if m := mean(values(results, modelName(k), UnitROCAUC)); m > best {
				bestKey, best = k, m
			}
		}
		seeds := len(values(results, modelName(bestKey), UnitROCAUC))
		if len(ours) > 0 && bestKey != "" {
			d := mean(ours) - best
			out = append(out, Check{
				Workload: wt, What: "ROC-AUC vatic−best sklearn", Value: d,
				Detail: fmt.Sprintf("%.4f vs %.4f %s; means over %d sessions and %d seeds", mean(ours), best, bestKey, len(ours), seeds),
				Target: fmt.Sprintf(">= -%.2f", AnomalyAUCMargin), Pass: d >= -AnomalyAUCMargin-1e-12,
			})
		}
		if len(ours) > 0 {
			out = append(out, Check{Workload: wt + "/vatic", What: "champion ROC-AUC", Value: mean(ours), Note: true,
				Detail: fmt.Sprintf("min %.4f, max %.4f over %d sessions; median session %s; champion %s", slices.Min(ours), slices.Max(ours),
					len(ours), secs(medianOf(elapsedSeconds(results, wt+"/impl=vatic"))), labelTally(results, wt+"/impl=vatic", LabelChampion))})
		}
		for _, k := range contestants {
			vs := values(results, wt+"/contestant="+k+"/impl=vatic", UnitROCAUC)
			if len(vs) == 0 {
				continue
			}
			out = append(out, Check{Workload: wt + "/vatic", What: k + " ROC-AUC", Value: mean(vs), Note: true,
				Detail: fmt.Sprintf("min %.4f, max %.4f over %d sessions; a contestant, not the champion", slices.Min(vs), slices.Max(vs), len(vs))})
		}
		for _, k := range keys {
			vs := values(results, modelName(k), UnitROCAUC)
			if len(vs) == 0 {
				continue
			}
			out = append(out, Check{Workload: wt + "/sklearn", What: k + " ROC-AUC", Value: mean(vs), Note: true,
				Detail: fmt.Sprintf("min %.4f, max %.4f over %d seeds; fits %s summed", slices.Min(vs), slices.Max(vs), len(vs), secs(sum(elapsedSeconds(results, modelName(k)))))})
		}
	}
	return out
}
