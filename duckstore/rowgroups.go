//go:build duckdb_arrow

package duckstore

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowGroupRows is the number of rows in one of DuckDB's row groups (its
// storage default, which Open keeps).
//
// Append hands DuckDB batches of exactly this many rows because of how an
// INSERT keeps insertion order: each Arrow batch of the scanned stream is
// one batch index, and DuckDB's order-preserving insert writes a batch of
// at least a row group straight to storage, while it buffers smaller ones
// and merges neighbours into row groups later, appending every row (and
// updating its statistics) a second time. The readers' batches (65 536
// rows by default, or whatever an Arrow IPC client sent) are smaller, and
// appending 2 M rows of the columnar benchmark's shape in 65 536-row
// batches took 3.0 CPU seconds, 1.8 once re-cut (BenchmarkUpload).
const rowGroupRows = 122_880

// rowGroupReader re-cuts the batches of src into batches of rowGroupRows
// rows (the last one shorter), in order: a batch that holds a whole row
// group is served as zero-copy slices, smaller pieces are concatenated.
// It holds at most one batch of src and one row group of copies.
type rowGroupReader struct {
	src  array.RecordReader
	mem  memory.Allocator
	size int64 // rows per served batch

	pend arrow.RecordBatch // the batch of src being cut
	off  int64             // rows of pend already served
	cur  arrow.RecordBatch
	// queue holds pieces to serve one by one, when concatenating them
	// failed (a column's text too long for one utf8 array).
	queue []arrow.RecordBatch
}

func newRowGroupReader(src array.RecordReader, mem memory.Allocator, size int64) *rowGroupReader {
	return &rowGroupReader{src: src, mem: mem, size: size}
}

func (r *rowGroupReader) Schema() *arrow.Schema { return r.src.Schema() }

func (r *rowGroupReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if len(r.queue) > 0 {
		r.cur, r.queue = r.queue[0], r.queue[1:]
		return true
	}
	var parts []arrow.RecordBatch
	var n int64
	for n < r.size {
		if r.pend == nil || r.off == r.pend.NumRows() {
			if r.pend != nil {
				r.pend.Release()
				r.pend = nil
			}
			if !r.src.Next() {
				break
			}
			r.pend, r.off = r.src.RecordBatch(), 0
			r.pend.Retain()
			continue
		}
		take := min(r.size-n, r.pend.NumRows()-r.off)
		if r.off == 0 && take == r.pend.NumRows() {
			r.pend.Retain()
			parts = append(parts, r.pend)
		} else {
			parts = append(parts, r.pend.NewSlice(r.off, r.off+take))
		}
		r.off += take
		n += take
	}
	switch len(parts) {
	case 0:
		return false
	case 1:
		r.cur = parts[0]
		return true
	}
	if rec, err := concatBatches(r.mem, parts, n); err == nil {
		for _, p := range parts {
			p.Release()
		}
		r.cur = rec
		return true
	}
	r.cur, r.queue = parts[0], parts[1:]
	return true
}

// concatBatches joins batches of one schema column by column into one
// batch of n rows.
func concatBatches(mem memory.Allocator, parts []arrow.RecordBatch, n int64) (arrow.RecordBatch, error) {
	schema := parts[0].Schema()
	cols := make([]arrow.Array, schema.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	defer release()
	pieces := make([]arrow.Array, len(parts))
	for j := range cols {
		for i, p := range parts {
			pieces[i] = p.Column(j)
		}
		c, err := array.Concatenate(pieces, mem)
		if err != nil {
			return nil, err
		}
		cols[j] = c
	}
	return array.NewRecordBatch(schema, cols, n), nil
}

func (r *rowGroupReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch under arrow's older name.
func (r *rowGroupReader) Record() arrow.RecordBatch { return r.cur }

func (r *rowGroupReader) Err() error { return r.src.Err() }

// Retain and Release are no-ops: arrow's C stream export retains the
// reader it exports and releases it with the stream, but Append owns the
// reader and frees what it holds (close) once the statement is done.
func (r *rowGroupReader) Retain() {}

// Release is a no-op; see Retain.
func (r *rowGroupReader) Release() {}

// close releases every batch r holds.
func (r *rowGroupReader) close() {
	for _, b := range append(r.queue, r.cur, r.pend) {
		if b != nil {
			b.Release()
		}
	}
	r.queue, r.cur, r.pend = nil, nil, nil
}
