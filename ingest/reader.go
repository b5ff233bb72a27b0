package ingest

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
)

// ColumnInfo describes one column of a Reader.
type ColumnInfo struct {
	Name     string
	DataType columnar.DataType
	Declared bool // the type came from Options.Declared
	// Increasing reports, for a date column, that every value was later
	// than the one before it in input order (missing values aside): the
	// values are then unique, which the engine's timestamp inference needs
	// and can skip checking in storage.
	Increasing bool
	// ZeroOne reports, for a numeric column, that it has values and every
	// one is 0 or 1 (such columns get mode/mode defaults, MODELLING §12.3).
	ZeroOne bool
}

// Reader streams record batches from a CSV or JSON body. It follows arrow's
// RecordReader contract, except that the schema may change between batches
// as the package documentation describes. A Reader is not safe for
// concurrent use; Release may be called at any time from the goroutine that
// uses it.
type Reader struct {
	cols   []ColumnInfo
	schema *arrow.Schema
	cur    arrow.RecordBatch
	err    error
	rows   int64
	bytes  int64
	done   bool

	// next produces the next batch, nil at the end; it owns the reference.
	next func() (arrow.RecordBatch, error)
	// stop ends background work and frees the source; called once.
	stop func()
	// lines is Lines' source: a verbatim CSV's current chunk; nil for
	// every other reader.
	lines   func(dst []byte, ends []int32, leading *[256]bool) ([]byte, []int32, bool)
	hint    func(*NumberHint)
	stopped bool

	// order tracks, per date column (by name), whether values increase.
	order map[string]*orderState
	// zeroOne tracks, per numeric column (by name), whether every value so
	// far was 0 or 1 (absent: no value seen yet).
	zeroOne map[string]bool
}

// orderState follows one date column across batches.
type orderState struct {
	last       int64
	seen       bool
	increasing bool
}

func (r *Reader) buildSchema() {
	fields := make([]arrow.Field, len(r.cols))
	for i, c := range r.cols {
		fields[i] = columnar.Field(c.Name, c.DataType)
	}
	r.schema = arrow.NewSchema(fields, nil)
}

// Schema returns the schema of the current batch; before the first Next,
// the schema inferred from the sample.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next batch and reports whether there is one. The
// previous batch is released.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return false
	}
	rec, err := r.next()
	if err != nil || rec == nil {
		r.err = err
		r.done = true
		r.halt()
		return false
	}
	r.cur = rec
	r.schema = rec.Schema()
	r.track(rec)
	return true
}

// track updates what the reader learns about whole columns from each
// batch: whether timestamps increase and whether numbers are all 0 or 1.
// Each is one pass over values already in memory that stops at the first
// value that settles the answer.
func (r *Reader) track(rec arrow.RecordBatch) {
	for i, f := range rec.Schema().Fields() {
		if nums, ok := rec.Column(i).(*array.Float64); ok {
			r.trackZeroOne(f.Name, nums)
			continue
		}
		ts, ok := rec.Column(i).(*array.Timestamp)
		if !ok {
			continue
		}
		if r.order == nil {
			r.order = map[string]*orderState{}
		}
		st := r.order[f.Name]
		if st == nil {
			st = &orderState{increasing: true}
			r.order[f.Name] = st
		}
		if !st.increasing {
			continue
		}
		vals := ts.TimestampValues()
		nulls := ts.NullN() > 0
		for j, v := range vals {
			if nulls && ts.IsNull(j) {
				continue
			}
			if st.seen && int64(v) <= st.last {
				st.increasing = false
				break
			}
			st.last, st.seen = int64(v), true
		}
	}
}

// RecordBatch returns the current batch, valid until the next call to Next
// or Release; retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Lines appends the current batch's records to dst as the input wrote
// them, each without its line break, and each record's end offset in dst
// to ends, for a CSV Reader with Options.Verbatim, so that an answer can
// echo whole lines instead of rendering their fields again. It reports
// false, and appends nothing of the batch, when a record's text is not
// its fields' values joined by commas (a quoted field, a carriage
// return), when a non-empty field's first byte is marked in leading (a
// byte the caller would quote a value for), and for any other reader.
// The text is copied: dst stays valid after the next call to Next.
func (r *Reader) Lines(dst []byte, ends []int32, leading *[256]bool) ([]byte, []int32, bool) {
	if r.lines == nil || r.cur == nil {
		return dst, ends, false
	}
	d, e := len(dst), len(ends)
	dst, ends, ok := r.lines(dst, ends, leading)
	if !ok {
		return dst[:d], ends[:e], false
	}
	return dst, ends, true
}

// ParseNumbers asks a CSV Reader with Options.Verbatim to read the columns
// h marks as numbers from now on (NumberHint says which chunks): a batch
// may then hold float64 arrays for them, so its schema differs from
// Schema's. Chunks already parsed keep their text. The caller must echo
// such a batch's text through Lines, with h.Leading: its float64 columns
// are not the text. It does nothing on any other Reader, and a nil h
// ends the hint.
func (r *Reader) ParseNumbers(h *NumberHint) {
	if r.hint != nil {
		r.hint(h)
	}
}

// Err returns the error that ended the stream, if any: a *ParseError, or a
// read error (matching ErrTooLarge when the input was over its cap).
func (r *Reader) Err() error { return r.err }

// Release stops background work, waits for it and frees every buffer. It is
// safe to call before the end of the stream and more than once.
func (r *Reader) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.done = true
	r.halt()
}

func (r *Reader) halt() {
	if !r.stopped {
		r.stopped = true
		if r.stop != nil {
			r.stop()
		}
	}
}

func (r *Reader) trackZeroOne(name string, nums *array.Float64) {
	if r.zeroOne == nil {
		r.zeroOne = map[string]bool{}
	}
	state, seen := r.zeroOne[name]
	if seen && !state {
		return
	}
	nulls := nums.NullN() > 0
	for j, v := range nums.Float64Values() {
		if nulls && nums.IsNull(j) {
			continue
		}
		if v != 0 && v != 1 {
			r.zeroOne[name] = false
			return
		}
		seen = true
	}
	if seen {
		r.zeroOne[name] = true
	}
}

// Columns returns the current columns with their types; after Next has
// returned false, the final ones.
func (r *Reader) Columns() []ColumnInfo {
	out := append([]ColumnInfo(nil), r.cols...)
	for i := range out {
		if st := r.order[out[i].Name]; st != nil && out[i].DataType == columnar.Date {
			out[i].Increasing = st.increasing
		}
		if out[i].DataType.IsNumeric() {
			out[i].ZeroOne = r.zeroOne[out[i].Name]
		}
	}
	return out
}

// Rows returns the number of data rows emitted so far.
func (r *Reader) Rows() int64 { return r.rows }

// Bytes returns the number of input bytes of the data rows emitted so far:
// for CSV the (decompressed) lines holding them, for JSON the text of their
// values.
func (r *Reader) Bytes() int64 { return r.bytes }
