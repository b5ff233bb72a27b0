package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// startServeWithMetrics starts serve with -metrics-addr on a free port and
// returns the API's base address, the metrics URL and the stop function.
func startServeWithMetrics(t *testing.T, args ...string) (base, metricsURL string, stop func()) {
	t.Helper()
	base, side, stop := startServeHooked(t, append([]string{"-metrics-addr", "127.0.0.1:0"}, args...), func(c *serveConfig) []chan string {
		hook, ch := sendTo()
		c.metricsReady = hook
		return []chan string{ch}
	})
	return base, "http://" + side[0] + "/metrics", stop
}

// scrape reads the metrics page into families by name.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s = %d %s", url, res.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// value is the sample of family name whose labels include want (a
// counter's or gauge's value, a histogram's count); ok is false when none.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if labels[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetricsEndpoint(t *testing.T) {
	base, metricsURL, stop := startServeWithMetrics(t, "-data", t.TempDir(), "-api-key", "k", "-import-allow-private", "-import-workers", "3")
	defer stop()
	call := func(method, path, contentType, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("api-key", "k")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}

	before := scrape(t, metricsURL)
	for _, name := range []string{"vatic_rows_predicted_total", "vatic_rows_ingested_total", "vatic_database_bytes",
		"vatic_workers", "vatic_workers_busy", "go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes"} {
		if before[name] == nil {
			t.Errorf("family %s missing from the first scrape", name)
		}
	}
	if v, _ := value(before, "vatic_workers", map[string]string{"kind": "import"}); v != 3 {
		t.Errorf("vatic_workers{kind=import} = %v, want -import-workers 3", v)
	}
	if v, _ := value(before, "vatic_database_bytes", map[string]string{"file": "db"}); v <= 0 {
		t.Errorf("vatic_database_bytes{file=db} = %v, want the file's size", v)
	}

	if got := call(http.MethodPut, "/v1/data/sales", "text/csv", "day,amount\n2026-01-01,3\n2026-01-02,4\n2026-01-03,5\n"); got != http.StatusCreated {
		t.Fatalf("PUT = %d", got)
	}
	for range 2 {
		if got := call(http.MethodGet, "/v1/data/sales", "", ""); got != http.StatusOK {
			t.Fatalf("GET = %d", got)
		}
	}
	if got := call(http.MethodGet, "/v1/data/nope", "", ""); got != http.StatusNotFound {
		t.Fatalf("GET unknown = %d", got)
	}
	if got := call(http.MethodGet, "/v1/no/such/route", "", ""); got != http.StatusNotFound {
		t.Fatalf("GET unknown route = %d", got)
	}
	// An import that fails at once: its source refuses connections.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String() + "/x.csv"
	ln.Close()
	if got := call(http.MethodPost, "/v1/imports/url", "application/json", `{"dataSetName": "gone", "url": "`+closed+`"}`); got != http.StatusOK {
		t.Fatalf("POST import = %d", got)
	}

	deadline := time.Now().Add(30 * time.Second)
	var after map[string]*dto.MetricFamily
	for {
		after = scrape(t, metricsURL)
		if v, _ := value(after, "vatic_jobs", map[string]string{"kind": "import", "type": "url", "status": "failed"}); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed import never showed in vatic_jobs: %v", after["vatic_jobs"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"vatic_http_requests_total", map[string]string{"method": "PUT", "route": "/v1/data/:name", "code": "2xx"}, 1},
		{"vatic_http_requests_total", map[string]string{"method": "GET", "route": "/v1/data/:name", "code": "2xx"}, 2},
		{"vatic_http_requests_total", map[string]string{"method": "GET", "route": "/v1/data/:name", "code": "4xx"}, 1},
		{"vatic_http_requests_total", map[string]string{"method": "GET", "route": "none", "code": "4xx"}, 1},
		{"vatic_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/v1/data/:name", "code": "2xx"}, 2},
		{"vatic_rows_ingested_total", nil, 3},
		{"vatic_job_duration_seconds", map[string]string{"kind": "import", "status": "failed"}, 1},
	} {
		if got, ok := value(after, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// No raw path becomes a label.
	for _, m := range after["vatic_http_requests_total"].GetMetric() {
		for _, l := range m.Label {
			if l.GetName() == "route" && strings.Contains(l.GetValue(), "sales") {
				t.Errorf("route label %q carries a raw path", l.GetValue())
			}
		}
	}
}

func TestMetricsAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := parseServe([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-api-key", "k", "-metrics-addr", ln.Addr().String()}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	err = serve(t.Context(), c, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-metrics-addr") {
		t.Errorf("serve with -metrics-addr in use = %v, want an error naming the flag", err)
	}
}

// The debug listener serves the profiles and the same metrics.
func TestDebugMuxServesMetrics(t *testing.T) {
	reg, requests := newMetricsRegistry()
	requests.ObserveRequest(http.MethodGet, "/v1/data", 200, time.Millisecond)
	srv := httptest.NewServer(debugMux(metricsHandler(reg, time.Second, slog.New(slog.DiscardHandler))))
	defer srv.Close()
	fams := scrape(t, srv.URL+"/metrics")
	if v, _ := value(fams, "vatic_http_requests_total", map[string]string{"method": "GET", "route": "/v1/data", "code": "2xx"}); v != 1 {
		t.Errorf("vatic_http_requests_total on the debug listener = %v, want 1", v)
	}
	res, err := http.Get(srv.URL + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET /debug/pprof/ = %d", res.StatusCode)
	}
}
