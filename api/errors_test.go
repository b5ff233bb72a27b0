package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequestBodyTooLarge sends a JSON request body over its 1 MiB limit
// to each route that reads one: the read failure reaches writeError, which
// answers the one 413 of every body.
func TestRequestBodyTooLarge(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	body := `{"dataSetName":"sales","url":"http://example.com/` + strings.Repeat("a", 1<<20) + `"}`
	const want = `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 1048576 bytes"]}}`
	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/v1/imports/url"},
		{http.MethodPut, "/v1/views/v"},
		{http.MethodPost, "/v1/sessions/forecast"},
	} {
		res := s.do(t, r.method, r.path, body, "Content-Type", "application/json")
		if got := strings.TrimSpace(string(res.body)); res.status != 413 || got != want {
			t.Errorf("%s %s = %d %s; want 413 %s", r.method, r.path, res.status, got, want)
		}
	}
}
