package webhook_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/webhook"
)

// send delivers one notification to url and waits for the sender to stop.
func send(t *testing.T, allowPrivate bool, url string) {
	t.Helper()
	c := remote.New(remote.Options{AllowPrivate: allowPrivate})
	t.Cleanup(c.Close)
	s := webhook.New(c.Transport(), webhook.Options{Backoff: time.Millisecond, Timeout: 2 * time.Second})
	s.Deliver("s1", url, "tok", []byte(`{"sessionId":"s1"}`))
	time.Sleep(200 * time.Millisecond)
	s.Close()
}

func TestRetriesThenGivesUp(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Nexosis-Webhook-Token") != "tok" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers = %v", r.Header)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	send(t, true, srv.URL)
	if n := hits.Load(); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
}

func TestNoRedirects(t *testing.T) {
	var target atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) })
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { target.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	send(t, true, srv.URL+"/hook")
	if n := target.Load(); n != 0 {
		t.Errorf("redirect target reached %d times, want 0", n)
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	send(t, false, srv.URL)
	if n := hits.Load(); n != 0 {
		t.Errorf("loopback callback reached %d times with the guard on, want 0", n)
	}
}

func TestDelivered(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method
	}))
	defer srv.Close()
	send(t, true, srv.URL)
	select {
	case m := <-got:
		if m != http.MethodPost {
			t.Errorf("method = %s, want POST", m)
		}
	default:
		t.Errorf("no delivery")
	}
}
