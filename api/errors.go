package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/vaticml/vatic/engine"
)

// errorClass is what an error kind shows the caller: the HTTP status and
// the errorType of the error body (REFERENCE §1.10).
type errorClass struct {
	status    int
	errorType string // "" for 401, whose body has none
}

// errorClasses is the only table from error kind to HTTP status and
// errorType. A kind missing from it is answered as Internal.
var errorClasses = map[engine.Kind]errorClass{
	engine.Internal:           {http.StatusInternalServerError, "ServerError"},
	engine.Invalid:            {http.StatusBadRequest, "RequestValidation"},
	engine.InvalidMetadata:    {http.StatusBadRequest, "InvalidColumnMetadata"},
	engine.InvalidDateRange:   {http.StatusBadRequest, "InvalidDateRange"},
	engine.NoData:             {http.StatusBadRequest, "NoData"},
	engine.ParametersRequired: {http.StatusBadRequest, "SomeParametersRequired"},
	engine.Unauthorized:       {http.StatusUnauthorized, ""},
	engine.Forbidden:          {http.StatusForbidden, "PlanUpgradeRequired"},
	engine.NotFound:           {http.StatusNotFound, "NotFound"},
	engine.Conflict:           {http.StatusConflict, "Conflict"},
	engine.TooLarge:           {http.StatusRequestEntityTooLarge, "RequestValidation"},
	engine.UnsupportedMedia:   {http.StatusUnsupportedMediaType, "RequestValidation"},
	engine.QuotaExceeded:      {http.StatusTooManyRequests, "QuotaExceeded"},
	engine.Unavailable:        {http.StatusServiceUnavailable, "ServiceUnavailable"},
	engine.Canceled:           {499, "RequestCanceled"},
	engine.BodyTimeout:        {http.StatusRequestTimeout, "RequestValidation"},
}

// classOf returns the status and errorType of kind k.
func classOf(k engine.Kind) errorClass {
	if c, ok := errorClasses[k]; ok {
		return c
	}
	return errorClasses[engine.Internal]
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
// errorClasses, the engine's message and details (with the original's itemType
// under -compat original, see Compat.notFound). Internal errors are logged
// with the request id and shown only as a generic message. A request body
// read past its limit is a 413 however the failure was wrapped (tooLarge),
// one that stopped arriving a 408 (bodyStalledError), and one nested too
// deep a 400 (tooDeep).
// HEAD errors have no body.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	var stalled *bodyStalledError
	switch {
	case errors.As(err, &mbe):
		err = tooLarge(mbe.Limit)
	case errors.As(err, &stalled):
		err = stalled.engineError()
	case errors.Is(err, engine.ErrJSONTooDeep):
		err = tooDeep()
	}
	kind, msg, details := engine.Classify(err)
	msg, details = s.opts.Compat.notFound(kind, msg, details)
	class := classOf(kind)
	status := class.status
	if kind == engine.Internal {
		s.log.ErrorContext(r.Context(), "request failed", engine.LogRequestID, requestID(r), engine.LogErr, err)
	} else if rec := recorderOf(w); rec != nil {
		rec.err = err
	}
	body := errorBody{StatusCode: status, Message: msg, ErrorType: class.errorType, ErrorDetails: details}
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

// tooLarge is the 413 of any request body over its limit, found as an
// *http.MaxBytesError in the error's chain whatever a handler or the engine
// made of the failed read: one sentence, with the limit that applied (the
// body limits are documented flags or derive from one).
func tooLarge(limit int64) *engine.Error {
	return &engine.Error{Kind: engine.TooLarge, Msg: "The request body is too large",
		Details: map[string]any{"body": []string{"The request body exceeds " + strconv.FormatInt(limit, 10) + " bytes"}}}
}

// tooDeep is the 400 of a JSON request body nested deeper than
// engine.MaxJSONDepth, found as engine.ErrJSONTooDeep in the error's chain
// whatever the decoding handler made of the failed read (bodies decoded
// by the API pass through engine.LimitJSONDepth).
func tooDeep() *engine.Error {
	return engine.Validation("body", "The request body nests arrays and objects deeper than "+strconv.Itoa(engine.MaxJSONDepth)+" levels")
}

// because returns e with cause err. A cause is never shown, but an
// *http.MaxBytesError among them makes writeError answer 413 (tooLarge)
// instead of e.
func because(e *engine.Error, err error) error {
	e.Err = err
	return e
}
