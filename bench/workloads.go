package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Run generates (or reuses) the input files in cfg.Dir and runs the given
// workloads (names from [AllWorkloads]) in the order of [AllWorkloads]. It returns
// the results gathered so far together with the first error.
func Run(ctx context.Context, cfg Config, workloads []string) ([]Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var files Files
	// The generated table is the input of these workloads only.
	usesTable := func(w string) bool {
		return w == WorkloadImport || w == WorkloadImportURL || w == WorkloadStats || w == WorkloadCSV || w == WorkloadColumnar
	}
	if slices.ContainsFunc(workloads, usesTable) {
		fmt.Fprintf(cfg.Progress, "input: %d rows, seed %d, in %s\n", cfg.Rows, cfg.Seed, cfg.Dir)
		start := time.Now()
		f, err := Generate(cfg.Dir, cfg.Rows, cfg.Seed)
		if err != nil {
			return nil, err
		}
		files = f
		fmt.Fprintf(cfg.Progress, "input: %s (%d bytes), %s (%d bytes), ready in %v\n",
			files.CSV, files.CSVBytes, files.Gzip, files.GzipBytes, time.Since(start).Round(time.Millisecond))
	}

	var results []Result
	var read *target // the server and dataset shared by the read workloads
	var readName string
	defer func() {
		if read != nil {
			if read.srv == nil {
				read.c.Delete(context.WithoutCancel(ctx), readName)
			}
			read.close(cfg)
		}
	}()
	var err error
	for _, w := range AllWorkloads {
		if !slices.Contains(workloads, w) {
			continue
		}
		if w == WorkloadView && cfg.BaseURL != "" {
			fmt.Fprintf(cfg.Progress, "view: skipped; it needs servers the harness starts, not -url\n")
			continue
		}
		if (w == WorkloadView || w == WorkloadRegression || w == WorkloadReads || w == WorkloadForecast || w == WorkloadForecastSession || w == WorkloadImpact || w == WorkloadClassification || w == WorkloadAnomalies || w == WorkloadText || w == WorkloadColumnar) && read != nil {
			// These workloads start their own servers (or need none); stop
			// the idle one.
			if read.srv == nil {
				read.c.Delete(context.WithoutCancel(ctx), readName)
			}
			read.close(cfg)
			read = nil
		}
		if (w == WorkloadStats || w == WorkloadCSV) && read == nil {
			fmt.Fprintf(cfg.Progress, "read workloads: loading %s\n", files.CSV)
			if read, readName, err = loadTarget(ctx, cfg, files); err != nil {
				return results, err
			}
		}
		var rs []Result
		switch w {
		case WorkloadImport:
			rs, err = RunImport(ctx, cfg, files, false)
			if err == nil {
				var gz []Result
				gz, err = RunImport(ctx, cfg, files, true)
				rs = append(rs, gz...)
			}
		case WorkloadImportURL:
			rs, err = RunImportURL(ctx, cfg, files, false)
			if err == nil {
				var gz []Result
				gz, err = RunImportURL(ctx, cfg, files, true)
				rs = append(rs, gz...)
			}
		case WorkloadStats:
			rs, err = RunStats(ctx, cfg, files, read.c, readName)
			if err == nil && cfg.StatsConcurrency > 1 {
				var more []Result
				more, err = runStatsConcurrent(ctx, cfg, read, readName)
				rs = append(rs, more...)
			}
			err = read.explain(err)
		case WorkloadCSV:
			rs, err = RunReadCSV(ctx, cfg, files, read.c, readName)
			err = read.explain(err)
		case WorkloadView:
			var vf ViewFiles
			start := time.Now()
			if vf, err = GenerateView(cfg.Dir, cfg.ViewRows, cfg.Seed); err == nil {
				fmt.Fprintf(cfg.Progress, "view input: %s (%d bytes), %s, %s, ready in %v\n",
					vf.Base, vf.BaseBytes, vf.Weather, vf.Stores, time.Since(start).Round(time.Millisecond))
				rs, err = RunView(ctx, cfg, vf)
			}
		case WorkloadRegression:
			rs, err = RunRegression(ctx, cfg)
		case WorkloadReads:
			rs, err = RunReads(ctx, cfg)
		case WorkloadForecast:
			rs, err = RunForecast(ctx, cfg)
		case WorkloadClassification:
			rs, err = RunClassification(ctx, cfg)
		case WorkloadForecastSession:
			rs, err = RunForecastSession(ctx, cfg)
		case WorkloadImpact:
			rs, err = RunImpact(ctx, cfg)
		case WorkloadAnomalies:
			rs, err = RunAnomalies(ctx, cfg)
		case WorkloadText:
			rs, err = RunText(ctx, cfg)
		case WorkloadColumnar:
			rs, err = RunColumnar(ctx, cfg, files)
		}
		results = append(results, rs...)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// RunImport measures PUT /data/{name} of files.CSV (or, with gz, of
// files.Gzip with Content-Encoding: gzip) against DuckDB's
// CREATE TABLE … AS SELECT * FROM read_csv on the same file, cfg.Runs times.
// Every run imports into a new dataset: on a fresh server when the harness
// starts servers (reporting its peak RSS growth), else under a new name that
// is deleted afterwards. The anchor gets a fresh database file per run.
func RunImport(ctx context.Context, cfg Config, files Files, gz bool) ([]Result, error) {
	return runImport(ctx, cfg, files, gz, "ImportCSV", func(ctx context.Context, c *Client, name, path string, gz bool) (time.Duration, PutResult, error) {
		start := time.Now()
		put, err := c.PutCSV(ctx, name, path, gz)
		return time.Since(start), put, err
	})
}

// RunImportURL measures POST /imports/url of files.CSV (or files.Gzip, served
// as application/gzip) from a loopback HTTP server in this process, timed
// from the request to the import's completion, against the same DuckDB
// anchor as RunImport. Started servers run with -import-allow-private.
func RunImportURL(ctx context.Context, cfg Config, files Files, gz bool) ([]Result, error) {
	fs, err := serveFiles(files)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	cfg.ServeArgs = append(slices.Clone(cfg.ServeArgs), "-import-allow-private")
	return runImport(ctx, cfg, files, gz, "ImportURL", func(ctx context.Context, c *Client, name, path string, _ bool) (time.Duration, PutResult, error) {
		return c.ImportURL(ctx, name, fs.URL+"/"+filepath.Base(path))
	})
}

// importFunc imports path into dataset name and reports how long it took.
type importFunc func(ctx context.Context, c *Client, name, path string, gz bool) (time.Duration, PutResult, error)

func runImport(ctx context.Context, cfg Config, files Files, gz bool, workload string, do importFunc) ([]Result, error) {
	cfg = cfg.withDefaults()
	variant, path, size := "plain", files.CSV, files.CSVBytes
	if gz {
		variant, path, size = "gzip", files.Gzip, files.GzipBytes
	}
	w := workload + "/" + variant
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)

	ours := func(run int) (Result, error) {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("import-%s-%d", variant, run))
		if err != nil {
			return Result{}, err
		}
		defer t.close(cfg)
		var before Memory
		var memErr error = errors.New("not a started server")
		if t.srv != nil {
			before, memErr = t.srv.Memory()
		}
		name := datasetName("import-" + variant)
		elapsed, put, err := do(ctx, t.c, name, path, gz)
		if err != nil {
			return Result{}, t.explain(err)
		}
		if put.RowCount >= 0 && put.RowCount != int64(files.Rows) {
			return Result{}, t.explain(fmt.Errorf("bench: PUT %s answered rowCount %d, want %d: %s", name, put.RowCount, files.Rows, tail(string(put.Body), 1000)))
		}
		r := Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(files.Rows, size, elapsed)}
		if memErr == nil {
			after, err := t.srv.Memory()
			if err == nil {
				r.Metrics = append(r.Metrics, Metric{float64(after.Peak - before.RSS), UnitRSSGrowth})
			} else {
				fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
			}
		}
		if t.srv == nil {
			if err := t.c.Delete(ctx, name); err != nil {
				fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
			}
		}
		return r, nil
	}
	anchor := func(run int) (Result, error) {
		db := filepath.Join(scratch, fmt.Sprintf("anchor-%s-%d.duckdb", variant, run))
		defer removeDB(db)
		times, out, err := DuckDB{Bin: cfg.Vatic}.Exec(ctx, db, createTableSQL(path), "SELECT count(*) FROM bench")
		if err != nil {
			return Result{}, err
		}
		if got := lastLine(out); got != strconv.Itoa(files.Rows) {
			return Result{}, fmt.Errorf("bench: anchor loaded %q rows from %s, want %d", got, path, files.Rows)
		}
		return Result{Name: w + "/impl=duckdb", Elapsed: times[0], Metrics: speed(files.Rows, size, times[0])}, nil
	}
	return alternate(cfg, w, ours, anchor)
}

