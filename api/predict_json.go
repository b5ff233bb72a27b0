package api

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// jsonPredictSource reads {"data": [{column: value, …}, …],
// "extraParameters": {…}} (in either order) batch by batch, keeping each
// value's text (numbers as written, strings unescaped). A row's keys may
// differ from other rows': the columns are the union, in first-seen order,
// and a row without one has it null.
//
// It scans the body itself rather than through jsontext's Decoder, whose
// PeekKind/ReadValue per key and value cost more than the rest of a
// predict (a body's decoding is the one part of a predict not done in
// parallel): a row is scanned straight from the read buffer, its keys
// matched against the previous row's bytes, its values appended to their
// columns. The scanner validates as strictly as jsontext (with duplicate
// names and invalid UTF-8 allowed, as the Decoder was configured), and
// gives each malformed body the error the Decoder-based reading gave;
// FuzzJSONPredictSource checks both against each other.
type jsonPredictSource struct {
	jsonColumns
	r     io.Reader
	buf   []byte // buf[pos:end] is read and not consumed
	pos   int
	end   int
	off   int64 // body offset of buf[0]
	rerr  error // the reader's error once it gave one (io.EOF at the end)
	query predictParams
	extra bool // extraParameters read
	state int  // jsonStart, jsonTop, jsonData (inside the data array), jsonEnd
	// first is set at the start of the object or the data array, before
	// its first member or element, which no comma precedes.
	first bool
	err   error
	// rowCols are the columns the row being scanned has set so far, to
	// undo when the buffer ends inside it.
	rowCols []int
	stack   []byte // scanJSONValue's
}

const (
	jsonStart = iota
	jsonTop
	jsonData
	jsonEnd
)

// jsonReadSize is the reading buffer's size, and how much is read at a
// time: the buffer grows only for a row or a value longer than it.
const jsonReadSize = 256 << 10

func newJSONPredictSource(r io.Reader, query predictParams, maxCols int) *jsonPredictSource {
	return &jsonPredictSource{
		jsonColumns: jsonColumns{maxCols: maxCols, byName: map[string]int{}},
		r:           r, buf: make([]byte, jsonReadSize), query: query,
	}
}

func (j *jsonPredictSource) close() {}

func (j *jsonPredictSource) Options() (engine.PredictOptions, bool, error) {
	o, err := j.query.options()
	return o, j.extra || j.state == jsonEnd, err
}

func badJSON(msg string, err error) error {
	return because(engine.Validation("data", msg), err)
}

func (j *jsonPredictSource) Next() (engine.PredictBatch, error) {
	if j.err != nil {
		return engine.PredictBatch{}, j.err
	}
	b, err := j.next()
	if err != nil {
		j.err = err
	}
	return b, err
}

// Messages of malformed bodies.
const (
	msgNotObject    = "The request body must be a JSON object with a data array"
	msgInvalid      = "The request body is not valid JSON"
	msgDataNotArray = "Value for data must be an array of objects"
)

func (j *jsonPredictSource) next() (engine.PredictBatch, error) {
	if j.state == jsonStart {
		i, ok := j.skipSpace(j.pos)
		switch {
		case !ok && j.rerr == io.EOF:
			return engine.PredictBatch{}, engine.Validation("data", "The data field is required.")
		case !ok:
			return engine.PredictBatch{}, badJSON(msgNotObject, j.rerr)
		case j.buf[i] != '{':
			return engine.PredictBatch{}, badJSON(msgNotObject, nil)
		}
		j.pos, j.state, j.first = i+1, jsonTop, true
	}
	return j.nextBatch(&j.state, j.top, j.readRows)
}

