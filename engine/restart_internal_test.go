package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaticml/vatic/duckstore"
)

// openEngineAt opens an engine on <dir>/vatic.duckdb; close stops it and
// closes the store, as a shutdown does.
func openEngineAt(t *testing.T, dir string, opts Options) (e *Engine, close func()) {
	t.Helper()
	store, err := duckstore.Open(t.Context(), filepath.Join(dir, "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, err = New(t.Context(), store, opts)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	closed := false
	close = func() {
		if !closed {
			closed = true
			e.Close()
			store.Close()
		}
	}
	t.Cleanup(close)
	return e, close
}

// An import's completion is written inside the transaction of its rows:
// when recording it fails, the rows roll back with it, so a crash can
// never keep the rows of an import that then runs again.
func TestPutDatasetAlsoCommitsWithRows(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "ds", "a,b\n1,x\n")
	put := func(also func(ctx context.Context, d Dataset) error) error {
		_, _, err := e.putDataset(t.Context(), PutRequest{Name: "ds", Body: strings.NewReader("a,b\n2,y\n3,z\n"), Format: FormatHints{ContentType: "text/csv"}}, also)
		return err
	}
	boom := errors.New("boom")
	if err := put(func(ctx context.Context, d Dataset) error {
		if d.RowCount != 3 {
			t.Errorf("also sees %d rows, want 3", d.RowCount)
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("putDataset with failing also = %v, want boom", err)
	}
	if d, err := e.Dataset(t.Context(), "ds"); err != nil || d.RowCount != 1 {
		t.Fatalf("after a failed also: %d rows (%v), want the 1 from before", d.RowCount, err)
	}
	if err := put(func(context.Context, Dataset) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if d, err := e.Dataset(t.Context(), "ds"); err != nil || d.RowCount != 3 {
		t.Errorf("after a good also: %d rows (%v), want 3", d.RowCount, err)
	}
}

// New removes the spool files a killed process left in TempDir, and only
// those.
func TestNewRemovesSpools(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vatic-ingest-123.json", "other.txt"} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	openEngineAt(t, dir, Options{TempDir: tmp})
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 || entries[0].Name() != "other.txt" {
		t.Errorf("TempDir after New: %v, want only other.txt", entries)
	}
}
