package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaticml/vatic/remote/remotetest"
)

// The address guard also refuses this host's own interface address, not
// just loopback: a server on this machine, reached through the address of
// one of its interfaces, is refused to URL imports, iCal calendars and
// session callbacks with the guard on, and reached without it. (The tests
// are skipped on a host with no address besides loopback and link-local.)

func TestImportFromHostAddress(t *testing.T) {
	t.Parallel()
	base := remotetest.ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		io.WriteString(w, "a,b\n1,2\n")
	}))
	t.Run("refused with the guard on", func(t *testing.T) {
		g := newServer(t, withGuard())
		imp := postImport(t, g, "url", map[string]any{"dataSetName": "x", "url": base + "/rows.csv"})
		done := waitImport(t, g, imp.ImportID)
		if done.Status != "failed" || len(done.Messages) == 0 ||
			!strings.Contains(done.Messages[len(done.Messages)-1].Message, "this server's own") {
			t.Errorf("import from %s with the guard on = %+v, want failed with the refusal", base, done)
		}
	})
	t.Run("read with private addresses allowed", func(t *testing.T) {
		s := newServer(t)
		imp := postImport(t, s, "url", map[string]any{"dataSetName": "x", "url": base + "/rows.csv"})
		if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
			t.Fatalf("import from %s = %+v, want completed", base, done)
		}
		if d := s.get(t, "x", ""); d.RowCount != 1 {
			t.Errorf("rowCount = %d, want 1", d.RowCount)
		}
	})
}

func TestViewICalFromHostAddress(t *testing.T) {
	t.Parallel()
	ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Promotions\r\n" +
		"BEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Sale\r\nDTSTART;VALUE=DATE:20170704\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	base := remotetest.ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		io.WriteString(w, ics)
	}))
	view := `{"dataSetName":"daily","joins":[{"calendar":{"url":"` + base + `/promo.ics"}}]}`
	t.Run("refused with the guard on", func(t *testing.T) {
		g := newServer(t, withGuard())
		g.putCSV(t, "daily", "day,sales\n2017-07-04,5\n")
		e := wantError(t, "PUT /views/p", g.putView(t, "p", view), 400, "RequestValidation", "joins[0].calendar.url")
		if !strings.Contains(fmt.Sprint(e.ErrorDetails), "this server's own") {
			t.Errorf("errorDetails = %v, want the refusal", e.ErrorDetails)
		}
	})
	t.Run("read with private addresses allowed", func(t *testing.T) {
		s := newServer(t)
		s.putCSV(t, "daily", "day,sales\n2017-07-04,5\n")
		if def := s.mustPutView(t, "p", view); def.Columns["event:Promotions:Sale"].DataType == "" {
			t.Errorf("columns = %v, want the calendar's event", def.Columns)
		}
	})
}

func TestSessionCallbackToHostAddress(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string][]string{} // path → statuses delivered
	base := remotetest.ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sj sessionJSON
		_ = json.NewDecoder(r.Body).Decode(&sj)
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], sj.Status)
		mu.Unlock()
	}))
	delivered := func(path string) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got[path]...)
	}
	data := firstLines(friedman1(t), 100)
	session := func(s *testServer, path string) {
		s.putCSV(t, "friedman", data)
		sj := s.createSession(t, fmt.Sprintf(`{"dataSourceName": "friedman", "targetColumn": "y", "predictionDomain": "regression", "callbackUrl": %q}`, base+path))
		s.waitSession(t, sj.SessionID)
	}
	// The unguarded server shows the callbacks do arrive; once its last
	// one has, the guarded server's (sent meanwhile, refused at dial time)
	// would have too.
	session(newServer(t, withGuard()), "/guarded")
	session(newServer(t), "/open")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(strings.Join(delivered("/open"), ","), "completed") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if open := delivered("/open"); len(open) == 0 || open[len(open)-1] != "completed" {
		t.Errorf("callbacks with private addresses allowed = %v, want them to end with completed", open)
	}
	if guarded := delivered("/guarded"); len(guarded) != 0 {
		t.Errorf("callbacks to %s with the guard on = %v, want none", base, guarded)
	}
}