// fill reads more of the body, keeping buf[from:end] (moved to the
// buffer's start; the caller's offsets shift by from). It reports whether
// bytes were added; when not, rerr says why.
func (j *jsonPredictSource) fill(from int) bool {
	if j.rerr != nil {
		return false
	}
	if from > 0 {
		j.end = copy(j.buf, j.buf[from:j.end])
		j.pos -= from
		j.off += int64(from)
	}
	if j.end == len(j.buf) {
		j.buf = append(j.buf, make([]byte, len(j.buf))...)
	}
	for {
		n, err := j.r.Read(j.buf[j.end:])
		j.end += n
		if err != nil {
			j.rerr = err
		}
		if n > 0 || err != nil {
			return n > 0
		}
	}
}

// skipSpace returns the offset of the first byte at or after i that is not
// white space, reading more when needed (moving the buffer's unconsumed
// bytes, buf[pos:], to its start: i is relative to pos). ok is false at
// the end of the body or on a read error.
func (j *jsonPredictSource) skipSpace(i int) (int, bool) {
	for {
		i = skipJSONSpace(j.buf[:j.end], i)
		if i < j.end {
			return i, true
		}
		i -= j.pos
		if !j.fill(j.pos) {
			return i, false
		}
		i += j.pos
	}
}

// cause is the reason a scan stopped at buf[i]: the reader's error, or
// what is wrong at i.
func (j *jsonPredictSource) cause(i int, more bool) error {
	if more {
		if j.rerr != io.EOF {
			return j.rerr
		}
		return fmt.Errorf("unexpected end of JSON input at byte %d", j.off+int64(j.end))
	}
	return fmt.Errorf("invalid JSON at byte %d: %q", j.off+int64(i), j.buf[i:min(i+16, j.end)])
}

// retry reads more of the body for a scan of buf[pos:] that reached the
// buffer's end (scanMore); false (with the error to return, msg's) when
// the body has no more.
func (j *jsonPredictSource) retry(msg func() string) (bool, error) {
	if j.fill(j.pos) {
		return true, nil
	}
	return false, badJSON(msg(), j.cause(0, true))
}

// top reads the body's members up to the start of a data array or the
// end of the body.
func (j *jsonPredictSource) top() error {
	invalid := func() string { return msgInvalid }
	ended := false // the body's end was seen
	for {
		b := j.buf[:j.end]
		i := skipJSONSpace(b, j.pos)
		if i == j.end {
			if ok, err := j.retry(invalid); !ok {
				return err
			}
			continue
		}
		switch {
		case b[i] == '}':
			return j.finish(i + 1)
		case !j.first && b[i] != ',':
			return badJSON(msgInvalid, j.cause(i, false))
		case !j.first:
			i = skipJSONSpace(b, i+1)
		}
		end, key, st := j.member(b, i)
		msg := msgInvalid
		if key == jsonKeyData {
			msg = msgDataNotArray
		}
		if st == scanMore {
			// Once the body has ended, the member is scanned once more:
			// a number it ends with is then whole (see member).
			if !j.fill(j.pos) && (j.rerr != io.EOF || ended) {
				return badJSON(msg, j.cause(0, true))
			}
			ended = j.rerr == io.EOF
			continue
		}
		if st == scanBad {
			return badJSON(msg, j.cause(end, false))
		}
		j.pos, j.first = end, false
		switch key {
		case jsonKeyData:
			j.state, j.first = jsonData, true
			return nil
		case jsonKeyExtra:
			extra, err := decodeExtra(j.extraRaw)
			if err != nil {
				return err
			}
			j.query.override(extra)
			j.extra = true
		}
	}
}

// Keys of the body's object that matter.
const (
	jsonKeyOther = iota
	jsonKeyData
	jsonKeyExtra
)

