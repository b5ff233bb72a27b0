package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// jobPool runs one kind of background job (imports, sessions) on a fixed
// number of workers; importPool and sessionPool embed it and add what
// differs as hooks.
//
// The catalog is the durable queue. A worker claims a job through claim,
// the one place a job is handed out: first the orphans, jobs a previous
// process left started (in the order recovery found them), then the
// oldest requested job, which claimNext marks started in the same step.
// With nothing to claim a worker sleeps until notify, or for 5 s (a job
// another process queued is found then). Every job runs under a base
// context that outlives requests; stop cancels it and waits, and a job
// cut off stays started, to be an orphan at the next start.
//
// An orphan runs again from the start, but not forever: recovery counts
// each interruption in the catalog, and the maxRestarts'th ends the job
// failed instead (a job that kills the server would otherwise kill every
// restart too).
type jobPool struct {
	what    string // "import" or "session": for logs and the restart message
	log     *slog.Logger
	workers int
	// maxRestarts is how many interruptions a job survives: the one that
	// reaches it fails the job (Options.MaxRestarts).
	maxRestarts int

	// claimNext claims the oldest requested job in the catalog, marked
	// started, with the kind's own bookkeeping; "" when none waits.
	claimNext func(ctx context.Context) (string, error)
	// holdOrphan, if set, records that a worker took an orphan; it is
	// called with mu held, in the step that takes the orphan.
	holdOrphan func(id string)
	// runJob performs one claimed job and records how it ended; ctx ends
	// at stop.
	runJob func(ctx context.Context, id string)

	// Recovery's catalog hooks (see restart). tx runs fn in one
	// transaction; interrupted counts one more interruption of a job and
	// returns how many it has had; addMessage appends a message to a job;
	// fail ends a job failed with a message.
	tx          func(ctx context.Context, fn func(ctx context.Context) error) error
	interrupted func(ctx context.Context, id string) (int, error)
	addMessage  func(ctx context.Context, id string, m Message) error
	fail        func(ctx context.Context, id string, m Message) error

	wake       chan struct{}
	cancelBase context.CancelFunc
	wg         sync.WaitGroup
	claimMu    sync.Mutex // one claim at a time

	// mu guards orphans and the state the kind keeps beside them (an
	// import's secrets, a session's run state).
	mu      sync.Mutex
	orphans []string
}

// newJobPool returns a pool of workers running jobs of kind what.
func newJobPool(what string, log *slog.Logger, workers int) jobPool {
	return jobPool{what: what, log: log, workers: workers, wake: make(chan struct{}, 1)}
}

// restart handles a job a previous process left started; recovery calls
// it, oldest job first, before start. In one transaction it counts the
// interruption and then either tells the job's user that it runs again
// from the start, or, at the maxRestarts'th interruption, ends it failed.
// A job that runs again is queued to be claimed before any requested job.
// restart reports whether it queued the job.
func (p *jobPool) restart(ctx context.Context, id string) (queued bool, err error) {
	var n int
	err = p.tx(ctx, func(ctx context.Context) error {
		var err error
		if n, err = p.interrupted(ctx, id); err != nil {
			return err
		}
		if n >= p.maxRestarts {
			return p.fail(ctx, id, Message{"error", interruptedMessage(p.what, n)})
		}
		return p.addMessage(ctx, id, Message{"informational", "The server restarted during this " + p.what + "; it runs again from the start."})
	})
	if err != nil {
		return false, err
	}
	if n >= p.maxRestarts {
		// The id's key is import_id or session_id, as in the kind's own lines.
		p.log.WarnContext(ctx, p.what+" failed: interrupted too often", p.what+"_id", id, "interrupted", n)
		return false, nil
	}
	p.orphans = append(p.orphans, id)
	return true, nil
}

// interruptedMessage is the failure message of a job (an "import" or a
// "session") cut off n times.
func interruptedMessage(what string, n int) string {
	times := fmt.Sprintf("%d times", n)
	if n == 1 {
		times = "once"
	}
	return fmt.Sprintf("The server stopped while this %s ran; it was interrupted %s and will not run again.", what, times)
}

// start runs the workers under a base context that outlives ctx's
// cancellation (a request's, at startup); stop cancels it.
func (p *jobPool) start(ctx context.Context) {
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancelBase = cancel
	for range p.workers {
		p.wg.Go(func() { p.work(base) })
	}
}

// stop cancels running jobs and waits for the workers. Jobs cut off stay
// started and run again at the next start.
func (p *jobPool) stop() {
	p.cancelBase()
	p.wg.Wait()
}

// notify wakes one idle worker.
func (p *jobPool) notify() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// work is a worker's loop: claim a job and run it; when none waits, sleep
// until woken or for 5 s; stop when ctx ends.
func (p *jobPool) work(ctx context.Context) {
	for {
		id, err := p.claim(ctx)
		if err != nil && ctx.Err() == nil {
			p.log.ErrorContext(ctx, "claim "+p.what, LogErr, err)
		}
		if id != "" {
			p.runJob(ctx, id)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-time.After(5 * time.Second):
		}
	}
}

// claim hands a job to a worker: an orphan of a previous process first,
// else the oldest requested job (claimNext).
func (p *jobPool) claim(ctx context.Context) (string, error) {
	p.claimMu.Lock()
	defer p.claimMu.Unlock()
	p.mu.Lock()
	if n := len(p.orphans); n > 0 {
		id := p.orphans[0]
		p.orphans = p.orphans[1:]
		if p.holdOrphan != nil {
			p.holdOrphan(id)
		}
		p.mu.Unlock()
		return id, nil
	}
	p.mu.Unlock()
	return p.claimNext(ctx)
}
