package duckstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Errors of ReadOnlyQuery and CheckReadOnly, wrapped around DuckDB's own
// message, so a caller can answer with the right status.
var (
	// ErrRefused: the statement is not one SELECT, or DuckDB refused it a
	// permission (a file, URL or extension, with NoExternalAccess).
	ErrRefused = errors.New("duckstore: statement refused")
	// ErrInvalidQuery: DuckDB could not parse, bind or run the statement
	// (a syntax error, an unknown table, a failed cast, …).
	ErrInvalidQuery = errors.New("duckstore: invalid query")
	// ErrTooLarge: DuckDB ran out of its memory limit.
	ErrTooLarge = errors.New("duckstore: out of memory")
)

// The guarantees of ReadOnlyQuery come from DuckDB, not from reading the
// SQL text here:
//
//   - The statement runs on a connection of its own (closed after, never
//     pooled), inside BEGIN
//     TRANSACTION READ ONLY, which DuckDB enforces for every write to the
//     database (INSERT, CREATE, DROP, a sequence's nextval, …), and which
//     sees the data committed when it began, never another transaction's
//     work in progress.
//   - The text must be exactly one statement: duckdb-go's Prepare (unlike
//     PrepareContext, which runs every statement but the last while
//     preparing) refuses several, so "COMMIT; INSERT …" never runs.
//   - The prepared statement's type, as DuckDB's parser classifies it, must
//     be SELECT. A read-only transaction does not stop SET, COPY … TO,
//     ATTACH, INSTALL, LOAD or CALL; their statement types are refused
//     here before anything runs. (PRAGMA and SHOW that only read are
//     rewritten to SELECT by DuckDB and pass.)
//   - File and URL readers inside a SELECT (read_csv, glob, a quoted path)
//     are stopped by enable_external_access, which the Store must have
//     been opened with (Options.NoExternalAccess).
//   - A SELECT may still call a table function with effects outside the
//     transaction: enable_logging and enable_profiling change the
//     database's configuration (lock_configuration does not stop them;
//     enable_logging to a file the sealed database may not open leaves
//     every later statement failing and the process aborting on its next
//     disconnect), checkpoint and force_checkpoint write the file, query
//     and json_execute_serialized_sql run statements of their own. So the
//     statement's syntax tree, as DuckDB's own parser serialises it
//     (json_serialize_sql, before anything is bound or run), may name only
//     the table functions of allowedTableFunction.

// CheckReadOnly reports whether ReadOnlyQuery would accept query, without
// running it: DuckDB parses and binds it (so an unknown table or a syntax
// error is ErrInvalidQuery) and checks it is one SELECT (else ErrRefused).
func (s *Store) CheckReadOnly(ctx context.Context, query string) error {
	return s.readOnly(ctx, query, func(context.Context) error { return nil })
}

// Description is what a statement answers and takes, known from
// preparing it: the result's columns and its parameters ($1, $2, …; a
// parameter DuckDB cannot type is arrow.Null). Either is nil where it
// cannot be known (builds without duckdb_arrow).
type Description struct {
	Result, Params *arrow.Schema
}

// ReadOnlyDescribe is CheckReadOnly that also reports the statement's
// Description, still without running it.
func (s *Store) ReadOnlyDescribe(ctx context.Context, query string) (Description, error) {
	var d Description
	err := s.readOnly(ctx, query, func(ctx context.Context) error {
		var err error
		d, err = s.describe(ctx, query)
		return err
	})
	return d, err
}

// untypedParams describes only query's parameter count, through
// duckdb-go's prepared statement: each parameter an arrow.Null field (not
// typed), and the result unknown. It is describe where DuckDB's C
// prepared statement is out of reach (the build without duckdb_arrow), so
// that a client binding the wrong number of values is refused there too.
func (s *Store) untypedParams(ctx context.Context, query string) (Description, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return Description{}, err
	}
	defer release()
	var d Description
	err = c.Raw(func(dc any) error {
		conn, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("duckstore: not a DuckDB connection: %T", dc)
		}
		stmt, err := conn.Prepare(query)
		if err != nil {
			return err
		}
		defer stmt.Close()
		fields := make([]arrow.Field, stmt.NumInput())
		for i := range fields {
			fields[i] = arrow.Field{Name: fmt.Sprintf("$%d", i+1), Type: arrow.Null, Nullable: true}
		}
		d.Params = arrow.NewSchema(fields, nil)
		return nil
	})
	return d, err
}

