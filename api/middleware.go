package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/vaticml/vatic/engine"
)

type ctxKey int

const requestIDKey ctxKey = iota

// requestID returns the id the middleware gave the request.
func requestID(r *http.Request) string {
	if rec, ok := r.Context().Value(requestIDKey).(*recorder); ok {
		return rec.id
	}
	return ""
}

// answerStarted reports whether the status line of r's answer has been
// written: an error found after that cannot be answered, only signalled
// by breaking the connection off.
func answerStarted(r *http.Request) bool {
	rec, ok := r.Context().Value(requestIDKey).(*recorder)
	return ok && rec.status != 0
}

// recorder wraps the ResponseWriter to learn the status and size, and to
// add the account headers just before the header is written.
type recorder struct {
	http.ResponseWriter
	id       string
	status   int
	bytes    int64
	err      error
	onHeader func(h http.Header)
	// route is the pattern of the route that served the request ("" when
	// none did: an unknown path, a refused key, a preflight).
	route string
}

func recorderOf(w http.ResponseWriter) *recorder {
	rec, _ := w.(*recorder)
	return rec
}

func (r *recorder) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	r.status = status
	if r.onHeader != nil {
		r.onHeader(r.Header())
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush lets streaming responses reach the client as they are written.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		if r.status == 0 {
			r.WriteHeader(http.StatusOK)
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// middleware composes, outermost first: request id, logging and recovery;
// the body's idle deadline (idleBody); CORS; path normalisation; authentication and the account headers.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, id: newRequestID()}
		r = r.WithContext(contextWith(r, rec))
		installIdleBody(w, r, s.opts.BodyIdleTimeout)
		w.Header().Set("X-Request-Id", rec.id)
		defer func() {
			v := recover()
			if v != nil && v != http.ErrAbortHandler {
				s.log.ErrorContext(r.Context(), "panic", engine.LogRequestID, rec.id, "panic", fmt.Sprint(v))
				if rec.status == 0 {
					s.writeError(rec, r, &engine.Error{Kind: engine.Internal, Msg: "panic"})
				}
			}
			if v == http.ErrAbortHandler {
				// Logged below, then net/http breaks the connection off.
				defer panic(v)
			}
			attrs := []any{engine.LogRequestID, rec.id, "method", r.Method, "path", r.URL.Path,
				"status", rec.status, engine.LogBytes, rec.bytes, engine.LogElapsed, time.Since(start)}
			if app := r.Header.Get("application-name"); app != "" {
				attrs = append(attrs, "application", app)
			}
			if rec.err != nil {
				attrs = append(attrs, engine.LogErr, rec.err.Error())
			}
			s.log.InfoContext(r.Context(), "request", attrs...)
			if s.opts.Observer != nil {
				s.opts.Observer.ObserveRequest(r.Method, rec.route, rec.status, time.Since(start))
			}
		}()
		s.cors(rec, r)
		if r.Method == http.MethodOptions {
			rec.WriteHeader(http.StatusNoContent)
			return
		}
		s.normalize(r)
		if r.URL.Path != "/healthz" && r.URL.Path != openAPIPath {
			if _, ok := s.authenticate(r); !ok {
				s.writeError(rec, r, &engine.Error{Kind: engine.Unauthorized,
					Msg: "Access denied due to missing or invalid subscription key. Make sure to provide a valid key for an active subscription."})
				return
			}
			rec.onHeader = func(h http.Header) { s.accountHeaders(r, h) }
		}
		next.ServeHTTP(rec, r)
	})
}

// newRequestID returns 16 random hex characters.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exposedHeaders are the response headers browser clients may read
// (REFERENCE §1.2).
var exposedHeaders = strings.Join([]string{
	"Nexosis-Session-Status", "service-session-status", "Nexosis-Import-Status", "Nexosis-Webhook-Token",
	"Nexosis-Request-Cost", "Nexosis-Account-Balance",
	"Nexosis-Account-DataSetCount-Allotted", "Nexosis-Account-DataSetCount-Current",
	"Nexosis-Account-PredictionCount-Allotted", "Nexosis-Account-PredictionCount-Current",
	"Nexosis-Account-SessionCount-Allotted", "Nexosis-Account-SessionCount-Current",
	"Nexosis-Account-DataSetSize-Allotted", "Location", "X-Request-Id",
}, ", ")

