// Package duckstore is Vatic's storage on one DuckDB database: it owns the
// *sql.DB, hands out connections, runs statements (rows as database/sql rows
// or as Arrow record readers), writes Arrow record streams into tables, and
// carries transactions. It is the only package that imports duckdb-go, hence
// the only cgo in the module. It implements engine.Store structurally.
//
// SQL text comes from the callers (the engine's catalog and view packages);
// duckstore only derives mechanical statements from Arrow schemas, quoting
// every name with columnar.QuoteIdent.
package duckstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/vaticml/vatic/columnar"
)

// Options configure a Store. Zero values mean the documented defaults.
type Options struct {
	// Threads caps DuckDB's worker threads; 0 lets DuckDB use every core.
	Threads int
	// MemoryLimit is DuckDB's memory_limit setting, e.g. "4GB"; "" keeps
	// DuckDB's default (80% of RAM).
	MemoryLimit string
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
	// NoExternalAccess closes DuckDB to everything outside its database
	// (enable_external_access = false): no file or URL readers such as
	// read_csv, no COPY, ATTACH, INSTALL or LOAD, for the whole life of the
	// database. Vatic's own statements need none of these; the server sets
	// it so that statements from Flight SQL clients (ReadOnlyQuery) cannot
	// reach the file system either. `vatic sql` and the benchmarks that
	// compare against DuckDB's own readers leave it off.
	NoExternalAccess bool
}

// Store is one DuckDB database. All methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	conn *duckdb.Connector
	log  *slog.Logger
	path string
	// sealed records NoExternalAccess: ReadOnlyQuery refuses to run
	// without it.
	sealed bool
}

// Open opens (creating if needed) the database file at path; "" opens an
// in-memory database.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var settings []string
	if opts.Threads > 0 {
		settings = append(settings, fmt.Sprintf("SET threads = %d", opts.Threads))
	}
	if opts.MemoryLimit != "" {
		settings = append(settings, "SET memory_limit = '"+strings.ReplaceAll(opts.MemoryLimit, "'", "''")+"'")
	}
	if opts.NoExternalAccess {
		// Once off, DuckDB refuses to turn it back on while the database
		// is open; each new connection repeats the (idempotent) setting.
		settings = append(settings, "SET enable_external_access = false")
	}
	c, err := duckdb.NewConnector(path, func(execer driver.ExecerContext) error {
		for _, s := range settings {
			if _, err := execer.ExecContext(ctx, s, nil); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("duckstore: open %s: %w", path, err)
	}
	db := sql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("duckstore: open %s: %w", path, err)
	}
	return &Store{db: db, conn: c, log: log, path: path, sealed: opts.NoExternalAccess}, nil
}

// Close checkpoints the database (a file-backed one) and closes it.
func (s *Store) Close() error {
	var err error
	if s.path != "" {
		if _, cerr := s.db.Exec("CHECKPOINT"); cerr != nil {
			err = fmt.Errorf("duckstore: checkpoint: %w", cerr)
		}
	}
	return errors.Join(err, s.db.Close(), s.conn.Close())
}

type txKey struct{}

// tx is a transaction in progress, carried in a context by Tx.
type tx struct{ conn *sql.Conn }

// conn returns the connection of the transaction in ctx, or a fresh pooled
// connection; release gives it back (a no-op inside a transaction).
func (s *Store) connFor(ctx context.Context) (c *sql.Conn, release func(), err error) {
	if t, ok := ctx.Value(txKey{}).(*tx); ok {
		return t.conn, func() {}, nil
	}
	c, err = s.db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("duckstore: connection: %w", err)
	}
	return c, func() { _ = c.Close() }, nil
}

// Tx runs fn in one transaction: every Store call made with the context fn
// receives runs on the transaction's connection. fn's error, or a failed
// commit, rolls everything back. Nested calls join the outer transaction.
func (s *Store) Tx(ctx context.Context, fn func(ctx context.Context) error) (err error) {
	if _, ok := ctx.Value(txKey{}).(*tx); ok {
		return fn(ctx)
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("duckstore: connection: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("duckstore: begin: %w", err)
	}
	done := false
	defer func() {
		if !done {
			// Roll back with a fresh context: ctx may be the reason we stop.
			_, _ = c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			_, _ = c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			done = true
			panic(p)
		}
	}()
	if err := fn(context.WithValue(ctx, txKey{}, &tx{conn: c})); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("duckstore: commit: %w", err)
	}
	done = true
	return nil
}

// Exec runs one statement and reports the number of rows it changed.
func (s *Store) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	res, err := c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Rows runs a query and returns database/sql rows, for small results such as
// the catalog's. The caller closes the rows, which gives the connection back.
func (s *Store) Rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if t, ok := ctx.Value(txKey{}).(*tx); ok {
		return t.conn.QueryContext(ctx, query, args...)
	}
	return s.db.QueryContext(ctx, query, args...)
}

// CreateTable creates table (quoted, possibly qualified) with one column per
// field of schema, typed by the field's Arrow type (sqlType).
func (s *Store) CreateTable(ctx context.Context, table string, schema *arrow.Schema) error {
	q, err := createStatement("CREATE TABLE", table, schema)
	if err != nil {
		return err
	}
	_, err = s.Exec(ctx, q)
	return err
}

// createStatement is the statement that creates table with a column per
// field of schema; prefix is "CREATE TABLE" or "CREATE TEMP TABLE".
func createStatement(prefix, table string, schema *arrow.Schema) (string, error) {
	var b strings.Builder
	b.WriteString(prefix + " " + table + " (")
	for i, f := range schema.Fields() {
		q, err := columnar.QuoteIdent(f.Name)
		if err != nil {
			return "", fmt.Errorf("duckstore: column %q: %w", f.Name, err)
		}
		t, err := sqlType(f.Type)
		if err != nil {
			return "", fmt.Errorf("duckstore: column %q: %w", f.Name, err)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q + " " + t)
	}
	b.WriteString(")")
	return b.String(), nil
}