// ReadOnlyQuery runs one SELECT statement from an untrusted client and
// returns its result as Arrow record batches; see the guarantees above.
// The reader holds a connection and its read-only transaction until it is
// released; cancelling ctx interrupts the query (Next then reports the
// context's error). The answer streams (StreamQuery): DuckDB computes
// each chunk as the reader asks for it.
func (s *Store) ReadOnlyQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	var rr array.RecordReader
	release, err := s.readOnlyHeld(ctx, query, func(ctx context.Context) error {
		var err error
		rr, err = s.StreamQuery(ctx, query, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &txReader{RecordReader: rr, end: release}, nil
}

// readOnly is readOnlyHeld for work that holds nothing past its return.
func (s *Store) readOnly(ctx context.Context, query string, run func(ctx context.Context) error) error {
	release, err := s.readOnlyHeld(ctx, query, run)
	if err == nil {
		release()
	}
	return err
}

// readOnlyHeld checks query on a fresh connection in a read-only
// transaction and calls run with a context that carries that transaction.
// On success the caller owns the connection and calls release once done
// with what run produced; on error everything is already given back.
func (s *Store) readOnlyHeld(ctx context.Context, query string, run func(ctx context.Context) error) (release func(), err error) {
	if !s.sealed {
		return nil, errors.New("duckstore: read-only queries need a store opened with NoExternalAccess")
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("duckstore: connection: %w", err)
	}
	release = func() {
		// Ending the transaction with a fresh context: ctx may be why we
		// stop. The connection is then discarded, not pooled: whatever
		// per-connection state the statement set (setseed's) must not
		// reach the engine's next statement on it.
		_, _ = c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
		_ = c.Close()
	}
	if _, err := c.ExecContext(ctx, "BEGIN TRANSACTION READ ONLY"); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("duckstore: begin: %w", err)
	}
	// The syntax tree first: binding (Prepare) already runs some table
	// functions' work, json_execute_serialized_sql's statement among it.
	err = checkTableFunctions(ctx, c, query)
	if err == nil {
		err = c.Raw(func(dc any) error {
			conn, ok := dc.(*duckdb.Conn)
			if !ok {
				return fmt.Errorf("duckstore: not a DuckDB connection: %T", dc)
			}
			stmt, err := conn.Prepare(query)
			var de *duckdb.Error
			if err != nil && !errors.As(err, &de) && ctx.Err() == nil {
				// duckdb-go's own refusals: several statements, or none.
				return fmt.Errorf("%w: send exactly one SELECT statement (%v)", ErrRefused, err)
			}
			if err != nil {
				return err
			}
			defer stmt.Close()
			t, err := stmt.(*duckdb.Stmt).StatementType()
			if err != nil {
				return err
			}
			if t != duckdb.STATEMENT_TYPE_SELECT {
				return fmt.Errorf("%w: only one SELECT statement may run here, not %s", ErrRefused, statementName(t))
			}
			return nil
		})
	}
	if err == nil {
		err = run(context.WithValue(ctx, txKey{}, &tx{conn: c}))
	}
	if err != nil {
		release()
		return nil, classifyReadOnly(ctx, err)
	}
	return release, nil
}

// checkTableFunctions refuses a statement whose syntax tree, as DuckDB's
// parser serialises it without binding anything, calls a table function
// allowedTableFunction does not list, or that DuckDB cannot serialise:
// anything but SELECT statements (a PRAGMA too: its table-function forms,
// such as pragma_version(), pass).
func checkTableFunctions(ctx context.Context, c *sql.Conn, query string) error {
	var tree string
	if err := c.QueryRowContext(ctx, `SELECT json_serialize_sql(?::VARCHAR)::VARCHAR`, query).Scan(&tree); err != nil {
		return fmt.Errorf("duckstore: serialise the statement: %w", err)
	}
	var root any
	if err := json.Unmarshal([]byte(tree), &root); err != nil {
		return fmt.Errorf("duckstore: serialised statement: %w", err)
	}
	if m, ok := root.(map[string]any); ok && m["error"] == true {
		if m["error_type"] == "parser" {
			return fmt.Errorf("%w: Parser Error: %v", ErrInvalidQuery, m["error_message"])
		}
		return fmt.Errorf("%w: only SELECT statements may run here (%v)", ErrRefused, m["error_message"])
	}
	var refused error
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "TABLE_FUNCTION" {
				f, _ := v["function"].(map[string]any)
				name, _ := f["function_name"].(string)
				if !allowedTableFunction(name) && refused == nil {
					refused = fmt.Errorf("%w: the table function %s may not run here", ErrRefused, name)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(root)
	return refused
}

// allowedTableFunction lists the table functions a read-only statement may
// call: generators, JSON and list unnesting, and DuckDB's catalog views
// (duckdb_*, pragma_*), which only read. File readers are absent (the
// sealed database refuses them anyway), and so is everything with an
// effect beyond the statement.
func allowedTableFunction(name string) bool {
	switch strings.ToLower(name) {
	case "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree",
		"summary", "test_all_types", "test_vector_types", "pg_timezone_names", "icu_calendar_names":
		return true
	}
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "duckdb_") || strings.HasPrefix(n, "pragma_")
}

// classifyReadOnly wraps a DuckDB error in the sentinel that says whose
// fault it is; context errors and others pass through.
func classifyReadOnly(ctx context.Context, err error) error {
	if errors.Is(err, ErrRefused) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", context.Cause(ctx), err)
	}
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Type {
	case duckdb.ErrorTypePermission:
		return fmt.Errorf("%w: %w", ErrRefused, err)
	case duckdb.ErrorTypeOutOfMemory:
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case duckdb.ErrorTypeInterrupt, duckdb.ErrorTypeFatal, duckdb.ErrorTypeInternal, duckdb.ErrorTypeConnection,
		duckdb.ErrorTypeIO, duckdb.ErrorTypeTransaction, duckdb.ErrorTypeSerialization:
		return err
	default:
		return fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
}

// statementName names a statement type in a refusal.
func statementName(t duckdb.StmtType) string {
	switch t {
	case duckdb.STATEMENT_TYPE_INSERT:
		return "INSERT"
	case duckdb.STATEMENT_TYPE_UPDATE:
		return "UPDATE"
	case duckdb.STATEMENT_TYPE_DELETE:
		return "DELETE"
	case duckdb.STATEMENT_TYPE_EXPLAIN:
		return "EXPLAIN"
	case duckdb.STATEMENT_TYPE_CREATE, duckdb.STATEMENT_TYPE_CREATE_FUNC:
		return "CREATE"
	case duckdb.STATEMENT_TYPE_ALTER:
		return "ALTER"
	case duckdb.STATEMENT_TYPE_DROP:
		return "DROP"
	case duckdb.STATEMENT_TYPE_TRANSACTION:
		return "a transaction statement"
	case duckdb.STATEMENT_TYPE_COPY:
		return "COPY"
	case duckdb.STATEMENT_TYPE_EXPORT:
		return "EXPORT"
	case duckdb.STATEMENT_TYPE_VARIABLE_SET, duckdb.STATEMENT_TYPE_SET:
		return "SET"
	case duckdb.STATEMENT_TYPE_LOAD:
		return "INSTALL or LOAD"
	case duckdb.STATEMENT_TYPE_ATTACH:
		return "ATTACH"
	case duckdb.STATEMENT_TYPE_DETACH:
		return "DETACH"
	case duckdb.STATEMENT_TYPE_CALL:
		return "CALL"
	case duckdb.STATEMENT_TYPE_PRAGMA:
		return "PRAGMA"
	case duckdb.STATEMENT_TYPE_VACUUM, duckdb.STATEMENT_TYPE_ANALYZE:
		return "VACUUM or ANALYZE"
	case duckdb.STATEMENT_TYPE_PREPARE, duckdb.STATEMENT_TYPE_EXECUTE:
		return "PREPARE or EXECUTE"
	default:
		return fmt.Sprintf("statement type %d", t)
	}
}

// txReader ends its read-only transaction, and gives its connection
// back, with the last reference.
type txReader struct {
	array.RecordReader
	end  func()
	refs int64
}

func (t *txReader) Retain() { t.refs++; t.RecordReader.Retain() }

func (t *txReader) Release() {
	t.RecordReader.Release()
	if t.refs == 0 {
		if t.end != nil {
			t.end()
			t.end = nil
		}
		return
	}
	t.refs--
}
