package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// rawGet sends GET path on a raw connection (keep-alive) and returns the
// response with its body read.
func rawGet(t *testing.T, conn net.Conn, br *bufio.Reader, path string) *http.Response {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: vatic\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func hostOf(base string) string { return strings.TrimPrefix(base, "http://") }

// A keep-alive connection that sends no further request is closed after
// -idle-timeout, so idle clients cannot pile up descriptors.
func TestServeIdleTimeoutClosesKeepAlive(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-idle-timeout", "300ms")
	defer stop()
	conn, err := net.Dial("tcp", hostOf(base))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	if r := rawGet(t, conn, br, "/healthz"); r.StatusCode != 200 || r.Close {
		t.Fatalf("healthz = %d (close %v), want 200 kept alive", r.StatusCode, r.Close)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = br.ReadByte()
	if err != io.EOF {
		t.Fatalf("read on the idle connection = %v, want EOF (closed by the server)", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("idle connection closed after %v, before -idle-timeout", d)
	}
}

// A PUT that sends its headers and part of its body, then stalls, is
// aborted after -body-idle-timeout: it answers 408 naming the body,
// nothing it sent is written, and the writers queued behind its dataset
// lock go ahead.
func TestServeStalledPutReleasesLock(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-body-idle-timeout", "700ms")
	defer stop()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("api-key", "k")
		if body != "" {
			req.Header.Set("Content-Type", "text/csv")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := do("PUT", "/v1/data/sales", "day,sales\n2017-01-01,1\n"); code != 201 {
		t.Fatalf("first PUT = %d %s", code, b)
	}

	conn, err := net.Dial("tcp", hostOf(base))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	part := "day,sales\n2017-01-02,2\n"
	fmt.Fprintf(conn, "PUT /v1/data/sales HTTP/1.1\r\nHost: vatic\r\napi-key: k\r\nContent-Type: text/csv\r\nContent-Length: %d\r\n\r\n%s", len(part)+1000, part)
	start := time.Now()

	// Queued behind the stalled PUT: another PUT, then a range DELETE.
	time.Sleep(200 * time.Millisecond)
	type result struct {
		code int
		body string
	}
	put := make(chan result, 1)
	go func() {
		code, b := do("PUT", "/v1/data/sales", "day,sales\n2017-01-03,3\n")
		put <- result{code, b}
	}()

	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("stalled PUT: no response: %v", err)
	}
	var eb struct {
		StatusCode   int
		ErrorType    string
		ErrorDetails map[string][]string
	}
	err = json.NewDecoder(resp.Body).Decode(&eb)
	if resp.StatusCode != http.StatusRequestTimeout || err != nil || eb.StatusCode != 408 || eb.ErrorType != "RequestValidation" || len(eb.ErrorDetails["body"]) != 1 {
		t.Errorf("stalled PUT = %d %+v (%v), want 408 with errorDetails.body", resp.StatusCode, eb, err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("stalled PUT aborted after %v, before -body-idle-timeout", d)
	}
	if !resp.Close {
		t.Errorf("stalled PUT's connection kept alive; the rest of its body cannot be parsed as a request")
	}

	select {
	case r := <-put:
		if r.code != 201 {
			t.Errorf("queued PUT = %d %s, want 201", r.code, r.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("queued PUT still waiting after the stalled one was aborted")
	}
	code, b := do("GET", "/v1/data/sales?pageSize=10", "")
	if code != 200 || !strings.Contains(b, "2017-01-01") || !strings.Contains(b, "2017-01-03") || strings.Contains(b, "2017-01-02") {
		t.Errorf("GET after the aborted PUT = %d %s, want the rows of 01-01 and 01-03 only", code, b)
	}
	if code, b := do("DELETE", "/v1/data/sales", ""); code != 204 {
		t.Errorf("DELETE = %d %s", code, b)
	}
}

// With -max-connections N, the N+1-th connection is accepted by the
// kernel but not served until one of the N closes, and the server keeps
// answering afterwards.
func TestServeMaxConnections(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-max-connections", "2")
	defer stop()
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", hostOf(base))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if r := rawGet(t, c, bufio.NewReader(c), "/healthz"); r.StatusCode != 200 {
			t.Fatalf("healthz on connection %d = %d", len(held)+1, r.StatusCode)
		}
		held = append(held, c)
	}
	extra, err := net.Dial("tcp", hostOf(base))
	if err != nil {
		t.Fatalf("connection past the cap not queued: %v", err)
	}
	defer extra.Close()
	fmt.Fprint(extra, "GET /healthz HTTP/1.1\r\nHost: vatic\r\n\r\n")
	br := bufio.NewReader(extra)
	_ = extra.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := br.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection past the cap: read = %v, want no answer yet", err)
	}
	held[0].Close()
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("queued connection after one closed: %v, %v", resp, err)
	}
	resp.Body.Close()
	extra.Close()
	held[1].Close()
	for i := range 5 {
		resp, err := http.Get(base + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz %d after the queue drained = %v, %v", i, resp, err)
		}
		resp.Body.Close()
	}
}

func TestDefaultMaxConnections(t *testing.T) {
	for _, c := range []struct {
		nofile uint64
		want   int
	}{{0, 4096}, {1 << 20, 4096}, {20000, 4096}, {1024, 768}, {256, 192}, {1, 1}} {
		if got := defaultMaxConnections(c.nofile); got != c.want {
			t.Errorf("defaultMaxConnections(%d) = %d, want %d", c.nofile, got, c.want)
		}
	}
}

// An upload that keeps sending is not cut off, however long it takes in
// all: the body's deadline moves with every read.
func TestServeSlowUploadCompletes(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-body-idle-timeout", "400ms")
	defer stop()
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, "day,sales\n")
		for i := range 10 {
			time.Sleep(150 * time.Millisecond)
			fmt.Fprintf(pw, "2017-01-%02d,%d\n", i+1, i)
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("PUT", base+"/v1/data/slow", pr)
	req.Header.Set("api-key", "k")
	req.Header.Set("Content-Type", "text/csv")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.Contains(string(b), `"rowCount":10`) {
		t.Errorf("slow PUT over %v = %d %s, want 201 with 10 rows", time.Since(start), resp.StatusCode, b)
	}
}

// The small JSON and CSV bodies of other endpoints answer 408 too when
// they stall.
func TestServeStalledSmallBodies(t *testing.T) {
	base, stop := startServe(t, "-data", t.TempDir(), "-api-key", "k", "-body-idle-timeout", "300ms")
	defer stop()
	for _, c := range []struct{ method, path, ctype, part string }{
		{"PUT", "/v1/views/v", "application/json", `{"dataSetName": "s`},
		{"POST", "/v1/imports/url", "application/json", `{"dataSetName": "s`},
		{"POST", "/v1/models/0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21/predict", "application/json", `{"data": [{"a": 1}`},
		{"POST", "/v1/models/0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21/predict", "text/csv", "a,b\n1,2\n"},
	} {
		conn, err := net.Dial("tcp", hostOf(base))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: vatic\r\napi-key: k\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
			c.method, c.path, c.ctype, len(c.part)+100, c.part)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s %s stalled: %v", c.method, c.path, err)
		}
		var eb struct{ ErrorDetails map[string][]string }
		err = json.NewDecoder(resp.Body).Decode(&eb)
		conn.Close()
		if resp.StatusCode != http.StatusRequestTimeout || err != nil || len(eb.ErrorDetails["body"]) != 1 {
			t.Errorf("%s %s (%s) stalled = %d %+v (%v), want 408 naming the body", c.method, c.path, c.ctype, resp.StatusCode, eb, err)
		}
	}
}
