// Command bench runs the whole-system benchmarks of package bench against
// a vatic server and DuckDB, and prints Go benchmark lines (for benchstat)
// followed by a summary of the targets.
//
// Usage, from the repository root after make build:
//
//	go run ./cmd/bench [-rows 2000000] [-runs 3] [-workloads import,importurl,stats,csv,view,regression,reads,forecast,forecastsession,impact,classification,anomalies,text,columnar] [-out bench.txt]
//
// Every flag has an environment twin, VATIC_BENCH_ plus the flag name in
// upper snake case (VATIC_BENCH_ROWS); the command line wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/vaticml/vatic/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

const envPrefix = "VATIC_BENCH_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// run parses args, runs the workloads and writes the report to stdout (and
// to -out); progress goes to stderr.
func run(ctx context.Context, args []string, getenv func(string) (string, bool), stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		vatic     = fs.String("vatic", "bin/vatic", "path of the vatic binary (server and DuckDB anchor); build it with make build")
		rows      = fs.Int("rows", 2_000_000, "rows of the generated CSV file (about 66 bytes each)")
		viewRows  = fs.Int("view-rows", 1_000_000, "rows of the view workload's base dataset")
		runs      = fs.Int("runs", 3, "runs per workload; the summary uses medians")
		seed      = fs.Int64("seed", 1, "seed of the generated CSV file")
		dir       = fs.String("dir", "bench/.data", "directory for the generated files (reused) and scratch data (removed)")
		workloads = fs.String("workloads", strings.Join(bench.Workloads, ","), "comma-separated workloads: import (plain and gzip), importurl (plain and gzip), stats, csv, view, regression; also reads (the read-path load test), forecast (forecast accuracy and speed against R), forecastsession (forecast sessions over HTTP against the bare contest), impact (impact sessions' placebo and level-shift rates), classification (contests on iris, wine and breast_cancer against scikit-learn), anomalies (anomaly sessions' ROC-AUC against scikit-learn's IsolationForest and EllipticEnvelope), text (the topics of Debian's fortunes from their text against scikit-learn's TF-IDF pipelines) and columnar (predict, upload and export in CSV, JSON, Arrow IPC and Parquet against DuckDB's read_csv, read_parquet and COPY), only when named")
		out       = fs.String("out", "", "also write the report to this file")
		baseURL   = fs.String("url", "", "measure the already running server at this API base (http://host:port/v1) instead of starting one; no RSS figures")
		apiKey    = fs.String("api-key", "", "api-key for -url")
		serveArgs = fs.String("serve-args", "", "extra space-separated arguments for vatic serve")
		friedman  = fs.String("friedman", "stats/regress/testdata/friedman1.csv", "CSV file of the regression contest (target last)")
		python    = fs.String("python", "/usr/bin/python3", "Python with numpy and scikit-learn for the regression, classification, anomalies and text workloads' reference side")
		sklearn   = fs.String("sklearn-json", "", "read the scikit-learn side from this saved output of bench/regression.py instead of running Python")
		predRows  = fs.Int("predict-rows", 100_000, "rows (20 features) the regression workload's linear champion predicts in one request")
		linRows   = fs.Int("linear-train-rows", 10_000, "rows of that linear dataset the contest trains on (at most -predict-rows)")
		statsConc = fs.Int("stats-concurrency", 0, "also send this many /stats requests at once (stats workload) and report the server's peak RSS; 0 or 1: off")
		readsDur  = fs.Duration("reads-duration", 15*time.Second, "how long each phase of the reads workload sends requests")
		readsConn = fs.Int("reads-conns", 64, "concurrent connections of the reads workload")
		readsRows = fs.Int("reads-rows", 100_000, "rows of the dataset whose first page of 100 the reads workload reads")
		fcData    = fs.String("forecast-data", "../shared/data", "directory of the forecast workload's CSV series (co2_weekly, elec_equip_monthly, nile_yearly)")
		fcSeries  = fs.String("forecast-series", "stats/forecast/testdata/series.json", "JSON file of R's datasets (AirPassengers, co2, UKDriverDeaths) for the forecast workload")
		fcOnly    = fs.String("forecast-only", "", "comma-separated series the forecast workload runs on both sides (default all: "+strings.Join(bench.ForecastSeriesNames(), ",")+")")
		rscript   = fs.String("rscript", "Rscript", "Rscript with the forecast (8.20) and jsonlite packages for the forecast workload's reference side; when missing, that side is skipped")
		fcRJSON   = fs.String("forecast-r-json", "", "read R's side of the forecast workload from this saved output of bench/forecast.R instead of running R")
		fcRRep    = fs.Int("forecast-r-repeats", 3, "times forecast.R times each R fit (median reported; a fit over 5 s runs once)")
		clData    = fs.String("classification-data", "stats/classify/testdata", "directory of the classification workload's CSV sets (<set>.csv, target last)")
		clSets    = fs.String("classification-sets", strings.Join(bench.ClassificationSets, ","), "comma-separated sets of the classification workload")
		clRepeats = fs.Int("classification-repeats", 5, "repeats of the classification workload's stratified 5-fold cross-validation")
		clPredict = fs.Int("classification-predict-rows", 100_000, "rows (resampled from breast_cancer with noise) the classification champion predicts with class scores in one request")
		anData    = fs.String("anomaly-data", "../shared/data", "directory of the anomalies workload's CSV sets (<set>.csv, class last)")
		anTasks   = fs.String("anomaly-tasks", strings.Join(bench.AnomalyTaskNames(), ","), "comma-separated tasks of the anomalies workload")
		anSeeds   = fs.Int("anomaly-seeds", 5, "seeds 0…N−1 of the anomalies workload: each draws a task's anomalies and seeds scikit-learn's random_state")
		txDir     = fs.String("text-dir", bench.FortunesDir, "directory of the text workload's fortune files, one per topic (apt-get install fortunes)")
		txTopics  = fs.String("text-topics", strings.Join(bench.TextTopics, ","), "comma-separated fortune files (topics, the classes) of the text workload")
		txMax     = fs.Int("text-max-per-topic", 0, "keep at most this many quotations of each text topic, a seeded sample; 0: all")
		impWin    = fs.Int("impact-windows", 200, "event windows of the impact workload, each tested without and with a level shift (two sessions per window)")
		impConc   = fs.Int("impact-concurrency", 2, "impact sessions in flight at once (started servers get -session-workers this many)")
		colBig    = fs.Int("columnar-big-predict-rows", 5_000_000, "rows of the columnar workload's one large CSV predict (the -predict-rows linear rows repeated), whose server peak RSS is reported")
		colPred   = fs.Bool("columnar-predict-only", false, "run only the columnar workload's predict part (no uploads, no exports)")
		colUp     = fs.Bool("columnar-upload-only", false, "run only the columnar workload's uploads (no predicts, no exports)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bench [flags]\n\nEach flag also reads the environment variable %s<FLAG> (upper snake case).\n\n", envPrefix)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := getenv(envName(f.Name)); ok && !set[f.Name] {
			if e := fs.Set(f.Name, v); e != nil {
				err = errors.Join(err, fmt.Errorf("%s: %w", envName(f.Name), e))
			}
		}
	})
	if err != nil {
		return err
	}

	wl, err := bench.ParseWorkloads(*workloads)
	if err != nil {
		return err
	}
	bin, err := filepath.Abs(*vatic)
	if err != nil {
		return err
	}
	// The forecast workload calls a Forecaster in this process: it needs
	// no binary.
	if slices.ContainsFunc(wl, func(w string) bool { return w != bench.WorkloadForecast }) {
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			return fmt.Errorf("vatic binary %s not found; run make build first or pass -vatic", bin)
		}
	}
	var only []string
	for _, name := range strings.Split(*fcOnly, ",") {
		if name = strings.TrimSpace(name); name != "" {
			only = append(only, name)
		}
	}
	var sets []string
	for _, name := range strings.Split(*clSets, ",") {
		if name = strings.TrimSpace(name); name != "" {
			sets = append(sets, name)
		}
	}
	var tasks []string
	for _, name := range strings.Split(*anTasks, ",") {
		if name = strings.TrimSpace(name); name != "" {
			tasks = append(tasks, name)
		}
	}
	var topics []string
	for _, name := range strings.Split(*txTopics, ",") {
		if name = strings.TrimSpace(name); name != "" {
			topics = append(topics, name)
		}
	}
	cfg := bench.Config{
		BaseURL:           *baseURL,
		APIKey:            *apiKey,
		Vatic:             bin,
		ServeArgs:         strings.Fields(*serveArgs),
		Rows:              *rows,
		ViewRows:          *viewRows,
		Seed:              *seed,
		Dir:               *dir,
		Runs:              *runs,
		Friedman:          *friedman,
		Python:            *python,
		SklearnJSON:       *sklearn,
		PredictRows:       *predRows,
		LinearTrainRows:   *linRows,
		StatsConcurrency:  *statsConc,
		ReadsDuration:     *readsDur,
		ReadsConns:        *readsConn,
		ReadsRows:         *readsRows,
		ForecastData:      *fcData,
		ForecastSeries:    *fcSeries,
		ForecastOnly:      only,
		Rscript:           *rscript,
		ForecastRJSON:     *fcRJSON,
		ForecastRRepeats:  *fcRRep,
		ImpactWindows:     *impWin,
		ImpactConcurrency: *impConc,
		Forecaster:        bench.ContestForecaster,
		ForecasterName:    bench.ContestLabel,
		Classification: bench.ClassificationConfig{
			Data: *clData, Sets: sets, Repeats: *clRepeats, PredictRows: *clPredict,
		},
		Anomalies: bench.AnomalyConfig{Data: *anData, Tasks: tasks, Seeds: *anSeeds},
		Text:      bench.TextConfig{Dir: *txDir, Topics: topics, MaxPerTopic: *txMax},
		Columnar:  bench.ColumnarConfig{BigPredictRows: *colBig, PredictOnly: *colPred, UploadOnly: *colUp},
		Progress:  stderr,
	}
	if err := cfg.Validate(); err != nil {
		return err
	}

	report := stdout
	var outFile *os.File
	if *out != "" {
		if outFile, err = os.Create(*out); err != nil {
			return err
		}
		report = io.MultiWriter(stdout, outFile)
	}
	results, runErr := bench.Run(ctx, cfg, wl)
	// Print what was measured even when a later workload failed.
	err = errors.Join(
		bench.WriteHeader(report, cfg.Rows, cfg.Seed),
		bench.WriteResults(report, results),
		bench.WriteSummary(report, cfg.Runs, bench.Checks(results)),
	)
	if outFile != nil {
		err = errors.Join(err, outFile.Close())
	}
	return errors.Join(runErr, err)
}
