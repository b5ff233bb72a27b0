package api

import (
	"log/slog"

	"github.com/vaticml/vatic/engine"
)

// Callbacks is the engine.Notifier of session callbacks (REFERENCE §6.17).
// The api owns the body, because it is the session exactly as GET
// /sessions/{id} renders it on a server with the same Options (Compat
// included); a Deliverer only carries the bytes. So a status change flows
// one way, engine → api (render) → Deliverer (POST), and the deliverer (the
// webhook package) needs neither api nor a session.
//
// Build one Options value and pass it both to New and to NewCallbacks, so
// the callback body and the HTTP responses cannot disagree. It is safe for
// concurrent use.
type Callbacks struct {
	opts    Options
	base    func() string
	deliver Deliverer
}

// Deliverer sends a callback body to a session's callbackUrl with its
// Nexosis-Webhook-Token. Deliver must not block: it queues the delivery.
// sessionID names the session in logs. *webhook.Sender implements it.
type Deliverer interface {
	Deliver(sessionID, url, token string, body []byte)
}

var _ engine.Notifier = (*Callbacks)(nil)

// NewCallbacks returns the Notifier that renders sessions as a server with
// opts does, with links under base() (the public …/v1 address, read at each
// delivery because a server learns its listening address late), and hands
// the body to d.
func NewCallbacks(opts Options, base func() string, d Deliverer) *Callbacks {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Callbacks{opts: opts, base: base, deliver: d}
}

// Notify renders s and queues its delivery; a session without a
// callbackUrl is skipped. It never blocks.
func (c *Callbacks) Notify(s engine.Session) {
	if s.CallbackURL == "" {
		return
	}
	body, err := jsonMarshal(toSessionJSON(c.base(), s, sessionLinksFull, c.opts.Compat))
	if err != nil {
		c.opts.Logger.Error("render webhook", engine.LogSessionID, s.ID, engine.LogErr, err)
		return
	}
	c.deliver.Deliver(s.ID, s.CallbackURL, s.WebhookToken, body)
}
