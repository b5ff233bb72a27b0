package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"
)

// Units of the reads workload.
const (
	UnitReqPerSec = "req/s"  // requests answered per second, all connections together
	UnitP50Ns     = "p50-ns" // median latency of one request, ns
	UnitP99Ns     = "p99-ns" // 99th percentile latency of one request, ns
)

// Targets of the reads workload.
const (
	ReadsSessionRateTarget = 5000                  // GET /sessions/{id}, req/s, at least
	ReadsSessionP99Target  = 50 * time.Millisecond // its p99 latency, below
	ReadsPageRateTarget    = 1000                  // GET /data/{name}?pageSize=100, req/s, at least
)

// readsTrainRows is the size of the dataset the reads workload trains its
// session on: small, so that the contest takes seconds.
const readsTrainRows = 300

// RunReads is the reads workload: cfg.ReadsConns connections, each sending
// its next request as soon as the last one's answer is read, for
// cfg.ReadsDuration against, in turn,
//
//   - Reads/anchor: a bare httprouter handler served by this process on
//     loopback that answers the bytes of the session below (so the same
//     client, machine and answer size, without the server's work);
//   - Reads/session: GET /sessions/{id} of a completed model session;
//   - Reads/page: GET /data/{name}?pageSize=100 (JSON) of a dataset of
//     cfg.ReadsRows rows (the generated table's layout). The same page is
//     read again and again, as a dashboard does, so after the first
//     request vatic answers from its page cache (-page-cache); the
//     uncached path is timed by api's BenchmarkPage with the cache off.
//
// Each result reports req/s, p50 and p99 latency; its ns/op is the mean
// latency. Runs alternate the order of the three phases.
func RunReads(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	const w = "Reads"
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	t, err := openTarget(ctx, cfg, scratch, "reads")
	if err != nil {
		return nil, err
	}
	defer t.close(cfg)
	c := t.c

	// The page's dataset and the session's training data: numbers only,
	// so that the contest is quick.
	page := datasetName("reads-page")
	train := datasetName("reads-train")
	tbl := linearTable(readsTrainRows, cfg.Seed)
	for _, d := range []struct {
		name  string
		rows  int
		write func(path string) error
	}{
		{page, cfg.ReadsRows, func(path string) error { return writeTableFile(path, cfg.ReadsRows, cfg.Seed) }},
		{train, readsTrainRows, func(path string) error { return writeCSVFile(path, tbl.header, tbl.rows) }},
	} {
		path := filepath.Join(scratch, d.name+".csv")
		if err := d.write(path); err != nil {
			return nil, err
		}
		fmt.Fprintf(cfg.Progress, "reads: PUT %s (%d rows)\n", d.name, d.rows)
		if _, err := c.PutCSV(ctx, d.name, path, false); err != nil {
			return nil, t.explain(err)
		}
	}
	if t.srv == nil {
		defer func() {
			bg := context.WithoutCancel(ctx)
			for _, n := range []string{page, train} {
				if err := c.DeleteCascade(bg, n, "session", "model"); err != nil {
					fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
				}
			}
		}()
	}
	fmt.Fprintf(cfg.Progress, "reads: training a session on %s\n", train)
	s, err := c.CreateModelSession(ctx, train, tbl.target(), "regression")
	if err == nil {
		s, err = c.WaitSession(ctx, s.SessionID, 100*time.Millisecond)
	}
	if err != nil {
		return nil, t.explain(err)
	}
	sessionURL := strings.TrimRight(c.BaseURL, "/") + "/sessions/" + url.PathEscape(s.SessionID)
	pageURL := c.dataURL(page) + "?pageSize=100"

	// The anchor answers what GET /sessions/{id} answers.
	body, err := fetch(ctx, c, sessionURL)
	if err != nil {
		return nil, t.explain(err)
	}
	anchor, err := serveAnchor(body)
	if err != nil {
		return nil, err
	}
	defer anchor.Close()

	phases := []struct {
		name string
		c    *Client
		url  string
	}{
		{w + "/anchor/impl=httprouter", &Client{BaseURL: anchor.URL}, anchor.URL + "/sessions/" + url.PathEscape(s.SessionID)},
		{w + "/session/impl=vatic", c, sessionURL},
		{w + "/page/impl=vatic", c, pageURL},
	}
	var results []Result
	for run := range cfg.Runs {
		order := slices.Clone(phases)
		if run%2 == 1 {
			slices.Reverse(order)
		}
		for _, p := range order {
			r, err := loadTest(ctx, p.c, p.url, cfg.ReadsConns, cfg.ReadsDuration)
			if err != nil {
				return results, t.explain(fmt.Errorf("%s run %d: %w", p.name, run+1, err))
			}
			r.Name = p.name
			fmt.Fprintf(cfg.Progress, "run %d/%d: ", run+1, cfg.Runs)
			WriteResults(cfg.Progress, []Result{r})
			results = append(results, r)
		}
	}
	return results, nil
}

