package bench

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Units of the metrics reported besides ns/op.
const (
	UnitRowsPerSec = "rows/s"
	UnitMBPerSec   = "MB/s"              // 10⁶ bytes per second of the file or response body
	UnitRSSGrowth  = "peak-rss-growth-B" // VmHWM after the run minus VmRSS before it, bytes
	UnitRMSE       = "rmse"              // root mean square error of predictions on held-out rows
	UnitClientNs   = "client-ns"         // a session's time as the client saw it: POST to seeing completed, ns
	UnitPeakRSS    = "peak-rss-B"        // VmHWM of the server over the run (after resetting it), bytes
	UnitMaxLatency = "max-latency-ns"    // the slowest request of a concurrent run, retries included, ns
	UnitBusy       = "busy-503"          // 503 answers (retried after Retry-After) in a concurrent run
)

// Metric is one measured value with its unit.
type Metric struct {
	Value float64
	Unit  string
}

// Result is one run of one side (vatic or duckdb) of a workload.
type Result struct {
	// Name is the benchmark name without the Benchmark prefix, ending in
	// the side: ImportCSV/plain/impl=vatic, ColumnStats/impl=duckdb.
	Name    string
	Elapsed time.Duration
	Metrics []Metric
	// Labels are facts of the run that are not numbers (the champion of a
	// contest, [LabelChampion]); the summary uses them, the benchmark line
	// does not show them.
	Labels map[string]string
}

// Metric returns the value of the metric with unit u, and whether it is there.
func (r Result) Metric(u string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Unit == u {
			return m.Value, true
		}
	}
	return 0, false
}

// WriteHeader writes the lines benchstat reads before benchmark lines: the
// configuration (goos, goarch, cpu, table size) and which way is better
// for the units it does not know.
func WriteHeader(w io.Writer, rows int, seed int64) error {
	_, err := fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/vaticml/vatic/bench\n", runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return err
	}
	if cpu := cpuModel(); cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n", cpu)
	}
	_, err = fmt.Fprintf(w, "rows: %d\nseed: %d\nUnit %s better=higher\n", rows, seed, UnitRowsPerSec)
	if err == nil {
		_, err = fmt.Fprintf(w, "Unit %s better=higher\nUnit %s better=higher\nUnit %s better=higher\n", UnitReqPerSec, UnitMacroF1, UnitROCAUC)
	}
	for _, u := range []string{UnitRSSGrowth, UnitRMSE, UnitClientNs, UnitPeakRSS, UnitMaxLatency, UnitBusy, UnitP50Ns, UnitP99Ns, UnitMASE, UnitBadScores, UnitServerNs, UnitMedianNs, UnitPredictNs} {
		if err == nil {
			_, err = fmt.Fprintf(w, "Unit %s better=lower\n", u)
		}
	}
	return err
}

