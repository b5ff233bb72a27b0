package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"github.com/vaticml/vatic/api"
	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/ingest"
	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/webhook"
)

// importConfig configures imports from URLs, S3 and Azure.
type importConfig struct {
	AllowPrivate bool
	S3Endpoint   string
	Workers      int
	Timeout      time.Duration
	IdleTimeout  time.Duration
	MaxBytes     int64
}

// connConfig bounds what one client connection may hold.
type connConfig struct {
	IdleTimeout       time.Duration // keep-alive connection with no request
	ReadHeaderTimeout time.Duration // sending one request's headers
	BodyIdleTimeout   time.Duration // a request body that sends nothing
	Max               int           // open connections; 0: defaultMaxConnections
}

// Connection cap: the default is maxConnectionsCap, lowered to 3/4 of the
// open-file limit where that is smaller, leaving the other quarter to the
// database, its WAL and spill files, imports, webhooks and the debug server.
const maxConnectionsCap = 4096

// defaultMaxConnections is the -max-connections default for an open-file
// limit (0: unknown).
func defaultMaxConnections(nofile uint64) int {
	if nofile == 0 || nofile/4*3 >= maxConnectionsCap {
		return maxConnectionsCap
	}
	return max(1, int(nofile/4*3))
}

// sessionConfig configures the session workers.
type sessionConfig struct {
	Workers int
	Timeout time.Duration
	// MaxForecastBuckets is engine.Options.MaxForecastBuckets.
	MaxForecastBuckets int
}

// predictMemory is engine.Options.PredictMemory for -predict-memory:
// the flag's 0 (keep none) is the option's negative.
func predictMemory(flag int64) int64 {
	if flag == 0 {
		return -1
	}
	return flag
}

// serveConfig is the typed configuration of `vatic serve`.
type serveConfig struct {
	Addr          string
	DataDir       string
	Keys          []string
	MaxBodyBytes  int64
	MaxRequest    int64
	MaxHeavy      int
	PageCache     int64
	PredictMemory int64
	HeavyWait     time.Duration
	MaxColumns    int
	LogFormat     string
	LogLevel      string
	Threads       int
	MemoryLimit   string
	Allotments    engine.Allotments
	ShutdownGrace time.Duration
	Conn          connConfig
	DebugAddr     string
	MetricsAddr   string
	MetricsWait   time.Duration
	PublicURL     string
	Compat        api.Compat
	Sessions      sessionConfig
	Import        importConfig
	MaxRestarts   int
	Flight        flightConfig
	// ready, when set, receives the listening address (tests use :0);
	// metricsReady the metrics listener's.
	ready, metricsReady func(addr string)
}

