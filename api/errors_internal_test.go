package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
	if len(errorClasses) != 15 {
		t.Errorf("errorClasses has %d kinds; this test pins 15", len(errorClasses))
	}
}
