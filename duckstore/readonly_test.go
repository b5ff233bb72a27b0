package duckstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaticml/vatic/duckstore"
)

// sealed opens a file database closed to external access, with one table
// data.t of three rows.
func sealed(t *testing.T) (*duckstore.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := duckstore.Open(t.Context(), filepath.Join(dir, "vatic.duckdb"), duckstore.Options{Threads: 2, NoExternalAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, q := range []string{`CREATE SCHEMA data`, `CREATE TABLE data.t AS SELECT range AS x FROM range(3)`} {
		if _, err := s.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return s, dir
}

func count(t *testing.T, s *duckstore.Store, q string) int64 {
	t.Helper()
	rr, err := s.ReadOnlyQuery(t.Context(), q)
	if err != nil {
		t.Fatalf("ReadOnlyQuery(%s) = %v", q, err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("ReadOnlyQuery(%s): %v", q, err)
	}
	return n
}

func TestReadOnlyQuery(t *testing.T) {
	s, dir := sealed(t)
	if n := count(t, s, `SELECT * FROM data.t`); n != 3 {
		t.Errorf("rows = %d, want 3", n)
	}
	rr, err := s.ReadOnlyQuery(t.Context(), `SELECT * FROM data.t WHERE x >= ?`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() || rr.RecordBatch().NumRows() != 2 {
		t.Errorf("parameterised query: want one batch of 2 rows (err %v)", rr.Err())
	}
	rr.Release()
	secret := filepath.Join(dir, "secret.csv")
	if err := os.WriteFile(secret, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "out.csv")
	for _, c := range []struct {
		query string
		want  error
	}{
		{`INSERT INTO data.t VALUES (9)`, duckstore.ErrRefused},
		{`DROP TABLE data.t`, duckstore.ErrRefused},
		{`CREATE TABLE data.u (x INT)`, duckstore.ErrRefused},
		{`COPY data.t TO '` + outside + `'`, duckstore.ErrRefused},
		{`ATTACH ':memory:' AS m`, duckstore.ErrRefused},
		{`INSTALL httpfs`, duckstore.ErrRefused},
		{`LOAD httpfs`, duckstore.ErrRefused},
		{`SET threads = 1`, duckstore.ErrRefused},
		{`CALL checkpoint()`, duckstore.ErrRefused},
		{`SELECT * FROM read_csv('/etc/passwd')`, duckstore.ErrRefused},
		{`SELECT * FROM read_csv('` + secret + `')`, duckstore.ErrRefused},
		{`SELECT * FROM '` + secret + `'`, duckstore.ErrRefused},
		{`SELECT * FROM glob('/etc/*')`, duckstore.ErrRefused},
		{`SELECT * FROM read_text('https://example.com/')`, duckstore.ErrRefused},
		{`COMMIT; INSERT INTO data.t VALUES (9)`, duckstore.ErrRefused},
		{`SELECT 1; INSERT INTO data.t VALUES (9)`, duckstore.ErrRefused},
		{``, duckstore.ErrRefused},
		{`SELECT * FROM enable_logging()`, duckstore.ErrRefused},
		{`SELECT * FROM enable_logging(storage='file', storage_path='` + outside + `')`, duckstore.ErrRefused},
		{`SELECT * FROM range(3), (SELECT * FROM enable_profiling())`, duckstore.ErrRefused},
		{`SELECT 1 WHERE 1 IN (SELECT 1 FROM force_checkpoint())`, duckstore.ErrRefused},
		{`SELECT * FROM checkpoint()`, duckstore.ErrRefused},
		{`SELECT * FROM query('SELECT * FROM enable_logging()')`, duckstore.ErrRefused},
		{`WITH x AS (SELECT * FROM json_execute_serialized_sql('{}')) SELECT * FROM x`, duckstore.ErrRefused},
		{`PRAGMA enable_profiling`, duckstore.ErrRefused},
		{`SELECT nextval('s')`, duckstore.ErrInvalidQuery},
		{`SELEC 1`, duckstore.ErrInvalidQuery},
		{`SELECT * FROM data.nope`, duckstore.ErrInvalidQuery},
		{`SELECT 1/0::INT AS a, 'x'::INT`, duckstore.ErrInvalidQuery},
	} {
		rr, err := s.ReadOnlyQuery(t.Context(), c.query)
		if err == nil {
			rr.Release()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("ReadOnlyQuery(%s) = %v, want %v", c.query, err, c.want)
		}
		if cerr := s.CheckReadOnly(t.Context(), c.query); !errors.Is(cerr, c.want) && !strings.HasPrefix(c.query, "SELECT 1/0") {
			t.Errorf("CheckReadOnly(%s) = %v, want %v", c.query, cerr, c.want)
		}
	}
	// Reading statements DuckDB rewrites, generators and the catalog
	// functions pass.
	for _, q := range []string{`SHOW ALL TABLES`, `DESCRIBE data.t`, `SUMMARIZE data.t`, `FROM range(2)`,
		`SELECT * FROM duckdb_tables()`, `SELECT * FROM pragma_table_info('data.t')`, `SELECT unnest([1, 2])`,
		`WITH a AS (SELECT x FROM data.t) SELECT * FROM a JOIN generate_series(0, 2) g ON a.x = g.generate_series`} {
		if n := count(t, s, q); n == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
	// Nothing above wrote: the table is as created and no file appeared.
	if n := count(t, s, `SELECT * FROM data.t`); n != 3 {
		t.Errorf("rows after the refusals = %d, want 3", n)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("COPY wrote %s: %v", outside, err)
	}
}

// A read-only query sees the data committed when it began: a transaction
// in progress elsewhere is invisible, during and after its commit.
func TestReadOnlyQuerySnapshot(t *testing.T) {
	s, _ := sealed(t)
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.Tx(t.Context(), func(ctx context.Context) error {
			if _, err := s.Exec(ctx, `INSERT INTO data.t SELECT range FROM range(100)`); err != nil {
				return err
			}
			close(started)
			<-done
			return nil
		})
	}()
	<-started
	if n := count(t, s, `SELECT * FROM data.t`); n != 3 {
		t.Errorf("rows during an uncommitted insert = %d, want 3", n)
	}
	rr, err := s.ReadOnlyQuery(t.Context(), `SELECT * FROM data.t`)
	if err != nil {
		t.Fatal(err)
	}
	close(done)
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	rr.Release()
	if n != 3 {
		t.Errorf("rows of a query begun before the commit = %d, want 3", n)
	}
}

// A cancelled context interrupts the query.
func TestReadOnlyQueryCancel(t *testing.T) {
	s, _ := sealed(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.ReadOnlyQuery(ctx, `SELECT count(*) FROM range(1000000000) a`); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ReadOnlyQuery = %v, want context.Canceled", err)
	}
	// The store still answers.
	if n := count(t, s, `SELECT * FROM data.t`); n != 3 {
		t.Errorf("rows = %d, want 3", n)
	}
}

// A store opened without NoExternalAccess refuses read-only queries: the
// file system would be open to them.
func TestReadOnlyQueryNeedsSealedStore(t *testing.T) {
	s := open(t, "")
	if _, err := s.ReadOnlyQuery(t.Context(), `SELECT 1`); err == nil {
		t.Error("ReadOnlyQuery on an unsealed store succeeded")
	}
}
