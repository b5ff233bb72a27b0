//go:build !duckdb_arrow

package duckstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// This file is the fallback of arrow.go for builds without the duckdb_arrow
// tag (a plain `go build` or `go install`): query results are built into
// Arrow batches from database/sql rows, and writes go through DuckDB's
// Appender. Both paths give the same Arrow types for the types Vatic
// stores (the Store conformance suite runs against each build); the
// Makefile's builds use the faster Arrow path.

const fallbackBatchRows = 8192

// Query runs a query and returns its result as Arrow record batches, built
// batch by batch as the reader advances. The reader holds the query's
// connection until it is released.
func (s *Store) Query(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	rows, err := s.Rows(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		_ = rows.Close()
		return nil, err
	}
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: t.Name(), Type: arrowType(t.DatabaseTypeName()), Nullable: true}
	}
	r := &rowsReader{rows: rows, schema: arrow.NewSchema(fields, nil)}
	r.refs.Store(1)
	r.b = array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	r.vals = make([]any, len(fields))
	r.ptrs = make([]any, len(fields))
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return r, nil
}

// StreamQuery is Query in builds without duckdb_arrow: database/sql's
// rows come from duckdb-go's materialised result, so the answer is whole
// in memory before the first batch (the Arrow build streams it).
func (s *Store) StreamQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	return s.Query(ctx, query, args...)
}

// describe needs the Arrow build's access to the prepared statement to
// type anything; here the result's schema stays unknown (nil) and the
// parameters are only counted (untypedParams).
func (s *Store) describe(ctx context.Context, query string) (Description, error) {
	return s.untypedParams(ctx, query)
}

// arrowType is the Arrow type DuckDB's Arrow export gives a column of the
// named type. Types Vatic never stores (intervals, lists, structs, …) come
// back as their text.
func arrowType(name string) arrow.DataType {
	switch name {
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case "TINYINT":
		return arrow.PrimitiveTypes.Int8
	case "SMALLINT":
		return arrow.PrimitiveTypes.Int16
	case "INTEGER":
		return arrow.PrimitiveTypes.Int32
	case "BIGINT":
		return arrow.PrimitiveTypes.Int64
	case "UTINYINT":
		return arrow.PrimitiveTypes.Uint8
	case "USMALLINT":
		return arrow.PrimitiveTypes.Uint16
	case "UINTEGER":
		return arrow.PrimitiveTypes.Uint32
	case "UBIGINT":
		return arrow.PrimitiveTypes.Uint64
	case "FLOAT":
		return arrow.PrimitiveTypes.Float32
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64
	case "DATE":
		return arrow.FixedWidthTypes.Date32
	case "TIMESTAMP":
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case "TIMESTAMPTZ":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case "HUGEINT":
		return &arrow.Decimal128Type{Precision: 38, Scale: 0}
	case "BLOB":
		return arrow.BinaryTypes.Binary
	}
	var p, sc int32
	if _, err := fmt.Sscanf(name, "DECIMAL(%d,%d)", &p, &sc); err == nil {
		return &arrow.Decimal128Type{Precision: p, Scale: sc}
	}
	return arrow.BinaryTypes.String
}

// rowsReader is an array.RecordReader over database/sql rows.
type rowsReader struct {
	refs   atomic.Int64
	rows   *sql.Rows
	schema *arrow.Schema
	b      *array.RecordBuilder
	cur    arrow.RecordBatch
	vals   []any
	ptrs   []any
	err    error
}

func (r *rowsReader) Schema() *arrow.Schema { return r.schema }

func (r *rowsReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.rows == nil {
		return false
	}
	n := 0
	for n < fallbackBatchRows && r.rows.Next() {
		if err := r.rows.Scan(r.ptrs...); err != nil {
			r.err = err
			return false
		}
		for i, v := range r.vals {
			if err := appendValue(r.b.Field(i), v); err != nil {
				r.err = fmt.Errorf("duckstore: column %q: %w", r.schema.Field(i).Name, err)
				return false
			}
		}
		n++
	}
	if n == 0 {
		r.err = r.rows.Err()
		_ = r.rows.Close()
		r.rows = nil
		return false
	}
	r.cur = r.b.NewRecordBatch()
	return true
}

