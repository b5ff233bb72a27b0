// Package webhook delivers session callbacks (REFERENCE §6.17): it POSTs a
// body it is given to a callbackUrl with the Nexosis-Webhook-Token header,
// through the transport it is given — vatic serve passes remote's guarded
// transport, so a callback obeys the import rules for private addresses.
// Deliveries are queued and sent by a few workers: a slow or failing
// receiver never holds up a session.
//
// The body is not this package's business: api.Callbacks, the
// engine.Notifier, renders the session as GET /sessions/{id} does and hands
// the bytes to a Sender (it implements api.Deliverer). So webhook needs
// neither api nor the session type, and nothing calls back from here into
// the front.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/vaticml/vatic/engine"
)

// Options configure a Sender. Zero values mean the documented defaults
// (REFERENCE §6.17 suggests them).
type Options struct {
	// Logger receives failed deliveries; nil discards.
	Logger *slog.Logger
	// Timeout bounds one attempt (default 10 s).
	Timeout time.Duration
	// Attempts per delivery (default 3), with exponential back-off from
	// Backoff (default 1 s) between them.
	Attempts int
	Backoff  time.Duration
	// Queue is how many deliveries may wait (default 1024), shared evenly
	// among the workers; more are dropped and logged.
	Queue int
	// Workers send deliveries concurrently (default 4). The deliveries of
	// one session always go to the same worker, so its callbacks arrive in
	// the order of its status changes.
	Workers int
}

// Sender queues and sends callback deliveries. It is safe for concurrent
// use.
type Sender struct {
	opts   Options
	client *http.Client
	queues []chan delivery // one per worker
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
	mu     sync.RWMutex
	done   bool
}

type delivery struct {
	url, token string
	body       []byte
}

// New starts a Sender whose requests go through rt, without following
// redirects.
func New(rt http.RoundTripper, opts Options) *Sender {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.Queue <= 0 {
		opts.Queue = 1024
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	s := &Sender{opts: opts, queues: make([]chan delivery, opts.Workers)}
	for i := range s.queues {
		s.queues[i] = make(chan delivery, max(opts.Queue/opts.Workers, 1))
	}
	s.client = &http.Client{
		Transport:     rt,
		Timeout:       opts.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for _, q := range s.queues {
		s.wg.Go(func() { s.work(q) })
	}
	return s
}

// Deliver queues a POST of body to url with token (none when ""); it never
// blocks. sessionID names the session in logs. After Close it does nothing.
func (s *Sender) Deliver(sessionID, url, token string, body []byte) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.done {
		return
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(sessionID))
	select {
	case s.queues[h.Sum32()%uint32(len(s.queues))] <- delivery{url: url, token: token, body: body}:
	default:
		s.opts.Logger.Warn("webhook queue full; delivery dropped", engine.LogSessionID, sessionID)
	}
}

// Close stops taking deliveries, cancels those in flight and waits for the
// workers.
func (s *Sender) Close() {
	s.closed.Do(func() {
		s.mu.Lock()
		s.done = true
		for _, q := range s.queues {
			close(q)
		}
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
	})
}

func (s *Sender) work(queue <-chan delivery) {
	for d := range queue {
		if err := s.deliver(d); err != nil && s.ctx.Err() == nil {
			s.opts.Logger.Warn("webhook delivery failed", "url", engine.RedactURL(d.url), engine.LogErr, err)
		}
	}
}

// deliver tries a delivery up to Attempts times, backing off 1×, 2×, 4×…
func (s *Sender) deliver(d delivery) error {
	var err error
	wait := s.opts.Backoff
	for attempt := range s.opts.Attempts {
		if attempt > 0 {
			select {
			case <-s.ctx.Done():
				return s.ctx.Err()
			case <-time.After(wait):
			}
			wait *= 2
		}
		if err = s.post(d); err == nil {
			return nil
		}
	}
	return err
}

func (s *Sender) post(d delivery) error {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, d.url, bytes.NewReader(d.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if d.token != "" {
		req.Header.Set("Nexosis-Webhook-Token", d.token)
	}
	res, err := s.client.Do(req)
	if err != nil {
		// The error quotes the URL: redact it before it reaches the log.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = engine.RedactURL(ue.URL)
		}
		return err
	}
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("callback answered %s", res.Status)
	}
	return nil
}
