package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fixed parameters and targets of the impact workload (issue 13:
// "Quality and performance").
const (
	// ImpactHistory is the days of the generated daily series before its
	// first window: a year and a half (MODELLING's minimum is twice the
	// window).
	ImpactHistory = 548
	// ImpactWindow is the length of an event window, days.
	ImpactWindow = 14
	// ImpactShiftSDs is the level shift injected into a window, in
	// residual standard deviations of the series ([ImpactSeries]).
	ImpactShiftSDs = 1.5
	// ImpactAlpha is the significance level: a window is "detected" when
	// its pValue is below it.
	ImpactAlpha = 0.05
	// ImpactPlaceboLow and ImpactPlaceboHigh bound the share of placebo
	// windows (no effect) with pValue < ImpactAlpha.
	ImpactPlaceboLow  = 0.02
	ImpactPlaceboHigh = 0.10
	// ImpactDetectTarget is the least share of shifted windows detected
	// (pValue < ImpactAlpha, absoluteEffect > 0).
	ImpactDetectTarget = 0.80
	// impactStart is the date of the series' first day.
	impactStart = "2021-01-04" // a Monday
)

// Units of the impact workload's results.
const (
	UnitWindows  = "windows"  // windows (sessions) in the run
	UnitRejected = "rejected" // placebo windows with pValue < 0.05
	UnitDetected = "detected" // shifted windows with pValue < 0.05 and a positive absoluteEffect
	UnitRate     = "rate"     // rejected or detected ÷ windows
	// UnitRejectedHalf counts the placebo windows with pValue below half
	// of 0.05: the two-sided 5 % test, pValue being one-sided in |effect|.
	UnitRejectedHalf = "rejected-p0.025"
	UnitMedianNs     = "median-session-ns"
)

// impactWeek is the weekly pattern of [ImpactSeries], Monday first.
var impactWeek = [7]float64{-6, -3, 0, 2, 8, 14, -15}

// ImpactSeries is the impact workload's daily series, fixed by seed: a
// level of 200, a weekly pattern (impactWeek, amplitude 29) and AR(1)
// noise e_t = 0.6·e_{t−1} + N(0, 4²), started from its stationary
// distribution. It returns the series and its residual standard
// deviation: the sample standard deviation of the noise component (the
// series minus its level and weekly pattern), known here by
// construction; about 4/√(1−0.36) = 5.
func ImpactSeries(days int, seed int64) (y []float64, residualSD float64) {
	const phi, sigma = 0.6, 4.0
	rng := rand.New(rand.NewPCG(uint64(seed), 0x696d7061))
	y = make([]float64, days)
	noise := make([]float64, days)
	e := sigma / math.Sqrt(1-phi*phi) * rng.NormFloat64()
	for t := range y {
		if t > 0 {
			e = phi*e + sigma*rng.NormFloat64()
		}
		noise[t] = e
		y[t] = 200 + impactWeek[t%7] + e
	}
	return y, sampleSD(noise)
}

// sampleSD is the sample standard deviation (n−1); 0 for fewer than two
// values.
func sampleSD(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

// ImpactSeriesDays is the length of the series that holds count
// windows of ImpactWindow days after ImpactHistory days.
func ImpactSeriesDays(count int) int { return ImpactHistory + count*ImpactWindow }

// ImpactWindowStarts places count windows of w days back to back after
// ImpactHistory days: window i starts on day ImpactHistory + i·w
// (0-based). The windows do not overlap, so their outcomes are nearly
// independent (the series' AR(1) noise forgets a window's last days
// within a few days of the next) and binomial intervals hold; each has
// at least ImpactHistory days of history before it. It fails unless
// count and w are positive.
func ImpactWindowStarts(w, count int) ([]int, error) {
	if w < 1 || count < 1 {
		return nil, fmt.Errorf("bench: %d impact windows of %d days", count, w)
	}
	out := make([]int, count)
	for i := range out {
		out[i] = ImpactHistory + i*w
	}
	return out, nil
}

// Wilson is the Wilson score interval of a binomial proportion, k
// successes in n trials, at the 95 % level (z = 1.959964): the interval
// of p whose score test does not reject, which unlike the Wald interval
// stays within [0, 1] and keeps its coverage near 0 and 1. With n = 0 it
// is [0, 1].
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p := float64(k) / float64(n)
	nf := float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, c-h), min(1, c+h)
}

