package api

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vaticml/vatic/engine"
)

// TestErrorClasses pins errorClasses, the one table from error kind to
// status and errorType (REFERENCE §1.10), as writeError answers it.
func TestErrorClasses(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		kind      engine.Kind
		status    int
		errorType string
	}{
		{engine.Internal, 500, "ServerError"},
		{engine.Invalid, 400, "RequestValidation"},
		{engine.InvalidMetadata, 400, "InvalidColumnMetadata"},
		{engine.InvalidDateRange, 400, "InvalidDateRange"},
		{engine.NoData, 400, "NoData"},
		{engine.ParametersRequired, 400, "SomeParametersRequired"},
		{engine.Unauthorized, 401, ""},
		{engine.Forbidden, 403, "PlanUpgradeRequired"},
		{engine.NotFound, 404, "NotFound"},
		{engine.Conflict, 409, "Conflict"},
		{engine.TooLarge, 413, "RequestValidation"},
		{engine.UnsupportedMedia, 415, "RequestValidation"},
		{engine.BodyTimeout, 408, "RequestValidation"},
		{engine.QuotaExceeded, 429, "QuotaExceeded"},
		{engine.Unavailable, 503, "ServiceUnavailable"},
		{engine.Canceled, 499, "RequestCanceled"},
		{engine.Kind(-1), 500, "ServerError"}, // unknown kinds are Internal
		{engine.Kind(1000), 500, "ServerError"},
	} {
		w := httptest.NewRecorder()
		s.writeError(w, httptest.NewRequest(http.MethodGet, "/v1/data", nil), &engine.Error{Kind: tc.kind, Msg: "m"})
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("kind %d: body %q: %v", tc.kind, w.Body, err)
		}
		typ, hasType := body["errorType"]
		if w.Code != tc.status || body["statusCode"] != float64(tc.status) {
			t.Errorf("kind %d: status %d, statusCode %v; want %d", tc.kind, w.Code, body["statusCode"], tc.status)
		}
		if tc.errorType == "" && hasType || tc.errorType != "" && typ != tc.errorType {
			t.Errorf("kind %d: errorType %v; want %q", tc.kind, typ, tc.errorType)
		}
	}
	if len(errorClasses) != 16 {
		t.Errorf("errorClasses has %d kinds; this test pins 16", len(errorClasses))
	}
}

// TestTooLarge pins the 413 of each kind of request body over its limit:
// writeError finds the *http.MaxBytesError however the read failure was
// wrapped, and answers one sentence naming the limit that applied.
func TestTooLarge(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	mbe := func(n int64) error { return &http.MaxBytesError{Limit: n} }
	const (
		upload  = `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 4096 bytes"]}}`
		request = `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 1048576 bytes"]}}`
		predict = `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 67108864 bytes"]}}`
	)
	for _, tc := range []struct {
		method, path string
		err          error
		want         string
	}{
		{"PUT", "/v1/data/sales", mbe(4096), upload},
		{"PUT", "/v1/data/sales", &engine.Error{Kind: engine.Invalid, Msg: "Request is invalid", Err: fmt.Errorf("read: %w", mbe(4096))}, upload},
		{"PUT", "/v1/data/sales", mbe(1 << 30), `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 1073741824 bytes"]}}`},
		{"POST", "/v1/imports/url", because(engine.Validation("body", "The request body could not be read"), mbe(1<<20)), request},
		{"PUT", "/v1/views/v", because(engine.Validation("body", "The request body could not be read"), mbe(1<<20)), request},
		{"POST", "/v1/sessions/forecast", mbe(1 << 20), request},
		{"POST", "/v1/sessions/forecast", mbe(1000), `{"statusCode":413,"message":"The request body is too large","errorType":"RequestValidation","errorDetails":{"body":["The request body exceeds 1000 bytes"]}}`},
		{"POST", "/v1/models/m/predict", because(engine.Validation("data", "The request body is not valid JSON"), mbe(64<<20)), predict},
		{"POST", "/v1/model/m/predict", mbe(64 << 20), predict},
	} {
		w := httptest.NewRecorder()
		s.writeError(w, httptest.NewRequest(tc.method, tc.path, nil), tc.err)
		if got := strings.TrimSpace(w.Body.String()); w.Code != 413 || got != tc.want {
			t.Errorf("%s %s, %v: %d %s; want 413 %s", tc.method, tc.path, tc.err, w.Code, got, tc.want)
		}
	}
}
