package engine

import (
	"os"
	"path/filepath"
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
