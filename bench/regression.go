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
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// regressionPy is the scikit-learn side of the regression workload; see
// its docstring for the document it prints ([SklearnReport]).
//
//go:embed regression.py
var regressionPy []byte

// Fixed parameters of the regression workload.
const (
	// linearFeatures is the number of features of the linear dataset.
	linearFeatures = 20
	// minPredictRows is the smallest Config.PredictRows.
	minPredictRows = 100
	// sessionPoll is the interval between two GET /sessions/{id} while a
	// contest runs.
	sessionPoll = 20 * time.Millisecond
)

// linearKeys are the algorithm keys of the linear regressors; the linear
// dataset's champion should be one of them.
var linearKeys = []string{"ols", "ridge", "lasso"}

// Labels of the regression workload's results (see [Result.Labels]).
const (
	LabelChampion = "champion" // the algorithm key of the session's champion
	LabelBest     = "best"     // the scikit-learn model with the lowest mean RMSE
)

// SklearnReport is the JSON document bench/regression.py prints: the folds
// of RepeatedKFold over a CSV file and, per scikit-learn model, the test
// RMSE and fit time of every fold.
type SklearnReport struct {
	Sklearn     string      `json:"sklearn"` // scikit-learn version
	Python      string      `json:"python"`
	Rows        int         `json:"rows"`
	Columns     []string    `json:"columns"` // the CSV header
	Target      string      `json:"target"`  // the last column
	NSplits     int         `json:"nSplits"`
	NRepeats    int         `json:"nRepeats"`
	RandomState int         `json:"randomState"`
	CPUs        int         `json:"cpus"`
	LoadAvg     [][]float64 `json:"loadAvg"` // os.getloadavg() before the first fit and after the last
	Folds       []struct {
		Test []int `json:"test"` // 0-based row indices of the test fold
	} `json:"folds"`
	Models []SklearnModel `json:"models"`
}

// SklearnModel is one scikit-learn regressor of a [SklearnReport].
type SklearnModel struct {
	Key        string    `json:"key"`        // ols, ridge, lasso, knn, svr_rbf, random_forest, hist_gbm
	Estimator  string    `json:"estimator"`  // its class name
	RMSE       []float64 `json:"rmse"`       // per fold
	FitSeconds []float64 `json:"fitSeconds"` // per fold, fit() alone
}

// MeanRMSE is the mean of the model's fold RMSEs.
func (m SklearnModel) MeanRMSE() float64 { return mean(m.RMSE) }

