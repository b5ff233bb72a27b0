package webhook_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
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

// This host's own interface address is refused like loopback.
func TestHostAddressRefused(t *testing.T) {
	var hits atomic.Int32
	url := remotetest.ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	send(t, false, url)
	if n := hits.Load(); n != 0 {
		t.Errorf("callback to this host's address %s reached %d times with the guard on, want 0", url, n)
	}
	send(t, true, url)
	if n := hits.Load(); n != 1 {
		t.Errorf("callback to %s with private addresses allowed reached %d times, want 1", url, n)
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

// One session's callbacks arrive in the order of its status changes, even
// when the receiver is slow and other sessions' deliveries run meanwhile.
func TestOneSessionInOrder(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ SessionID, Status string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body.Status == "requested" {
			time.Sleep(50 * time.Millisecond) // a first delivery slower than the next ones
		}
		mu.Lock()
		got[body.SessionID] = append(got[body.SessionID], body.Status)
		mu.Unlock()
	}))
	defer srv.Close()
	c := remote.New(remote.Options{AllowPrivate: true})
	t.Cleanup(c.Close)
	s := webhook.New(c.Transport(), webhook.Options{Workers: 4})
	statuses := []string{"requested", "started", "cancellationPending", "cancelled"}
	for _, st := range statuses {
		for i := range 2 {
			id := fmt.Sprint("s", i)
			body, _ := json.Marshal(map[string]string{"sessionId": id, "status": st})
			s.Deliver(id, srv.URL, "", body)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, v := range got {
			n += len(v)
		}
		mu.Unlock()
		if n == 2*len(statuses) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Close()
	for i := range 2 {
		id := fmt.Sprint("s", i)
		if g := fmt.Sprint(got[id]); g != fmt.Sprint(statuses) {
			t.Errorf("%s callbacks = %s, want %v", id, g, statuses)
		}
	}
}
