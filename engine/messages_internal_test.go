package engine

import (
	"testing"
	"time"
)

// A catalog from before migration 0008 keeps its messages: each gets its
// job's requested time, and messages written afterwards get the clock's.
func TestMessageTimesMigration(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	e, closeE := openEngineAt(t, dir, Options{Clock: func() time.Time { return now }})
	ctx := t.Context()
	sessionID, importID := "4c0e8f5a-6f0b-4d8e-9a3c-1b2d3e4f5a60", "9d8c7b6a-5f4e-4d3c-8b2a-190817263544"
	sessionAt, importAt := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, q := range []string{
		`DELETE FROM catalog.migrations WHERE version >= 8`,
		`ALTER TABLE catalog.session_messages DROP COLUMN created`,
		`ALTER TABLE catalog.import_messages DROP COLUMN created`,
	} {
		if _, err := e.store.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.sessions (id, type, domain, status, data_source, target, name,
		callback_url, webhook_token, is_estimate, requested, status_date, request, columns)
		VALUES (?, 'model', 'regression', 'completed', 'd', 'y', '', '', '', false, ?, ?, '{}', '{}')`, sessionID, sessionAt, sessionAt); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.imports (id, kind, dataset, status, parameters, request_columns,
		needs_secret, requested, status_date) VALUES (?, 'url', 'd', 'failed', '[]', '{}', false, ?, ?)`, importID, importAt, importAt); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.session_messages VALUES (?, 1, 'informational', 'old session news')`, sessionID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.import_messages VALUES (?, 1, 'error', 'old import news')`, importID); err != nil {
		t.Fatal(err)
	}
	closeE()

	e, _ = openEngineAt(t, dir, Options{Clock: func() time.Time { return now }})
	if err := e.addSessionMessages(ctx, sessionID, Message{"warning", "new session news"}); err != nil {
		t.Fatal(err)
	}
	got, total, err := e.ListMessages(ctx, MessageQuery{PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []AccountMessage{
		{Severity: "warning", Text: "new session news", Created: now, RelatedID: sessionID, RelatedTo: "session"},
		{Severity: "error", Text: "old import news", Created: importAt, RelatedID: importID, RelatedTo: "import"},
		{Severity: "informational", Text: "old session news", Created: sessionAt, RelatedID: sessionID, RelatedTo: "session"},
	}
	if total != len(want) || len(got) != len(want) {
		t.Fatalf("ListMessages = %d of %d: %+v, want %+v", len(got), total, got, want)
	}
	for i := range want {
		want[i].ID = got[i].ID
		if got[i] != want[i] || got[i].ID == "" {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
