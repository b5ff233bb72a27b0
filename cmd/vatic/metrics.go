package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vaticml/vatic/engine"
)

// This file is the Prometheus adapter: the HTTP API's request metrics (an
// api.RequestObserver) and a collector that reads the engine's state at
// each scrape, served as /metrics on -metrics-addr and -debug-addr.

// durationBounds are the job-duration histogram's buckets in seconds: a
// session or an import takes from under a second to hours (-session-timeout
// and -import-timeout default to 1 h and 2 h).
var durationBounds = []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 7200}

// requestMetrics counts and times the API's requests by method, route
// pattern (never the raw path, whose names and ids would grow without
// bound) and status class.
type requestMetrics struct {
	count   *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

func newRequestMetrics(reg prometheus.Registerer) *requestMetrics {
	m := &requestMetrics{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vatic_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern (\"none\" when no route matched) and status class.",
		}, []string{"method", "route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vatic_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer, by method, route pattern and status class.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"method", "route", "code"}),
	}
	reg.MustRegister(m.count, m.latency)
	return m
}

// ObserveRequest implements api.RequestObserver. A handler that wrote
// nothing was answered 200 by net/http.
func (m *requestMetrics) ObserveRequest(method, route string, status int, elapsed time.Duration) {
	if route == "" {
		route = "none"
	}
	if status == 0 {
		status = http.StatusOK
	}
	code := strconv.Itoa(status/100) + "xx"
	m.count.WithLabelValues(method, route, code).Inc()
	m.latency.WithLabelValues(method, route, code).Observe(elapsed.Seconds())
}

// flightMetrics counts the Flight SQL server's statements (a
// flightsql.Observer).
type flightMetrics struct {
	queries     *prometheus.CounterVec
	rows, bytes prometheus.Counter
	inFlight    prometheus.Gauge
}

func newFlightMetrics(reg prometheus.Registerer) *flightMetrics {
	m := &flightMetrics{
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vatic_flight_queries_total",
			Help: "Flight SQL statements by outcome: ok, too_large, busy, timeout, canceled, error when run; refused and invalid mostly when described (GetFlightInfo, GetSchema, prepare).",
		}, []string{"outcome"}),
		rows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "vatic_flight_rows_sent_total",
			Help: "Rows Flight SQL answers sent.",
		}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "vatic_flight_bytes_sent_total",
			Help: "Arrow buffer bytes Flight SQL answers sent.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vatic_flight_queries_in_flight",
			Help: "Flight SQL statements running now (holding one of -flight-max-queries' slots).",
		}),
	}
	reg.MustRegister(m.queries, m.rows, m.bytes, m.inFlight)
	return m
}

// QueryStarted implements flightsql.Observer.
func (m *flightMetrics) QueryStarted() { m.inFlight.Inc() }

// QueryDone implements flightsql.Observer.
func (m *flightMetrics) QueryDone(outcome string, rows, bytes int64, started bool) {
	if started {
		m.inFlight.Dec()
	}
	m.queries.WithLabelValues(outcome).Inc()
	m.rows.Add(float64(rows))
	m.bytes.Add(float64(bytes))
}

// engineCollector reads the engine's gauges and the database files' sizes
// at each scrape: the catalog is the truth, so the figures are right even
// for jobs a previous process ran.
type engineCollector struct {
	eng     *engine.Engine
	dbPath  string
	log     *slog.Logger
	timeout time.Duration // of the catalog reads of one scrape (-metrics-timeout)

	jobs, duration, workers, busy, predicted, ingested, dbBytes *prometheus.Desc
}

func newEngineCollector(eng *engine.Engine, dbPath string, timeout time.Duration, log *slog.Logger) *engineCollector {
	return &engineCollector{
		eng: eng, dbPath: dbPath, timeout: timeout, log: log,
		jobs: prometheus.NewDesc("vatic_jobs", "Imports and sessions in the catalog, by kind, type (an import's source, a session's domain) and status.",
			[]string{"kind", "type", "status"}, nil),
		duration: prometheus.NewDesc("vatic_job_duration_seconds", "Finished imports' and sessions' time from request to their final status, by kind and status.",
			[]string{"kind", "status"}, nil),
		workers:   prometheus.NewDesc("vatic_workers", "Jobs of each kind that may run at once (-import-workers, -session-workers).", []string{"kind"}, nil),
		busy:      prometheus.NewDesc("vatic_workers_busy", "Jobs of each kind running now.", []string{"kind"}, nil),
		predicted: prometheus.NewDesc("vatic_rows_predicted_total", "Rows scored by predict since the database began.", nil, nil),
		ingested:  prometheus.NewDesc("vatic_rows_ingested_total", "Rows committed by uploads and imports since this process started.", nil, nil),
		dbBytes:   prometheus.NewDesc("vatic_database_bytes", "Size on disk of the DuckDB database file and of its write-ahead log.", []string{"file"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.jobs, c.duration, c.workers, c.busy, c.predicted, c.ingested, c.dbBytes} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A catalog that cannot be read
// fails the engine's metrics (the scrape shows the error), not the others.
func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	for file, path := range map[string]string{"db": c.dbPath, "wal": c.dbPath + ".wal"} {
		var size int64
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		ch <- prometheus.MustNewConstMetric(c.dbBytes, prometheus.GaugeValue, float64(size), file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	g, err := c.eng.Gauges(ctx, durationBounds)
	if err != nil {
		c.log.Warn("metrics: read the engine's gauges", engine.LogErr, err)
		ch <- prometheus.NewInvalidMetric(c.jobs, err)
		return
	}
	for _, j := range g.Jobs {
		ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(j.Count), j.Kind, j.Type, j.Status)
	}
	for _, d := range g.Durations {
		buckets := make(map[float64]uint64, len(durationBounds))
		for i, b := range durationBounds {
			buckets[b] = uint64(d.Buckets[i])
		}
		ch <- prometheus.MustNewConstHistogram(c.duration, uint64(d.Count), d.Sum, buckets, d.Kind, d.Status)
	}
	for kind, n := range g.Workers {
		ch <- prometheus.MustNewConstMetric(c.workers, prometheus.GaugeValue, float64(n), kind)
	}
	for kind, n := range g.Busy {
		ch <- prometheus.MustNewConstMetric(c.busy, prometheus.GaugeValue, float64(n), kind)
	}
	ch <- prometheus.MustNewConstMetric(c.predicted, prometheus.CounterValue, float64(g.RowsPredicted))
	ch <- prometheus.MustNewConstMetric(c.ingested, prometheus.CounterValue, float64(g.RowsIngested))
}

// newMetricsRegistry holds the request metrics and Go's runtime and
// process collectors; serve registers the engine's collector once the
// engine is open.
func newMetricsRegistry() (*prometheus.Registry, *requestMetrics) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg, newRequestMetrics(reg)
}

// metricsHandler serves the registry in Prometheus' text format (or
// OpenMetrics when the scraper asks for it); a scrape taking longer than
// timeout (-metrics-timeout, which also bounds the engine collector's
// catalog reads) is answered 503.
func metricsHandler(reg *prometheus.Registry, timeout time.Duration, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
		Timeout:           timeout,
	})
}