// member scans a member of the body's object at b[i]: a key and its
// value, or with key data, the key and the opening bracket of its array.
// The value of extraParameters is left in extraRaw. end is where the scan
// stopped: after the member, or at what is wrong.
func (j *jsonPredictSource) member(b []byte, i int) (end, key, st int) {
	if i == len(b) {
		return i, jsonKeyOther, scanMore
	}
	if b[i] != '"' {
		return i, jsonKeyOther, scanBad
	}
	k, _, st := scanJSONString(b, i)
	if st != scanOK {
		return k, jsonKeyOther, st
	}
	// The key's only possible error is invalid UTF-8, replaced.
	j.key, _ = jsontext.AppendUnquote(j.key[:0], b[i:k])
	switch name := unsafeString(j.key); {
	case strings.EqualFold(name, "data"):
		key = jsonKeyData
	case strings.EqualFold(name, "extraParameters"):
		key = jsonKeyExtra
	}
	if i, st = scanJSONColon(b, k); st != scanOK {
		return i, key, st
	}
	if key == jsonKeyData {
		if b[i] != '[' {
			// The value is not an array, whether valid or not.
			return i, key, scanBad
		}
		return i + 1, key, scanOK
	}
	var v int
	v, j.stack, st = scanJSONValue(b, i, j.stack)
	if st == scanMore && j.rerr == io.EOF && (b[i] == '-' || isDigit(b[i])) && isDigit(b[v-1]) {
		// A number the body ends with is whole, as jsontext reads it:
		// extraParameters is decoded before the body's end is an error.
		st = scanOK
	}
	if st == scanOK && key == jsonKeyExtra {
		j.extraRaw = append(j.extraRaw[:0], b[i:v]...)
	}
	return v, key, st
}

// finish reads the rest of the body after its object's closing brace at
// buf[i-1]: white space only.
func (j *jsonPredictSource) finish(i int) error {
	j.pos = i
	i, ok := j.skipSpace(i)
	switch {
	case ok:
		return badJSON(msgInvalid, j.cause(i, false))
	case j.rerr != io.EOF:
		return badJSON(msgInvalid, j.rerr)
	}
	j.state = jsonEnd
	return nil
}

// readRows reads rows of the data array into the batch until it is full,
// and leaves the array when it ends.
func (j *jsonPredictSource) readRows() error {
	rowErr := func() string { return fmt.Sprintf("Row %d must be an object of column values", j.rows) }
	for j.n < predictBatchRows {
		b := j.buf[:j.end]
		i := skipJSONSpace(b, j.pos)
		if i < j.end && b[i] == ']' {
			j.pos, j.state, j.first = i+1, jsonTop, false
			return nil
		}
		if i < j.end && !j.first {
			if b[i] != ',' {
				return badJSON(rowErr(), j.cause(i, false))
			}
			i = skipJSONSpace(b, i+1)
		}
		if i == j.end {
			if ok, err := j.retry(rowErr); !ok {
				return err
			}
			continue
		}
		if b[i] != '{' {
			return badJSON(rowErr(), j.cause(i, false))
		}
		end, st, err := j.readRow(b, i+1)
		if err != nil {
			return err
		}
		switch st {
		case scanMore:
			j.unsetRow()
			if ok, err := j.retry(rowErr); !ok {
				return err
			}
			continue
		case scanBad:
			return badJSON(rowErr(), j.cause(end, false))
		}
		j.pos, j.first = end, false
		j.n++
		j.rows++
	}
	return nil
}

// unsetRow undoes what the row being read set.
func (j *jsonPredictSource) unsetRow() {
	for _, k := range j.rowCols {
		if c := j.cols[k]; c.n > j.n {
			c.unset(j.n)
		}
	}
}

