package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Workload names accepted by [Run].
const (
	WorkloadImport = "import" // ImportCSV/plain and ImportCSV/gzip
	WorkloadStats  = "stats"  // ColumnStats
	WorkloadCSV    = "csv"    // ReadCSV
	// WorkloadImportURL is ImportURL/plain and ImportURL/gzip.
	WorkloadImportURL = "importurl"
	// WorkloadView is ReadView: every row of a view as CSV.
	WorkloadView = "view"
	// WorkloadRegression is the regression contest against scikit-learn
	// (Regression/contest, Regression/fit) and the predict throughput of a
	// linear champion (Regression/linear, Regression/predict).
	WorkloadRegression = "regression"
	// WorkloadReads is the read-path load test (Reads/anchor,
	// Reads/session, Reads/page; see [RunReads]). It runs only when asked
	// for: it is not in [Workloads].
	WorkloadReads = "reads"
	// WorkloadForecast is the forecast accuracy and speed workload against
	// R's forecast package (Forecast/…; see [RunForecast]). It needs no
	// server, but R's side takes minutes, so it runs only when asked for:
	// it is not in [Workloads].
	WorkloadForecast = "forecast"
	// WorkloadClassification is the classification contest against
	// scikit-learn on iris, wine and breast_cancer and the predict
	// throughput with class scores (Classification/…; see
	// [RunClassification]). It runs only when asked for.
	WorkloadClassification = "classification"
	// WorkloadForecastSession is forecast sessions over HTTP against the
	// bare contest on the same series, and a 2000-day series with a
	// feature (ForecastSession/…; see [RunForecastSession]). It runs only
	// when asked for.
	WorkloadForecastSession = "forecastsession"
	// WorkloadImpact is the impact sessions' placebo and level-shift rates
	// (Impact/…; see [RunImpact]): 400 sessions by default, so it runs
	// only when asked for.
	WorkloadImpact = "impact"
	// WorkloadAnomalies is the anomaly detection quality workload:
	// ROC-AUC of anomalies sessions on labelled tasks against
	// scikit-learn's IsolationForest and EllipticEnvelope (Anomalies/…;
	// see [RunAnomalies]). It runs only when asked for.
	WorkloadAnomalies = "anomalies"
	// WorkloadText is text classification: the topics of Debian's
	// fortunes from the quotations' text, classification sessions with a
	// text column against scikit-learn's TF-IDF pipelines on the same
	// folds (Text/…; see [RunText]). It runs only when asked for.
	WorkloadText = "text"
	// WorkloadColumnar is columnar I/O (issue 17): predict, upload and
	// export throughput in CSV, JSON, Arrow IPC and Parquet, uploads and
	// exports against DuckDB's read_csv, read_parquet and COPY … TO
	// (Columnar/…; see [RunColumnar]). It runs only when asked for.
	WorkloadColumnar = "columnar"
)

// Workloads lists every workload in the order [Run] runs them.
var Workloads = []string{WorkloadImport, WorkloadImportURL, WorkloadStats, WorkloadCSV, WorkloadView, WorkloadRegression}

// AllWorkloads is [Workloads] and the workloads that run only when named
// ([WorkloadReads], [WorkloadForecast], [WorkloadForecastSession],
// [WorkloadImpact], [WorkloadClassification], [WorkloadAnomalies],
// [WorkloadText], [WorkloadColumnar]), in the order [Run] runs them.
var AllWorkloads = append(slices.Clone(Workloads), WorkloadReads, WorkloadForecast, WorkloadForecastSession, WorkloadImpact, WorkloadClassification, WorkloadAnomalies, WorkloadText, WorkloadColumnar)

