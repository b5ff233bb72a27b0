package api

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// This file holds the one walker over Arrow batches that renders data rows,
// shared by the JSON and CSV encoders: row values are text (REFERENCE
// §1.3), missing values empty.

// cellFunc appends the text of row i of a column (known not null).
type cellFunc func(dst []byte, i int) []byte

// timeFormat picks how dates are written in rows.
type timeFormat func(dst []byte, t time.Time) []byte

// column is how to render one column of a batch.
type column struct {
	cell     cellFunc
	arr      arrow.Array
	hasNulls bool
	text     bool // free text, which may need quoting or escaping
}

// null reports whether row i is missing.
func (c *column) null(i int) bool { return c.hasNulls && c.arr.IsNull(i) }

// columnsFor prepares every column of a batch for rendering.
func columnsFor(rec arrow.RecordBatch, tf timeFormat) []column {
	cells := cellsFor(rec, tf)
	out := make([]column, len(cells))
	for c := range out {
		arr := rec.Column(c)
		out[c] = column{cell: cells[c], arr: arr, hasNulls: arr.NullN() > 0}
		switch arr.DataType().ID() {
		case arrow.FLOAT64, arrow.INT64, arrow.INT32, arrow.BOOL, arrow.TIMESTAMP:
		default:
			out[c].text = true
		}
	}
	return out
}

// cellsFor returns a cellFunc for each column of a batch.
func cellsFor(rec arrow.RecordBatch, tf timeFormat) []cellFunc {
	out := make([]cellFunc, rec.NumCols())
	for c := range out {
		switch a := rec.Column(c).(type) {
		case *array.Float64:
			vals := a.Float64Values()
			out[c] = func(dst []byte, i int) []byte { return appendNumber(dst, vals[i]) }
		case *array.Int64:
			vals := a.Int64Values()
			out[c] = func(dst []byte, i int) []byte { return strconv.AppendInt(dst, vals[i], 10) }
		case *array.Int32:
			vals := a.Int32Values()
			out[c] = func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(vals[i]), 10) }
		case *array.Boolean:
			out[c] = func(dst []byte, i int) []byte { return strconv.AppendBool(dst, a.Value(i)) }
		case *array.String:
			out[c] = func(dst []byte, i int) []byte { return append(dst, a.Value(i)...) }
		case *array.LargeString:
			out[c] = func(dst []byte, i int) []byte { return append(dst, a.Value(i)...) }
		case *array.Timestamp:
			unit := a.DataType().(*arrow.TimestampType).Unit
			vals := a.TimestampValues()
			out[c] = func(dst []byte, i int) []byte { return tf(dst, vals[i].ToTime(unit)) }
		default:
			arr := rec.Column(c)
			out[c] = func(dst []byte, i int) []byte { return append(dst, arr.ValueStr(i)...) }
		}
	}
	return out
}

// appendNumber writes a number the way the reference's rows show them:
// shortest round-trip decimal, without an exponent in the usual range.
func appendNumber(dst []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	if a := math.Abs(v); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, 64)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// rowWriter renders rows in one format.
type rowWriter interface {
	header(w *bufio.Writer, names []string) error
	row(dst []byte, cols []column, i int) []byte
	footer(w *bufio.Writer) error
}

// writeRows streams every row of rr through rw; n is the number of rows.
func writeRows(w io.Writer, rr array.RecordReader, names []string, tf timeFormat, rw rowWriter) (n int64, err error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := rw.header(bw, names); err != nil {
		return 0, err
	}
	var buf []byte
	for rr.Next() {
		rec := rr.RecordBatch()
		cols := columnsFor(rec, tf)
		rows := int(rec.NumRows())
		for i := range rows {
			buf = rw.row(buf[:0], cols, i)
			if _, err := bw.Write(buf); err != nil {
				return n, err
			}
			n++
		}
	}
	if err := rr.Err(); err != nil {
		return n, err
	}
	if err := rw.footer(bw); err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// jsonRows renders rows as the elements of a JSON array of objects whose
// values are strings.
type jsonRows struct {
	keys  [][]byte // `"name":` per column
	first bool
}

func newJSONRows(names []string) *jsonRows {
	j := &jsonRows{first: true}
	for _, n := range names {
		j.keys = append(j.keys, append(appendJSONString(nil, n), ':'))
	}
	return j
}

func (j *jsonRows) header(*bufio.Writer, []string) error { return nil }
func (j *jsonRows) footer(*bufio.Writer) error           { return nil }

func (j *jsonRows) row(dst []byte, cols []column, i int) []byte {
	if !j.first {
		dst = append(dst, ',')
	}
	j.first = false
	dst = append(dst, '{')
	for c := range cols {
		col := &cols[c]
		if c > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, j.keys[c]...)
		if col.null(i) {
			dst = append(dst, '"', '"')
			continue
		}
		if !col.text {
			dst = append(dst, '"')
			dst = col.cell(dst, i)
			dst = append(dst, '"')
			continue
		}
		start := len(dst)
		dst = col.cell(dst, i)
		dst = quoteJSONInPlace(dst, start)
	}
	return append(dst, '}')
}

// quoteJSONInPlace turns dst[start:] into a JSON string.
func quoteJSONInPlace(dst []byte, start int) []byte {
	plain := true
	for _, c := range dst[start:] {
		if c < 0x20 || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		dst = append(dst, 0, 0)
		copy(dst[start+1:], dst[start:len(dst)-2])
		dst[start] = '"'
		dst[len(dst)-1] = '"'
		return dst
	}
	s := string(dst[start:])
	return appendJSONString(dst[:start], s)
}

// csvRows renders rows as RFC 4180 CSV with a header line.
type csvRows struct{}

func (csvRows) header(w *bufio.Writer, names []string) error {
	var b []byte
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, n)
	}
	b = append(b, '\n')
	_, err := w.Write(b)
	return err
}

func (csvRows) footer(*bufio.Writer) error { return nil }

func (csvRows) row(dst []byte, cols []column, i int) []byte {
	for c := range cols {
		col := &cols[c]
		if c > 0 {
			dst = append(dst, ',')
		}
		if col.null(i) {
			continue
		}
		start := len(dst)
		dst = col.cell(dst, i)
		if col.text && needsCSVQuote(dst[start:]) {
			s := string(dst[start:])
			dst = appendCSVField(dst[:start], s)
		}
	}
	return append(dst, '\n')
}

func needsCSVQuote(b []byte) bool {
	for _, c := range b {
		if c == ',' || c == '"' || c == '\n' || c == '\r' {
			return true
		}
	}
	return len(b) > 0 && (b[0] == ' ' || b[len(b)-1] == ' ')
}

func appendCSVField(dst []byte, s string) []byte {
	if !needsCSVQuote([]byte(s)) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	dst = append(dst, strings.ReplaceAll(s, `"`, `""`)...)
	return append(dst, '"')
}
