package api

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// Plan is an API key's subscription plan.
type Plan int

// The plans: a community key is refused paid endpoints (contest, 403).
const (
	PlanPaid Plan = iota
	PlanCommunity
)

// Options configure a Server. Zero values mean the documented defaults.
type Options struct {
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
	// Keys maps each accepted API key to its plan. Empty accepts nothing.
	Keys map[string]Plan
	// MaxBodyBytes caps request bodies on the wire and, for uploads, after
	// decompression (default 1 GiB).
	MaxBodyBytes int64
	// MaxRequestBytes caps the JSON body of an import, session or view
	// request (default 1 MiB, never above MaxBodyBytes).
	MaxRequestBytes int64
	// BodyIdleTimeout aborts a request whose body sends nothing for this
	// long: the handler's read fails, what it was writing rolls back and
	// the client gets 408 (see idleBody). Zero waits forever.
	BodyIdleTimeout time.Duration
	// Compat picks the specification's spellings (CompatSpec, the zero
	// value) or the original service's for the values the specification
	// renamed (see Compat).
	Compat Compat
	// MaxHeavy caps the heavy requests that run at once: column statistics
	// (GET /data/{name}/stats and /stats/{column}), whose DuckDB aggregates
	// hold state that grows with the rows (medians, grouping). Default 4.
	MaxHeavy int
	// HeavyWait is how long a heavy request waits for a slot before it is
	// answered 503 ServiceUnavailable with Retry-After. Default 5 s.
	HeavyWait time.Duration
	// PageCacheBytes bounds the cache of rendered pages of rows (GET
	// /data/{name}; see pageCache); an answer above 1/64 of it is not
	// kept. Zero turns the cache off (cmd/vatic's default is 64 MiB).
	PageCacheBytes int64
	// Observer, when set, learns every request's outcome once it is
	// answered (cmd/vatic's Prometheus metrics).
	Observer RequestObserver
}

// RequestObserver receives each request's method, the pattern of the
// route that served it ("" when none did), its status (0 when nothing was
// written) and how long it took.
type RequestObserver interface {
	ObserveRequest(method, route string, status int, elapsed time.Duration)
}

// heavyRetryAfter is the Retry-After, in seconds, of a heavy request that
// found no slot.
const heavyRetryAfter = "1"

// heavy runs a heavy request's work once one of opts.MaxHeavy slots is
// free. It waits up to opts.HeavyWait (or until the request ends), then
// answers 503 with Retry-After.
func (s *Server) heavy(w http.ResponseWriter, r *http.Request, work func() error) error {
	select {
	case s.heavySlots <- struct{}{}:
	default:
		t := time.NewTimer(s.opts.HeavyWait)
		defer t.Stop()
		select {
		case s.heavySlots <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		case <-t.C:
			w.Header().Set("Retry-After", heavyRetryAfter)
			return &engine.Error{Kind: engine.Unavailable, Msg: "The server is busy with other statistics requests; retry later", Details: map[string]any{}}
		}
	}
	defer func() { <-s.heavySlots }()
	return work()
}

// Server answers the Nexosis API v1. It is safe for concurrent use.
type Server struct {
	engine   *engine.Engine
	log      *slog.Logger
	opts     Options
	router   *httprouter.Router
	patterns map[string][][]string // method → route patterns split in segments
	handler  http.Handler
	// heavySlots holds one token per running heavy request (Options.MaxHeavy).
	heavySlots chan struct{}
	// pages caches rendered pages of rows (Options.PageCacheBytes); nil
	// when off.
	pages *pageCache
}

// New builds the server and its routes.
func New(e *engine.Engine, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 30
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = 1 << 20
	}
	opts.MaxRequestBytes = min(opts.MaxRequestBytes, opts.MaxBodyBytes)
	if opts.MaxHeavy <= 0 {
		opts.MaxHeavy = 4
	}
	if opts.HeavyWait <= 0 {
		opts.HeavyWait = 5 * time.Second
	}
	s := &Server{engine: e, log: opts.Logger, opts: opts, patterns: map[string][][]string{},
		heavySlots: make(chan struct{}, opts.MaxHeavy), pages: newPageCache(opts.PageCacheBytes)}
	s.router = httprouter.New()
	s.router.RedirectTrailingSlash = false
	s.router.RedirectFixedPath = false
	s.router.HandleOPTIONS = false
	s.router.HandleMethodNotAllowed = true
	s.router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &engine.Error{Kind: engine.NotFound, Msg: "Resource not found"})
	})
	s.router.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &engine.Error{Kind: engine.NotFound, Msg: "Resource not found: " + r.Method + " is not supported here"})
	})
	s.router.PanicHandler = func(w http.ResponseWriter, r *http.Request, v any) {
		if v == http.ErrAbortHandler {
			panic(v) // net/http breaks the connection off
		}
		s.log.ErrorContext(r.Context(), "panic", engine.LogRequestID, requestID(r), "panic", v)
		if answerStarted(r) {
			// An error body would follow the rows already sent and make
			// them look complete.
			panic(http.ErrAbortHandler)
		}
		s.writeError(w, r, &engine.Error{Kind: engine.Internal, Msg: "An unexpected error occurred"})
	}
	s.routes()
	s.handler = s.middleware(s.router)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// handlerFunc is a handler that returns its error for writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error

func (s *Server) handle(h handlerFunc) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		if err := h(w, r, p); err != nil {
			if answerStarted(r) {
				// An error body would follow what was already sent and
				// make it look complete: the answer is broken off.
				s.log.ErrorContext(r.Context(), "answer broken off", engine.LogRequestID, requestID(r), engine.LogErr, err)
				panic(http.ErrAbortHandler)
			}
			s.writeError(w, r, err)
		}
	}
}

// route registers one route and remembers its pattern for path
// normalisation.
func (s *Server) route(method, pattern string, h handlerFunc) {
	s.patterns[method] = append(s.patterns[method], splitPath(pattern))
	handle := s.handle(h)
	s.router.Handle(method, pattern, func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		if rec, ok := r.Context().Value(requestIDKey).(*recorder); ok {
			rec.route = pattern
		}
		handle(w, r, p)
	})
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}