// impactOutcome is one impact session's answer.
type impactOutcome struct {
	p, effect float64
	model     string        // the counterfactual's algorithm key
	wall      time.Duration // POST to seeing completed
}

// RunImpact runs the impact workload, cfg.Runs times, each on a fresh
// server started with -session-workers cfg.ImpactConcurrency (or on
// cfg.BaseURL), run r on [ImpactSeries] seeded cfg.Seed+r:
//
//   - Impact/placebo: for each of cfg.ImpactWindows windows of
//     ImpactWindow days ([ImpactWindowStarts]), an impact session
//     (resultInterval day) on the series as it is, uploaded once; its
//     pValue. The result counts the windows with pValue < ImpactAlpha.
//   - Impact/shift: the same windows, each on its own dataset holding the
//     series up to the window's end with ImpactShiftSDs residual standard
//     deviations added to the window's days; the result counts those with
//     pValue < ImpactAlpha and a positive absoluteEffect.
//
// An impact session fits its counterfactual on the days before the
// window and compares the window's days with it; days after the window
// are not used (engine/impact.go), so the placebo sessions share one
// dataset. cfg.ImpactConcurrency sessions are in flight at once. Each
// result's time is the wall time of its sessions, first POST to last
// completed; its metrics are the counts, the rate and the median time of
// one session (POST to seeing completed).
func RunImpact(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	starts, err := ImpactWindowStarts(ImpactWindow, cfg.ImpactWindows)
	if err != nil {
		return nil, err
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	srvCfg := cfg
	srvCfg.ServeArgs = append(slices.Clone(cfg.ServeArgs), "-session-workers", strconv.Itoa(cfg.ImpactConcurrency))
	var results []Result
	for run := range cfg.Runs {
		t, err := openTarget(ctx, srvCfg, scratch, fmt.Sprintf("impact-%d", run))
		if err != nil {
			return results, err
		}
		rs, err := impactRun(ctx, cfg, t.c, scratch, starts, cfg.Seed+int64(run), run)
		results = append(results, rs...)
		err = t.explain(err)
		t.close(cfg)
		if err != nil {
			return results, fmt.Errorf("impact run %d: %w", run+1, err)
		}
	}
	return results, nil
}

func impactRun(ctx context.Context, cfg Config, c *Client, scratch string, starts []int, seed int64, run int) ([]Result, error) {
	y, sd := ImpactSeries(ImpactSeriesDays(len(starts)), seed)
	day0, _ := time.Parse(time.DateOnly, impactStart)
	shift := ImpactShiftSDs * sd
	fmt.Fprintf(cfg.Progress, "impact run %d/%d: %d days, residual sd %.3f, shift %.3f a day, %d windows of %d days, %d sessions at a time\n",
		run+1, cfg.Runs, len(y), sd, shift, len(starts), ImpactWindow, cfg.ImpactConcurrency)
	base := datasetName("impact-base")
	path := filepath.Join(scratch, fmt.Sprintf("impact-%d.csv", run))
	if err := writeSeriesCSV(path, seriesDates(day0, "day", len(y)), y, nil); err != nil {
		return nil, err
	}
	if err := putRows(ctx, c, base, path, len(y)); err != nil {
		return nil, err
	}
	defer deleteCascade(ctx, cfg, c, base)
	window := func(i int) SeriesRequest {
		s := day0.AddDate(0, 0, starts[i])
		return SeriesRequest{DataSourceName: base, TargetColumn: "value", EventName: fmt.Sprintf("placebo-%d", i+1),
			StartDate: s.Format(time.DateOnly), EndDate: s.AddDate(0, 0, ImpactWindow-1).Format(time.DateOnly), ResultInterval: "day"}
	}

	var out []Result
	for _, shifted := range []bool{false, true} {
		name := "Impact/placebo/impl=vatic"
		if shifted {
			name = "Impact/shift/impl=vatic"
		}
		outcomes := make([]impactOutcome, len(starts))
		start := time.Now()
		err := forEach(ctx, len(starts), cfg.ImpactConcurrency, func(ctx context.Context, i int) error {
			req := window(i)
			if shifted {
				end := starts[i] + ImpactWindow
				v := slices.Clone(y[:end])
				for t := starts[i]; t < end; t++ {
					v[t] += shift
				}
				req.DataSourceName = datasetName(fmt.Sprintf("impact-shift-%d", i+1))
				req.EventName = fmt.Sprintf("shift-%d", i+1)
				p := filepath.Join(scratch, fmt.Sprintf("impact-%d-shift-%d.csv", run, i+1))
				if err := writeSeriesCSV(p, seriesDates(day0, "day", len(v)), v, nil); err != nil {
					return err
				}
				defer os.Remove(p)
				if err := putRows(ctx, c, req.DataSourceName, p, len(v)); err != nil {
					return err
				}
				defer deleteCascade(ctx, cfg, c, req.DataSourceName)
			}
			o, err := impactSession(ctx, c, req)
			if err != nil {
				return fmt.Errorf("window %d (%s…%s): %w", i+1, req.StartDate, req.EndDate, err)
			}
			outcomes[i] = o
			fmt.Fprintf(cfg.Progress, "impact run %d/%d: %s window %3d %s…%s: pValue %.4f  absoluteEffect %9.2f  %-14s %v\n",
				run+1, cfg.Runs, req.EventName[:strings.IndexByte(req.EventName, '-')], i+1, req.StartDate, req.EndDate, o.p, o.effect, o.model, o.wall.Round(time.Millisecond))
			return nil
		})
		elapsed := time.Since(start)
		if err != nil {
			return out, err
		}
		hits, half := 0, 0
		walls := make([]float64, len(outcomes))
		for i, o := range outcomes {
			if o.p < ImpactAlpha && (!shifted || o.effect > 0) {
				hits++
			}
			if o.p < ImpactAlpha/2 {
				half++
			}
			walls[i] = float64(o.wall)
		}
		unit := UnitRejected
		if shifted {
			unit = UnitDetected
		}
		n := len(outcomes)
		lo, hi := Wilson(hits, n)
		fmt.Fprintf(cfg.Progress, "impact run %d/%d: %-7s %d of %d with pValue < %.2f (%.1f %%, 95%% CI %.1f–%.1f %%) in %v, median session %v\n",
			run+1, cfg.Runs, map[bool]string{false: "placebo", true: "shift"}[shifted], hits, n, ImpactAlpha,
			100*float64(hits)/float64(n), 100*lo, 100*hi, elapsed.Round(time.Millisecond), time.Duration(medianOf(walls)).Round(time.Millisecond))
		r := Result{Name: name, Elapsed: elapsed, Metrics: []Metric{
			{float64(hits), unit}, {float64(n), UnitWindows}, {float64(hits) / float64(n), UnitRate}, {medianOf(walls), UnitMedianNs}}}
		if !shifted {
			r.Metrics = append(r.Metrics, Metric{float64(half), UnitRejectedHalf})
		}
		out = append(out, r)
	}
	return out, nil
}

// impactSession runs one impact session to completion and reads its
// pValue and absoluteEffect from /results.
func impactSession(ctx context.Context, c *Client, req SeriesRequest) (impactOutcome, error) {
	start := time.Now()
	s, err := c.CreateSeriesSession(ctx, "impact", req)
	if err != nil {
		return impactOutcome{}, err
	}
	s, err = c.WaitSession(ctx, s.SessionID, sessionPoll)
	if err != nil {
		return impactOutcome{}, err
	}
	wall := time.Since(start)
	res, err := c.SeriesResults(ctx, s.SessionID, 1)
	if err != nil {
		return impactOutcome{}, err
	}
	p, okP := res.Metrics["pValue"]
	a, okA := res.Metrics["absoluteEffect"]
	if !okP || !okA {
		return impactOutcome{}, fmt.Errorf("bench: impact session %s: results metrics %v lack pValue or absoluteEffect", s.SessionID, res.Metrics)
	}
	return impactOutcome{p: p, effect: a, model: s.AlgorithmKey(), wall: wall}, nil
}

// forEach calls f(ctx, i) for i in [0, n) with at most workers calls at
// once, and returns the first error, after which no new call starts and
// the context of the running ones is cancelled.
func forEach(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				if err := f(ctx, i); err != nil {
					once.Do(func() { first = err; cancel(err) })
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// medianOf is the median of xs; 0 when empty.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// impactChecks evaluates the impact workload over every run together:
// the placebo windows' share with pValue < 0.05 against [2 %, 10 %], the
// shifted windows' detection rate against 80 %, each with its Wilson
// interval, and the wall time of the sessions; the placebo share below
// 0.025 (the two-sided 5 % test) is noted.
func impactChecks(results []Result) []Check {
	var out []Check
	for _, c := range []struct {
		side, unit, what string
	}{{"placebo", UnitRejected, "share pValue<0.05"}, {"shift", UnitDetected, "detection rate"}} {
		name := "Impact/" + c.side + "/impl=vatic"
		hits, n := int(sum(values(results, name, c.unit))), int(sum(values(results, name, UnitWindows)))
		if n == 0 {
			continue
		}
		r := float64(hits) / float64(n)
		lo, hi := Wilson(hits, n)
		wall := sum(elapsedSeconds(results, name))
		detail := fmt.Sprintf("%d of %d windows, 95%% Wilson CI %.1f–%.1f %%; sessions %s, median one %s",
			hits, n, 100*lo, 100*hi, secs(wall), secs(medianOf(values(results, name, UnitMedianNs))/1e9))
		ch := Check{Workload: "Impact/" + c.side, What: c.what, Value: r, Detail: detail}
		if c.side == "placebo" {
			ch.Target = fmt.Sprintf("%.2f–%.2f", ImpactPlaceboLow, ImpactPlaceboHigh)
			ch.Pass = r >= ImpactPlaceboLow && r <= ImpactPlaceboHigh
		} else {
			ch.Target = fmt.Sprintf(">= %.2f", ImpactDetectTarget)
			ch.Pass = r >= ImpactDetectTarget
		}
		out = append(out, ch)
		if c.side != "placebo" {
			continue
		}
		if half := values(results, name, UnitRejectedHalf); len(half) > 0 {
			k := int(sum(half))
			lo, hi := Wilson(k, n)
			out = append(out, Check{Workload: "Impact/placebo", What: "share pValue<0.025", Value: float64(k) / float64(n), Note: true,
				Detail: fmt.Sprintf("%d of %d, 95%% Wilson CI %.1f–%.1f %%: the two-sided 5 %% test (pValue is one-sided in |effect|)", k, n, 100*lo, 100*hi)})
		}
	}
	return out
}

// putRows uploads the CSV file at path as dataset name and checks its
// row count.
func putRows(ctx context.Context, c *Client, name, path string, rows int) error {
	put, err := c.PutCSV(ctx, name, path, false)
	if err != nil {
		return err
	}
	if put.RowCount >= 0 && put.RowCount != int64(rows) {
		return fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", name, put.RowCount, rows)
	}
	return nil
}