// readRow reads the members of the row object opened at b[i-1] into row
// n of the batch: end is after its closing brace, or where the scan
// stopped when it is malformed (scanBad) or when the buffer ends inside it
// (scanMore: what it set is to be undone with unsetRow). A value that is
// an object or an array is an error naming the column, once it is known
// to be valid JSON.
func (j *jsonPredictSource) readRow(b []byte, i int) (end, st int, err error) {
	row := j.n
	j.rowCols = j.rowCols[:0]
	if i = skipJSONSpace(b, i); i == len(b) {
		return i, scanMore, nil
	}
	if b[i] == '}' {
		return i + 1, scanOK, nil
	}
	for pos := 0; ; pos++ {
		if b[i] != '"' {
			return i, scanBad, nil
		}
		// A key equal to the one at its position in the previous row is
		// that (valid) string: it needs no scanning, unquoting or lookup.
		var col int
		if pos < len(j.layoutKeys) && bytes.HasPrefix(b[i:], j.layoutKeys[pos]) {
			col = j.layoutCols[pos]
			i += len(j.layoutKeys[pos])
		} else {
			k, _, st := scanJSONString(b, i)
			if st != scanOK {
				return k, st, nil
			}
			if col, err = j.column(b[i:k], pos); err != nil {
				return 0, 0, err
			}
			i = k
		}
		j.rowCols = append(j.rowCols, col)
		if i, st = scanJSONColon(b, i); st != scanOK {
			return i, st, nil
		}
		c := j.cols[col]
		v := i
		switch b[i] {
		case '"':
			var esc bool
			if i, esc, st = scanJSONString(b, i); st != scanOK {
				return i, st, nil
			}
			if esc {
				c.setEscaped(row, b[v:i])
			} else {
				c.set(row, b[v+1:i-1], false)
			}
		case '{', '[':
			if i, j.stack, st = scanJSONValue(b, i, j.stack); st != scanOK {
				return i, st, nil
			}
			return 0, 0, engine.Validation(c.name, fmt.Sprintf("Row %d: the value of %s must be a string, number, boolean or null", j.rows, c.name))
		case 'n':
			if i, st = scanJSONLiteral(b, i, "null"); st != scanOK {
				return i, st, nil
			}
			c.setNull(row)
		case 't':
			if i, st = scanJSONLiteral(b, i, "true"); st != scanOK {
				return i, st, nil
			}
			c.set(row, b[v:i], true)
		case 'f':
			if i, st = scanJSONLiteral(b, i, "false"); st != scanOK {
				return i, st, nil
			}
			c.set(row, b[v:i], true)
		default:
			if i, st = scanJSONNumber(b, i); st != scanOK {
				return i, st, nil
			}
			c.set(row, b[v:i], true)
		}
		if i = skipJSONSpace(b, i); i == len(b) {
			return i, scanMore, nil
		}
		switch b[i] {
		case '}':
			return i + 1, scanOK, nil
		case ',':
			if i = skipJSONSpace(b, i+1); i == len(b) {
				return i, scanMore, nil
			}
		default:
			return i, scanBad, nil
		}
	}
}

// nextBatch reads the body, in state, up to the end of the next batch:
// top reads the body's members up to a data array (state jsonData) or the
// end (jsonEnd), readRows reads rows until the batch is full or the array
// ends (jsonTop). A batch ends when it is full or the body ends: what
// follows a data array (extraParameters, usually) is read before its last
// batch is handed out.
func (j *jsonColumns) nextBatch(state *int, top, readRows func() error) (engine.PredictBatch, error) {
	for {
		switch *state {
		case jsonTop:
			if err := top(); err != nil {
				return engine.PredictBatch{}, err
			}
		case jsonEnd:
			if j.n > 0 {
				return j.batch(), nil
			}
			return engine.PredictBatch{}, io.EOF
		default:
			if err := readRows(); err != nil {
				return engine.PredictBatch{}, err
			}
			if j.n == predictBatchRows {
				return j.batch(), nil
			}
		}
	}
}

// jsonColumns are the columns of the batch being read from a JSON body.
type jsonColumns struct {
	maxCols int
	rows    int64 // rows read: the next row's index
	n       int   // rows of the batch being read
	cols    []*jsonColumn
	byName  map[string]int // strings.ToLower(name) → column
	// layout is the previous row's keys (raw JSON text) and columns: rows
	// usually repeat it, and a key equal to the one at its position in it
	// needs no unquoting or lookup.
	layoutKeys [][]byte
	layoutCols []int
	key        []byte // unquoting buffer
	extraRaw   []byte // the value of extraParameters
}