// RunStats measures GET /data/{name}/stats of dataset name, which must hold
// files.CSV, against [StatsSQL] over the same file loaded into a DuckDB
// database, cfg.Runs times. Each anchor run executes the query twice in one
// process and reports the second, warm, execution: the server has the table
// in memory too, having just imported it.
func RunStats(ctx context.Context, cfg Config, files Files, c *Client, name string) ([]Result, error) {
	cfg = cfg.withDefaults()
	const w = "ColumnStats"
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	db := filepath.Join(scratch, "stats.duckdb")
	duck := DuckDB{Bin: cfg.Vatic}
	if _, _, err := duck.Exec(ctx, db, createTableSQL(files.CSV)); err != nil {
		return nil, err
	}
	q := StatsSQL()

	ours := func(int) (Result, error) {
		start := time.Now()
		cols, err := c.GetStats(ctx, name)
		elapsed := time.Since(start)
		if err != nil {
			return Result{}, err
		}
		for _, col := range Columns {
			if _, ok := cols[col]; !ok {
				return Result{}, fmt.Errorf("bench: stats of %s lack column %q", name, col)
			}
		}
		return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(files.Rows, 0, elapsed)}, nil
	}
	anchor := func(int) (Result, error) {
		times, _, err := duck.Exec(ctx, db, q, q)
		if err != nil {
			return Result{}, err
		}
		return Result{Name: w + "/impl=duckdb", Elapsed: times[1], Metrics: speed(files.Rows, 0, times[1])}, nil
	}
	return alternate(cfg, w, ours, anchor)
}