// Config describes one benchmark session. The zero value of each field
// means the documented default; Vatic and Dir are required.
type Config struct {
	// BaseURL is the API base of an already running server, ending in the
	// version segment (http://127.0.0.1:8080/v1). Empty means the harness
	// starts its own servers from Vatic: a fresh one, with an empty data
	// directory, for every import run (so that its peak RSS growth belongs
	// to that run alone) and one for the read workloads. Peak RSS is only
	// reported for servers the harness started.
	BaseURL string
	// APIKey is sent as the api-key header to BaseURL. Started servers get
	// a random key instead.
	APIKey string
	// Vatic is the path of the vatic binary. Its `sql` subcommand runs the
	// DuckDB anchor; its `serve` subcommand runs the server when BaseURL is
	// empty.
	Vatic string
	// ServeArgs are extra arguments appended to `vatic serve` (a body-size
	// limit, for example).
	ServeArgs []string
	// Rows is the number of rows of the generated CSV file; default 2,000,000.
	Rows int
	// ViewRows is the number of rows of the view workload's base dataset;
	// default 1,000,000.
	ViewRows int
	// Seed makes the generated file; the same Rows and Seed give the same bytes.
	Seed int64
	// Dir holds the generated files, which are reused across sessions, and
	// the scratch directories (server data, anchor databases) of a session,
	// which are removed when it ends. Keep it on the disk being measured.
	Dir string
	// Runs is how many times each workload runs; default 3. Each run
	// measures the server and the anchor back to back, in alternating order.
	// The regression workload runs scikit-learn once and every fold of the
	// contest (and the predict part) once per run.
	Runs int
	// Friedman is the CSV file of the regression workload's contest
	// (stats/regress/testdata/friedman1.csv): a header, numeric columns,
	// the target last. Required by that workload only.
	Friedman string
	// Python is the interpreter that runs the scikit-learn side of the
	// regression workload (regression.py, embedded); it needs numpy and
	// scikit-learn. Default /usr/bin/python3.
	Python string
	// SklearnJSON, when set, is a saved output of regression.py for
	// Friedman, read instead of running Python (tests, or to reuse one
	// scikit-learn measurement across sessions).
	SklearnJSON string
	// PredictRows is the number of rows (of 20 features) of the regression
	// workload's linear dataset that its champion predicts in one request;
	// default 100,000.
	PredictRows int
	// LinearTrainRows is how many of those rows (the first ones) the
	// linear contest trains on; default 10,000, at most PredictRows. The
	// contest runs every algorithm, so its time grows faster than linearly
	// with the rows.
	LinearTrainRows int
	// StatsConcurrency, when above 1, adds ColumnStats/concurrent=N to the
	// stats workload: N requests for /stats sent at once on the read
	// server, reporting the server's peak RSS over them (its high-water
	// mark reset first, when the harness started it), the slowest request
	// and the 503 answers, which are retried after their Retry-After.
	StatsConcurrency int
	// ReadsDuration is how long each phase of the reads workload sends
	// requests; default 15 s.
	ReadsDuration time.Duration
	// ReadsConns is the number of concurrent connections of the reads
	// workload; default 64.
	ReadsConns int
	// ReadsRows is the number of rows of the dataset whose first page the
	// reads workload reads; default 100,000.
	ReadsRows int
	// ForecastData is the directory of the forecast workload's CSV series
	// (co2_weekly.csv, elec_equip_monthly.csv, nile_yearly.csv): the
	// repository's ../shared/data, the default, relative to the working
	// directory.
	ForecastData string
	// ForecastSeries is the JSON file of R's datasets the forecast
	// workload takes AirPassengers, co2 and UKDriverDeaths from; default
	// stats/forecast/testdata/series.json.
	ForecastSeries string
	// ForecastOnly, when not empty, restricts the forecast workload to
	// these series (names of [ForecastSeriesNames]), on both sides.
	ForecastOnly []string
	// Rscript runs the forecast workload's R side (forecast.R, embedded);
	// default "Rscript", looked up in PATH. When it is not found, the R
	// side is skipped and the report says so.
	Rscript string
	// ForecastRJSON, when set, is a saved output of forecast.R, read
	// instead of running R.
	ForecastRJSON string
	// ForecastRRepeats is how many times forecast.R times each fit (the
	// median is reported; a fit over 5 s runs once); default 3.
	ForecastRRepeats int
	// Forecaster is our side of the forecast workload, the whole contest
	// per series; default [SeasonalNaiveForecaster], a placeholder
	// baseline, until the contest exists.
	Forecaster Forecaster
	// ForecasterName labels Forecaster in the report; default
	// [SeasonalNaiveLabel] for the default Forecaster.
	ForecasterName string
	// Classification configures the classification workload; Python
	// runs its scikit-learn side (classification.py, embedded) and Seed
	// makes its folds.
	Classification ClassificationConfig
	// Anomalies configures the anomalies workload; Python runs its
	// scikit-learn side (anomalies.py, embedded).
	Anomalies AnomalyConfig
	// Text configures the text workload; Python runs its scikit-learn
	// side (text.py, embedded) and Seed makes its folds.
	Text TextConfig
	// Columnar configures the columnar workload; it also uses Rows and
	// Seed (the uploaded and exported table), PredictRows and
	// LinearTrainRows.
	Columnar ColumnarConfig
	// ImpactWindows is how many event windows the impact workload tests,
	// each once without and once with a level shift (two sessions per
	// window); default 200.
	ImpactWindows int
	// ImpactConcurrency is how many impact sessions are in flight at once;
	// started servers run that many sessions at once (-session-workers).
	// Default 2.
	ImpactConcurrency int
	// Progress receives one line per step, for a human watching; nil discards.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Rows == 0 {
		c.Rows = 2_000_000
	}
	if c.ViewRows == 0 {
		c.ViewRows = 1_000_000
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Python == "" {
		c.Python = "/usr/bin/python3"
	}
	if c.PredictRows == 0 {
		c.PredictRows = 100_000
	}
	if c.LinearTrainRows == 0 {
		c.LinearTrainRows = 10_000
	}
	if c.ReadsDuration == 0 {
		c.ReadsDuration = 15 * time.Second
	}
	if c.ReadsConns == 0 {
		c.ReadsConns = 64
	}
	if c.ReadsRows == 0 {
		c.ReadsRows = 100_000
	}
	if c.ForecastData == "" {
		c.ForecastData = "../shared/data"
	}
	if c.ForecastSeries == "" {
		c.ForecastSeries = "stats/forecast/testdata/series.json"
	}
	if c.Rscript == "" {
		c.Rscript = "Rscript"
	}
	if c.ForecastRRepeats == 0 {
		c.ForecastRRepeats = 3
	}
	if c.Forecaster == nil {
		c.Forecaster, c.ForecasterName = SeasonalNaiveForecaster, SeasonalNaiveLabel
	}
	if c.ForecasterName == "" {
		c.ForecasterName = "unnamed Forecaster"
	}
	c.Classification = c.Classification.withDefaults()
	c.Anomalies = c.Anomalies.withDefaults()
	c.Text = c.Text.withDefaults()
	c.Columnar = c.Columnar.withDefaults()
	if c.ImpactWindows == 0 {
		c.ImpactWindows = 200
	}
	if c.ImpactConcurrency == 0 {
		c.ImpactConcurrency = 2
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if _, ok := c.Progress.(*lockedWriter); !ok {
		c.Progress = &lockedWriter{w: c.Progress}
	}
	return c
}

// lockedWriter serialises the writes to w: the workloads that keep
// several sessions in flight write their progress lines from several
// goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Validate reports the first problem with c, after defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Vatic == "" {
		errs = append(errs, errors.New("bench: Vatic (path of the vatic binary) is required"))
	}
	if c.Dir == "" {
		errs = append(errs, errors.New("bench: Dir is required"))
	}
	if c.Rows < 1 {
		errs = append(errs, fmt.Errorf("bench: Rows = %d, want at least 1", c.Rows))
	}
	if c.ViewRows < 1 {
		errs = append(errs, fmt.Errorf("bench: ViewRows = %d, want at least 1", c.ViewRows))
	}
	if c.Runs < 1 {
		errs = append(errs, fmt.Errorf("bench: Runs = %d, want at least 1", c.Runs))
	}
	if c.StatsConcurrency < 0 {
		errs = append(errs, fmt.Errorf("bench: StatsConcurrency = %d, want at least 0", c.StatsConcurrency))
	}
	if c.PredictRows < minPredictRows {
		errs = append(errs, fmt.Errorf("bench: PredictRows = %d, want at least %d", c.PredictRows, minPredictRows))
	}
	if c.LinearTrainRows < minPredictRows {
		errs = append(errs, fmt.Errorf("bench: LinearTrainRows = %d, want at least %d", c.LinearTrainRows, minPredictRows))
	}
	if c.ReadsDuration < 0 || c.ReadsConns < 1 || c.ReadsRows < 1 {
		errs = append(errs, fmt.Errorf("bench: ReadsDuration = %v, ReadsConns = %d, ReadsRows = %d, want positive values", c.ReadsDuration, c.ReadsConns, c.ReadsRows))
	}
	if c.ForecastRRepeats < 1 {
		errs = append(errs, fmt.Errorf("bench: ForecastRRepeats = %d, want at least 1", c.ForecastRRepeats))
	}
	if c.ImpactWindows < 1 || c.ImpactConcurrency < 1 {
		errs = append(errs, fmt.Errorf("bench: ImpactWindows = %d, ImpactConcurrency = %d, want at least 1", c.ImpactWindows, c.ImpactConcurrency))
	} else if _, err := ImpactWindowStarts(ImpactWindow, c.ImpactWindows); err != nil {
		errs = append(errs, err)
	}
	for _, name := range c.ForecastOnly {
		if !slices.Contains(ForecastSeriesNames(), name) {
			errs = append(errs, fmt.Errorf("bench: unknown forecast series %q (known: %s)", name, strings.Join(ForecastSeriesNames(), ",")))
		}
	}
	errs = append(errs, c.Classification.validate(), c.Anomalies.validate(), c.Text.validate(), c.Columnar.validate())
	if c.BaseURL != "" && !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		errs = append(errs, fmt.Errorf("bench: BaseURL %q is not an http(s) URL", c.BaseURL))
	}
	return errors.Join(errs...)
}

// ParseWorkloads splits a comma-separated list of workload names, keeping
// the order of [Workloads] and dropping duplicates.
func ParseWorkloads(list string) ([]string, error) {
	want := map[string]bool{}
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(strings.ToLower(w))
		if w == "" {
			continue
		}
		if !slices.Contains(AllWorkloads, w) {
			return nil, fmt.Errorf("bench: unknown workload %q (known: %s)", w, strings.Join(AllWorkloads, ","))
		}
		want[w] = true
	}
	var out []string
	for _, w := range AllWorkloads {
		if want[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("bench: no workload selected")
	}
	return out, nil
}
