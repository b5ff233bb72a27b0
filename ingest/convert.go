package ingest

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// converter turns fields into Arrow arrays. It is safe for concurrent use
// once built (it is read-only).
type converter struct {
	mem     memory.Allocator
	missing map[string]struct{} // extra missing tokens; nil when none
	// verbatim: string arrays keep every field, empty ones included
	// (Options.Verbatim).
	verbatim bool
}

func newConverter(o Options) *converter {
	cv := &converter{mem: o.Allocator, verbatim: o.Verbatim}
	for _, m := range o.MissingValues {
		if cv.missing == nil {
			cv.missing = make(map[string]struct{}, len(o.MissingValues))
		}
		cv.missing[string(trimSpace([]byte(m)))] = struct{}{}
	}
	return cv
}

// isMissing reports whether b (already trimmed of spaces) is missing.
func (cv *converter) isMissing(t []byte) bool {
	if len(t) == 0 {
		return true
	}
	if cv.missing != nil {
		_, ok := cv.missing[string(t)] // no allocation: map lookup by []byte conversion
		return ok
	}
	return false
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// buildColumn converts rows [lo, hi) of column col of fs to an array of
// type t (by its storage). When a non-missing value does not fit t it
// returns nil and the index of that row.
func (cv *converter) buildColumn(fs *fieldSet, col, lo, hi int, t columnar.DataType) (arrow.Array, int) {
	n := hi - lo
	switch t.Storage() {
	case columnar.Numeric:
		b := array.NewFloat64Builder(cv.mem)
		defer b.Release()
		b.Reserve(n)
		var refs []int32
		if hi > lo {
			refs = fs.refs[2*(lo*fs.ncol+col):]
		}
		stride := 2 * fs.ncol
		for i := lo; i < hi; i, refs = i+1, refs[min(stride, len(refs)):] {
			var v []byte
			if s, e := refs[0], refs[1]; s >= 0 {
				v = fs.data[s:e]
			} else {
				v = fs.esc[^s:^e]
			}
			v = trimSpace(v)
			if cv.missing != nil && cv.isMissing(v) || len(v) == 0 {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			f, ok := parseTrimmedNumber(v)
			if !ok {
				return nil, i
			}
			b.UnsafeAppend(f)
		}
		return b.NewArray(), -1
	case columnar.Logical:
		b := array.NewBooleanBuilder(cv.mem)
		defer b.Release()
		return buildParsed(cv, fs, col, lo, hi, b, parseLogical)
	case columnar.Date:
		b := array.NewTimestampBuilder(cv.mem, columnar.TimestampType)
		defer b.Release()
		return buildParsed(cv, fs, col, lo, hi, b, parseTimestamp)
	}
	return cv.buildString(fs, col, lo, hi), -1
}

// typedBuilder is an Arrow builder of values of type T.
type typedBuilder[T any] interface {
	array.Builder
	UnsafeAppend(T)
}

// buildParsed converts rows [lo, hi) of column col with parse into b; it
// returns the row of the first value that does not parse, or -1.
func buildParsed[T any](cv *converter, fs *fieldSet, col, lo, hi int, b typedBuilder[T], parse func([]byte) (T, bool)) (arrow.Array, int) {
	b.Reserve(hi - lo)
	for i := lo; i < hi; i++ {
		v := trimSpace(fs.field(i, col))
		if cv.isMissing(v) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		x, ok := parse(v)
		if !ok {
			return nil, i
		}
		b.UnsafeAppend(x)
	}
	return b.NewArray(), -1
}

// parseTimestamp reads a date as microseconds since the epoch, UTC.
func parseTimestamp(v []byte) (arrow.Timestamp, bool) {
	t, ok := columnar.ParseTimeBytes(v)
	return arrow.Timestamp(t.UnixMicro()), ok
}

// buildString converts rows [lo, hi) of column col to a string array,
// keeping each value's text as is. It writes the array's buffers
// directly: the builder's per-value append (offset, validity bit, copy)
// was most of a verbatim CSV read's conversion time.
func (cv *converter) buildString(fs *fieldSet, col, lo, hi int) arrow.Array {
	n := hi - lo
	size, nulls := 0, 0
	for i := lo; i < hi; i++ {
		v := fs.field(i, col)
		if !cv.verbatim && cv.isMissing(trimSpace(v)) {
			nulls++
			continue
		}
		size += len(v)
	}
	offBuf := memory.NewResizableBuffer(cv.mem)
	offBuf.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	valBuf := memory.NewResizableBuffer(cv.mem)
	valBuf.Resize(size)
	vals := valBuf.Bytes()
	var validity *memory.Buffer
	var bits []byte
	if nulls > 0 {
		validity = memory.NewResizableBuffer(cv.mem)
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		bits = validity.Bytes()
		clear(bits)
	}
	pos := 0
	offs[0] = 0
	for k := range n {
		v := fs.field(lo+k, col)
		if bits != nil {
			if cv.isMissing(trimSpace(v)) {
				offs[k+1] = int32(pos)
				continue
			}
			bitutil.SetBit(bits, k)
		}
		pos += copy(vals[pos:], v)
		offs[k+1] = int32(pos)
	}
	buffers := []*memory.Buffer{validity, offBuf, valBuf}
	data := array.NewData(arrow.BinaryTypes.String, n, buffers, nil, nulls, 0)
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.NewStringData(data)
}

// buildStrings converts rows [0, rows) of the columns of fs marked in
// want (every column when want is nil) to string arrays keeping each
// field's text (Options.Verbatim, where no field is missing):
// buildString's result for each, built in two passes over the fields in
// row order (sizes, then copies) rather than two passes per column. The
// field references are laid out row by row, so a pass per column read
// every cache line of them once per column; on a predict body of 16 384
// rows × 20 columns that was 40 strided passes over 2.6 MB. A column not
// in want is nil in the result.
func (cv *converter) buildStrings(fs *fieldSet, rows int, want []bool) []arrow.Array {
	ncol := fs.ncol
	sizes := make([]int, ncol)
	refs := fs.refs[:2*rows*ncol]
	for k := 0; k < len(refs); {
		for j := range sizes {
			d := int(refs[k+1] - refs[k])
			if refs[k] < 0 { // an unescaped field in fs.esc: both ends complemented
				d = -d
			}
			sizes[j] += d
			k += 2
		}
	}
	offBufs := make([]*memory.Buffer, ncol)
	valBufs := make([]*memory.Buffer, ncol)
	offs := make([][]int32, ncol)
	vals := make([][]byte, ncol)
	pos := make([]int32, ncol)
	for j := range ncol {
		if want != nil && !want[j] {
			continue
		}
		offBufs[j] = memory.NewResizableBuffer(cv.mem)
		offBufs[j].Resize(arrow.Int32Traits.BytesRequired(rows + 1))
		offs[j] = arrow.Int32Traits.CastFromBytes(offBufs[j].Bytes())[:rows+1]
		offs[j][0] = 0
		valBufs[j] = memory.NewResizableBuffer(cv.mem)
		valBufs[j].Resize(sizes[j])
		vals[j] = valBufs[j].Bytes()
	}
	for i, k := 0, 0; i < rows; i++ {
		for j := range ncol {
			if offs[j] == nil {
				k += 2
				continue
			}
			var v []byte
			if s, e := refs[k], refs[k+1]; s >= 0 {
				v = fs.data[s:e]
			} else {
				v = fs.esc[^s:^e]
			}
			k += 2
			p := pos[j]
			p += int32(copy(vals[j][p:], v))
			pos[j] = p
			offs[j][i+1] = p
		}
	}
	out := make([]arrow.Array, ncol)
	for j := range ncol {
		if offs[j] == nil {
			continue
		}
		data := array.NewData(arrow.BinaryTypes.String, rows, []*memory.Buffer{nil, offBufs[j], valBufs[j]}, nil, 0, 0)
		offBufs[j].Release()
		valBufs[j].Release()
		out[j] = array.NewStringData(data)
		data.Release()
	}
	return out
}

// NumberHint asks a verbatim CSV Reader for numbers instead of text
// (Reader.ParseNumbers). A chunk whose records are all plain for Leading
// (Reader.Lines would take them) reads each marked column with Parse, in
// the worker that splits it: a column whose every field Parse reads
// becomes a float64 array of those values; one with a field Parse refuses
// keeps its text, as without the hint. Every other chunk is read as
// without the hint.
type NumberHint struct {
	// Columns marks columns by their position in the header.
	Columns []bool
	// Leading is the set Reader.Lines is then called with.
	Leading *[256]bool
	// Parse reads one field's text; it is called from several goroutines.
	Parse func(field []byte) (float64, bool)
}

// buildHinted converts rows [0, rows) of fs under h: the hinted columns
// Parse reads throughout as float64 arrays, the rest as buildStrings
// does. fs holds a plain chunk, so no field is in fs.esc.
func (cv *converter) buildHinted(fs *fieldSet, rows int, h *NumberHint) []arrow.Array {
	ncol := fs.ncol
	bufs := make([]*memory.Buffer, ncol) // nil: the column keeps its text
	nums := make([][]float64, ncol)
	for j, ok := range h.Columns {
		if ok {
			bufs[j] = memory.NewResizableBuffer(cv.mem)
			bufs[j].Resize(arrow.Float64Traits.BytesRequired(rows))
			nums[j] = arrow.Float64Traits.CastFromBytes(bufs[j].Bytes())[:rows]
		}
	}
	refs := fs.refs[:2*rows*ncol]
	for i, k := 0, 0; i < rows; i++ {
		for j := range ncol {
			if bufs[j] != nil {
				f, ok := h.Parse(fs.data[refs[k]:refs[k+1]])
				if !ok {
					bufs[j].Release()
					bufs[j] = nil
				} else {
					nums[j][i] = f
				}
			}
			k += 2
		}
	}
	text := make([]bool, ncol)
	strs := false
	for j, b := range bufs {
		text[j] = b == nil
		strs = strs || text[j]
	}
	out := make([]arrow.Array, ncol)
	if strs {
		out = cv.buildStrings(fs, rows, text)
	}
	for j, b := range bufs {
		if b == nil {
			continue
		}
		data := array.NewData(arrow.PrimitiveTypes.Float64, rows, []*memory.Buffer{nil, b}, nil, 0, 0)
		b.Release()
		out[j] = array.NewFloat64Data(data)
		data.Release()
	}
	return out
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber parses a finite decimal number (surrounding spaces allowed;
// no hex, underscores, Inf or NaN). Plain
// decimals of at most 15 digits take a fast path whose result equals
// strconv.ParseFloat's: the mantissa and the power of ten are exact, so the
// one division is correctly rounded. Everything else goes to strconv.
func parseNumber(b []byte) (float64, bool) { return parseTrimmedNumber(trimSpace(b)) }

// ParseNumber is parseNumber for the engine's predict, so that a value
// sent for prediction reads as the same text uploaded would.
func ParseNumber(b []byte) (float64, bool) { return parseNumber(b) }

// ParseTrimmed is ParseNumber for a field known to have no space around
// it: it skips the trimming.
func ParseTrimmed(b []byte) (float64, bool) { return parseTrimmedNumber(b) }

// The fast path has no branch on the sign, which is random in real data
// (a mispredicted branch per number cost more than the rest of the
// parse), nor on whether there is a fraction: dividing by 10⁰ is exact.
func parseTrimmedNumber(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	i := int(signLen[b[0]])
	sign := signBit[b[0]]
	var mant uint64 // wraps for long inputs, which take the slow path
	start := i
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	digits, frac := i-start, 0
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			mant = mant*10 + uint64(d)
		}
		frac = i - fs
		digits += frac
	}
	if i == len(b) && digits > 0 && digits <= 15 {
		f := float64(mant) / pow10[frac]
		return math.Float64frombits(math.Float64bits(f) | sign), true
	}
	// Only decimal notation: strconv also takes hex, underscores, Inf, NaN.
	for _, c := range b {
		if !numChar[c] {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// signLen is the length of a leading sign byte; signBit the sign it
// sets in a float64's bits.
var (
	signLen = [256]uint8{'-': 1, '+': 1}
	signBit = [256]uint64{'-': 1 << 63}
)

var numChar = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true,
	'7': true, '8': true, '9': true, '.': true, '+': true, '-': true, 'e': true, 'E': true}

// logicalPair returns the pair a logical word belongs to (1 true/false,
// 2 yes/no, 3 on/off, 0 none) and its value.
func logicalPair(b []byte) (pair int, v bool) {
	switch len(b) {
	case 2:
		if bytes.EqualFold(b, []byte("no")) {
			return 2, false
		}
		if bytes.EqualFold(b, []byte("on")) {
			return 3, true
		}
	case 3:
		if bytes.EqualFold(b, []byte("yes")) {
			return 2, true
		}
		if bytes.EqualFold(b, []byte("off")) {
			return 3, false
		}
	case 4:
		if bytes.EqualFold(b, []byte("true")) {
			return 1, true
		}
	case 5:
		if bytes.EqualFold(b, []byte("false")) {
			return 1, false
		}
	}
	return 0, false
}

// parseLogical reads a logical value: any of the word pairs, or 1/0.
func parseLogical(b []byte) (bool, bool) {
	if p, v := logicalPair(b); p != 0 {
		return v, true
	}
	if len(b) == 1 && (b[0] == '1' || b[0] == '0') {
		return b[0] == '1', true
	}
	return false, false
}

// inferrer accumulates the evidence for one column's type (MODELLING §13)
// except the free-text test, which needs a second look at the values.
type inferrer struct {
	cv      *converter
	n       int
	notNum  bool
	notDate bool
	pair    int // 0 none seen, -1 mixed or not logical
}

func (in *inferrer) add(v []byte) {
	t := trimSpace(v)
	if in.cv.isMissing(t) {
		return
	}
	in.n++
	if !in.notDate {
		if _, ok := columnar.ParseTimeBytes(t); !ok {
			in.notDate = true
		}
	}
	if !in.notNum {
		if _, ok := parseNumber(t); !ok {
			in.notNum = true
		}
	}
	if in.pair >= 0 {
		p, _ := logicalPair(t)
		switch {
		case p == 0 || in.pair != 0 && p != in.pair:
			in.pair = -1
		default:
			in.pair = p
		}
	}
}

// result returns the inferred type, or "" when the column is String or
// Text and the free-text test must decide.
func (in *inferrer) result() columnar.DataType {
	switch {
	case in.n == 0:
		return columnar.String
	case !in.notDate:
		return columnar.Date
	case !in.notNum:
		return columnar.Numeric
	case in.pair > 0:
		return columnar.Logical
	}
	return ""
}

// textCounter implements the free-text test: Text when at least half the
// non-missing values are distinct and they average at least 3 words.
type textCounter struct {
	cv       *converter
	n, words int
	distinct map[string]struct{}
}

func (tc *textCounter) add(v []byte) {
	if tc.cv.isMissing(trimSpace(v)) {
		return
	}
	if tc.distinct == nil {
		tc.distinct = make(map[string]struct{})
	}
	tc.n++
	tc.distinct[string(v)] = struct{}{}
	tc.words += countWords(v)
}

func (tc *textCounter) result() columnar.DataType {
	if tc.n > 0 && 2*len(tc.distinct) >= tc.n && tc.words >= 3*tc.n {
		return columnar.Text
	}
	return columnar.String
}

// inferValues infers the type of a column from its values.
func (cv *converter) inferValues(n int, value func(i int) []byte) columnar.DataType {
	in := inferrer{cv: cv}
	for i := range n {
		in.add(value(i))
	}
	if t := in.result(); t != "" {
		return t
	}
	// Count words first: most string columns are short labels, and the
	// distinct count (which copies every value) is then not needed.
	words, m := 0, 0
	for i := range n {
		if v := value(i); !cv.isMissing(trimSpace(v)) {
			words += countWords(v)
			m++
		}
	}
	if words < 3*m {
		return columnar.String
	}
	tc := textCounter{cv: cv}
	for i := range n {
		tc.add(value(i))
	}
	return tc.result()
}

func countWords(b []byte) int {
	n := 0
	inWord := false
	for _, c := range b {
		space := c == ' ' || c == '\t' || c == '\n' || c == '\r'
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// inferTypes infers the type of every column of fs from rows [lo, hi).
func (cv *converter) inferTypes(fs *fieldSet, lo, hi int) []columnar.DataType {
	types := make([]columnar.DataType, fs.ncol)
	for j := range types {
		types[j] = cv.inferValues(hi-lo, func(i int) []byte { return fs.field(lo+i, j) })
	}
	return types
}

// classifyHeaderField reports whether a header field parses as a number, a
// date or a logical word (value), or is none of these and not missing (name).
func (cv *converter) classifyHeaderField(v []byte) (value, name bool) {
	t := trimSpace(v)
	if cv.isMissing(t) {
		return false, false
	}
	if _, ok := parseNumber(t); ok {
		return true, false
	}
	if _, ok := columnar.ParseTimeBytes(t); ok {
		return true, false
	}
	if p, _ := logicalPair(t); p != 0 {
		return true, false
	}
	return false, true
}