// runStatsConcurrent sends cfg.StatsConcurrency requests for the
// statistics of dataset name at once, cfg.Runs times, and reports the wall
// time of each run, its slowest request, the 503 answers (each retried
// after its Retry-After) and, for a started server, its peak RSS over the
// run: the high-water mark is reset first (/proc/PID/clear_refs), so the
// import before does not count.
func runStatsConcurrent(ctx context.Context, cfg Config, t *target, name string) ([]Result, error) {
	n := cfg.StatsConcurrency
	w := fmt.Sprintf("ColumnStats/concurrent=%d", n)
	ours := func(int) (Result, error) {
		if t.srv != nil {
			if err := t.srv.ResetPeak(); err != nil {
				fmt.Fprintf(cfg.Progress, "warning: %v; peak RSS includes earlier work\n", err)
			}
		}
		var (
			mu      sync.Mutex
			slowest time.Duration
			busy    int
			wg      sync.WaitGroup
		)
		errs := make([]error, n)
		start := time.Now()
		for i := range n {
			wg.Go(func() {
				begin := time.Now()
				for {
					_, err := t.c.GetStats(ctx, name)
					var he *HTTPError
					if errors.As(err, &he) && he.Status == http.StatusServiceUnavailable {
						mu.Lock()
						busy++
						mu.Unlock()
						select {
						case <-time.After(he.RetryAfter):
							continue
						case <-ctx.Done():
							err = ctx.Err()
						}
					}
					errs[i] = err
					break
				}
				mu.Lock()
				slowest = max(slowest, time.Since(begin))
				mu.Unlock()
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			return Result{}, err
		}
		r := Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: []Metric{
			{float64(slowest), UnitMaxLatency}, {float64(busy), UnitBusy}}}
		if t.srv != nil {
			m, err := t.srv.Memory()
			if err != nil {
				return Result{}, err
			}
			r.Metrics = append(r.Metrics, Metric{float64(m.Peak), UnitPeakRSS})
		}
		return r, nil
	}
	return alternate(cfg, w, ours, nil)
}

// RunReadCSV measures GET /data/{name} with Accept: text/csv and no paging
// parameters, which must stream every row of dataset name (holding
// files.CSV), cfg.Runs times. It has no anchor; the target is absolute.
func RunReadCSV(ctx context.Context, cfg Config, files Files, c *Client, name string) ([]Result, error) {
	cfg = cfg.withDefaults()
	const w = "ReadCSV"
	ours := func(int) (Result, error) {
		start := time.Now()
		rows, n, err := c.GetAllCSV(ctx, name)
		elapsed := time.Since(start)
		if err != nil {
			return Result{}, err
		}
		if rows != int64(files.Rows) {
			return Result{}, fmt.Errorf("bench: GET %s as CSV gave %d rows, want %d", name, rows, files.Rows)
		}
		return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(files.Rows, n, elapsed)}, nil
	}
	return alternate(cfg, w, ours, nil)
}

