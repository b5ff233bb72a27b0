package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/api"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseServe(t *testing.T) {
	f := func(args []string, e map[string]string, check func(c serveConfig)) {
		t.Helper()
		c, err := parseServe(args, env(e), io.Discard)
		if err != nil {
			t.Fatalf("parseServe(%q, %v) = %v", args, e, err)
		}
		check(c)
	}
	f(nil, nil, func(c serveConfig) {
		if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.MaxBodyBytes != 1<<30 || c.MaxRequest != 1<<20 || c.MaxColumns != 4096 || c.LogFormat != "text" ||
			c.MaxHeavy != 4 || c.HeavyWait != 5*time.Second || c.MaxRestarts != 3 || c.MetricsWait != 10*time.Second {
			t.Errorf("defaults = %+v", c)
		}
		if c.Conn != (connConfig{IdleTimeout: 2 * time.Minute, ReadHeaderTimeout: 10 * time.Second, BodyIdleTimeout: time.Minute, Max: 0}) {
			t.Errorf("connection defaults = %+v", c.Conn)
		}
	})
	f(nil, map[string]string{"VATIC_IDLE_TIMEOUT": "5s", "VATIC_READ_HEADER_TIMEOUT": "3s", "VATIC_BODY_IDLE_TIMEOUT": "7s", "VATIC_MAX_CONNECTIONS": "9"}, func(c serveConfig) {
		if c.Conn != (connConfig{IdleTimeout: 5 * time.Second, ReadHeaderTimeout: 3 * time.Second, BodyIdleTimeout: 7 * time.Second, Max: 9}) {
			t.Errorf("connection settings from the environment = %+v", c.Conn)
		}
	})
	f([]string{"-heavy-wait", "2s"}, map[string]string{"VATIC_MAX_HEAVY": "16", "VATIC_HEAVY_WAIT": "1m"}, func(c serveConfig) {
		if c.MaxHeavy != 16 || c.HeavyWait != 2*time.Second {
			t.Errorf("-max-heavy and -heavy-wait from env and flags = %d, %v; want 16, 2s", c.MaxHeavy, c.HeavyWait)
		}
	})
	// The environment fills what the command line does not give, and the
	// command line wins.
	f([]string{"-addr", ":9"}, map[string]string{"VATIC_ADDR": ":7", "VATIC_DATA": "/d", "VATIC_API_KEYS": "a, b:community", "VATIC_MAX_BODY": "5", "VATIC_MAX_COLUMNS": "12"},
		func(c serveConfig) {
			if c.Addr != ":9" || c.DataDir != "/d" || c.MaxBodyBytes != 5 || c.MaxColumns != 12 || strings.Join(c.Keys, "|") != "a|b:community" {
				t.Errorf("env+flags = %+v", c)
			}
		})
	f(nil, map[string]string{"VATIC_METRICS_TIMEOUT": "3s"}, func(c serveConfig) {
		if c.MetricsWait != 3*time.Second {
			t.Errorf("VATIC_METRICS_TIMEOUT=3s: MetricsWait = %v", c.MetricsWait)
		}
	})
	f(nil, map[string]string{"VATIC_MAX_RESTARTS": "5"}, func(c serveConfig) {
		if c.MaxRestarts != 5 {
			t.Errorf("VATIC_MAX_RESTARTS=5: MaxRestarts = %d", c.MaxRestarts)
		}
	})
	f([]string{"-api-key", "x", "-api-key", "y:community", "-log-format", "json"}, map[string]string{"VATIC_API_KEYS": "z"}, func(c serveConfig) {
		if strings.Join(c.Keys, "|") != "x|y:community" || c.LogFormat != "json" {
			t.Errorf("repeated -api-key = %+v", c)
		}
	})
	// -compat: spec by default, original from the flag or VATIC_COMPAT,
	// the flag beating the environment.
	for _, c := range []struct {
		args []string
		env  map[string]string
		want api.Compat
	}{
		{nil, nil, api.CompatSpec},
		{[]string{"-compat", "original"}, nil, api.CompatOriginal},
		{[]string{"-compat=spec"}, nil, api.CompatSpec},
		{nil, map[string]string{"VATIC_COMPAT": "original"}, api.CompatOriginal},
		{nil, map[string]string{"VATIC_COMPAT": ""}, api.CompatSpec},
		{[]string{"-compat", "spec"}, map[string]string{"VATIC_COMPAT": "original"}, api.CompatSpec},
		{[]string{"-compat", "original"}, map[string]string{"VATIC_COMPAT": "spec"}, api.CompatOriginal},
	} {
		f(c.args, c.env, func(got serveConfig) {
			if got.Compat != c.want {
				t.Errorf("parseServe(%q, %v) Compat = %v, want %v", c.args, c.env, got.Compat, c.want)
			}
		})
	}
}

func TestParseServeErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-log-format", "xml"}, {"-max-body", "0"}, {"-max-request-body", "0"}, {"-max-restarts", "0"}, {"-metrics-timeout", "0s"}, {"-max-forecast-buckets", "0"}, {"-predict-memory", "-1"}, {"-max-body", "abc"}, {"-max-columns", "0"}, {"-page-cache", "-1"}, {"-max-columns", "-1"}, {"-log-level", "loud"}, {"extra"}, {"-nope"},
		{"-idle-timeout", "0"}, {"-read-header-timeout", "0s"}, {"-body-idle-timeout", "-1s"}, {"-max-connections", "-1"},
	} {
		if _, err := parseServe(args, env(nil), io.Discard); err == nil {
			t.Errorf("parseServe(%q) = nil error, want one", args)
		}
	}
	if _, err := parseServe(nil, env(map[string]string{"VATIC_MAX_BODY": "x"}), io.Discard); err == nil {
		t.Errorf("bad VATIC_MAX_BODY accepted")
	}
	// A bad -compat names the values it takes, and the variable when it
	// came from the environment.
	for _, c := range []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{[]string{"-compat", "both"}, nil, []string{"-compat", `"both"`, "spec or original"}},
		{[]string{"-compat", "Original"}, nil, []string{"-compat", "spec or original"}},
		{nil, map[string]string{"VATIC_COMPAT": "2018"}, []string{"VATIC_COMPAT", `"2018"`, "spec or original"}},
	} {
		_, err := parseServe(c.args, env(c.env), io.Discard)
		if err == nil {
			t.Errorf("parseServe(%q, %v) = nil error, want one", c.args, c.env)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("parseServe(%q, %v) = %v, want it to mention %s", c.args, c.env, err, w)
			}
		}
	}
}

func TestHelpListsEnvTwins(t *testing.T) {
	var out bytes.Buffer
	_, err := parseServe([]string{"-h"}, env(nil), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseServe(-h) = %v, want ErrHelp", err)
	}
	for _, want := range []string{"-addr", "VATIC_ADDR", "-data", "VATIC_DATA", "-api-key", "VATIC_API_KEYS", "-max-body", "VATIC_MAX_BODY", "-log-format", "VATIC_LOG_FORMAT", "-compat", "VATIC_COMPAT", "(default spec)",
		"-idle-timeout", "VATIC_IDLE_TIMEOUT", "-read-header-timeout", "VATIC_READ_HEADER_TIMEOUT", "-body-idle-timeout", "VATIC_BODY_IDLE_TIMEOUT", "-max-connections", "VATIC_MAX_CONNECTIONS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve -h does not mention %s:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := run(t.Context(), []string{"--help"}, env(nil), &out, io.Discard); err != nil {
		t.Fatalf("run(--help) = %v", err)
	}
	for _, want := range []string{"vatic serve", "-addr", "VATIC_ADDR", "-api-key", "VATIC_API_KEYS", "-max-body", "VATIC_MAX_BODY", "-log-format", "-timing", "VATIC_TIMING"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("vatic --help does not mention %s:\n%s", want, out.String())
		}
	}
	if err := run(t.Context(), []string{"bogus"}, env(nil), io.Discard, io.Discard); err == nil {
		t.Errorf("run(bogus) = nil")
	}
}

// startServe runs `vatic serve` in-process on a free port and returns its
// base URL and a stop function that waits for a clean exit.
func startServe(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	base, _, stop := startServeHooked(t, args, nil)
	return base, stop
}

// startServeHooked runs serve with args (after -addr 127.0.0.1:0) and
// waits until the API listens and every side listener that wire hooks up
// has reported its address: wire sets a serveConfig hook (Flight.ready,
// metricsReady) to a func that sends on the channel it returns. It returns
// the API's base URL, the side listeners' addresses in wire's order and
// the stop function.
func startServeHooked(t *testing.T, args []string, wire func(c *serveConfig) []chan string) (base string, side []string, stop func()) {
	t.Helper()
	c, err := parseServe(append([]string{"-addr", "127.0.0.1:0"}, args...), env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	c.ready = func(a string) { addr <- a }
	var sides []chan string
	if wire != nil {
		sides = wire(&c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, c, io.Discard) }()
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
	}
	side = make([]string, len(sides))
	for i := -1; i < len(sides); i++ {
		ch := addr
		if i >= 0 {
			ch = sides[i]
		}
		select {
		case a := <-ch:
			if i < 0 {
				base = "http://" + a
			} else {
				side[i] = a
			}
		case err := <-done:
			cancel()
			t.Fatalf("serve = %v", err)
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatal("server did not start")
		}
	}
	return base, side, stop
}

// sendTo returns a hook that sends its address on a new channel.
func sendTo() (func(string), chan string) {
	ch := make(chan string, 1)
	return func(a string) { ch <- a }, ch
}

