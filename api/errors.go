package api

import (
	"encoding/json"
	"net/http"

	"github.com/vaticml/vatic/engine"
)

// statusFor is the only table from error kind to HTTP status.
var statusFor = map[engine.Kind]int{
	engine.Internal:           http.StatusInternalServerError,
	engine.Invalid:            http.StatusBadRequest,
	engine.InvalidMetadata:    http.StatusBadRequest,
	engine.InvalidDateRange:   http.StatusBadRequest,
	engine.NoData:             http.StatusBadRequest,
	engine.ParametersRequired: http.StatusBadRequest,
	engine.Unauthorized:       http.StatusUnauthorized,
	engine.Forbidden:          http.StatusForbidden,
	engine.NotFound:           http.StatusNotFound,
	engine.Conflict:           http.StatusConflict,
	engine.TooLarge:           http.StatusRequestEntityTooLarge,
	engine.UnsupportedMedia:   http.StatusUnsupportedMediaType,
	engine.QuotaExceeded:      http.StatusTooManyRequests,
	engine.Unavailable:        http.StatusServiceUnavailable,
	engine.Canceled:           499,
	engine.BodyTimeout:        http.StatusRequestTimeout,
}

// errorBody is the reference's error body (REFERENCE §1.10).
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	ErrorType  string `json:"errorType,omitempty"`
	// ErrorDetails is {} when there is nothing to add (REFERENCE §1.10)
	// and absent only on 401: an interface, so that omitempty drops nil
	// but keeps an empty map.
	ErrorDetails any `json:"errorDetails,omitempty"`
}

// writeError answers err with the reference's error body: the status from
// statusFor, the engine's message and details (with the original's itemType
// under -compat original, see Compat.notFound). Internal errors are logged
// with the request id and shown only as a generic message. HEAD errors have
// no body.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind, msg, details := engine.Classify(err)
	msg, details = s.opts.Compat.notFound(kind, msg, details)
	status := statusFor[kind]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if kind == engine.Internal {
		s.log.ErrorContext(r.Context(), "request failed", engine.LogRequestID, requestID(r), engine.LogErr, err)
	} else if rec := recorderOf(w); rec != nil {
		rec.err = err
	}
	body := errorBody{StatusCode: status, Message: msg, ErrorType: kind.String(), ErrorDetails: details}
	if kind == engine.Unauthorized {
		body.ErrorDetails = nil
	}
	h := w.Header()
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	h.Set("Cache-Control", "no-cache")
	h.Set("Pragma", "no-cache")
	h.Set("Expires", "-1")
	if r.Method == http.MethodHead {
		h.Set("Content-Length", "0")
		w.WriteHeader(status)
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
