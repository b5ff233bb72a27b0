//go:build !duckdb_arrow

package duckstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/vaticml/vatic/columnar"
)

// This file is the fallback of arrow.go for builds without the duckdb_arrow
// tag: results are built into Arrow batches from database/sql rows and
// writes go through DuckDB's Appender. It keeps `go build ./...` working;
// the Makefile's builds use the faster Arrow path.

const fallbackBatchRows = 8192

// Query runs a query and returns its result as Arrow record batches.
func (s *Store) Query(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	rows, err := s.Rows(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = columnar.Field(t.Name(), columnar.DataTypeOfSQL(t.DatabaseTypeName()))
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	vals := make([]any, len(fields))
	ptrs := make([]any, len(fields))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			appendValue(b.Field(i), v)
		}
		if n++; n == fallbackBatchRows {
			recs = append(recs, b.NewRecordBatch())
			n = 0
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n > 0 || len(recs) == 0 {
		recs = append(recs, b.NewRecordBatch())
	}
	rr, err := array.NewRecordReader(schema, recs)
	for _, r := range recs {
		r.Release()
	}
	return rr, err
}

func appendValue(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Float64Builder:
		switch x := v.(type) {
		case float64:
			b.Append(x)
		case float32:
			b.Append(float64(x))
		case int64:
			b.Append(float64(x))
		case int32:
			b.Append(float64(x))
		default:
			b.AppendNull()
		}
	case *array.BooleanBuilder:
		x, _ := v.(bool)
		b.Append(x)
	case *array.TimestampBuilder:
		x, _ := v.(time.Time)
		b.Append(arrow.Timestamp(x.UnixMicro()))
	case *array.StringBuilder:
		b.Append(fmt.Sprint(v))
	default:
		b.AppendNull()
	}
}

// Append writes every batch of rr into table row by row through DuckDB's
// Appender on a staging table, then inserts by name.
func (s *Store) Append(ctx context.Context, table string, rr array.RecordReader) (int64, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	stage := "vatic_append_" + randomSuffix()
	var b strings.Builder
	b.WriteString("CREATE TEMP TABLE " + stage + " (")
	for i, f := range rr.Schema().Fields() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(columnar.MustQuoteIdent(f.Name) + " " + columnar.FieldDataType(f).SQLType())
	}
	b.WriteString(")")
	if _, err := c.ExecContext(ctx, b.String()); err != nil {
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
			rec := rr.RecordBatch()
			for i := range int(rec.NumRows()) {
				for c := range row {
					row[c] = cellValue(rec.Column(c), i)
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

func cellValue(a arrow.Array, i int) driver.Value {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit)
	case *array.String:
		return a.Value(i)
	}
	return a.ValueStr(i)
}
