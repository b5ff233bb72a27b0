// Package remote opens the bytes of remote objects for imports: a URL over
// HTTP(S), an object in an S3-compatible store, a blob in Azure storage. It
// returns a stream and what the source says about it (name, content type,
// encoding); decoding is ingest's job and bookkeeping the engine's.
//
// Every connection goes through one guarded transport: unless
// Options.AllowPrivate is set, a destination that resolves to a loopback,
// private, link-local, cloud-metadata or other special-purpose IP (the IANA
// special-purpose registries, directly or embedded in an IPv6 address), or
// to an address of this host, is refused at dial time, so redirects and
// DNS tricks are covered too (guard.go holds the policy). Errors are
// *Error, whose message is safe to show to the user: it never contains
// credentials.
//
// It is an adapter beside api, duckstore and webhook: Fetcher implements
// the engine's Fetcher interface with a Client, and URLs are redacted by
// the engine's one rule (engine.RedactURL).
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Client. Zero values mean the documented defaults.
type Options struct {
	// AllowPrivate turns the address guard off: sources may then resolve
	// to loopback, private, link-local, metadata and other special-purpose
	// addresses and to this host's own (tests, local setups); off by
	// default.
	AllowPrivate bool
	// ConnectTimeout bounds connecting and waiting for response headers
	// (default 30s).
	ConnectTimeout time.Duration
	// IdleTimeout fails a download that receives nothing for this long
	// (default 60s).
	IdleTimeout time.Duration
	// MaxRedirects bounds redirects followed for URL sources (default 5).
	MaxRedirects int
	// S3Endpoint points S3 imports at an S3-compatible store
	// (host[:port] or a URL; default AWS).
	S3Endpoint string
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 60 * time.Second
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 5
	}
	return o
}

// Client opens remote objects. It is safe for concurrent use.
type Client struct {
	opts      Options
	transport *http.Transport
	// interfaceAddrs lists the host's addresses for the guard
	// (net.InterfaceAddrs; tests substitute it).
	interfaceAddrs func() ([]net.Addr, error)
}

// New returns a client with the guarded transport.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	c := &Client{opts: opts, interfaceAddrs: net.InterfaceAddrs}
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, Control: c.checkDial}
	c.transport = &http.Transport{
		Proxy:                 nil, // a proxy would hide the real destination from the guard
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		ResponseHeaderTimeout: opts.ConnectTimeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return c
}

// Transport returns the guarded transport every source uses.
func (c *Client) Transport() *http.Transport { return c.transport }

// HTTPClient returns an HTTP client on the guarded transport that follows
// at most MaxRedirects redirects.
func (c *Client) HTTPClient() *http.Client {
	return &http.Client{
		Transport: c.transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > c.opts.MaxRedirects {
				return fmt.Errorf("more than %d redirects", c.opts.MaxRedirects)
			}
			return nil
		},
	}
}

// Close releases idle connections.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Object is an opened remote object. The caller closes Body.
type Object struct {
	Body            io.ReadCloser
	Name            string // object name or URL path, for format detection
	ContentType     string // as the source reports it, "" when unknown
	ContentEncoding string // as the source reports it, "" when unknown
	Size            int64  // bytes, -1 when unknown
}

// Error is a failure to reach or read a source. Msg is safe to show.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ErrForbiddenAddress is the cause of a destination the guard refuses.
var ErrForbiddenAddress = errors.New("remote: destination address not allowed")

// connectError describes a failure to connect or to get an answer.
func connectError(what string, err error) *Error {
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return &Error{Msg: what + " resolves to a loopback, private, link-local, metadata or other special-purpose address or to one of this server's own, which imports may not read (set -import-allow-private to allow it)", Err: err}
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return &Error{Msg: what + " did not answer in time", Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Msg: "the import was canceled", Err: err}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return &Error{Msg: what + ": host " + dnsErr.Name + " could not be resolved", Err: err}
	}
	return &Error{Msg: what + " could not be reached", Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// idleReader fails a download that receives nothing for the idle timeout,
// so a source that stops sending cannot hang an import. One watchdog
// goroutine per download checks the time of the last progress; reads
// themselves only store a timestamp.
type idleReader struct {
	rc      io.ReadCloser
	timeout time.Duration
	what    string

	last    atomic.Int64 // unix nanoseconds of the last read that returned
	expired atomic.Bool
	done    chan struct{}
	once    sync.Once
}

func (c *Client) idle(rc io.ReadCloser, what string) io.ReadCloser {
	r := &idleReader{rc: rc, timeout: c.opts.IdleTimeout, what: what, done: make(chan struct{})}
	r.last.Store(time.Now().UnixNano())
	go r.watch()
	return r
}

// watch closes the body once it has been idle for the timeout, which
// unblocks a pending read; it ends with Close.
func (r *idleReader) watch() {
	tick := time.NewTicker(max(r.timeout/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case now := <-tick.C:
			if now.Sub(time.Unix(0, r.last.Load())) >= r.timeout {
				r.expired.Store(true)
				_ = r.rc.Close()
				return
			}
		}
	}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.last.Store(time.Now().UnixNano())
	switch {
	case r.expired.Load():
		return n, &Error{Msg: fmt.Sprintf("%s sent nothing for %s; the download timed out", r.what, r.timeout)}
	case err != nil && err != io.EOF:
		return n, &Error{Msg: r.what + ": the download broke off", Err: err}
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.once.Do(func() { close(r.done) })
	return r.rc.Close()
}