// writeTableFile writes the generated table of rows rows to path.
func writeTableFile(path string, rows int, seed int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteCSV(f, rows, seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fetch GETs u and returns the answer's body, which must come with 200.
func fetch(ctx context.Context, c *Client, u string) ([]byte, error) {
	req, err := c.newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// anchorServer is the reads workload's anchor: httprouter and net/http
// answering fixed bytes.
type anchorServer struct {
	URL string // http://127.0.0.1:PORT/v1
	srv *http.Server
}

func serveAnchor(body []byte) (*anchorServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	router := httprouter.New()
	router.GET("/v1/sessions/:id", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(body)
	})
	srv := &http.Server{Handler: router, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return &anchorServer{URL: "http://" + ln.Addr().String() + "/v1", srv: srv}, nil
}

func (a *anchorServer) Close() { a.srv.Close() }

// loadTest sends GET u on conns connections of their own, back to back,
// for d, and reports the rate and latencies. Every answer must be 200 and
// is read to its end.
func loadTest(ctx context.Context, c *Client, u string, conns int, d time.Duration) (Result, error) {
	tr := NewHTTPClient().Transport.(*http.Transport)
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = conns, conns, conns
	defer tr.CloseIdleConnections()
	client := &Client{BaseURL: c.BaseURL, APIKey: c.APIKey, HTTP: &http.Client{Transport: tr}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	lat := make([][]time.Duration, conns)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := getDiscard(ctx, client, u); err != nil {
					if ctx.Err() == nil {
						errs[i] = err
						cancel()
					}
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return Result{}, fmt.Errorf("bench: no request to %s completed in %v", u, d)
	}
	slices.Sort(all)
	var sum time.Duration
	for _, l := range all {
		sum += l
	}
	return Result{
		Elapsed: sum / time.Duration(len(all)),
		Metrics: []Metric{
			{float64(len(all)) / elapsed.Seconds(), UnitReqPerSec},
			{float64(percentile(all, 0.50)), UnitP50Ns},
			{float64(percentile(all, 0.99)), UnitP99Ns},
		},
	}, nil
}

// percentile returns the q-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(float64(len(sorted))*q+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func getDiscard(ctx context.Context, c *Client, u string) error {
	req, err := c.newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// readsChecks evaluates the reads workload's targets on medians over the
// runs, with the anchor's rate noted.
func readsChecks(results []Result) []Check {
	var out []Check
	if v, ok := median(results, "Reads/anchor/impl=httprouter", UnitReqPerSec); ok {
		out = append(out, Check{Workload: "Reads/anchor", What: "req/s", Value: v, Detail: si(v) + " req/s, httprouter in the harness", Note: true})
	}
	if v, ok := median(results, "Reads/session/impl=vatic", UnitReqPerSec); ok {
		out = append(out, Check{Workload: "Reads/session", What: "req/s", Value: v, Detail: si(v) + " req/s",
			Target: fmt.Sprintf(">= %d", ReadsSessionRateTarget), Pass: v >= ReadsSessionRateTarget})
	}
	if v, ok := median(results, "Reads/session/impl=vatic", UnitP99Ns); ok {
		out = append(out, Check{Workload: "Reads/session", What: "p99 ms", Value: v / 1e6, Detail: "median over runs",
			Target: fmt.Sprintf("< %d ms", ReadsSessionP99Target.Milliseconds()), Pass: v < float64(ReadsSessionP99Target)})
	}
	if v, ok := median(results, "Reads/page/impl=vatic", UnitReqPerSec); ok {
		out = append(out, Check{Workload: "Reads/page", What: "req/s", Value: v, Detail: si(v) + " req/s",
			Target: fmt.Sprintf(">= %d", ReadsPageRateTarget), Pass: v >= ReadsPageRateTarget})
	}
	if v, ok := median(results, "Reads/page/impl=vatic", UnitP99Ns); ok {
		out = append(out, Check{Workload: "Reads/page", What: "p99 ms", Value: v / 1e6, Detail: "median over runs", Note: true})
	}
	return out
}
