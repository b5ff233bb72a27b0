package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// quickly fails t when f takes longer than a few seconds: the attacks took
// close to a minute before they were refused.
func quickly(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("%s took %s, want a refusal within seconds", what, d)
	}
}

// Every JSON body the API decodes itself refuses nesting past 64 levels,
// small on the wire, with a 400 naming the body.
func TestRequestBodyDepth(t *testing.T) {
	s := newServer(t)
	deep := strings.Repeat("[", 100_000)
	for _, c := range []struct{ what, method, path, body string }{
		{"import", http.MethodPost, "/v1/imports/url", `{"dataSetName":"x","url":"http://example.com/a.csv","columns":` + deep},
		{"import ignored property", http.MethodPost, "/v1/imports/url", `{"dataSetName":"x","url":"http://example.com/a.csv","x":` + deep},
		{"session", http.MethodPost, "/v1/sessions/model", `{"dataSourceName":"x","extraParameters":` + deep},
		{"view", http.MethodPut, "/v1/views/v", `{"dataSetName":"x","joins":` + deep},
		{"predict", http.MethodPost, "/v1/models/0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21/predict", `{"data":[{"a":1}],"extraParameters":` + deep},
		{"predict row", http.MethodPost, "/v1/models/0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21/predict", `{"data":[` + deep},
	} {
		var res response
		quickly(t, c.what, func() { res = s.do(t, c.method, c.path, c.body, "Content-Type", "application/json") })
		e := wantError(t, c.what+" body nested 100 000 deep", res, 400, "RequestValidation", "body")
		if !strings.Contains(fmt.Sprint(e.ErrorDetails["body"]), "deeper than 64 levels") {
			t.Errorf("%s: errorDetails = %v, want the depth limit named", c.what, e.ErrorDetails)
		}
	}
	// 64 levels are fine: the view body is read, then refused for what it
	// says, not for its depth.
	ok := `{"dataSetName":"x","x":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`
	res := s.do(t, http.MethodPut, "/v1/views/v", ok, "Content-Type", "application/json")
	if bytes.Contains(res.body, []byte("deeper than")) {
		t.Errorf("view body 64 deep = %d %s, want it read", res.status, res.body)
	}
}
