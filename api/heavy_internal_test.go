package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A heavy request that finds every slot taken waits HeavyWait, then gets
// 503 ServiceUnavailable with Retry-After; a freed slot lets the next run.
func TestHeavyRequestsAreBounded(t *testing.T) {
	s := New(nil, Options{MaxHeavy: 1, HeavyWait: 20 * time.Millisecond})
	running, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		r := httptest.NewRequest(http.MethodGet, "/v1/data/a/stats", nil)
		done <- s.heavy(httptest.NewRecorder(), r, func() error {
			close(running)
			<-release
			return nil
		})
	}()
	<-running

	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/v1/data/b/stats", nil)
	start := time.Now()
	err := s.heavy(w, r, func() error {
		t.Error("heavy ran work while the only slot was taken")
		return nil
	})
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("heavy gave up after %v, want at least HeavyWait (20ms)", waited)
	}
	s.writeError(w, r, err)
	var body errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != 503 || w.Header().Get("Retry-After") != heavyRetryAfter || body.StatusCode != 503 || body.ErrorType != "ServiceUnavailable" {
		t.Errorf("busy heavy request = %d, Retry-After %q, %s; want 503, %s, ServiceUnavailable", w.Code, w.Header().Get("Retry-After"), w.Body, heavyRetryAfter)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first heavy request = %v", err)
	}
	ran := false
	if err := s.heavy(httptest.NewRecorder(), r, func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("heavy after the slot was freed = %v, ran %v; want nil, true", err, ran)
	}
}
