package api

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/vaticml/vatic/engine"
)

// idleBody is a request body that fails once the client has sent nothing
// for timeout. Before each read it moves the connection's read deadline
// to now+timeout, so an upload that keeps sending is never cut off however
// long it takes (up to Options.MaxBodyBytes), while one that stalls is: the
// handler's read fails with a bodyStalledError, so a PUT's transaction
// rolls back and the dataset's lock is released, and the client gets 408
// with the error body naming the body. net/http then closes the
// connection, as what remains on the wire cannot be parsed as a request.
//
// Time the handler spends without reading (waiting for a lock, writing
// to DuckDB between batches) does not count: no read is pending then.
type idleBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	done    bool // the body ended: hands off the deadline
}

// installIdleBody wraps r.Body when the request has one and the
// connection takes read deadlines (a real server's does; a test recorder's
// does not). The first deadline is set at once: it also bounds the bytes
// net/http discards after a handler that never read the body.
func installIdleBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) {
	if timeout <= 0 || r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return
	}
	r.Body = &idleBody{ReadCloser: r.Body, rc: rc, timeout: timeout}
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.done {
		// Past the end, reads do not reach the connection, but the read
		// net/http starts there to watch for a closed connection does:
		// a deadline set now would time it out and cancel the request's
		// context while the handler is still working.
		return b.ReadCloser.Read(p)
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = &bodyStalledError{timeout: b.timeout, err: err}
	default:
		// EOF (net/http lifts the deadline as it starts its own read) or
		// a broken connection.
		b.done = true
	}
	return n, err
}

// bodyStalledError is the read error of a body that stopped arriving.
// Whatever a handler or the engine wraps it in, writeError finds it in the
// chain and answers 408 (engine.BodyTimeout), as it does 413 for a body
// over its limit.
type bodyStalledError struct {
	timeout time.Duration
	err     error
}

func (e *bodyStalledError) Error() string { return "request body stalled: " + e.err.Error() }

func (e *bodyStalledError) Unwrap() error { return e.err }

func (e *bodyStalledError) engineError() *engine.Error {
	return &engine.Error{Kind: engine.BodyTimeout, Msg: "The request body stopped arriving",
		Details: map[string]any{"body": []string{"No bytes of the request body arrived for " + e.timeout.String() + "; the request was abandoned"}}, Err: e.err}
}
