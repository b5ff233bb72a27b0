package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Once the body is read to its end, the deadline is no longer moved: a
// handler that reads again past the end (bufio does) and keeps working
// for longer than the timeout keeps its context (the read net/http starts
// after the body must not time out and cancel it).
func TestIdleBodyLeavesDeadlineAfterEOF(t *testing.T) {
	const timeout = 100 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		installIdleBody(w, r, timeout)
		if _, ok := r.Body.(*idleBody); !ok {
			t.Errorf("body not wrapped: %T", r.Body)
		}
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("read body: %v", err)
		}
		if n, err := r.Body.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("read past the end = %d, %v", n, err)
		}
		time.Sleep(4 * timeout)
		if err := r.Context().Err(); err != nil {
			t.Errorf("context after the body and %v of work: %v", 4*timeout, err)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader("a,b\n1,2\n")
		if chunked {
			body = io.MultiReader(body) // unknown length: chunked
		}
		resp, err := http.Post(srv.URL, "text/csv", body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("chunked=%v: status %d", chunked, resp.StatusCode)
		}
	}
}