// column returns the column of a key (raw JSON text, valid), adding it
// when new, and makes it the layout's key at position pos.
func (j *jsonColumns) column(raw []byte, pos int) (int, error) {
	// The key is valid: the only error left is invalid UTF-8, which comes
	// back replaced by U+FFFD, as encoding/json reads it.
	j.key, _ = jsontext.AppendUnquote(j.key[:0], raw)
	lower := strings.ToLower(string(j.key))
	c, ok := j.byName[lower]
	if !ok {
		if len(j.cols) == j.maxCols {
			return 0, engine.Validation("data", fmt.Sprintf("The rows have more than %d columns; the column limit is %d", j.maxCols, j.maxCols))
		}
		c = len(j.cols)
		j.byName[lower] = c
		j.cols = append(j.cols, &jsonColumn{name: string(j.key)})
	}
	if pos < len(j.layoutKeys) {
		j.layoutKeys[pos], j.layoutCols[pos] = append(j.layoutKeys[pos][:0], raw...), c
	} else {
		j.layoutKeys, j.layoutCols = append(j.layoutKeys, bytes.Clone(raw)), append(j.layoutCols, c)
	}
	return c, nil
}

// jsonColumn accumulates one column of a batch.
type jsonColumn struct {
	name  string
	n     int // rows so far
	offs  []int32
	data  []byte
	valid []byte // bitmap
	nulls int
	lit   []bool // nil until a literal appears
}

// set makes v, a value's text, row i's value. A key repeated in a row
// keeps its last value.
func (c *jsonColumn) set(i int, v []byte, lit bool) {
	if c.n != i || c.offs == nil {
		c.reset(i)
	}
	c.data = append(c.data, v...)
	c.offs = append(c.offs, int32(len(c.data)))
	c.valid[i>>3] |= 1 << (i & 7)
	if lit {
		if c.lit == nil {
			c.lit = make([]bool, i, predictBatchRows)
		}
		c.lit = append(c.lit, true)
	} else if c.lit != nil {
		c.lit = append(c.lit, false)
	}
	c.n = i + 1
}

// setEscaped makes v, a quoted JSON string with escapes, row i's value,
// unescaped.
func (c *jsonColumn) setEscaped(i int, v []byte) {
	c.reset(i)
	// As for keys, the only possible error is invalid UTF-8, replaced.
	c.data, _ = jsontext.AppendUnquote(c.data, v)
	c.offs = append(c.offs, int32(len(c.data)))
	bitutil.SetBit(c.valid, i)
	if c.lit != nil {
		c.lit = append(c.lit, false)
	}
	c.n = i + 1
}

func (c *jsonColumn) setNull(i int) {
	c.reset(i)
	c.appendNull()
}

// reset makes the column's rows before i all set (null when absent) and
// row i unset, ready for its value.
func (c *jsonColumn) reset(i int) {
	c.pad(i)
	if c.n > i {
		c.unset(i)
	}
}

// unset removes row i, the last one, to replace it.
func (c *jsonColumn) unset(i int) {
	c.offs = c.offs[:i+1]
	c.data = c.data[:c.offs[i]]
	if bitutil.BitIsSet(c.valid, i) {
		bitutil.ClearBit(c.valid, i)
	} else {
		c.nulls--
	}
	if c.lit != nil {
		c.lit = c.lit[:i]
	}
	c.n = i
}

// pad adds nulls up to row i.
func (c *jsonColumn) pad(i int) {
	if c.offs == nil {
		c.offs = append(arrow.Int32Traits.CastFromBytes(jsonMemory.Allocate(arrow.Int32SizeBytes * (predictBatchRows + 1)))[:0], 0)
		c.valid = jsonMemory.Allocate(int(bitutil.BytesForBits(predictBatchRows)))
	}
	for c.n < i {
		c.appendNull()
	}
}

