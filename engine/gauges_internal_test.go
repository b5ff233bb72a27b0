package engine

import (
	"slices"
	"testing"
	"time"
)

// Gauges counts jobs by kind, type and status from the catalog, skips
// deleted sessions, and bins finished jobs' times from request to final
// status.
func TestGauges(t *testing.T) {
	e, _ := openEngineAt(t, t.TempDir(), Options{SessionConcurrency: 2})
	ctx := t.Context()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, s := range []struct {
		domain, status string
		secs           int
		deleted        bool
	}{
		{"regression", "completed", 3, false},
		{"regression", "completed", 40, false},
		{"classification", "failed", 1, false},
		{"regression", "completed", 2, true},
	} {
		id := []string{"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed", "2c9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed",
			"3d9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed", "4e9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"}[i]
		if _, err := e.store.Exec(ctx, `INSERT INTO catalog.sessions (id, type, domain, status, data_source, target, name,
			callback_url, webhook_token, is_estimate, requested, status_date, request, columns, deleted)
			VALUES (?, 'model', ?, ?, 'd', 'y', '', '', '', false, ?, ?, '{}', '{}', ?)`,
			id, s.domain, s.status, at, at.Add(time.Duration(s.secs)*time.Second), s.deleted); err != nil {
			t.Fatal(err)
		}
	}
	e.rowsIngested.Add(7)
	g, err := e.Gauges(ctx, []float64{1, 5, 60})
	if err != nil {
		t.Fatal(err)
	}
	wantJobs := []JobCount{{"session", "classification", "failed", 1}, {"session", "regression", "completed", 2}}
	if !slices.Equal(g.Jobs, wantJobs) {
		t.Errorf("Jobs = %+v, want %+v", g.Jobs, wantJobs)
	}
	if len(g.Durations) != 2 {
		t.Fatalf("Durations = %+v, want completed and failed sessions", g.Durations)
	}
	done, failed := g.Durations[0], g.Durations[1]
	if done.Status != "completed" || done.Count != 2 || done.Sum != 43 || !slices.Equal(done.Buckets, []int{0, 1, 2}) {
		t.Errorf("completed durations = %+v, want 2 jobs, 43 s, buckets [0 1 2]", done)
	}
	if failed.Status != "failed" || failed.Count != 1 || failed.Sum != 1 || !slices.Equal(failed.Buckets, []int{1, 1, 1}) {
		t.Errorf("failed durations = %+v, want 1 job, 1 s, buckets [1 1 1]", failed)
	}
	if g.Workers["session"] != 2 || g.Busy["session"] != 0 || g.RowsIngested != 7 || g.RowsPredicted != 0 {
		t.Errorf("Workers %v, Busy %v, RowsIngested %d, RowsPredicted %d", g.Workers, g.Busy, g.RowsIngested, g.RowsPredicted)
	}
}