func (r *rowsReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *rowsReader) Record() arrow.RecordBatch { return r.cur }

func (r *rowsReader) Err() error { return r.err }

func (r *rowsReader) Retain() { r.refs.Add(1) }

func (r *rowsReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.b.Release()
	if r.rows != nil {
		_ = r.rows.Close()
		r.rows = nil
	}
}

// appendValue appends one scanned value to the builder of its column.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("cannot read %T as %s", v, b.Type()) }
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int8Builder:
		x, ok := v.(int8)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int16Builder:
		x, ok := v.(int16)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int32Builder:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Uint8Builder:
		x, ok := v.(uint8)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Uint16Builder:
		x, ok := v.(uint16)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Uint32Builder:
		x, ok := v.(uint32)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Uint64Builder:
		x, ok := v.(uint64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Float32Builder:
		x, ok := v.(float32)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Date32Builder:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		b.Append(arrow.Date32FromTime(x))
	case *array.TimestampBuilder:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		b.Append(arrow.Timestamp(x.UnixMicro()))
	case *array.Decimal128Builder:
		var n *big.Int
		switch x := v.(type) {
		case *big.Int:
			n = x
		case duckdb.Decimal:
			n = x.Value
		default:
			return bad()
		}
		if n.BitLen() > 127 {
			return bad()
		}
		b.Append(decimal128.FromBigInt(n))
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.StringBuilder:
		switch x := v.(type) {
		case string:
			b.Append(x)
		case []byte:
			b.Append(string(x))
		default:
			b.Append(fmt.Sprint(x))
		}
	default:
		return bad()
	}
	return nil
}

// Append writes every batch of rr into table (a quoted, possibly
// schema-qualified name) matching columns by name, and reports the rows
// written; columns of the table that rr lacks get NULL. Rows go through
// DuckDB's Appender into a temporary table typed exactly like rr's schema,
// then into table by name, so DuckDB does any conversion.
func (s *Store) Append(ctx context.Context, table string, rr array.RecordReader) (int64, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	stage := "vatic_append_" + randomSuffix()
	create, err := createStatement("CREATE TEMP TABLE", stage, rr.Schema())
	if err != nil {
		return 0, err
	}
	if _, err := c.ExecContext(ctx, create); err != nil {
		return 0, err
	}
	defer func() { _, _ = c.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+stage) }()
	var n int64
	err = c.Raw(func(dc any) error {
		app, err := duckdb.NewAppender(dc.(driver.Conn), "temp", "main", stage)
		if err != nil {
			return err
		}
		row := make([]driver.Value, rr.Schema().NumFields())
		for rr.Next() {
			if err := ctx.Err(); err != nil {
				_ = app.Close()
				return err
			}
			rec := rr.RecordBatch()
			for i := range int(rec.NumRows()) {
				for c := range row {
					if row[c], err = cellValue(rec.Column(c), i); err != nil {
						_ = app.Close()
						return fmt.Errorf("duckstore: column %q: %w", rec.ColumnName(c), err)
					}
				}
				if err := app.AppendRow(row...); err != nil {
					_ = app.Close()
					return err
				}
				n++
			}
		}
		if err := rr.Err(); err != nil {
			_ = app.Close()
			return err
		}
		return app.Close()
	})
	if err != nil {
		return 0, err
	}
	_, err = c.ExecContext(ctx, "INSERT INTO "+table+" BY NAME SELECT * FROM "+stage)
	return n, err
}

// cellValue is row i of a as a value DuckDB's Appender takes for the column
// sqlType gives a's type.
func cellValue(a arrow.Array, i int) (driver.Value, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return a.Value(i), nil
	case *array.Uint16:
		return a.Value(i), nil
	case *array.Uint32:
		return a.Value(i), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.StringView:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.LargeBinary:
		return a.Value(i), nil
	case *array.Date32:
		return a.Value(i).ToTime(), nil
	case *array.Date64:
		return a.Value(i).ToTime(), nil
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit), nil
	case *array.Decimal128:
		t := a.DataType().(*arrow.Decimal128Type)
		return duckdb.Decimal{Width: uint8(t.Precision), Scale: uint8(t.Scale), Value: a.Value(i).BigInt()}, nil
	}
	return nil, fmt.Errorf("no DuckDB value for Arrow type %s", a.DataType())
}
