package api_test

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/errors"
)

// contract validates responses against openapi.json (the document GET
// /v1/openapi.json serves), built once for the package's tests.
var contract = sync.OnceValues(func() (validator.Validator, error) {
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(b)
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
})

// checkContract validates a JSON response of the real server against the
// document's schema for its route, method and status: every end-to-end
// test that goes through testServer.do checks the document this way. A
// request whose path the document has no route for is left to
// TestOpenAPIMatchesRouter (unknown paths, and the unnormalised spellings
// the server accepts, like doubled slashes or upper-case segments).
func checkContract(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if ct != "application/json" || !strings.HasPrefix(req.URL.Path, "/v1/") {
		return
	}
	v, err := contract()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	res := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	if ok, errs := v.ValidateHttpResponse(req, res); !ok {
		for _, e := range errs {
			if e.ValidationType == "path" {
				continue
			}
			t.Errorf("%s %s → %d does not match openapi.json: %s", req.Method, req.URL.RequestURI(), status, describe(e))
		}
	}
}

func describe(e *errors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	for _, s := range e.SchemaValidationErrors {
		b.WriteString("; " + s.FieldPath + " " + s.Reason)
	}
	return b.String()
}

// GET /v1/openapi.json needs no key and serves the document the responses
// are validated against.
func TestOpenAPIServed(t *testing.T) {
	s := newServer(t)
	res := s.do(t, http.MethodGet, "/v1/openapi.json", nil, "api-key", "")
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /v1/openapi.json without a key = %d %s", res.status, res.header.Get("Content-Type"))
	}
	want, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.body, want) {
		t.Error("GET /v1/openapi.json differs from api/openapi.json")
	}
	if res := s.do(t, http.MethodGet, "/v1/OpenAPI.json/", nil, "api-key", ""); res.status != http.StatusOK {
		t.Errorf("GET /v1/OpenAPI.json/ (normalised) = %d", res.status)
	}
}
