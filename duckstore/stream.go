//go:build duckdb_arrow

package duckstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/arrowmapping"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Streaming results. duckdb-go runs every statement with
// duckdb_pending_prepared, which computes the whole answer before the
// first row; its bindings also have the streaming variant
// (duckdb_pending_prepared_streaming: marked deprecated in the C API, yet
// DuckDB 1.5's only way to stream a prepared statement), with which
// DuckDB computes a chunk (2048 rows) as the reader asks for it, so a
// scan of any size holds about one chunk per pipeline thread, not the
// answer.
//
// The C API needs the connection's duckdb_connection, which duckdb.Conn
// keeps in its unexported field conn. It is read here through unsafe,
// not obtained with a second connection from the instance cache
// (mapping.Connect): a second connection would not be the one that holds
// ReadOnlyQuery's READ ONLY transaction, or a Tx's work, would need the
// connector's settings replayed, and cannot reach an in-memory database.
// The layout is checked by reflection once (rawConnOffset); if a
// duckdb-go upgrade changes it, StreamQuery falls back to the
// materialising path and says why in the log, never reads a wrong field.
//
// Every C call on the connection runs inside sql.Conn.Raw, so
// database/sql's rule that the driver connection is only used there, and
// by one goroutine at a time, holds. The one exception is
// duckdb_interrupt, which DuckDB allows from any thread while a query
// runs (duckdb-go calls it the same way); it receives the C pointer only,
// no Go memory is handed to C.

// rawConnOffset is where duckdb.Conn keeps its mapping.Connection, or
// rawConnErr why it could not be found.
var rawConnOffset, rawConnErr = func() (uintptr, error) {
	f, ok := reflect.TypeFor[duckdb.Conn]().FieldByName("conn")
	if !ok || f.Type != reflect.TypeFor[mapping.Connection]() {
		return 0, errors.New("duckdb.Conn has no field conn of type mapping.Connection (a duckdb-go upgrade?)")
	}
	return f.Offset, nil
}()

// rawConn is the duckdb_connection of a driver connection.
func rawConn(dc any) (mapping.Connection, error) {
	conn, ok := dc.(*duckdb.Conn)
	if !ok {
		return mapping.Connection{}, fmt.Errorf("duckstore: not a DuckDB connection: %T", dc)
	}
	return *(*mapping.Connection)(unsafe.Add(unsafe.Pointer(conn), rawConnOffset)), nil
}

// logStreamFallback says once why StreamQuery materialises.
var logStreamFallback sync.Once

// StreamQuery runs a query and streams its result as Arrow record
// batches of up to one DuckDB chunk (2048 rows), computed as Next asks
// for them: memory stays bounded by what one chunk and DuckDB's operators
// need, whatever the answer's size. It runs on the transaction in ctx or
// on a connection of its own, which the reader holds until it is
// released; the caller must release it. Cancelling ctx interrupts the
// query, also between batches (Err then reports the context's error).
//
// args bind the statement's parameters ($1 or ?) in order: nil, bool,
// Go integers and floats, string, []byte and time.Time (as a TIMESTAMP:
// its instant in UTC).
func (s *Store) StreamQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	if rawConnErr != nil {
		logStreamFallback.Do(func() {
			s.log.Warn("duckstore: streaming results unavailable, queries materialise their answers", "reason", rawConnErr)
		})
		return s.Query(ctx, query, args...)
	}
	c, release, err := s.connFor(ctx)
	if err != nil {
		return nil, err
	}
	_, inTx := ctx.Value(txKey{}).(*tx)
	r := &streamReader{ctx: ctx, c: c, release: release, pooled: !inTx}
	if err := c.Raw(func(dc any) error { return r.start(dc, query, args) }); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// streamReader is a streaming DuckDB result as an Arrow record reader.
// Like every RecordReader it is used by one goroutine at a time.
type streamReader struct {
	ctx     context.Context
	c       *sql.Conn
	release func()
	// pooled: the connection is StreamQuery's own, not a transaction's.
	pooled bool
	raw    mapping.Connection
	stmt   mapping.PreparedStatement
	res    mapping.Result
	hasRes bool
	opts   arrowmapping.ArrowOptions
	schema *arrow.Schema
	cur    arrow.RecordBatch
	err    error
	done   bool
	refs   int64
	stop   func() bool
	// imu orders the interrupt against close.
	imu         sync.Mutex
	closed      bool
	interrupted bool
}