func TestServeFirstStartWritesKeyAndRestarts(t *testing.T) {
	dir := t.TempDir()
	base, stop := startServe(t, "-data", dir)
	keyFile := filepath.Join(dir, "api-key")
	st, err := os.Stat(keyFile)
	if err != nil {
		t.Fatalf("api-key file: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("api-key mode = %v, want 0600", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(keyFile)
	key := strings.TrimSpace(string(raw))

	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz = %v, %v", resp, err)
	}
	resp.Body.Close()
	do := func(method, path, ctype, body string, k string) *http.Response {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if k != "" {
			req.Header.Set("api-key", k)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := do("GET", "/v1/data", "", "", ""); r.StatusCode != 401 {
		t.Errorf("GET /v1/data without key = %d, want 401", r.StatusCode)
	}
	if r := do("PUT", "/v1/data/sales", "text/csv", "day,sales\n2017-01-01,1\n2017-01-02,2\n", key); r.StatusCode != 201 {
		b, _ := io.ReadAll(r.Body)
		t.Fatalf("PUT = %d %s", r.StatusCode, b)
	}
	stop()

	// The same data directory: the stored key still works and the data is
	// there; the database file reads as DuckDB with the dataset under its
	// own name.
	base, stop = startServe(t, "-data", dir)
	defer stop()
	r := do("GET", "/v1/data/sales", "", "", key)
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || !strings.Contains(string(b), `"rowCount":2`) {
		t.Errorf("GET after restart = %d %s", r.StatusCode, b)
	}
}

// Uploads spool under <data>/tmp, and a start removes the spool files a
// killed server left there.
func TestServeRemovesSpools(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(tmp, "vatic-ingest-42.json")
	if err := os.WriteFile(left, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stop := startServe(t, "-data", dir, "-api-key", "k")
	defer stop()
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("spool file left by a killed server still there after a start: %v", err)
	}
	if st, err := os.Stat(tmp); err != nil || !st.IsDir() {
		t.Errorf("<data>/tmp after a start: %v", err)
	}
}

// -compat reaches the API: a missing model is itemType model under
// -compat original (REFERENCE §9 #12).
func TestServeCompat(t *testing.T) {
	const unknown = "0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21"
	for _, c := range []struct{ compat, itemType string }{{"spec", "modelId"}, {"original", "model"}} {
		base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-compat", c.compat)
		req, _ := http.NewRequest("GET", base+"/v1/models/"+unknown, nil)
		req.Header.Set("api-key", "k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			stop()
			t.Fatal(err)
		}
		var body struct{ ErrorDetails map[string]any }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		stop()
		if err != nil || resp.StatusCode != 404 || body.ErrorDetails["itemType"] != c.itemType {
			t.Errorf("-compat %s: GET /v1/models/{unknown} = %d %v (%v), want 404 itemType %s", c.compat, resp.StatusCode, body.ErrorDetails, err, c.itemType)
		}
	}
}

// The body caps are flags: a body past one is a 413 naming the cap that
// applied; a predict body obeys -max-body, as an upload does.
func TestServeBodyCaps(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-max-request-body", "200", "-max-body", "300")
	defer stop()
	for _, c := range []struct {
		path string
		size int
		want string
	}{
		{"/v1/sessions/model", 201, "The request body exceeds 200 bytes"},
		{"/v1/imports/url", 201, "The request body exceeds 200 bytes"},
		{"/v1/models/0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21/predict", 301, "The request body exceeds 300 bytes"},
	} {
		body := `{"name":"` + strings.Repeat("x", c.size) + `"}`
		req, _ := http.NewRequest("POST", base+c.path, strings.NewReader(body))
		req.Header.Set("api-key", "k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ ErrorDetails map[string][]string }
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 413 || len(got.ErrorDetails["body"]) != 1 || got.ErrorDetails["body"][0] != c.want {
			t.Errorf("POST %s with %d bytes = %d %v (%v), want 413 %q", c.path, len(body), resp.StatusCode, got.ErrorDetails, err, c.want)
		}
	}
}

func TestServeCommunityKey(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "paid", "-api-key", "free:community")
	defer stop()
	for _, k := range []string{"paid", "free"} {
		req, _ := http.NewRequest("GET", base+"/v1/data", nil)
		req.Header.Set("API-KEY", k)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET /v1/data with key %s = %v, %v", k, resp.StatusCode, err)
		}
	}
}

func TestSQL(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"sql", "-data", dir, "-timing", "CREATE TABLE t AS SELECT 1 AS a, 'x' AS b", "SELECT a, b FROM t"}, env(nil), &out, &errOut)
	if err != nil {
		t.Fatalf("vatic sql = %v (%s)", err, errOut.String())
	}
	// CREATE TABLE AS reports the rows it wrote; the SELECT prints its row.
	if out.String() != "1\n1\tx\n" {
		t.Errorf("vatic sql output = %q, want %q", out.String(), "1\n1\tx\n")
	}
	if strings.Count(errOut.String(), "elapsed_ns: ") != 2 {
		t.Errorf("vatic sql -timing = %q, want two elapsed_ns lines", errOut.String())
	}
	if err := run(t.Context(), []string{"sql", "-data", dir, "SELEC nonsense"}, env(nil), io.Discard, io.Discard); err == nil {
		t.Errorf("vatic sql with a bad statement = nil error")
	}
}