// WriteResults writes one line per result in the Go benchmark format, one
// iteration per line, so that the runs of one name are benchstat samples.
// The side is a name key (impl=vatic, impl=duckdb) so that
// `benchstat -col /impl` sets the two sides against each other:
//
//	BenchmarkImportCSV/plain/impl=vatic	1	1834000000 ns/op	1090513 rows/s	70.88 MB/s
func WriteResults(w io.Writer, results []Result) error {
	for _, r := range results {
		var b strings.Builder
		fmt.Fprintf(&b, "Benchmark%s\t1\t%d ns/op", r.Name, r.Elapsed.Nanoseconds())
		for _, m := range r.Metrics {
			fmt.Fprintf(&b, "\t%s %s", formatValue(m.Value), m.Unit)
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// formatValue prints a metric with about four significant digits, never in
// exponent notation, as the testing package does.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case a == 0 || a >= 999.95:
		return fmt.Sprintf("%.0f", v)
	case a >= 99.995:
		return fmt.Sprintf("%.1f", v)
	case a >= 9.9995:
		return fmt.Sprintf("%.2f", v)
	case a >= 0.99995:
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}

// Targets of the workloads.
const (
	ImportRatioTarget = 0.8       // vatic rows/s ÷ duckdb rows/s, at least
	ImportRSSTarget   = 256 << 20 // peak RSS growth of the server, bytes, below
	StatsRatioTarget  = 1.2       // vatic time ÷ duckdb time, at most
	// StatsConcurrentRSSTarget bounds the server's peak RSS while
	// Config.StatsConcurrency requests for /stats run at once, bytes.
	StatsConcurrentRSSTarget = 512 << 20
	ReadCSVTarget            = 1e6 // rows/s, at least
	ViewRatioTarget          = 1.5 // vatic time ÷ duckdb time of ReadView, at most
	// RegressionRMSETarget bounds the mean test RMSE of our contest's
	// champions ÷ that of the best scikit-learn model, over the same folds.
	RegressionRMSETarget = 1.01
	// RegressionTimeTarget bounds our contests' summed time (statusHistory,
	// started to completed) ÷ the summed fit time of the scikit-learn
	// models, over the same folds.
	RegressionTimeTarget = 1.0
	// PredictTarget is the predict throughput of a linear model on 20
	// features, rows/s. It is the model kernel's target (a Go
	// micro-benchmark beside the code); the HTTP figures of
	// Regression/predict are reported against it only when they reach it.
	PredictTarget = 1e6
)

// Check is one target evaluated over the results, or a figure noted
// beside them.
type Check struct {
	Workload string // ImportCSV/plain
	What     string // what Value is
	Value    float64
	Text     string // shown instead of Value when set
	Detail   string // the numbers behind Value
	Target   string // the target, with its comparison
	Pass     bool
	// Note marks a figure without a target: neither PASS nor MISS, and
	// Target, if set, is a remark.
	Note bool
}

// Checks evaluates every target whose results are present: ratios of
// medians over the runs for speed, the largest growth for peak RSS.
func Checks(results []Result) []Check {
	var out []Check
	for _, w := range []string{"ImportCSV/plain", "ImportCSV/gzip", "ImportURL/plain", "ImportURL/gzip"} {
		ours, okOurs := median(results, w+"/impl=vatic", UnitRowsPerSec)
		peer, okPeer := median(results, w+"/impl=duckdb", UnitRowsPerSec)
		if okOurs && okPeer && peer > 0 {
			r := ours / peer
			out = append(out, Check{
				Workload: w, What: "rows/s vatic÷duckdb", Value: r,
				Detail: fmt.Sprintf("%s vs %s rows/s", si(ours), si(peer)),
				Target: fmt.Sprintf(">= %.2f", ImportRatioTarget), Pass: r >= ImportRatioTarget,
			})
		}
		if growth, ok := maxMetric(results, w+"/impl=vatic", UnitRSSGrowth); ok {
			out = append(out, Check{
				Workload: w, What: "peak RSS growth MB", Value: growth / (1 << 20),
				Detail: "largest over runs",
				Target: fmt.Sprintf("< %d MB", ImportRSSTarget>>20), Pass: growth < ImportRSSTarget,
			})
		}
	}
	if c, ok := timeRatio(results, "ColumnStats", StatsRatioTarget); ok {
		out = append(out, c)
	}
	var concurrent []string
	for _, r := range results {
		if strings.HasPrefix(r.Name, "ColumnStats/concurrent=") && !slices.Contains(concurrent, r.Name) {
			concurrent = append(concurrent, r.Name)
		}
	}
	for _, name := range concurrent {
		w := strings.TrimSuffix(name, "/impl=vatic")
		if peak, ok := maxMetric(results, name, UnitPeakRSS); ok {
			out = append(out, Check{
				Workload: w, What: "peak RSS MB", Value: peak / (1 << 20),
				Detail: "largest over runs",
				Target: fmt.Sprintf("<= %d MB", StatsConcurrentRSSTarget>>20), Pass: peak <= StatsConcurrentRSSTarget,
			})
		}
		if lat, ok := maxMetric(results, name, UnitMaxLatency); ok {
			busy, _ := maxMetric(results, name, UnitBusy)
			out = append(out, Check{
				Workload: w, What: "slowest request s", Value: lat / 1e9, Note: true,
				Detail: fmt.Sprintf("largest over runs; up to %.0f answers 503, retried", busy),
			})
		}
	}
	if v, ok := median(results, "ReadCSV/impl=vatic", UnitRowsPerSec); ok {
		out = append(out, Check{
			Workload: "ReadCSV", What: "rows/s", Value: v,
			Detail: si(v) + " rows/s",
			Target: ">= " + si(ReadCSVTarget), Pass: v >= ReadCSVTarget,
		})
	}
	if c, ok := timeRatio(results, "ReadView", ViewRatioTarget); ok {
		out = append(out, c)
	}
	out = append(out, regressionChecks(results)...)
	out = append(out, readsChecks(results)...)
	out = append(out, classificationChecks(results)...)
	out = append(out, anomalyChecks(results)...)
	out = append(out, textChecks(results)...)
	out = append(out, columnarChecks(results)...)
	out = append(out, forecastChecks(results)...)
	out = append(out, forecastSessionChecks(results)...)
	return append(out, impactChecks(results)...)
}

// regressionChecks evaluates the regression workload: our champions' mean
// RMSE against the best scikit-learn model's, our contests' time against
// the models' summed fit times, the linear champion and the predict
// throughput, with notes on every scikit-learn model.
func regressionChecks(results []Result) []Check {
	const w = "Regression"
	var out []Check
	var keys []string // scikit-learn models, in order of appearance
	for _, r := range results {
		if k, ok := strings.CutPrefix(r.Name, w+"/fit/model="); ok {
			if k, ok = strings.CutSuffix(k, "/impl=sklearn"); ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	fitName := func(k string) string { return w + "/fit/model=" + k + "/impl=sklearn" }
	ours := values(results, w+"/contest/impl=vatic", UnitRMSE)
	oursTimes := elapsedSeconds(results, w+"/contest/impl=vatic")
	folds := len(elapsedSeconds(results, w+"/contest/impl=sklearn"))
	bestKey, best := "", math.Inf(1)
	for _, k := range keys {
		if m := mean(values(results, fitName(k), UnitRMSE)); m < best {
			bestKey, best = k, m
		}
	}
	if len(ours) > 0 && bestKey != "" {
		r := mean(ours) / best
		out = append(out, Check{
			Workload: w, What: "RMSE vatic÷best sklearn", Value: r,
			Detail: fmt.Sprintf("%.4f vs %.4f %s, %s", mean(ours), best, bestKey, foldsNote(len(ours), folds)),
			Target: fmt.Sprintf("<= %.2f", RegressionRMSETarget), Pass: r <= RegressionRMSETarget,
		})
	}
	sklearnTime := sum(elapsedSeconds(results, w+"/contest/impl=sklearn"))
	var oursTime float64 // one run's contests: the mean per fold times the folds
	if len(oursTimes) > 0 && folds > 0 && sklearnTime > 0 {
		oursTime = mean(oursTimes) * float64(folds)
		r := oursTime / sklearnTime
		out = append(out, Check{
			Workload: w, What: "time vatic÷sklearn fits", Value: r,
			Detail: fmt.Sprintf("contests %s vs %d models' fits %s, %d folds", secs(oursTime), len(keys), secs(sklearnTime), folds),
			Target: fmt.Sprintf("<= %.2f", RegressionTimeTarget), Pass: r <= RegressionTimeTarget,
		})
	}
	if client := values(results, w+"/contest/impl=vatic", UnitClientNs); len(client) > 0 && folds > 0 {
		t := mean(client) / 1e9 * float64(folds)
		out = append(out, Check{
			Workload: w, What: "client time s", Value: t, Note: true,
			Detail: fmt.Sprintf("POST to seeing completed, polled every 20 ms, summed over %d folds; statusHistory %s", folds, secs(oursTime)),
		})
	}
	if tally := labelTally(results, w+"/contest/impl=vatic", LabelChampion); tally != "" {
		out = append(out, Check{Workload: w, What: "champions", Text: tally, Note: true,
			Detail: fmt.Sprintf("algorithm.key per fold, %d folds", len(ours))})
	}
	if len(ours) > 0 {
		out = append(out, Check{Workload: w + "/vatic", What: "RMSE", Value: mean(ours), Note: true,
			Detail: fmt.Sprintf("contests %s, statusHistory summed over %d folds", secs(oursTime), folds)})
	}
	for _, k := range keys {
		out = append(out, Check{Workload: w + "/sklearn", What: k + " RMSE", Value: mean(values(results, fitName(k), UnitRMSE)), Note: true,
			Detail: fmt.Sprintf("fits %s summed over %d folds", secs(sum(elapsedSeconds(results, fitName(k)))), folds)})
	}
	if lin := labels(results, w+"/linear/impl=vatic", LabelChampion); len(lin) > 0 {
		pass := true
		for _, k := range lin {
			pass = pass && slices.Contains(linearKeys, k)
		}
		d := mean(elapsedSeconds(results, w+"/linear/impl=vatic"))
		out = append(out, Check{
			Workload: w + "/linear", What: "champion", Text: labelTally(results, w+"/linear/impl=vatic", LabelChampion),
			Detail: fmt.Sprintf("contest %s on the linear dataset, 20 features", secs(d)),
			Target: strings.Join(linearKeys, "|"), Pass: pass,
		})
	}
	for _, f := range []string{"json", "csv"} {
		name := w + "/predict/" + f + "/impl=vatic"
		v, ok := median(results, name, UnitRowsPerSec)
		if !ok {
			continue
		}
		mb, _ := median(results, name, UnitMBPerSec)
		c := Check{
			Workload: w + "/predict/" + f, What: "rows/s over HTTP", Value: v,
			Detail: fmt.Sprintf("%s rows/s, %.1f MB/s in and out", si(v), mb),
		}
		if v >= PredictTarget {
			c.Target, c.Pass = ">= "+si(PredictTarget), true
		} else {
			c.Note, c.Target = true, "(the >= "+si(PredictTarget)+" target is the kernel's)"
		}
		out = append(out, c)
	}
	return out
}

// foldsNote says over how many folds means were taken.
func foldsNote(ours, sklearn int) string {
	if ours == sklearn {
		return fmt.Sprintf("means over %d folds", ours)
	}
	return fmt.Sprintf("means over %d folds (all runs) and %d", ours, sklearn)
}

// labels returns the label key of every result named name, in order.
func labels(results []Result, name, key string) []string {
	var out []string
	for _, r := range results {
		if r.Name == name && r.Labels[key] != "" {
			out = append(out, r.Labels[key])
		}
	}
	return out
}

// labelTally counts the values of label key over the results named name:
// "gbm×20 random_forest×5", most frequent first.
func labelTally(results []Result, name, key string) string {
	n := map[string]int{}
	vs := labels(results, name, key)
	for _, v := range vs {
		n[v]++
	}
	vs = slices.Sorted(maps.Keys(n))
	slices.SortStableFunc(vs, func(a, b string) int { return n[b] - n[a] })
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s×%d", v, n[v]))
	}
	return strings.Join(parts, " ")
}

func elapsedSeconds(results []Result, name string) []float64 {
	var out []float64
	for _, r := range results {
		if r.Name == name {
			out = append(out, r.Elapsed.Seconds())
		}
	}
	return out
}

// secs prints seconds as a rounded duration.
func secs(s float64) string {
	d := time.Duration(s * 1e9)
	if d >= 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// timeRatio checks the median time of workload w's vatic side against at
// most target times its duckdb side's.
func timeRatio(results []Result, w string, target float64) (Check, bool) {
	ours, okOurs := medianElapsed(results, w+"/impl=vatic")
	peer, okPeer := medianElapsed(results, w+"/impl=duckdb")
	if !okOurs || !okPeer || peer <= 0 {
		return Check{}, false
	}
	r := float64(ours) / float64(peer)
	return Check{
		Workload: w, What: "time vatic÷duckdb", Value: r,
		Detail: fmt.Sprintf("%v vs %v", ours.Round(time.Millisecond), peer.Round(time.Millisecond)),
		Target: fmt.Sprintf("<= %.2f", target), Pass: r <= target,
	}, true
}

// WriteSummary writes the checks as comment lines (benchstat ignores them):
// workload, measure, value, the numbers behind it, target, PASS or MISS.
func WriteSummary(w io.Writer, runs int, checks []Check) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\n# Summary: medians of %d run(s); peak RSS is the largest run.\n", runs)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, c := range checks {
		value := c.Text
		if value == "" {
			value = formatValue(c.Value)
		}
		target, verdict := "target "+c.Target, "MISS"
		switch {
		case c.Note:
			target, verdict = c.Target, "-"
		case c.Pass:
			verdict = "PASS"
		}
		fmt.Fprintf(tw, "# %s\t%s\t%s\t(%s)\t%s\t%s\n", c.Workload, c.What, value, c.Detail, target, verdict)
	}
	if len(checks) == 0 {
		fmt.Fprintln(tw, "# no target could be evaluated")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// si prints v with a k/M/G suffix and three significant digits.
func si(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func values(results []Result, name, unit string) []float64 {
	var vs []float64
	for _, r := range results {
		if r.Name != name {
			continue
		}
		if v, ok := r.Metric(unit); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

func median(results []Result, name, unit string) (float64, bool) {
	vs := values(results, name, unit)
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

func maxMetric(results []Result, name, unit string) (float64, bool) {
	vs := values(results, name, unit)
	if len(vs) == 0 {
		return 0, false
	}
	return slices.Max(vs), true
}

func medianElapsed(results []Result, name string) (time.Duration, bool) {
	var ds []Result
	for _, r := range results {
		if r.Name == name {
			ds = append(ds, Result{Name: name, Metrics: []Metric{{float64(r.Elapsed), "ns"}}})
		}
	}
	v, ok := median(ds, name, "ns")
	return time.Duration(v), ok
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
