package engine

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeJobs is a catalog queue and a record of what a jobPool did with it.
type fakeJobs struct {
	mu          sync.Mutex
	queue       []string // requested jobs, oldest first
	ran         []string
	held        []string
	messages    []string
	failed      []string
	interrupted map[string]int
	ranOne      chan string
}

func newFakePool(t *testing.T, f *fakeJobs, workers int) *jobPool {
	t.Helper()
	p := newJobPool("job", slog.New(slog.DiscardHandler), workers)
	p.maxRestarts = 3
	p.tx = func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }
	p.addMessage = f.addMessage
	p.interrupted = func(_ context.Context, id string) (int, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.interrupted == nil {
			f.interrupted = map[string]int{}
		}
		f.interrupted[id]++
		return f.interrupted[id], nil
	}
	p.fail = func(_ context.Context, id string, m Message) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.failed = append(f.failed, id+": "+m.Severity+": "+m.Text)
		return nil
	}
	p.claimNext = func(context.Context) (string, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.queue) == 0 {
			return "", nil
		}
		id := f.queue[0]
		f.queue = f.queue[1:]
		return id, nil
	}
	p.holdOrphan = func(id string) {
		if p.mu.TryLock() {
			p.mu.Unlock()
			t.Errorf("holdOrphan(%s) called without mu held", id)
		}
		f.mu.Lock()
		f.held = append(f.held, id)
		f.mu.Unlock()
	}
	p.runJob = func(_ context.Context, id string) {
		f.mu.Lock()
		f.ran = append(f.ran, id)
		f.mu.Unlock()
		f.ranOne <- id
	}
	return &p
}

func (f *fakeJobs) addMessage(_ context.Context, id string, m Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.messages = append(f.messages, id+": "+m.Severity+": "+m.Text)
	return nil
}

func waitRan(t *testing.T, f *fakeJobs, n int) {
	t.Helper()
	for range n {
		select {
		case <-f.ranOne:
		case <-time.After(3 * time.Second): // below the 5 s poll: only notify can wake the worker in time
			t.Fatalf("a job did not run in time")
		}
	}
}

// TestJobPoolOrder checks the claim order: orphans first, in the order
// recovery found them and with their restart message, then requested jobs
// oldest first; a notify wakes an idle worker.
func TestJobPoolOrder(t *testing.T) {
	f := &fakeJobs{queue: []string{"r1", "r2"}, ranOne: make(chan string, 8)}
	p := newFakePool(t, f, 1)
	for _, id := range []string{"o1", "o2"} {
		if queued, err := p.restart(t.Context(), id); !queued || err != nil {
			t.Fatalf("restart(%s) = %v, %v; want true, nil", id, queued, err)
		}
	}
	p.start(t.Context())
	waitRan(t, f, 4)
	f.mu.Lock()
	f.queue = append(f.queue, "r3")
	f.mu.Unlock()
	p.notify()
	waitRan(t, f, 1)
	p.stop()

	if want := []string{"o1", "o2", "r1", "r2", "r3"}; !slices.Equal(f.ran, want) {
		t.Errorf("ran = %v, want %v", f.ran, want)
	}
	if want := []string{"o1", "o2"}; !slices.Equal(f.held, want) {
		t.Errorf("held = %v, want %v", f.held, want)
	}
	want := []string{
		"o1: informational: The server restarted during this job; it runs again from the start.",
		"o2: informational: The server restarted during this job; it runs again from the start.",
	}
	if !slices.Equal(f.messages, want) {
		t.Errorf("messages = %q, want %q", f.messages, want)
	}
}

// TestJobPoolRestartCap checks the cap on interruptions: a job runs again
// after each of its first maxRestarts-1 interruptions, with the restart
// message, and the maxRestarts'th fails it, without queueing it.
func TestJobPoolRestartCap(t *testing.T) {
	f := &fakeJobs{ranOne: make(chan string, 8)}
	p := newFakePool(t, f, 1)
	for i := range 5 {
		queued, err := p.restart(t.Context(), "j")
		if err != nil {
			t.Fatal(err)
		}
		if want := i < 2; queued != want {
			t.Errorf("restart #%d queued = %v, want %v", i+1, queued, want)
		}
		if n := len(p.orphans); n != min(i+1, 2) {
			t.Errorf("after restart #%d: %d orphans, want %d", i+1, n, min(i+1, 2))
		}
	}
	if len(f.messages) != 2 {
		t.Errorf("messages = %q, want the restart message twice", f.messages)
	}
	want := "j: error: The server stopped while this job ran; it was interrupted 3 times and will not run again."
	if len(f.failed) == 0 || f.failed[0] != want {
		t.Errorf("failed = %q, want first %q", f.failed, want)
	}
	if got := interruptedMessage("import", 1); got != "The server stopped while this import ran; it was interrupted once and will not run again." {
		t.Errorf("interruptedMessage(import, 1) = %q", got)
	}
}

// TestJobPoolStop checks that stop cancels a running job's context and
// waits for its worker.
func TestJobPoolStop(t *testing.T) {
	f := &fakeJobs{queue: []string{"r1"}, ranOne: make(chan string, 1)}
	p := newFakePool(t, f, 2)
	started := make(chan struct{})
	var finished bool
	p.runJob = func(ctx context.Context, id string) {
		close(started)
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		finished = true
	}
	p.start(t.Context())
	<-started
	p.stop()
	if !finished {
		t.Errorf("stop returned before the running job ended")
	}
}