// alternate runs ours and anchor (which may be nil) cfg.Runs times,
// swapping their order on every run so that a slow phase of a noisy machine
// does not always fall on the same side.
func alternate(cfg Config, w string, ours, anchor func(run int) (Result, error)) ([]Result, error) {
	var results []Result
	for run := range cfg.Runs {
		sides := []func(int) (Result, error){ours, anchor}
		if run%2 == 1 {
			sides[0], sides[1] = anchor, ours
		}
		for _, side := range sides {
			if side == nil {
				continue
			}
			r, err := side(run)
			if err != nil {
				return results, fmt.Errorf("%s run %d: %w", w, run+1, err)
			}
			fmt.Fprintf(cfg.Progress, "run %d/%d: ", run+1, cfg.Runs)
			WriteResults(cfg.Progress, []Result{r})
			results = append(results, r)
		}
	}
	return results, nil
}

// speed returns rows/s and, when bytes > 0, MB/s for work that took d.
func speed(rows int, bytes int64, d time.Duration) []Metric {
	s := d.Seconds()
	if s <= 0 {
		s = 1e-9
	}
	m := []Metric{{float64(rows) / s, UnitRowsPerSec}}
	if bytes > 0 {
		m = append(m, Metric{float64(bytes) / 1e6 / s, UnitMBPerSec})
	}
	return m
}

// target is a server under test: one the harness started, or cfg.BaseURL.
type target struct {
	c   *Client
	srv *Server // nil for cfg.BaseURL
	dir string  // the started server's scratch directory
	log *os.File
}

// openTarget starts a fresh server in scratch/label, or returns cfg.BaseURL.
func openTarget(ctx context.Context, cfg Config, scratch, label string) (*target, error) {
	if cfg.BaseURL != "" {
		return &target{c: &Client{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey}}, nil
	}
	t := &target{dir: filepath.Join(scratch, label)}
	data := filepath.Join(t.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(t.dir, "server.log"))
	if err != nil {
		return nil, err
	}
	t.log = log
	t.srv, err = StartServer(ctx, ServerOptions{Bin: cfg.Vatic, DataDir: data, Args: cfg.ServeArgs, Log: log})
	if err != nil {
		err = t.explain(err)
		log.Close()
		os.RemoveAll(t.dir)
		return nil, err
	}
	t.c = t.srv.Client
	return t, nil
}

// explain appends the end of the started server's log to a non-nil err.
func (t *target) explain(err error) error {
	if err == nil || t == nil || t.log == nil {
		return err
	}
	b, _ := os.ReadFile(t.log.Name())
	if len(b) == 0 {
		return err
	}
	return fmt.Errorf("%w\nserver log (end):\n%s", err, tail(string(b), 3000))
}

// close stops a started server and removes its data; problems are warnings.
func (t *target) close(cfg Config) {
	if t.srv == nil {
		return
	}
	if err := t.srv.Stop(); err != nil {
		fmt.Fprintf(cfg.Progress, "warning: %v\n", t.explain(err))
	}
	t.log.Close()
	os.RemoveAll(t.dir)
}

// loadTarget opens the target of the read workloads and imports files.CSV.
func loadTarget(ctx context.Context, cfg Config, files Files) (*target, string, error) {
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, "", err
	}
	t, err := openTarget(ctx, cfg, scratch, "read")
	if err != nil {
		os.RemoveAll(scratch)
		return nil, "", err
	}
	if t.srv != nil {
		t.dir = scratch // close removes the whole scratch directory
	} else {
		os.RemoveAll(scratch)
	}
	name := datasetName("read")
	put, err := t.c.PutCSV(ctx, name, files.CSV, false)
	if err == nil && put.RowCount >= 0 && put.RowCount != int64(files.Rows) {
		err = fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", name, put.RowCount, files.Rows)
	}
	if err != nil {
		err = t.explain(err)
		t.close(cfg)
		return nil, "", err
	}
	return t, name, nil
}

// datasetName returns a new dataset name, unique enough not to meet a
// user's dataset on a shared server.
func datasetName(label string) string {
	return "bench-" + label + "-" + strings.ToLower(rand.Text()[:8])
}

func scratchDir(cfg Config) (string, error) {
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "scratch-")
	if err != nil {
		return "", err
	}
	return filepath.Abs(dir)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// fileServer serves the generated files on loopback for URL imports.
type fileServer struct {
	URL string
	srv *http.Server
}

func serveFiles(files Files) (*fileServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, p := range []string{files.CSV, files.Gzip} {
		mux.HandleFunc("/"+filepath.Base(p), func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(p, ".gz") {
				w.Header().Set("Content-Type", "application/gzip")
			} else {
				w.Header().Set("Content-Type", "text/csv")
			}
			http.ServeFile(w, r, p)
		})
	}
	fs := &fileServer{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = fs.srv.Serve(ln) }()
	return fs, nil
}

func (f *fileServer) Close() { _ = f.srv.Close() }