// cors answers browsers (REFERENCE §1.2): any origin, the API's methods and
// request headers, and the account and status headers exposed.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	origin := r.Header.Get("Origin")
	if origin == "" {
		origin = "*"
	} else {
		h.Add("Vary", "Origin")
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", exposedHeaders)
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "api-key, authorization, content-type, content-encoding, accept, application-name, access-control-allow-origin")
		h.Set("Access-Control-Max-Age", "600")
	}
}

// normalize rewrites the request path the way the reference's clients need
// (REFERENCE §1.1): repeated slashes collapse, a trailing slash is ignored,
// and the fixed segments of a known route match in any case while
// resource names keep their spelling.
func (s *Server) normalize(r *http.Request) {
	p := r.URL.Path
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "" {
		p = "/"
	}
	segs := splitPath(p)
	method := r.Method
	if method == http.MethodHead && len(s.patterns[http.MethodHead]) == 0 {
		method = http.MethodGet
	}
	best := -1
	var bestPattern []string
	for _, m := range []string{method, http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete} {
		for _, pat := range s.patterns[m] {
			if score := matchSegments(pat, segs); score > best {
				best, bestPattern = score, pat
			}
		}
		if best >= 0 {
			break
		}
	}
	if bestPattern != nil {
		for i, ps := range bestPattern {
			if ps[0] != ':' && ps[0] != '*' {
				segs[i] = ps
			}
		}
		p = "/" + strings.Join(segs, "/")
	}
	if p != r.URL.Path {
		r.URL.Path = path.Clean(p)
		r.URL.RawPath = ""
	}
}

// matchSegments scores how well a route pattern matches path segments:
// -1 when it does not, else the number of fixed segments that match
// exactly (so an exact route wins over a case-folded one).
func matchSegments(pat, segs []string) int {
	if len(pat) != len(segs) {
		return -1
	}
	score := 0
	for i, ps := range pat {
		switch {
		case ps[0] == ':':
			if segs[i] == "" {
				return -1
			}
		case ps == segs[i]:
			score++
		case strings.EqualFold(ps, segs[i]):
		default:
			return -1
		}
	}
	return score
}

// authenticate finds the caller's key: the api-key header (any case), else
// a bearer token (the dashboard's credential) that is one of the keys.
func (s *Server) authenticate(r *http.Request) (Plan, bool) {
	key := strings.TrimSpace(r.Header.Get("api-key"))
	if key == "" {
		if auth := r.Header.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			key = strings.TrimSpace(auth[7:])
		}
	}
	if key == "" {
		return 0, false
	}
	plan, ok := s.opts.Keys[key]
	return plan, ok
}

// accountHeaders sets the Nexosis-Account-* headers of REFERENCE §1.9 from
// the configured allotments and the catalog's counts.
func (s *Server) accountHeaders(r *http.Request, h http.Header) {
	a := s.engine.Allotments()
	// Not canceled with the request: an aborted body (idleBody) cancels
	// it, and its 408 still carries the headers.
	u, err := s.engine.Usage(context.WithoutCancel(r.Context()))
	if err != nil {
		s.log.WarnContext(r.Context(), "usage for account headers", engine.LogRequestID, requestID(r), engine.LogErr, err)
	}
	set := func(name string, v int64) { h.Set(name, strconv.FormatInt(v, 10)) }
	set("Nexosis-Account-DataSetCount-Allotted", a.DataSets)
	set("Nexosis-Account-DataSetCount-Current", u.DataSets)
	set("Nexosis-Account-PredictionCount-Allotted", a.Predictions)
	set("Nexosis-Account-PredictionCount-Current", u.Predictions)
	set("Nexosis-Account-SessionCount-Allotted", a.Sessions)
	set("Nexosis-Account-SessionCount-Current", u.Sessions)
	set("Nexosis-Account-DataSetSize-Allotted", a.DataSetSize)
	h.Set("Nexosis-Account-Balance", "0.00 USD")
	if h.Get("Nexosis-Request-Cost") == "" { // an estimate sets its own
		h.Set("Nexosis-Request-Cost", "0.00 USD")
	}
}