func parseServe(args []string, getenv func(string) (string, bool), stderr io.Writer) (serveConfig, error) {
	var c serveConfig
	fs := newFlagSet("vatic serve", stderr)
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.DataDir, "data", "./data", "data directory; the database is <data>/vatic.duckdb, uploads spool to <data>/tmp")
	var keys listFlag
	fs.Var(&keys, "api-key", "accepted API key, repeatable; KEY:community marks a community-plan key (default: generated once into <data>/api-key)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body", 1<<30, "largest request body in bytes, on the wire and after decompression")
	fs.Int64Var(&c.MaxRequest, "max-request-body", 1<<20, "largest import, session or view request body in bytes (at most -max-body)")
	fs.IntVar(&c.MaxHeavy, "max-heavy", 4, "heavy requests (column statistics) that run at once; others wait -heavy-wait, then get 503")
	fs.Int64Var(&c.PredictMemory, "predict-memory", engine.DefaultPredictMemory, "bytes of one predict answer kept in memory until its last row is scored; the rest waits in a temporary file under <data>/tmp (0: all of it)")
	fs.Int64Var(&c.PageCache, "page-cache", 64<<20, "bytes of rendered pages of rows (GET /data/{name}) kept for repeated reads; an answer above 1/64 of it is not kept; 0 turns the cache off")
	fs.DurationVar(&c.HeavyWait, "heavy-wait", 5*time.Second, "how long a heavy request waits for a slot before answering 503 with Retry-After")
	fs.IntVar(&c.MaxColumns, "max-columns", ingest.DefaultMaxColumns, "most columns a dataset, an upload, an import or a predict body may have; checked as a CSV header or JSON keys are read")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.IntVar(&c.Threads, "threads", 0, "DuckDB worker threads (0: one per core)")
	fs.StringVar(&c.MemoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB (default: DuckDB's, 80% of RAM)")
	fs.Int64Var(&c.Allotments.DataSets, "allot-datasets", 0, "datasets allowed at once (0: 2147483647)")
	fs.Int64Var(&c.Allotments.Sessions, "allot-sessions", 0, "sessions allowed per cycle (0: 2147483647)")
	fs.Int64Var(&c.Allotments.Predictions, "allot-predictions", 0, "predicted rows allowed per cycle (0: 2147483647)")
	fs.Int64Var(&c.Allotments.DataSetSize, "allot-dataset-size", 0, "bytes all datasets may hold together (0 or 2147483647: unlimited)")
	fs.BoolVar(&c.Import.AllowPrivate, "import-allow-private", false, "let imports, iCal calendars and callbacks reach loopback, private, link-local, metadata, other special-purpose and this host's own addresses")
	fs.StringVar(&c.Import.S3Endpoint, "s3-endpoint", "", "S3-compatible endpoint for S3 imports, e.g. http://127.0.0.1:9000 (default: AWS)")
	fs.IntVar(&c.Import.Workers, "import-workers", 2, "imports that run at once")
	fs.DurationVar(&c.Import.Timeout, "import-timeout", 2*time.Hour, "longest time one import may take")
	fs.DurationVar(&c.Import.IdleTimeout, "import-idle-timeout", 60*time.Second, "fail an import whose source sends nothing for this long")
	fs.Int64Var(&c.Import.MaxBytes, "import-max-bytes", 16<<30, "largest imported file in bytes, after decompression")
	fs.IntVar(&c.Sessions.Workers, "session-workers", 1, "sessions that run at once (each uses every core)")
	fs.DurationVar(&c.Sessions.Timeout, "session-timeout", time.Hour, "longest time one session may take")
	fs.IntVar(&c.Sessions.MaxForecastBuckets, "max-forecast-buckets", engine.DefaultMaxForecastBuckets, "most buckets one forecast or impact session predicts: its window plus any gap between the last value and the window")
	fs.IntVar(&c.MaxRestarts, "max-restarts", 3, "an import or session cut off by this many server stops (crash, kill, shutdown) fails instead of running again")
	fs.StringVar(&c.PublicURL, "public-url", "", "API base address for links in webhook calls, e.g. https://vatic.example.com/v1 (default: http://<listening address>/v1)")
	fs.TextVar(&c.Compat, "compat", api.CompatSpec, "spelling `mode`: spec, or original to emit the original service's spellings where the specification renamed a value (import type s3/azure, callbackUrl omitted when none, 404 itemType model, import columns echoing the request)")
	fs.StringVar(&c.DebugAddr, "debug-addr", "", "if set, serve Go's /debug/pprof profiles and the Prometheus /metrics on this separate address (keep it private)")
	fs.DurationVar(&c.MetricsWait, "metrics-timeout", 10*time.Second, "longest time one /metrics scrape may take, its catalog reads included; then 503")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "if set, serve the Prometheus /metrics (requests, jobs, rows, database size, Go runtime) on this separate address, without a key")
	fs.StringVar(&c.Flight.Addr, "flight-addr", "", "if set, serve Arrow Flight SQL (read-only SQL over the live database, with the API keys) on this address, e.g. 127.0.0.1:8815")
	fs.StringVar(&c.Flight.TLSCert, "flight-tls-cert", "", "PEM certificate file for Flight SQL over TLS (with -flight-tls-key; default: plain gRPC)")
	fs.StringVar(&c.Flight.TLSKey, "flight-tls-key", "", "PEM private key file of -flight-tls-cert")
	fs.DurationVar(&c.Flight.QueryTimeout, "flight-query-timeout", 10*time.Minute, "longest time one Flight SQL statement may take, from its start to its last batch sent (0: no limit)")
	fs.Int64Var(&c.Flight.MaxRows, "flight-max-rows", 0, "most rows one Flight SQL answer may stream; past it the stream ends with RESOURCE_EXHAUSTED (0: no cap)")
	fs.IntVar(&c.Flight.MaxQueries, "flight-max-queries", runtime.NumCPU(), "most Flight SQL statements running at once (default: the number of CPUs, as each statement's scan already uses every DuckDB thread); one more waits for a slot within -flight-query-timeout, then is answered RESOURCE_EXHAUSTED (0: no limit)")
	fs.Int64Var(&c.Flight.MaxBytes, "flight-max-bytes", 4<<30, "most bytes (Arrow buffers) one Flight SQL answer may stream; past it the stream ends with RESOURCE_EXHAUSTED (0: no cap)")
	fs.DurationVar(&c.Conn.IdleTimeout, "idle-timeout", 2*time.Minute, "close a keep-alive connection that sends no request for this long")
	fs.DurationVar(&c.Conn.ReadHeaderTimeout, "read-header-timeout", 10*time.Second, "close a connection whose request headers take longer than this to arrive")
	fs.DurationVar(&c.Conn.BodyIdleTimeout, "body-idle-timeout", 60*time.Second, "abort a request whose body sends nothing for this long: it answers 408 and changes nothing")
	fs.IntVar(&c.Conn.Max, "max-connections", 0, fmt.Sprintf("client connections open at once; more wait in the listen backlog (0: %d, or 3/4 of the open-file limit if lower)", maxConnectionsCap))
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", 30*time.Second, "how long running requests may finish after SIGINT/SIGTERM")
	if err := parseFlags(fs, args, getenv, map[string]string{"api-key": "VATIC_API_KEYS"}); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	c.Keys = keys
	switch c.LogFormat {
	case "text", "json":
	default:
		return c, fmt.Errorf("-log-format must be text or json, not %q", c.LogFormat)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return c, err
	}
	if c.MaxBodyBytes <= 0 || c.MaxRequest <= 0 {
		return c, errors.New("-max-body and -max-request-body must be positive")
	}
	if c.Conn.IdleTimeout <= 0 || c.Conn.ReadHeaderTimeout <= 0 || c.Conn.BodyIdleTimeout <= 0 {
		return c, errors.New("-idle-timeout, -read-header-timeout and -body-idle-timeout must be positive")
	}
	if c.Conn.Max < 0 {
		return c, errors.New("-max-connections must be 0 (derived from the open-file limit) or positive")
	}
	if c.PageCache < 0 {
		return c, errors.New("-page-cache must not be negative")
	}
	if c.MaxHeavy <= 0 || c.HeavyWait <= 0 {
		return c, errors.New("-max-heavy and -heavy-wait must be positive")
	}
	if c.MaxColumns <= 0 {
		return c, errors.New("-max-columns must be positive")
	}
	if c.MaxRestarts <= 0 {
		return c, errors.New("-max-restarts must be positive")
	}
	if c.MetricsWait <= 0 {
		return c, errors.New("-metrics-timeout must be positive")
	}
	if c.PredictMemory < 0 {
		return c, errors.New("-predict-memory must not be negative")
	}
	if c.Sessions.MaxForecastBuckets <= 0 {
		return c, errors.New("-max-forecast-buckets must be positive")
	}
	if (c.Flight.TLSCert == "") != (c.Flight.TLSKey == "") {
		return c, errors.New("-flight-tls-cert and -flight-tls-key go together")
	}
	if c.Flight.QueryTimeout < 0 || c.Flight.MaxRows < 0 || c.Flight.MaxBytes < 0 || c.Flight.MaxQueries < 0 {
		return c, errors.New("-flight-query-timeout, -flight-max-rows, -flight-max-bytes and -flight-max-queries must not be negative")
	}
	c.Flight.shutdownDeadline = c.ShutdownGrace
	if c.Import.Workers <= 0 || c.Import.Timeout <= 0 || c.Import.IdleTimeout <= 0 || c.Import.MaxBytes <= 0 {
		return c, errors.New("-import-workers, -import-timeout, -import-idle-timeout and -import-max-bytes must be positive")
	}
	return c, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("-log-level: %w", err)
	}
	return l, nil
}