func (c *jsonColumn) appendNull() {
	c.offs = append(c.offs, int32(len(c.data)))
	c.nulls++
	if c.lit != nil {
		c.lit = append(c.lit, false)
	}
	c.n++
}

// jsonMemory recycles the buffers of a JSON predict body's columns: a
// batch's arrays give them back with their last Release, and the next
// batch's columns are read into them (columnar.PoolAllocator; as
// engine's predictMemory does for CSV bodies).
var jsonMemory columnar.PoolAllocator

// batch turns the rows read into a record, the columns' buffers becoming
// its arrays', and starts the next batch with fresh buffers.
func (j *jsonColumns) batch() engine.PredictBatch {
	n := j.n
	j.n = 0
	fields := make([]arrow.Field, len(j.cols))
	arrs := make([]arrow.Array, len(j.cols))
	var lits [][]bool
	for k, c := range j.cols {
		c.pad(n)
		// The buffers go back to jsonMemory with the array's last
		// Release.
		bufs := []*memory.Buffer{nil,
			memory.NewBufferWithAllocator(arrow.Int32Traits.CastToBytes(c.offs), &jsonMemory),
			memory.NewBufferWithAllocator(c.data, &jsonMemory)}
		if c.nulls > 0 {
			bufs[0] = memory.NewBufferWithAllocator(c.valid, &jsonMemory)
		} else {
			jsonMemory.Free(c.valid)
		}
		data := array.NewData(arrow.BinaryTypes.String, n, bufs, nil, c.nulls, 0)
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
		arrs[k] = array.MakeFromData(data)
		data.Release()
		fields[k] = arrow.Field{Name: c.name, Type: arrow.BinaryTypes.String, Nullable: true}
		if c.lit != nil {
			if lits == nil {
				lits = make([][]bool, len(j.cols))
			}
			lits[k] = c.lit
		}
		size := len(c.data)
		*c = jsonColumn{name: c.name, data: jsonMemory.Allocate(size + size/8)[:0]}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return engine.PredictBatch{Rec: rec, Literal: lits}
}

// How a scan of JSON text ends: the text is valid (so far), the buffer
// ends inside it, or it is malformed.
const (
	scanOK = iota
	scanMore
	scanBad
)

// jsonSpace marks JSON's white space.
var jsonSpace = byteSet(func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' })

// jsonStringStop marks the bytes that stop a scan of a string's
// characters: its end, an escape, or a control character (invalid).
var jsonStringStop = byteSet(func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' })

// skipJSONSpace returns the offset of the first byte at or after i that is
// not white space, len(b) when there is none.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && jsonSpace[b[i]] {
		i++
	}
	return i
}

// scanJSONString scans the string at b[i] == '"' to after its closing
// quote; esc reports an escape in it. As jsontext with invalid UTF-8
// allowed, any byte but a control character may appear, and any \u
// escape (a lone surrogate too).
func scanJSONString(b []byte, i int) (end int, esc bool, st int) {
	i++
	for {
		for i < len(b) && !jsonStringStop[b[i]] {
			i++
		}
		if i == len(b) {
			return i, esc, scanMore
		}
		switch b[i] {
		case '"':
			return i + 1, esc, scanOK
		case '\\':
			esc = true
			if i+1 == len(b) {
				return i, esc, scanMore
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k == len(b) {
						return k, esc, scanMore
					}
					if !isHex(b[k]) {
						return k, esc, scanBad
					}
				}
				i += 6
			default:
				return i, esc, scanBad
			}
		default:
			return i, esc, scanBad
		}
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// scanJSONNumber scans the number at b[i] to its end. A number that
// reaches the buffer's end may go on (scanMore): in a JSON body, valid
// text always follows one.
func scanJSONNumber(b []byte, i int) (end, st int) {
	if b[i] == '-' {
		i++
	}
	if i == len(b) {
		return i, scanMore
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, scanBad
	}
	if i < len(b) && b[i] == '.' {
		if i++; i == len(b) {
			return i, scanMore
		}
		if !isDigit(b[i]) {
			return i, scanBad
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) {
			return i, scanMore
		}
		if !isDigit(b[i]) {
			return i, scanBad
		}
		i = skipDigits(b, i+1)
	}
	if i == len(b) {
		return i, scanMore
	}
	return i, scanOK
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// scanJSONLiteral scans the literal lit (true, false or null) at b[i].
func scanJSONLiteral(b []byte, i int, lit string) (end, st int) {
	for k := range len(lit) {
		if i+k == len(b) {
			return i + k, scanMore
		}
		if b[i+k] != lit[k] {
			return i + k, scanBad
		}
	}
	return i + len(lit), scanOK
}

// scanJSONValue scans any JSON value at b[i] (not white space) to its
// end, following the nesting of objects and arrays in stack (returned for
// reuse) rather than by recursion. A body's nesting is bounded by
// engine.LimitJSONDepth, the stack by the body's size.
func scanJSONValue(b []byte, i int, stack []byte) (end int, _ []byte, st int) {
	stack = stack[:0]
	for {
		// A value starts at b[i].
		if i == len(b) {
			return i, stack, scanMore
		}
		switch b[i] {
		case '{', '[':
			closer := b[i] + 2 // '}' or ']'
			if i = skipJSONSpace(b, i+1); i == len(b) {
				return i, stack, scanMore
			}
			if b[i] == closer {
				i++
				break
			}
			stack = append(stack, closer)
			if closer == '}' {
				if i, st = scanJSONName(b, i); st != scanOK {
					return i, stack, st
				}
			}
			continue
		case '"':
			if i, _, st = scanJSONString(b, i); st != scanOK {
				return i, stack, st
			}
		case 't':
			if i, st = scanJSONLiteral(b, i, "true"); st != scanOK {
				return i, stack, st
			}
		case 'f':
			if i, st = scanJSONLiteral(b, i, "false"); st != scanOK {
				return i, stack, st
			}
		case 'n':
			if i, st = scanJSONLiteral(b, i, "null"); st != scanOK {
				return i, stack, st
			}
		default:
			if i, st = scanJSONNumber(b, i); st != scanOK {
				return i, stack, st
			}
		}
		// A value ended at b[i]: close what it ends, then go on to the
		// next one.
		for {
			if len(stack) == 0 {
				return i, stack, scanOK
			}
			if i = skipJSONSpace(b, i); i == len(b) {
				return i, stack, scanMore
			}
			if closer := stack[len(stack)-1]; b[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, stack, scanBad
			}
			if i = skipJSONSpace(b, i+1); i == len(b) {
				return i, stack, scanMore
			}
			if stack[len(stack)-1] == '}' {
				if i, st = scanJSONName(b, i); st != scanOK {
					return i, stack, st
				}
			}
			break
		}
	}
}

// scanJSONName scans an object's member name at b[i] and its colon, to the
// start of its value.
func scanJSONName(b []byte, i int) (end, st int) {
	if b[i] != '"' {
		return i, scanBad
	}
	if i, _, st = scanJSONString(b, i); st != scanOK {
		return i, st
	}
	return scanJSONColon(b, i)
}

// scanJSONColon scans the colon after a member's name, which ends at
// b[i], to the start of its value.
func scanJSONColon(b []byte, i int) (end, st int) {
	if i = skipJSONSpace(b, i); i == len(b) {
		return i, scanMore
	}
	if b[i] != ':' {
		return i, scanBad
	}
	if i = skipJSONSpace(b, i+1); i == len(b) {
		return i, scanMore
	}
	return i, scanOK
}
