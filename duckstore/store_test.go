package duckstore_test

import (
	"path/filepath"
	"testing"

	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/engine/enginetest"
)

func TestStoreConformance(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		enginetest.StoreSuite(t, func(t *testing.T) engine.Store { return open(t, "") })
	})
	t.Run("file", func(t *testing.T) {
		enginetest.StoreSuite(t, func(t *testing.T) engine.Store {
			return open(t, filepath.Join(t.TempDir(), "vatic.duckdb"))
		})
	})
}

func open(t *testing.T, path string) *duckstore.Store {
	t.Helper()
	s, err := duckstore.Open(t.Context(), path, duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatalf("Open(%q) = %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
	return s
}

// The file survives a close: a reopened store sees committed data.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vatic.duckdb")
	s, err := duckstore.Open(t.Context(), path, duckstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(t.Context(), `CREATE TABLE t AS SELECT 42 AS x`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	rows, err := s.Rows(t.Context(), `SELECT x FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var x int
	if !rows.Next() || rows.Scan(&x) != nil || x != 42 {
		t.Errorf("reopened value = %d, want 42", x)
	}
}