func newLogger(format, level string, w io.Writer) *slog.Logger {
	l, _ := parseLevel(level)
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// serve runs the server until ctx ends, then shuts down in order: stop
// accepting and let requests finish, close the engine, checkpoint and close
// the database.
func serve(ctx context.Context, c serveConfig, logOut io.Writer) error {
	log := newLogger(c.LogFormat, c.LogLevel, logOut)
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	// Uploads spool under the data directory, not the system's temporary
	// one: the engine removes what a killed process left there (the
	// database lock makes this process its only user).
	tmpDir := filepath.Join(c.DataDir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	keys, err := loadKeys(c, log)
	if err != nil {
		return err
	}
	dbPath := filepath.Join(c.DataDir, "vatic.duckdb")
	// The server's statements never read files through DuckDB, and Flight
	// SQL clients' must not: the database is closed to the file system.
	store, err := duckstore.Open(ctx, dbPath, duckstore.Options{Threads: c.Threads, MemoryLimit: c.MemoryLimit, Logger: log, NoExternalAccess: true})
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("close database", engine.LogErr, err)
		}
	}()
	sources := remote.New(remote.Options{AllowPrivate: c.Import.AllowPrivate, S3Endpoint: c.Import.S3Endpoint, IdleTimeout: c.Import.IdleTimeout})
	defer sources.Close()
	// Webhook bodies carry links; their base is the public URL, else the
	// listening address once it is known.
	var base atomic.Pointer[string]
	publicBase := strings.TrimSuffix(c.PublicURL, "/")
	if publicBase == "" {
		publicBase = "http://" + c.Addr + "/v1"
	}
	base.Store(&publicBase)
	// One api.Options value serves the HTTP API and renders callback
	// bodies, so both spell a session the same way (Compat); the webhook
	// sender only delivers the bytes.
	reg, requests := newMetricsRegistry()
	apiOpts := api.Options{Logger: log, Keys: keys, MaxBodyBytes: c.MaxBodyBytes, MaxRequestBytes: c.MaxRequest, Compat: c.Compat, BodyIdleTimeout: c.Conn.BodyIdleTimeout,
		MaxHeavy: c.MaxHeavy, HeavyWait: c.HeavyWait, PageCacheBytes: c.PageCache, Observer: requests}
	hooks := webhook.New(sources.Transport(), webhook.Options{Logger: log})
	defer hooks.Close()
	callbacks := api.NewCallbacks(apiOpts, func() string { return *base.Load() }, hooks)
	eng, err := engine.New(ctx, store, engine.Options{
		Logger: log, MaxDecodedBytes: c.MaxBodyBytes, MaxColumns: c.MaxColumns, Allotments: c.Allotments,
		Fetcher: remote.NewFetcher(sources), ImportConcurrency: c.Import.Workers, ImportTimeout: c.Import.Timeout, ImportMaxBytes: c.Import.MaxBytes,
		SessionConcurrency: c.Sessions.Workers, SessionTimeout: c.Sessions.Timeout, Notifier: callbacks,
		MaxRestarts: c.MaxRestarts, TempDir: tmpDir, MaxForecastBuckets: c.Sessions.MaxForecastBuckets,
		PredictMemory: predictMemory(c.PredictMemory),
	})
	if err != nil {
		return fmt.Errorf("open engine: %w", err)
	}
	defer eng.Close()
	reg.MustRegister(newEngineCollector(eng, dbPath, c.MetricsWait, log))
	srv := &http.Server{
		Handler:           api.New(eng, apiOpts),
		ReadHeaderTimeout: c.Conn.ReadHeaderTimeout,
		IdleTimeout:       c.Conn.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	maxConns := c.Conn.Max
	nofile := openFileLimit()
	if maxConns == 0 {
		maxConns = defaultMaxConnections(nofile)
	} else if nofile > 0 && uint64(maxConns) > nofile/4*3 {
		log.Warn("-max-connections leaves little of the open-file limit to the database and imports; past it, accepting fails and retries",
			"maxConnections", maxConns, "openFileLimit", nofile)
	}
	// Past the cap, Accept waits: new clients queue in the kernel's
	// listen backlog instead of taking descriptors the rest needs.
	ln = netutil.LimitListener(ln, maxConns)
	if c.PublicURL == "" {
		listening := "http://" + ln.Addr().String() + "/v1"
		base.Store(&listening)
	}
	log.Info("vatic serving", "addr", ln.Addr().String(), "base", "http://"+ln.Addr().String()+"/v1", "database", dbPath, "maxConnections", maxConns)
	if c.ready != nil {
		c.ready(ln.Addr().String())
	}
	metrics := metricsHandler(reg, c.MetricsWait, log)
	if c.DebugAddr != "" {
		addr, closeDebug, err := sideServer(c.DebugAddr, debugMux(metrics), "debug server", log)
		if err != nil {
			return fmt.Errorf("-debug-addr: %w", err)
		}
		defer closeDebug()
		log.Info("profiling and metrics enabled", "addr", addr, "paths", "/debug/pprof/, /metrics")
	}
	if c.MetricsAddr != "" {
		m := http.NewServeMux()
		m.Handle("/metrics", metrics)
		addr, closeMetrics, err := sideServer(c.MetricsAddr, m, "metrics server", log)
		if err != nil {
			return fmt.Errorf("-metrics-addr: %w", err)
		}
		defer closeMetrics()
		log.Info("metrics enabled", "addr", addr, "path", "/metrics")
		if c.metricsReady != nil {
			c.metricsReady(addr)
		}
	}
	if c.Flight.Addr != "" {
		stopFlight, err := startFlight(c.Flight, store, keys, newFlightMetrics(reg), log)
		if err != nil {
			return err
		}
		defer stopFlight()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown", engine.LogErr, err)
	}
	return nil
}

// loadKeys returns the accepted keys: the configured ones, else the key in
// <data>/api-key, created (mode 0600) on first start.
func loadKeys(c serveConfig, log *slog.Logger) (map[string]api.Plan, error) {
	keys := map[string]api.Plan{}
	for _, k := range c.Keys {
		plan := api.PlanPaid
		if base, ok := strings.CutSuffix(k, ":community"); ok {
			k, plan = base, api.PlanCommunity
		}
		if k = strings.TrimSpace(k); k == "" {
			return nil, errors.New("-api-key: empty key")
		}
		keys[k] = plan
	}
	if len(keys) > 0 {
		return keys, nil
	}
	path := filepath.Join(c.DataDir, "api-key")
	b, err := os.ReadFile(path)
	if err == nil && strings.TrimSpace(string(b)) != "" {
		keys[strings.TrimSpace(string(b))] = api.PlanPaid
		log.Info("using the API key stored in the data directory", "path", path)
		return keys, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	key := hex.EncodeToString(raw[:])
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	keys[key] = api.PlanPaid
	log.Info("generated an API key; send it in the api-key header", "path", path)
	return keys, nil
}

// sideServer listens on addr (an address in use fails the start, as the
// API's does), serves h there in the background (the debug and metrics
// listeners) and returns the address and the function that closes it.
func sideServer(addr string, h http.Handler, what string, log *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn(what, engine.LogErr, err)
		}
	}()
	return ln.Addr().String(), func() { s.Close() }, nil
}

// debugMux serves the runtime profiles of net/http/pprof and the metrics.
func debugMux(metrics http.Handler) *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("/metrics", metrics)
	m.HandleFunc("/debug/pprof/", pprof.Index)
	m.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	m.HandleFunc("/debug/pprof/profile", pprof.Profile)
	m.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	m.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return m
}
