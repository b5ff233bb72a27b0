package ingest

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Segment is a run of a Reader's batches that share one schema, read as an
// arrow array.RecordReader. A Reader's schema may change between batches
// (see the package documentation) but a RecordReader's may not, so a
// consumer that needs one schema per stream, such as storage that creates
// or widens a table from it, reads a Reader as a chain of segments:
//
//	for seg := ingest.FirstSegment(rd); seg != nil; seg = seg.NextSegment() {
//		// create or alter the table for seg.Schema(), then drain seg
//	}
//
// Each segment ends before the batch whose schema differs, and the next one
// starts with that batch. A consumer that stops before the end calls
// Discard on the segment it holds. A Segment is not safe for concurrent use.
type Segment struct {
	rd      *Reader
	schema  *arrow.Schema
	pending arrow.RecordBatch // first batch of this segment, not yet served
	cur     arrow.RecordBatch
	changed arrow.RecordBatch // batch that ended this segment
	done    bool
}

// FirstSegment starts the first segment of rd, or returns nil for a reader
// with no batches.
func FirstSegment(rd *Reader) *Segment {
	if !rd.Next() {
		return nil
	}
	b := rd.RecordBatch()
	b.Retain()
	return &Segment{rd: rd, schema: b.Schema(), pending: b}
}

// NextSegment releases what s holds and returns the segment after it, or
// nil at the end of the stream. A segment that was not drained has no
// successor: the consumer stopped early, and nothing more is read.
func (s *Segment) NextSegment() *Segment {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.pending != nil {
		s.pending.Release()
		s.pending = nil
	}
	if s.changed == nil {
		return nil
	}
	n := &Segment{rd: s.rd, schema: s.changed.Schema(), pending: s.changed}
	s.changed = nil
	return n
}

// Discard releases the batches s still holds, when the consumer stops
// early; Discard on a nil segment does nothing.
func (s *Segment) Discard() {
	if s == nil {
		return
	}
	for _, b := range []arrow.RecordBatch{s.cur, s.pending, s.changed} {
		if b != nil {
			b.Release()
		}
	}
	s.cur, s.pending, s.changed = nil, nil, nil
}

// Schema returns the schema every batch of the segment has.
func (s *Segment) Schema() *arrow.Schema { return s.schema }

// Next advances to the segment's next batch, releasing the previous one;
// it reports false at the end of the segment or of the stream.
func (s *Segment) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.pending != nil {
		s.cur, s.pending = s.pending, nil
		return true
	}
	if s.done || s.changed != nil {
		return false
	}
	if !s.rd.Next() {
		s.done = true
		return false
	}
	b := s.rd.RecordBatch()
	b.Retain()
	if !b.Schema().Equal(s.schema) {
		s.changed = b
		return false
	}
	s.cur = b
	return true
}

// RecordBatch returns the current batch, valid until the next call to Next.
func (s *Segment) RecordBatch() arrow.RecordBatch { return s.cur }

// Record is RecordBatch under arrow's older name.
func (s *Segment) Record() arrow.RecordBatch { return s.cur }

// Err returns the Reader's error.
func (s *Segment) Err() error { return s.rd.Err() }

// Retain and Release are no-ops. array.RecordReader requires them, and a
// consumer may call them (arrow's C stream export, which DuckDB's Arrow
// path uses, retains the reader and releases it when the stream is
// released), but a segment's batches belong to the chain: NextSegment and
// Discard release them, so a reference count would never be read.
func (s *Segment) Retain() {}

// Release is a no-op; see Retain.
func (s *Segment) Release() {}

var _ array.RecordReader = (*Segment)(nil)