// start prepares, binds and starts the statement on the driver
// connection dc, and reads the result's schema.
func (r *streamReader) start(dc any, query string, args []any) error {
	raw, err := rawConn(dc)
	if err != nil {
		return err
	}
	r.raw = raw
	// The interrupt reaches DuckDB while it computes (ExecutePending
	// runs a blocking pipeline, such as an aggregate, whole) and while
	// Next waits on a chunk; close waits for it (imu) so it never
	// touches a released connection.
	r.stop = context.AfterFunc(r.ctx, func() {
		r.imu.Lock()
		defer r.imu.Unlock()
		if !r.closed {
			mapping.Interrupt(r.raw)
			r.interrupted = true
		}
	})
	if mapping.Prepare(raw, query, &r.stmt) == mapping.StateError {
		mapping.DestroyPrepare(&r.stmt)
		// duckdb-go's Prepare gives the same failure as a typed
		// *duckdb.Error (and refuses several statements, as the C API's
		// prepare does not).
		st, err := dc.(*duckdb.Conn).Prepare(query)
		if err == nil {
			_ = st.Close()
			return fmt.Errorf("duckstore: prepare failed on one path only: %s", query)
		}
		return err
	}
	if err := bind(r.stmt, args); err != nil {
		return err
	}
	var pending mapping.PendingResult
	if bindings.PendingPreparedStreaming(r.stmt, &pending) == mapping.StateError {
		err := &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: mapping.PendingError(pending)}
		mapping.DestroyPending(&pending)
		return err
	}
	defer mapping.DestroyPending(&pending)
	state := mapping.ExecutePending(pending, &r.res)
	r.hasRes = true
	if state == mapping.StateError {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", err, resultError(&r.res))
		}
		return resultError(&r.res)
	}
	r.opts = arrowmapping.ResultGetArrowOptions(&r.res)
	n := mapping.ColumnCount(&r.res)
	names := make([]string, n)
	types := make([]mapping.LogicalType, n)
	for i := range n {
		names[i] = mapping.ColumnName(&r.res, i)
		types[i] = mapping.ColumnLogicalType(&r.res, i)
	}
	r.schema, err = arrowSchema(r.opts, types, names)
	return err
}

// bind binds args to the statement's parameters, in order.
func bind(stmt mapping.PreparedStatement, args []any) error {
	if n := int(mapping.NParams(stmt)); n != len(args) {
		return &duckdb.Error{Type: duckdb.ErrorTypeInvalidInput,
			Msg: fmt.Sprintf("Invalid Input Error: the statement has %d parameters, %d values were given", n, len(args))}
	}
	for i, a := range args {
		idx := mapping.IdxT(i + 1)
		var state mapping.State
		switch v := a.(type) {
		case nil:
			state = mapping.BindNull(stmt, idx)
		case bool:
			state = mapping.BindBoolean(stmt, idx, v)
		case int, int8, int16, int32, int64:
			state = mapping.BindInt64(stmt, idx, reflect.ValueOf(v).Int())
		case uint, uint8, uint16, uint32, uint64:
			state = mapping.BindUInt64(stmt, idx, reflect.ValueOf(v).Uint())
		case float32, float64:
			state = mapping.BindDouble(stmt, idx, reflect.ValueOf(v).Float())
		case string:
			state = mapping.BindVarchar(stmt, idx, v)
		case []byte:
			state = mapping.BindBlob(stmt, idx, v)
		case time.Time:
			// A TIMESTAMP, the type of every time the engine stores;
			// DuckDB casts it where the parameter is a DATE.
			state = mapping.BindTimestamp(stmt, idx, mapping.NewTimestamp(v.UnixMicro()))
		default:
			return &duckdb.Error{Type: duckdb.ErrorTypeInvalidInput,
				Msg: fmt.Sprintf("Invalid Input Error: parameter %d: values of type %T cannot be bound", i+1, a)}
		}
		if state == mapping.StateError {
			return &duckdb.Error{Type: duckdb.ErrorTypeInvalidInput,
				Msg: fmt.Sprintf("Invalid Input Error: parameter %d: %s", i+1, mapping.PrepareError(stmt))}
		}
	}
	return nil
}

// resultError is a failed result's error, typed as DuckDB reports it.
func resultError(res *mapping.Result) error {
	return &duckdb.Error{Type: duckdb.ErrorType(mapping.ResultErrorType(res)), Msg: mapping.ResultError(res)}
}

// errorData is an ErrorData's error, or nil; it destroys ed.
func errorData(ed mapping.ErrorData) error {
	defer mapping.DestroyErrorData(&ed)
	if !mapping.ErrorDataHasError(ed) {
		return nil
	}
	return &duckdb.Error{Type: duckdb.ErrorType(mapping.ErrorDataErrorType(ed)), Msg: mapping.ErrorDataMessage(ed)}
}

func (r *streamReader) Schema() *arrow.Schema { return r.schema }