// ParseSklearnReport decodes a regression.py document and checks that it
// is complete: every fold has test rows within Rows, and every model one
// RMSE and one fit time per fold.
func ParseSklearnReport(r io.Reader) (*SklearnReport, error) {
	var rep SklearnReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: decode scikit-learn report: %w", err)
	}
	var errs []error
	if rep.Rows < 1 || len(rep.Columns) < 2 || rep.Target != rep.Columns[len(rep.Columns)-1] {
		errs = append(errs, fmt.Errorf("rows %d, columns %q, target %q: want rows, columns and the last as target", rep.Rows, rep.Columns, rep.Target))
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
		if m.Key == "" || len(m.RMSE) != len(rep.Folds) || len(m.FitSeconds) != len(rep.Folds) {
			errs = append(errs, fmt.Errorf("model %q has %d RMSEs and %d fit times, want %d of each", m.Key, len(m.RMSE), len(m.FitSeconds), len(rep.Folds)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bench: scikit-learn report: %w", err)
	}
	return &rep, nil
}

// Best returns the model with the lowest mean RMSE over the folds.
func (r *SklearnReport) Best() SklearnModel {
	return slices.MinFunc(r.Models, func(a, b SklearnModel) int { return cmp.Compare(a.MeanRMSE(), b.MeanRMSE()) })
}

// Results returns the scikit-learn side as benchmark results, fold by fold:
// Regression/fit/model=KEY/impl=sklearn (one fit: its time and test RMSE)
// for every model, then Regression/contest/impl=sklearn, whose time is the
// sum of the models' fit times on the fold and whose RMSE is that of the
// best model ([SklearnReport.Best], chosen knowing every test fold).
func (r *SklearnReport) Results() []Result {
	best := r.Best()
	var out []Result
	for k := range r.Folds {
		var sum time.Duration
		for _, m := range r.Models {
			d := seconds(m.FitSeconds[k])
			sum += d
			out = append(out, Result{Name: "Regression/fit/model=" + m.Key + "/impl=sklearn", Elapsed: d,
				Metrics: []Metric{{m.RMSE[k], UnitRMSE}}})
		}
		out = append(out, Result{Name: "Regression/contest/impl=sklearn", Elapsed: sum,
			Metrics: []Metric{{best.RMSE[k], UnitRMSE}}, Labels: map[string]string{LabelBest: best.Key}})
	}
	return out
}

// table is a CSV file of numbers held as its text; the target is the last
// column.
type table struct {
	header []string
	rows   [][]string
	y      []float64
}

func (t *table) target() string     { return t.header[len(t.header)-1] }
func (t *table) features() []string { return t.header[:len(t.header)-1] }

func loadTable(path string) (*table, error) {
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
	t := &table{header: recs[0], rows: recs[1:], y: make([]float64, len(recs)-1)}
	for i, r := range t.rows {
		if t.y[i], err = strconv.ParseFloat(r[len(r)-1], 64); err != nil {
			return nil, fmt.Errorf("bench: %s row %d: target %q is not a number", path, i+1, r[len(r)-1])
		}
	}
	return t, nil
}

// sklearnReport reads cfg.SklearnJSON, or runs regression.py with
// cfg.Python on cfg.Friedman, its progress going to cfg.Progress.
func sklearnReport(ctx context.Context, cfg Config, scratch string) (*SklearnReport, error) {
	if cfg.SklearnJSON != "" {
		f, err := os.Open(cfg.SklearnJSON)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		rep, err := ParseSklearnReport(f)
		if err == nil {
			fmt.Fprintf(cfg.Progress, "sklearn: read %s (scikit-learn %s, %d folds, %d models)\n", cfg.SklearnJSON, rep.Sklearn, len(rep.Folds), len(rep.Models))
		}
		return rep, err
	}
	script := filepath.Join(scratch, "regression.py")
	if err := os.WriteFile(script, regressionPy, 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: %s regression.py %s\n", cfg.Python, cfg.Friedman)
	start := time.Now()
	stdout, err := runPython(ctx, cfg, nil, "the regression workload", ", or -sklearn-json", script, cfg.Friedman)
	if err != nil {
		return nil, err
	}
	rep, err := ParseSklearnReport(stdout)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "sklearn: scikit-learn %s, python %s, done in %v\n", rep.Sklearn, rep.Python, time.Since(start).Round(time.Millisecond))
	return rep, nil
}

// RunRegression runs the regression workload, cfg.Runs times on a fresh
// server (or on cfg.BaseURL):
//
//   - Regression/contest: the folds of scikit-learn's RepeatedKFold over
//     cfg.Friedman (5 × 5 in regression.py). For every fold, the training
//     rows are uploaded as a dataset, a regression session runs its contest
//     on them (polled every 20 ms), and its model predicts the test rows
//     (JSON); the result's time is the contest's, from the started to the
//     completed entry of its statusHistory, with the test RMSE, the client's
//     time from POST to seeing completed and the champion's key. The
//     dataset, session and model are deleted afterwards.
//   - Regression/linear and Regression/predict/{json,csv}: a contest on
//     cfg.LinearTrainRows rows of 20 features with a linear target, whose
//     champion should be linear, then its model predicting cfg.PredictRows
//     rows in one request as JSON and in one as CSV (rows/s over HTTP,
//     MB/s of the request and answer bodies together).
//
// scikit-learn's side ([SklearnReport.Results]) is measured once, first.
func RunRegression(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if cfg.Friedman == "" {
		return nil, errors.New("bench: the regression workload needs Config.Friedman (friedman1.csv)")
	}
	data, err := loadTable(cfg.Friedman)
	if err != nil {
		return nil, err
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	rep, err := sklearnReport(ctx, cfg, scratch)
	if err != nil {
		return nil, err
	}
	if rep.Rows != len(data.rows) || !slices.Equal(rep.Columns, data.header) {
		return nil, fmt.Errorf("bench: the scikit-learn report is about %d rows of %q, but %s has %d rows of %q",
			rep.Rows, rep.Columns, cfg.Friedman, len(data.rows), data.header)
	}
	if len(rep.LoadAvg) == 2 && len(rep.LoadAvg[0]) > 0 && len(rep.LoadAvg[1]) > 0 {
		fmt.Fprintf(cfg.Progress, "sklearn: load average %.2f before the fits, %.2f after, on %d CPUs\n", rep.LoadAvg[0][0], rep.LoadAvg[1][0], rep.CPUs)
	}
	for _, m := range rep.Models {
		fmt.Fprintf(cfg.Progress, "sklearn: %-14s mean RMSE %.4f  fits %8.3fs  (%s)\n", m.Key, m.MeanRMSE(), sum(m.FitSeconds), m.Estimator)
	}
	results := rep.Results()
	best := rep.Best()
	for run := range cfg.Runs {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("regression-%d", run))
		if err != nil {
			return results, err
		}
		rs, err := regressionRun(ctx, cfg, t.c, data, rep, best, scratch, run)
		results = append(results, rs...)
		err = t.explain(err)
		t.close(cfg)
		if err != nil {
			return results, fmt.Errorf("%s run %d: %w", "Regression", run+1, err)
		}
	}
	return results, nil
}

func regressionRun(ctx context.Context, cfg Config, c *Client, data *table, rep *SklearnReport, best SklearnModel, scratch string, run int) ([]Result, error) {
	var out []Result
	for k, f := range rep.Folds {
		r, err := regressionFold(ctx, cfg, c, data, f.Test, k, scratch)
		if err != nil {
			return out, fmt.Errorf("fold %d: %w", k+1, err)
		}
		rmse, _ := r.Metric(UnitRMSE)
		client, _ := r.Metric(UnitClientNs)
		fmt.Fprintf(cfg.Progress, "run %d/%d fold %d/%d: champion %-13s RMSE %.4f (sklearn %s %.4f)  contest %v (client %v)\n",
			run+1, cfg.Runs, k+1, len(rep.Folds), r.Labels[LabelChampion], rmse, best.Key, best.RMSE[k],
			r.Elapsed.Round(time.Millisecond), time.Duration(client).Round(time.Millisecond))
		out = append(out, r)
	}
	rs, err := linearPredict(ctx, cfg, c, scratch, run)
	return append(out, rs...), err
}

// regressionFold runs one fold: the contest on the rows not in test, the
// champion's predictions for the rows in test.
func regressionFold(ctx context.Context, cfg Config, c *Client, data *table, test []int, k int, scratch string) (Result, error) {
	inTest := make([]bool, len(data.rows))
	for _, i := range test {
		inTest[i] = true
	}
	var train [][]string
	for i, r := range data.rows {
		if !inTest[i] {
			train = append(train, r)
		}
	}
	path := filepath.Join(scratch, "fold.csv")
	if err := writeCSVFile(path, data.header, train); err != nil {
		return Result{}, err
	}
	name := datasetName(fmt.Sprintf("friedman-fold-%d", k+1))
	s, client, err := trainSession(ctx, c, name, path, data.target(), len(train))
	defer deleteCascade(ctx, cfg, c, name)
	if err != nil {
		return Result{}, err
	}
	contest, err := s.ContestTime()
	if err != nil {
		return Result{}, err
	}
	rows := make([][]string, len(test))
	want := make([]float64, len(test))
	for j, i := range test {
		rows[j], want[j] = data.rows[i][:len(data.header)-1], data.y[i]
	}
	b, err := c.Predict(ctx, s.ModelID, predictJSON(data.features(), rows), "application/json", "application/json")
	if err != nil {
		return Result{}, err
	}
	pred, err := jsonPredictions(b, data.target())
	if err != nil {
		return Result{}, err
	}
	rmse, err := rootMeanSquare(pred, want)
	if err != nil {
		return Result{}, err
	}
	return Result{Name: "Regression/contest/impl=vatic", Elapsed: contest,
		Metrics: []Metric{{rmse, UnitRMSE}, {float64(client), UnitClientNs}},
		Labels:  map[string]string{LabelChampion: s.AlgorithmKey()}}, nil
}

// trainSession uploads the CSV file at path as dataset name, checks its
// row count, and runs a regression session on it to completion. It returns
// the completed session and the client's time from POST to seeing it
// completed.
func trainSession(ctx context.Context, c *Client, name, path, target string, rows int) (Session, time.Duration, error) {
	put, err := c.PutCSV(ctx, name, path, false)
	if err != nil {
		return Session{}, 0, err
	}
	if put.RowCount >= 0 && put.RowCount != int64(rows) {
		return Session{}, 0, fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", name, put.RowCount, rows)
	}
	start := time.Now()
	s, err := c.CreateModelSession(ctx, name, target, "regression")
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

// deleteCascade removes dataset name with its sessions and models; a
// failure is a warning.
func deleteCascade(ctx context.Context, cfg Config, c *Client, name string) {
	if err := c.DeleteCascade(context.WithoutCancel(ctx), name, "session", "model"); err != nil {
		fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
	}
}

// linearPredict runs the predict part: a contest on the first
// cfg.LinearTrainRows of cfg.PredictRows rows with a linear target, then
// one predict request of all the rows as JSON and one as CSV.
func linearPredict(ctx context.Context, cfg Config, c *Client, scratch string, run int) ([]Result, error) {
	lin := linearTable(cfg.PredictRows, cfg.Seed)
	train := lin.rows[:min(cfg.LinearTrainRows, len(lin.rows))]
	path := filepath.Join(scratch, "linear.csv")
	if err := writeCSVFile(path, lin.header, train); err != nil {
		return nil, err
	}
	name := datasetName("linear")
	s, client, err := trainSession(ctx, c, name, path, lin.target(), len(train))
	defer deleteCascade(ctx, cfg, c, name)
	if err != nil {
		return nil, err
	}
	contest, err := s.ContestTime()
	if err != nil {
		return nil, err
	}
	champ := s.AlgorithmKey()
	verdict := "linear"
	if !slices.Contains(linearKeys, champ) {
		verdict = "NOT linear"
	}
	fmt.Fprintf(cfg.Progress, "run %d/%d linear: %d rows × %d features, champion %s (%s), contest %v (client %v)\n",
		run+1, cfg.Runs, len(train), linearFeatures, champ, verdict, contest.Round(time.Millisecond), client.Round(time.Millisecond))
	out := []Result{{Name: "Regression/linear/impl=vatic", Elapsed: contest,
		Metrics: []Metric{{float64(client), UnitClientNs}}, Labels: map[string]string{LabelChampion: champ}}}

	features := make([][]string, len(lin.rows))
	for i, r := range lin.rows {
		features[i] = r[:linearFeatures]
	}
	var csvBody bytes.Buffer
	w := csv.NewWriter(&csvBody)
	w.Write(lin.features())
	w.WriteAll(features)
	for _, f := range []struct {
		format, mime string
		body         []byte
		parse        func([]byte, string) ([]float64, error)
	}{
		{"json", "application/json", predictJSON(lin.features(), features), jsonPredictions},
		{"csv", "text/csv", csvBody.Bytes(), csvPredictions},
	} {
		start := time.Now()
		b, err := c.Predict(ctx, s.ModelID, f.body, f.mime, f.mime)
		elapsed := time.Since(start)
		if err != nil {
			return out, err
		}
		pred, err := f.parse(b, lin.target())
		if err != nil {
			return out, fmt.Errorf("predict as %s: %w", f.format, err)
		}
		rmse, err := rootMeanSquare(pred, lin.y)
		if err != nil {
			return out, fmt.Errorf("predict as %s: %w", f.format, err)
		}
		r := Result{Name: "Regression/predict/" + f.format + "/impl=vatic", Elapsed: elapsed,
			Metrics: append(speed(len(lin.rows), int64(len(f.body)+len(b)), elapsed), Metric{rmse, UnitRMSE})}
		fmt.Fprintf(cfg.Progress, "run %d/%d: ", run+1, cfg.Runs)
		WriteResults(cfg.Progress, []Result{r})
		out = append(out, r)
	}
	return out, nil
}

// linearTable returns rows rows of features f0…f19, uniform on [0, 10)
// with four decimals, and a target y = 3 + Σ bⱼ·fⱼ + N(0, 1) with fixed
// coefficients bⱼ in [-5, 5); it depends only on rows and seed.
func linearTable(rows int, seed int64) *table {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6c696e656172))
	coef := make([]float64, linearFeatures)
	for j := range coef {
		coef[j] = r.Float64()*10 - 5
	}
	t := &table{header: make([]string, 0, linearFeatures+1), rows: make([][]string, rows), y: make([]float64, rows)}
	for j := range linearFeatures {
		t.header = append(t.header, "f"+strconv.Itoa(j))
	}
	t.header = append(t.header, "y")
	for i := range t.rows {
		row := make([]string, linearFeatures+1)
		y := 3.0
		for j := range linearFeatures {
			x := math.Round(r.Float64()*1e5) / 1e4
			y += coef[j] * x
			row[j] = strconv.FormatFloat(x, 'f', 4, 64)
		}
		y += r.NormFloat64()
		row[linearFeatures] = strconv.FormatFloat(y, 'f', 6, 64)
		t.y[i], _ = strconv.ParseFloat(row[linearFeatures], 64)
		t.rows[i] = row
	}
	return t
}

func writeCSVFile(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := csv.NewWriter(bw)
	w.Write(header)
	w.WriteAll(rows)
	return errors.Join(w.Error(), bw.Flush(), f.Close())
}

// predictJSON returns the body of a JSON predict request: {"data": [...]},
// one object per row mapping each column to its value as a string.
func predictJSON(columns []string, rows [][]string) []byte {
	keys := make([][]byte, len(columns))
	for j, c := range columns {
		keys[j], _ = json.Marshal(c)
	}
	b := make([]byte, 0, 16+len(rows)*len(columns)*(len(columns[0])+14))
	b = append(b, `{"data":[`...)
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, v := range r {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, keys[j]...)
			b = append(b, ':')
			b = appendJSONString(b, v)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendJSONString appends s as a JSON string; numbers take the short way.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// jsonPredictions reads the target column of every row of a JSON predict
// answer, a string or a number.
func jsonPredictions(body []byte, target string) ([]float64, error) {
	var ans struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("bench: decode predict answer: %w", err)
	}
	out := make([]float64, len(ans.Data))
	for i, row := range ans.Data {
		raw, ok := row[target]
		if !ok {
			return nil, fmt.Errorf("bench: predict answer row %d lacks %q", i, target)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("bench: predict answer row %d: %s = %s is not a number", i, target, raw)
		}
		out[i] = v
	}
	return out, nil
}

// csvPredictions reads the target column of every row of a CSV predict
// answer.
func csvPredictions(body []byte, target string) ([]float64, error) {
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("bench: read CSV predict answer: %w", err)
	}
	if len(recs) == 0 {
		return nil, errors.New("bench: empty CSV predict answer")
	}
	col := slices.Index(recs[0], target)
	if col < 0 {
		return nil, fmt.Errorf("bench: CSV predict answer header %q lacks %q", recs[0], target)
	}
	out := make([]float64, len(recs)-1)
	for i, r := range recs[1:] {
		if out[i], err = strconv.ParseFloat(r[col], 64); err != nil {
			return nil, fmt.Errorf("bench: CSV predict answer row %d: %s = %q is not a number", i+1, target, r[col])
		}
	}
	return out, nil
}

// rootMeanSquare is the RMSE of pred against want, which must be as long.
func rootMeanSquare(pred, want []float64) (float64, error) {
	if len(pred) != len(want) || len(want) == 0 {
		return 0, fmt.Errorf("bench: %d predictions for %d rows", len(pred), len(want))
	}
	var s float64
	for i, p := range pred {
		d := p - want[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(want))), nil
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

func sum(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s
}

func mean(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	return sum(vs) / float64(len(vs))
}
