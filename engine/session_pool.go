package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// sessionPool runs sessions on a jobPool: a fixed number of workers claim
// requested sessions from the catalog (the durable queue) through one
// function, and each session runs under its own context, registered by id
// so a delete can cancel it.
type sessionPool struct {
	jobPool
	e       *Engine
	timeout time.Duration
	running map[string]*runState // guarded by jobPool.mu
}

// runState is a claimed session: its cancel function once it runs, and
// whether it was deleted (possibly before it started running).
type runState struct {
	cancel   context.CancelCauseFunc
	deleted  bool
	progress int // approximate completion percentage
	// claimed is the session as its claim read it; nil for an orphan of
	// a previous process, which its run reads from the catalog.
	claimed *Session
}

// hasCallback says whether the session may have a callbackUrl to post
// to: the claim read it; for an orphan, callback reads it.
func (st *runState) hasCallback() bool {
	return st.claimed == nil || st.claimed.CallbackURL != ""
}

// errSessionDeleted cancels a session whose user deleted it.
var errSessionDeleted = errors.New("session deleted")

// cancel stops a running or queued session; it reports whether a worker
// holds it (and will purge it), false when none does.
func (p *sessionPool) cancel(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.running[id]
	if !ok {
		return false
	}
	st.deleted = true
	if st.cancel != nil {
		st.cancel(errSessionDeleted)
	}
	return true
}

func (p *sessionPool) setProgress(id string, pct int) {
	p.mu.Lock()
	if st, ok := p.running[id]; ok {
		st.progress = pct
	}
	p.mu.Unlock()
}

func (p *sessionPool) progressOf(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.running[id]; ok {
		return st.progress
	}
	return 0
}

// startSessions recovers sessions a previous process left unfinished and
// starts the workers: a started session runs again from the start (its
// seeds make the numbers identical) unless interrupted too often, when it
// fails and its callback hears so (jobPool.restart); a deleted one is
// purged, one being cancelled ends cancelled.
func (e *Engine) startSessions(ctx context.Context) error {
	o := e.opts
	p := &sessionPool{e: e, timeout: o.SessionTimeout, running: map[string]*runState{}}
	p.jobPool = newJobPool("session", e.log, o.SessionConcurrency)
	p.claimNext, p.holdOrphan, p.runJob = p.next, p.hold, p.run
	p.maxRestarts, p.tx = o.MaxRestarts, e.store.Tx
	p.addMessage = func(ctx context.Context, id string, m Message) error { return e.addSessionMessages(ctx, id, m) }
	p.interrupted = func(ctx context.Context, id string) (int, error) { return e.countInterruption(ctx, "session", id) }
	p.fail = func(ctx context.Context, id string, m Message) error {
		return e.setSessionStatus(ctx, id, StatusFailed, m)
	}
	started, pending, deleted, err := e.unfinishedSessions(ctx)
	if err != nil {
		return err
	}
	for _, id := range deleted {
		if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.purgeSession(ctx, id) }); err != nil {
			return err
		}
	}
	for _, id := range pending {
		if err := e.setSessionStatus(ctx, id, StatusCancelled); err != nil {
			return err
		}
	}
	var failed []string
	for _, id := range started {
		queued, err := p.restart(ctx, id)
		if err != nil {
			return err
		}
		if !queued {
			failed = append(failed, id)
		}
	}
	e.sessions = p
	p.start(ctx)
	for _, id := range failed {
		p.callback(id)
	}
	return nil
}

// hold registers a session a worker took; mu is held.
func (p *sessionPool) hold(id string) { p.running[id] = &runState{} }

// next claims the oldest requested session (claimRequestedSession),
// registers it and tells its callback, if it has one, it started. An
// orphan is not called back: its callback heard "started" from the
// previous process.
func (p *sessionPool) next(ctx context.Context) (string, error) {
	s, ok, err := p.e.claimRequestedSession(ctx)
	if !ok {
		return "", err
	}
	st := &runState{claimed: &s}
	p.mu.Lock()
	p.running[s.ID] = st
	p.mu.Unlock()
	if st.hasCallback() {
		p.callback(s.ID)
	}
	return s.ID, err
}

