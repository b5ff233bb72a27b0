//go:build duckdb_arrow

package duckstore

import (
	"context"
	"database/sql/driver"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// This file is the Arrow path of bulk reads and writes, through duckdb-go's
// Arrow interface (opt-in with the duckdb_arrow build tag, which the
// Makefile sets). appender.go is the fallback without it.

// Query runs a query and returns its result as Arrow record batches. The
// reader holds a connection until it is released.
func (s *Store) Query(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return nil, err
	}
	var rr array.RecordReader
	err = c.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rr, err = ar.QueryContext(ctx, query, args...)
		return err
	})
	if err != nil {
		release()
		return nil, err
	}
	return &heldReader{RecordReader: rr, release: release}, nil
}

// heldReader releases its connection with the last reference.
type heldReader struct {
	array.RecordReader
	release func()
	refs    int64
}

func (h *heldReader) Retain() { h.refs++; h.RecordReader.Retain() }

func (h *heldReader) Release() {
	h.RecordReader.Release()
	if h.refs == 0 {
		if h.release != nil {
			h.release()
			h.release = nil
		}
		return
	}
	h.refs--
}

// Append writes every batch of rr into table (a quoted, possibly
// schema-qualified name) matching columns by name, and reports the rows
// written. Columns of the table that rr lacks get NULL. DuckDB reads the
// rows re-cut into row groups (rowGroupReader), in order.
func (s *Store) Append(ctx context.Context, table string, rr array.RecordReader) (int64, error) {
	c, release, err := s.connFor(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	var n int64
	err = c.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		counted := &countingReader{RecordReader: rr}
		rg := newRowGroupReader(counted, memory.DefaultAllocator, rowGroupRows)
		defer rg.close()
		view := "vatic_append_" + randomSuffix()
		rel, err := ar.RegisterView(rg, view)
		if err != nil {
			return err
		}
		defer rel()
		defer func() {
			_, _ = dc.(driver.ExecerContext).ExecContext(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+view, nil)
		}()
		_, err = dc.(driver.ExecerContext).ExecContext(ctx, "INSERT INTO "+table+" BY NAME SELECT * FROM "+view, nil)
		n = counted.rows
		return err
	})
	return n, err
}

// countingReader counts the rows DuckDB pulls through it.
type countingReader struct {
	array.RecordReader
	rows int64
}

func (c *countingReader) Next() bool {
	if !c.RecordReader.Next() {
		return false
	}
	c.rows += c.RecordReader.RecordBatch().NumRows()
	return true
}
