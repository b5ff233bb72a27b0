package api_test

import (
	"net/http"
	"regexp"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// messageListJSON is GET /messages (REFERENCE §8.10).
type messageListJSON struct {
	Items []struct {
		MessageID      string  `json:"messageId"`
		Content        string  `json:"content"`
		Severity       string  `json:"severity"`
		UserID         *string `json:"userId"`
		OrganizationID *string `json:"organizationId"`
		CreatedAt      string  `json:"createdAt"`
		RelatedID      string  `json:"relatedId"`
		RelatedTo      string  `json:"relatedTo"`
	} `json:"items"`
	PageNumber int `json:"pageNumber"`
	PageSize   int `json:"pageSize"`
	TotalCount int `json:"totalCount"`
	TotalPages int `json:"totalPages"`
}

func (s *testServer) messages(t *testing.T, query string) messageListJSON {
	t.Helper()
	res := s.do(t, http.MethodGet, "/v1/messages"+query, nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /messages%s = %d %s", query, res.status, res.body)
	}
	return decode[messageListJSON](t, res)
}

var createdAtFormat = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?\+00:00$`)

func TestMessages(t *testing.T) {
	// A clock that moves a second per reading orders every message.
	var tick atomic.Int64
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := newServer(t, withClock(func() time.Time { return start.Add(time.Duration(tick.Add(1)) * time.Second) }))

	if got := s.messages(t, ""); got.TotalCount != 0 || len(got.Items) != 0 {
		t.Fatalf("messages of a new server = %+v, want none", got)
	}

	session := s.regression(t, "friedman", 200)
	var shown, debug []string // the session's messages as its messages array shows them
	for _, m := range session.Messages {
		if m.Severity == "debug" {
			debug = append(debug, m.Message)
		} else {
			shown = append(shown, m.Message)
		}
	}
	if len(shown) == 0 || len(debug) == 0 {
		t.Fatalf("session messages = %+v, want informational and debug ones", session.Messages)
	}
	_, base := serveFiles(t)
	imp := postImport(t, s, "url", map[string]any{"dataSetName": "missing", "url": base + "/missing.csv"})
	if done := waitImport(t, s, imp.ImportID); done.Status != "failed" {
		t.Fatalf("import = %+v, want failed", done)
	}

	all := s.messages(t, "")
	if all.TotalCount != len(shown)+1 || len(all.Items) != all.TotalCount {
		t.Fatalf("GET /messages = %d of %d items, want the session's %d non-debug messages and the import's error",
			len(all.Items), all.TotalCount, len(shown))
	}
	// Newest first: the import failed after the session completed, and the
	// session's last message comes before its first.
	first := all.Items[0]
	if first.RelatedTo != "import" || first.RelatedID != imp.ImportID || first.Severity != "error" {
		t.Errorf("newest message = %+v, want the import's error", first)
	}
	var contents []string
	for i, m := range all.Items {
		if m.UserID == nil || *m.UserID != "" || m.OrganizationID == nil || *m.OrganizationID != "" {
			t.Errorf("item %d userId/organizationId = %v/%v, want both \"\"", i, m.UserID, m.OrganizationID)
		}
		if !createdAtFormat.MatchString(m.CreatedAt) {
			t.Errorf("item %d createdAt = %q", i, m.CreatedAt)
		}
		if i > 0 && m.CreatedAt > all.Items[i-1].CreatedAt {
			t.Errorf("item %d (%s) is newer than item %d (%s)", i, m.CreatedAt, i-1, all.Items[i-1].CreatedAt)
		}
		if !anyID.MatchString(m.MessageID) {
			t.Errorf("item %d messageId = %q, want a GUID", i, m.MessageID)
		}
		if m.RelatedTo == "session" {
			if m.RelatedID != session.SessionID {
				t.Errorf("item %d relatedId = %q, want the session %q", i, m.RelatedID, session.SessionID)
			}
			contents = append(contents, m.Content)
		}
	}
	slices.Reverse(contents)
	if !slices.Equal(contents, shown) {
		t.Errorf("session messages, oldest first = %q\nwant the session's own %q", contents, shown)
	}
	again := s.messages(t, "")
	for i := range all.Items {
		if again.Items[i].MessageID != all.Items[i].MessageID {
			t.Errorf("item %d messageId changed between requests: %s then %s", i, all.Items[i].MessageID, again.Items[i].MessageID)
		}
	}
	ids := map[string]bool{}
	for _, m := range all.Items {
		ids[m.MessageID] = true
	}
	if len(ids) != len(all.Items) {
		t.Errorf("%d distinct messageIds for %d messages", len(ids), len(all.Items))
	}

	t.Run("relatedId", func(t *testing.T) {
		got := s.messages(t, "?relatedId="+session.SessionID)
		if got.TotalCount != len(shown) {
			t.Errorf("relatedId=session: %d messages, want %d", got.TotalCount, len(shown))
		}
		for _, m := range got.Items {
			if m.RelatedID != session.SessionID {
				t.Errorf("relatedId=session gave %+v", m)
			}
		}
		res := s.do(t, http.MethodGet, "/v1/messages?relatedID="+imp.ImportID, nil)
		goldenSession(t, "messages_import", res.body)
		if got := s.messages(t, "?relatedId=0b7c6a52-1d9e-4c1e-9a55-8f3c2f1e0d4b"); got.TotalCount != 0 {
			t.Errorf("relatedId of nothing = %+v, want an empty list", got)
		}
	})
	t.Run("levels", func(t *testing.T) {
		got := s.messages(t, "?levels=debug")
		if got.TotalCount != len(debug) {
			t.Errorf("levels=debug: %d messages, want the session's %d", got.TotalCount, len(debug))
		}
		got = s.messages(t, "?levels=Error&levels=warning,")
		for _, m := range got.Items {
			if m.Severity != "error" && m.Severity != "warning" {
				t.Errorf("levels=error,warning gave %+v", m)
			}
		}
		if got.TotalCount == 0 {
			t.Errorf("levels=error,warning: none, want at least the import's error")
		}
		every := s.messages(t, "?levels=debug,informational,warning,error,status")
		if every.TotalCount != len(shown)+len(debug)+1 {
			t.Errorf("every level: %d messages, want %d", every.TotalCount, len(shown)+len(debug)+1)
		}
	})
	t.Run("paging", func(t *testing.T) {
		got := s.messages(t, "?page=1&pageSize=1")
		if got.TotalCount != all.TotalCount || got.PageNumber != 1 || got.PageSize != 1 || got.TotalPages != all.TotalCount ||
			len(got.Items) != 1 || got.Items[0].MessageID != all.Items[1].MessageID {
			t.Errorf("page 1 of size 1 = %+v, want the second message of %d", got, all.TotalCount)
		}
		if got := s.messages(t, "?page=99"); len(got.Items) != 0 || got.TotalCount != all.TotalCount {
			t.Errorf("page past the end = %+v", got)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"?relatedId=not-a-guid", "relatedId"},
			{"?levels=loud", "levels"},
			{"?levels=debug,verbose", "levels"},
			{"?page=-1", "page"},
			{"?pageSize=0", "pageSize"},
		} {
			res := s.do(t, http.MethodGet, "/v1/messages"+c.query, nil)
			wantError(t, "GET /messages"+c.query, res, http.StatusBadRequest, "RequestValidation", c.field)
		}
		res := s.do(t, http.MethodGet, "/v1/messages", nil, "api-key", "")
		if res.status != http.StatusUnauthorized {
			t.Errorf("GET /messages without a key = %d, want 401", res.status)
		}
	})
	t.Run("a deleted session's messages go with it", func(t *testing.T) {
		if res := s.do(t, http.MethodDelete, "/v1/sessions/"+session.SessionID, nil); res.status != http.StatusNoContent {
			t.Fatalf("DELETE session = %d %s", res.status, res.body)
		}
		got := s.messages(t, "?levels=debug,informational,warning,error")
		if got.TotalCount != 1 || got.Items[0].RelatedID != imp.ImportID {
			t.Errorf("after the delete = %+v, want only the import's message", got)
		}
	})
}

func TestMetricDefinitions(t *testing.T) {
	s := newServer(t)
	res := s.do(t, http.MethodGet, "/v1/metrics", nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /metrics = %d %s", res.status, res.body)
	}
	golden(t, "metrics", res.body)
	got := decode[struct {
		Metrics []struct{ Key, Name, Description string } `json:"metrics"`
	}](t, res)
	keys := map[string]bool{}
	for _, m := range got.Metrics {
		if m.Key == "" || m.Name == "" || m.Description == "" || keys[m.Key] {
			t.Errorf("metric %+v: empty field or repeated key", m)
		}
		keys[m.Key] = true
	}
	// Every metric a session reports is defined.
	session := s.regression(t, "friedman", 200)
	res = s.do(t, http.MethodGet, "/v1/sessions/"+session.SessionID+"/contest/selection", nil)
	selection := decode[struct {
		MetricSets []struct{ Metrics map[string]float64 } `json:"metricSets"`
	}](t, res)
	res = s.do(t, http.MethodGet, "/v1/sessions/"+session.SessionID+"/results", nil)
	results := decode[struct{ Metrics map[string]float64 }](t, res)
	reported := []map[string]float64{results.Metrics}
	for _, m := range selection.MetricSets {
		reported = append(reported, m.Metrics)
	}
	for _, ms := range reported {
		for k := range ms {
			if !keys[k] {
				t.Errorf("metric %q is reported but not defined by GET /metrics", k)
			}
		}
	}
	if len(results.Metrics) == 0 || len(selection.MetricSets) == 0 {
		t.Errorf("results metrics %v, selection %v: want some of each", results.Metrics, selection.MetricSets)
	}
	if res := s.do(t, http.MethodGet, "/v1/metrics", nil, "api-key", ""); res.status != http.StatusUnauthorized {
		t.Errorf("GET /metrics without a key = %d, want 401", res.status)
	}
}
