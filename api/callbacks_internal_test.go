package api

import (
	"encoding/json"
	"testing"

	"github.com/vaticml/vatic/engine"
)

type delivered struct {
	id, url, token string
	body           []byte
}

type deliveries []delivered

func (r *deliveries) Deliver(id, url, token string, body []byte) {
	*r = append(*r, delivered{id, url, token, body})
}

// TestCallbacksNotify checks that Callbacks renders a session as GET
// /sessions/{id} does, with links under the base of the moment, and skips
// sessions without a callbackUrl.
func TestCallbacksNotify(t *testing.T) {
	var got deliveries
	base := "http://first/v1"
	c := NewCallbacks(Options{Compat: CompatOriginal}, func() string { return base }, &got)
	s := engine.Session{ID: "s1", Status: engine.StatusStarted, CallbackURL: "http://hook/x", WebhookToken: "tok", DataSourceName: "d"}

	c.Notify(engine.Session{ID: "s0"})
	if len(got) != 0 {
		t.Fatalf("Notify(session without callbackUrl) delivered %d bodies, want 0", len(got))
	}
	c.Notify(s)
	base = "http://second/v1"
	c.Notify(s)
	if len(got) != 2 {
		t.Fatalf("deliveries = %d, want 2", len(got))
	}
	for i, b := range []string{"http://first/v1", "http://second/v1"} {
		d := got[i]
		if d.id != "s1" || d.url != "http://hook/x" || d.token != "tok" {
			t.Errorf("delivery %d = (%s, %s, %s), want (s1, http://hook/x, tok)", i, d.id, d.url, d.token)
		}
		want, err := jsonMarshal(toSessionJSON(b, s, sessionLinksFull, CompatOriginal))
		if err != nil {
			t.Fatal(err)
		}
		if string(d.body) != string(want) {
			t.Errorf("delivery %d body = %s, want %s", i, d.body, want)
		}
		var sj sessionJSON
		if err := json.Unmarshal(d.body, &sj); err != nil || len(sj.Links) == 0 || sj.Links[len(sj.Links)-1].Href != b+"/sessions/s1" {
			t.Errorf("delivery %d self link under %s missing: %s (%v)", i, b, d.body, err)
		}
	}
}
