package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A writer queued behind a dataset's lock stops waiting when its context
// ends, and the lock still serves the next writer once released.
func TestLockWaitEndsWithContext(t *testing.T) {
	e := &Engine{locks: map[string]chan struct{}{}}
	unlock, err := e.lock(t.Context(), "Sales")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.lock(ctx, "sales"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock while held = %v, want DeadlineExceeded (names match case-insensitively)", err)
	}
	canceled, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	unlock()
	if _, err := e.lock(canceled, "sales"); !errors.Is(err, context.Canceled) {
		t.Errorf("lock with a canceled context = %v, want Canceled", err)
	}
	got := make(chan func(), 1)
	go func() {
		u, err := e.lock(t.Context(), "SALES")
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	select {
	case u := <-got:
		u()
	case <-time.After(5 * time.Second):
		t.Fatal("lock not granted after release")
	}
}