func (r *streamReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.done {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	err := r.c.Raw(func(any) error {
		chunk := mapping.FetchChunk(r.res)
		if chunk.Ptr == nil {
			r.done = true
			if msg := mapping.ResultError(&r.res); msg != "" {
				return resultError(&r.res)
			}
			return nil
		}
		defer mapping.DestroyDataChunk(&chunk)
		rec, ed := arrowmapping.DataChunkToArrowArray(r.opts, r.schema, chunk)
		if err := errorData(ed); err != nil {
			return fmt.Errorf("duckstore: arrow batch: %w", err)
		}
		r.cur = rec
		return nil
	})
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		r.err = err
		return false
	}
	return r.cur != nil
}

func (r *streamReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch, for readers of the deprecated name.
func (r *streamReader) Record() arrow.RecordBatch { return r.cur }

func (r *streamReader) Err() error { return r.err }

func (r *streamReader) Retain() { r.refs++ }

// Release frees the result and gives the connection back with the last
// reference.
func (r *streamReader) Release() {
	if r.refs > 0 {
		r.refs--
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.close()
}

// close destroys what start created and gives the connection back. A
// pooled connection an interrupt may have reached is discarded, so the
// interrupt cannot land on a later statement.
func (r *streamReader) close() {
	if r.stop != nil {
		r.stop()
	}
	r.imu.Lock()
	r.closed = true
	interrupted := r.interrupted
	r.imu.Unlock()
	_ = r.c.Raw(func(any) error {
		if r.hasRes {
			arrowmapping.DestroyArrowOptions(&r.opts)
			mapping.DestroyResult(&r.res)
			r.hasRes = false
		}
		mapping.DestroyPrepare(&r.stmt)
		if interrupted && r.pooled {
			return driver.ErrBadConn
		}
		return nil
	})
	r.release()
}

// describe prepares query on the transaction in ctx, or a connection of
// its own, without running it, and reads the result's columns and the
// parameters' types as DuckDB binds them.
func (s *Store) describe(ctx context.Context, query string) (Description, error) {
	if rawConnErr != nil {
		return s.untypedParams(ctx, query)
	}
	c, release, err := s.connFor(ctx)
	if err != nil {
		return Description{}, err
	}
	defer release()
	var d Description
	err = c.Raw(func(dc any) error {
		raw, err := rawConn(dc)
		if err != nil {
			return err
		}
		var stmt mapping.PreparedStatement
		defer mapping.DestroyPrepare(&stmt)
		if mapping.Prepare(raw, query, &stmt) == mapping.StateError {
			return &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: mapping.PrepareError(stmt)}
		}
		var opts arrowmapping.ArrowOptions
		arrowmapping.ConnectionGetArrowOptions(raw, &opts)
		defer arrowmapping.DestroyArrowOptions(&opts)
		// A column typed by a parameter (SELECT ? AS a) is known only
		// once bound: the result's schema is then unknown (nil).
		n := mapping.PreparedStatementColumnCount(stmt)
		names := make([]string, 0, n)
		types := make([]mapping.LogicalType, 0, n)
		known := true
		for i := range n {
			known = known && !untyped(mapping.PreparedStatementColumnType(stmt, i))
			names = append(names, mapping.PreparedStatementColumnName(stmt, i))
			types = append(types, mapping.PreparedStatementColumnLogicalType(stmt, i))
		}
		if known {
			if d.Result, err = arrowSchema(opts, types, names); err != nil {
				return err
			}
		} else {
			for i := range types {
				mapping.DestroyLogicalType(&types[i])
			}
		}
		// A parameter DuckDB could not type (SELECT ?) has no Arrow
		// type; it is Null in the schema and takes any value.
		params := make([]arrow.Field, mapping.NParams(stmt))
		for i := range params {
			params[i] = arrow.Field{Name: fmt.Sprintf("$%d", i+1), Type: arrow.Null, Nullable: true}
			if untyped(mapping.ParamType(stmt, mapping.IdxT(i+1))) {
				continue
			}
			t := mapping.ParamLogicalType(stmt, mapping.IdxT(i+1))
			p, err := arrowSchema(opts, []mapping.LogicalType{t}, []string{params[i].Name})
			if err != nil {
				return err
			}
			params[i] = p.Field(0)
		}
		d.Params = arrow.NewSchema(params, nil)
		return nil
	})
	return d, err
}

// untyped: DuckDB has not resolved the type (a parameter's, or a column
// that depends on one).
func untyped(t mapping.Type) bool {
	return t == mapping.TypeInvalid || t == mapping.TypeAny || t == mapping.TypeSQLNull
}

// arrowSchema is the Arrow schema of DuckDB columns; it destroys types.
func arrowSchema(opts arrowmapping.ArrowOptions, types []mapping.LogicalType, names []string) (*arrow.Schema, error) {
	defer func() {
		for i := range types {
			mapping.DestroyLogicalType(&types[i])
		}
	}()
	schema, ed := arrowmapping.NewArrowSchema(opts, types, names)
	if err := errorData(ed); err != nil {
		return nil, fmt.Errorf("duckstore: arrow schema: %w", err)
	}
	return schema, nil
}