// run performs one claimed session and records how it ended.
func (p *sessionPool) run(base context.Context, id string) {
	e := p.e
	start := time.Now()
	ctx, cancel := context.WithCancelCause(base)
	defer cancel(nil)
	p.mu.Lock()
	st := p.running[id]
	if st == nil {
		st = &runState{}
		p.running[id] = st
	}
	st.cancel = cancel
	if st.deleted {
		cancel(errSessionDeleted)
	}
	p.mu.Unlock()
	// release hands the session back and reports whether it was deleted
	// meanwhile: under the lock cancel takes, so a delete either reaches
	// this worker or finds it gone and purges the session itself.
	released := false
	release := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		released = true
		delete(p.running, id)
		return st.deleted
	}
	defer func() {
		if !released {
			release()
		}
	}()
	tctx, tcancel := context.WithTimeout(ctx, p.timeout)
	defer tcancel()
	err := p.runSafely(tctx, id, st.claimed)
	if base.Err() != nil {
		return // shutting down: the session stays started and runs again at the next start
	}
	if release() {
		if perr := p.finishDeleted(context.WithoutCancel(ctx), id); perr != nil {
			e.log.ErrorContext(base, "purge deleted session", LogSessionID, id, LogErr, perr)
		}
		return
	}
	switch {
	case err != nil:
		kind, msg, _ := Classify(err)
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(tctx.Err(), context.DeadlineExceeded):
			// The store may report its interrupted query in its own words.
			msg = fmt.Sprintf("The session did not finish within %s.", p.timeout)
		case kind == Internal:
			// A fault of ours (storage, serialisation, a panic), not of the
			// data: say so, and leave the cause to the log.
			e.log.ErrorContext(base, "session failed", LogSessionID, id, LogErr, err)
			msg = internalFailure(id)
		}
		if ferr := e.setSessionStatus(base, id, StatusFailed, Message{"error", msg}); ferr != nil {
			e.log.ErrorContext(base, "record session failure", LogSessionID, id, LogErr, ferr)
		}
	default:
		e.log.InfoContext(base, "session completed", LogSessionID, id, LogElapsed, time.Since(start))
	}
	if st.hasCallback() {
		p.callback(id)
	}
}

// internalFailure is the message of a session that failed for an internal
// reason; the server log has the cause under the session id.
func internalFailure(id string) string {
	return fmt.Sprintf("The session failed because of an internal error; see the server log for session %s.", id)
}

// runSafely runs a session, turning a panic into an error: a bug in one
// session never takes the server down. claimed is the session as its
// claim read it, nil for an orphan.
func (p *sessionPool) runSafely(ctx context.Context, id string, claimed *Session) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p.e.log.ErrorContext(ctx, "session panicked", LogSessionID, id, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("session panicked: %v", v)
		}
	}()
	progress := func(pct int) { p.setProgress(id, pct) }
	if claimed != nil {
		return p.e.runClaimed(ctx, *claimed, progress)
	}
	return p.e.runSession(ctx, id, progress)
}

// finishDeleted records the end of a session deleted while it ran,
// tells its callback, then removes it with its results.
func (p *sessionPool) finishDeleted(ctx context.Context, id string) error {
	e := p.e
	if err := e.setSessionStatus(ctx, id, StatusCancelled); err != nil {
		return err
	}
	p.callback(id)
	return e.store.Tx(ctx, func(ctx context.Context) error { return e.purgeSession(ctx, id) })
}

// callback posts a session's current state to its callbackUrl, if any,
// without blocking the caller (REFERENCE §6.17).
func (p *sessionPool) callback(id string) {
	e := p.e
	if e.opts.Notifier == nil {
		return
	}
	// A session being deleted is hidden from reads but still reported:
	// its callback hears cancellationPending and cancelled.
	ss, _, err := e.listSessions(context.Background(), sessionFilter{ID: id, Limit: 1, Hidden: true})
	if err != nil || len(ss) == 0 || ss[0].CallbackURL == "" {
		return
	}
	e.opts.Notifier.Notify(ss[0])
}

// Notifier delivers a session's status changes to its callbackUrl
// (REFERENCE §6.17). Notify must not block: it queues the delivery.
type Notifier interface {
	Notify(s Session)
}
