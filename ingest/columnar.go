package ingest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// The columnar formats (Arrow IPC, Parquet) arrive as Arrow batches of
// whatever types the sender chose. arrowConv maps each incoming column to
// one of Vatic's data types once, from the schema, and then converts each
// batch column by column: float64, bool and utf8 columns pass through
// without a copy (after validation), the other numbers, dates and strings
// are rewritten into Vatic's Arrow types (columnar.DataType.ArrowType).

// arrowConv converts batches of one incoming schema.
type arrowConv struct {
	mem    memory.Allocator
	cols   []arrowCol
	schema *arrow.Schema
}

// arrowCol is one incoming column and the data type it becomes.
type arrowCol struct {
	name string
	src  arrow.DataType
	t    columnar.DataType
}

// newArrowConv checks an incoming schema against opts (column count and
// names, supported types, declared types) and returns the converter and
// the columns it produces.
func newArrowConv(src *arrow.Schema, opts Options) (*arrowConv, []ColumnInfo, error) {
	n := src.NumFields()
	if n == 0 {
		return nil, nil, &ParseError{Msg: "no columns"}
	}
	if n > opts.MaxColumns {
		return nil, nil, &ParseError{Msg: tooManyColumns(opts.MaxColumns)}
	}
	c := &arrowConv{mem: opts.Allocator, cols: make([]arrowCol, n)}
	infos := make([]ColumnInfo, n)
	seen := make(map[string]bool, n)
	hasValues := false
	for j, f := range src.Fields() {
		name := strings.TrimSpace(f.Name)
		if name == "" {
			name = "column" + itoa(j+1)
		}
		if opts.CheckName != nil {
			if err := opts.CheckName(name); err != nil {
				return nil, nil, err
			}
		}
		key := strings.ToLower(name)
		if seen[key] {
			return nil, nil, &ParseError{Column: name, Msg: fmt.Sprintf("duplicate column name %q", name)}
		}
		seen[key] = true
		t, ok := arrowDataType(f.Type)
		if !ok {
			return nil, nil, &ParseError{Column: name, Msg: fmt.Sprintf("Arrow type %s is not supported; columns must be numbers, booleans, dates, timestamps or strings", f.Type)}
		}
		hasValues = hasValues || f.Type.ID() != arrow.NULL
		info := ColumnInfo{Name: name, DataType: t}
		if d, ok := opts.Declared[key]; ok && d != "" {
			if t != "" && t.Storage() != d.Storage() {
				return nil, nil, &ParseError{Column: name, Msg: fmt.Sprintf("Arrow type %s (%s) does not fit the column's data type %s", f.Type, t, d)}
			}
			info.DataType, info.Declared = d, true
		}
		if info.DataType == "" {
			// An all-null column (Arrow's null type) says nothing of its
			// values; as in CSV, a column without values is a string.
			info.DataType = columnar.String
		}
		c.cols[j] = arrowCol{name: name, src: f.Type, t: info.DataType}
		infos[j] = info
	}
	if !hasValues {
		// Null-typed columns hold no bytes, so nothing would bound the
		// number of rows such a body claims.
		return nil, nil, &ParseError{Msg: "every column has Arrow type null: the input holds no values"}
	}
	fields := make([]arrow.Field, n)
	for j, col := range c.cols {
		fields[j] = columnar.Field(col.name, col.t)
	}
	c.schema = arrow.NewSchema(fields, nil)
	return c, infos, nil
}

// arrowDataType is the data type an incoming Arrow type becomes: "" for
// the null type (any type fits), false when unsupported (nested types,
// binary, times of day, durations, intervals, …).
func arrowDataType(t arrow.DataType) (columnar.DataType, bool) {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return columnar.Numeric, true
	case arrow.BOOL:
		return columnar.Logical, true
	case arrow.TIMESTAMP, arrow.DATE32, arrow.DATE64:
		return columnar.Date, true
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return columnar.String, true
	case arrow.DICTIONARY:
		switch t.(*arrow.DictionaryType).ValueType.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			return columnar.String, true
		}
	case arrow.NULL:
		return "", true
	}
	return "", false
}

// check validates the structure of a whole incoming batch (array.Validate:
// buffers as long as the batch claims), before it is cut into slices that
// convert checks in full: a batch claiming more rows than its bytes hold
// fails at once.
func (c *arrowConv) check(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(c.cols) {
		return &ParseError{Msg: fmt.Sprintf("a batch has %d columns, the schema %d", rec.NumCols(), len(c.cols))}
	}
	for j, col := range c.cols {
		if col.src.ID() == arrow.NULL {
			continue
		}
		if err := array.Validate(rec.Column(j)); err != nil {
			return &ParseError{Column: col.name, Msg: "corrupt column data: " + err.Error()}
		}
	}
	return nil
}

// convert returns rec in Vatic's types; firstRow is the 0-based input row
// of its first row, for error messages. Every column is validated first
// (array.ValidateFull): the bytes come from a client, and reading values
// through corrupt offsets would panic.
func (c *arrowConv) convert(rec arrow.RecordBatch, firstRow int64) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) != len(c.cols) {
		return nil, &ParseError{Msg: fmt.Sprintf("a batch has %d columns, the schema %d", rec.NumCols(), len(c.cols))}
	}
	out := make([]arrow.Array, 0, len(c.cols))
	release := func() {
		for _, a := range out {
			a.Release()
		}
	}
	for j, col := range c.cols {
		src := rec.Column(j)
		if !arrow.TypeEqual(src.DataType(), col.src) {
			release()
			return nil, &ParseError{Column: col.name, Msg: fmt.Sprintf("a batch has Arrow type %s where the schema has %s", src.DataType(), col.src)}
		}
		if err := validate(col, src, firstRow); err != nil {
			release()
			return nil, err
		}
		a, err := c.column(col, src, firstRow)
		if err != nil {
			release()
			return nil, err
		}
		out = append(out, a)
	}
	res := array.NewRecordBatch(c.schema, out, rec.NumRows())
	release()
	return res, nil
}

// validate checks an incoming column before any value is read. A utf8
// column, the common case, is checked in one pass that also finds the
// row of invalid UTF-8; the rest by array.ValidateFull. The null type has
// no buffers to check.
func validate(col arrowCol, src arrow.Array, firstRow int64) error {
	corrupt := func(err error) error {
		return &ParseError{Column: col.name, Msg: "corrupt column data: " + err.Error()}
	}
	switch a := src.(type) {
	case *array.Null:
		return nil
	case *array.String:
		if err := a.Validate(); err != nil {
			return corrupt(err)
		}
		if a.Len() == 0 {
			return nil
		}
		offs := a.ValueOffsets()
		data, base := a.ValueBytes(), offs[0]
		if base < 0 {
			return corrupt(fmt.Errorf("negative string offset %d", base))
		}
		for i := range a.Len() {
			if s, e := offs[i], offs[i+1]; e < s || int(e-base) > len(data) {
				return corrupt(fmt.Errorf("string offset %d at index %d is out of order", e, i+1))
			}
		}
		// Text that is all ASCII (the common case) is valid whatever the
		// boundaries; otherwise each value is checked on its own, since
		// valid text as a whole may still split a character between two
		// values.
		if isASCII(data[:offs[a.Len()]-base]) {
			return nil
		}
		for i := range a.Len() {
			if !utf8.Valid(data[offs[i]-base : offs[i+1]-base]) {
				return &ParseError{Row: firstRow + int64(i) + 1, Column: col.name, Msg: "invalid UTF-8"}
			}
		}
		return nil
	}
	if err := array.ValidateFull(src); err != nil {
		return corrupt(err)
	}
	return nil
}

// isASCII reports whether every byte of b is below 0x80, eight at a time.
func isASCII(b []byte) bool {
	var acc uint64
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&0x8080808080808080 == 0
}

// column converts one validated column.
func (c *arrowConv) column(col arrowCol, src arrow.Array, firstRow int64) (arrow.Array, error) {
	n := src.Len()
	if src.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(c.mem, col.t.ArrowType(), n), nil
	}
	switch col.t.Storage() {
	case columnar.Numeric:
		return c.numbers(src), nil
	case columnar.Logical:
		src.Retain()
		return src, nil
	case columnar.Date:
		return c.dates(col, src, firstRow)
	}
	return c.strings(col, src, firstRow)
}

// numbers converts a numeric column to float64. NaN and infinities, which
// no text format can carry and the CSV reader never produces, become
// missing values.
func (c *arrowConv) numbers(src arrow.Array) arrow.Array {
	if f, ok := src.(*array.Float64); ok && finite(f.Float64Values()) {
		f.Retain()
		return f
	}
	n := src.Len()
	vals := memory.NewResizableBuffer(c.mem)
	vals.Resize(n * 8)
	out := arrow.Float64Traits.CastFromBytes(vals.Bytes())
	switch a := src.(type) {
	case *array.Float64:
		copy(out, a.Float64Values())
	case *array.Float32:
		widen(out, a.Values())
	case *array.Float16:
		for i, v := range a.Values() {
			out[i] = float64(v.Float32())
		}
	case *array.Int8:
		widen(out, a.Values())
	case *array.Int16:
		widen(out, a.Values())
	case *array.Int32:
		widen(out, a.Values())
	case *array.Int64:
		widen(out, a.Values())
	case *array.Uint8:
		widen(out, a.Values())
	case *array.Uint16:
		widen(out, a.Values())
	case *array.Uint32:
		widen(out, a.Values())
	case *array.Uint64:
		widen(out, a.Values())
	case *array.Decimal32:
		decimals(out, a.Values(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal64:
		decimals(out, a.Values(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal128:
		decimals(out, a.Values(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal256:
		decimals(out, a.Values(), a.DataType().(arrow.DecimalType).GetScale())
	}
	valid := validity(c.mem, src)
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if valid == nil {
				valid = allValid(c.mem, n)
			}
			bitutil.ClearBit(valid.Bytes(), i)
		}
	}
	return newArray(arrow.PrimitiveTypes.Float64, n, valid, vals)
}

// finite reports whether every value is a finite number: v-v is 0 for
// those and NaN for NaN and the infinities, one test a value instead of
// math.IsNaN's and math.IsInf's three (this runs over every number of an
// Arrow IPC or Parquet upload).
func finite(vs []float64) bool {
	for _, v := range vs {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// widen converts integers and float32 to float64.
func widen[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](out []float64, in []T) {
	for i, v := range in {
		out[i] = float64(v)
	}
}

func decimals[T interface{ ToFloat64(int32) float64 }](out []float64, in []T, scale int32) {
	for i, v := range in {
		out[i] = v.ToFloat64(scale)
	}
}

// dates converts timestamps of any unit and zone, and dates, to
// microseconds since the epoch in UTC (columnar.TimestampType). An Arrow
// timestamp is an instant whatever its zone, so the zone only goes;
// nanoseconds are rounded down to the microsecond.
func (c *arrowConv) dates(col arrowCol, src arrow.Array, firstRow int64) (arrow.Array, error) {
	n := src.Len()
	var mul, div int64 = 1, 1
	var in []int64
	switch a := src.(type) {
	case *array.Timestamp:
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			mul = 1_000_000
		case arrow.Millisecond:
			mul = 1000
		case arrow.Nanosecond:
			div = 1000
		}
		if mul == 1 && div == 1 && a.DataType().(*arrow.TimestampType).TimeZone == "" {
			a.Retain()
			return a, nil
		}
		in = arrow.Int64Traits.CastFromBytes(arrow.TimestampTraits.CastToBytes(a.TimestampValues()))
	case *array.Date64:
		mul = 1000
		in = arrow.Int64Traits.CastFromBytes(arrow.Date64Traits.CastToBytes(a.Date64Values()))
	case *array.Date32:
		mul = 86_400_000_000
	}
	vals := memory.NewResizableBuffer(c.mem)
	vals.Resize(n * 8)
	out := arrow.Int64Traits.CastFromBytes(vals.Bytes())
	if d, ok := src.(*array.Date32); ok {
		for i, v := range d.Date32Values() {
			out[i] = int64(v) * mul // |days| < 2^31: no overflow
		}
	} else {
		lim := int64(math.MaxInt64) / mul
		for i, v := range in {
			switch {
			case div > 1:
				q := v / div
				if v%div < 0 {
					q--
				}
				out[i] = q
			case v > lim || v < -lim:
				if src.IsValid(i) {
					vals.Release()
					return nil, &ParseError{Row: firstRow + int64(i) + 1, Column: col.name, Msg: fmt.Sprintf("date %d (%s) is out of range", v, src.DataType())}
				}
			default:
				out[i] = v * mul
			}
		}
	}
	return newArray(columnar.TimestampType, n, validity(c.mem, src), vals), nil
}

// strings passes utf8 columns through and rewrites large, view and
// dictionary-encoded strings as utf8. Invalid UTF-8 is a *ParseError, as
// in CSV and JSON (validate checks utf8 columns).
func (c *arrowConv) strings(col arrowCol, src arrow.Array, firstRow int64) (arrow.Array, error) {
	bad := func(i int) error {
		return &ParseError{Row: firstRow + int64(i) + 1, Column: col.name, Msg: "invalid UTF-8"}
	}
	if s, ok := src.(*array.String); ok {
		s.Retain() // validated
		return s, nil
	}
	var value func(i int) string
	var size int
	switch a := src.(type) {
	case *array.LargeString:
		value, size = a.Value, len(a.ValueBytes())
	case *array.StringView:
		value = a.Value
		for i := range a.Len() {
			size += a.ValueLen(i)
		}
	case *array.Dictionary:
		dict, ok := a.Dictionary().(interface{ Value(int) string })
		if !ok {
			return nil, &ParseError{Column: col.name, Msg: fmt.Sprintf("Arrow type %s is not supported", a.DataType())}
		}
		value = func(i int) string { return dict.Value(a.GetValueIndex(i)) }
		for i := range a.Len() {
			if a.IsValid(i) {
				size += len(value(i))
			}
		}
	}
	if size > math.MaxInt32 {
		return nil, &ParseError{Column: col.name, Msg: "a batch holds more than 2 GiB of text in one column; send smaller batches"}
	}
	b := array.NewStringBuilder(c.mem)
	defer b.Release()
	b.Reserve(src.Len())
	b.ReserveData(size)
	for i := range src.Len() {
		if src.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := value(i)
		if !utf8.ValidString(v) {
			return nil, bad(i)
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// validity returns a copy of src's validity bitmap at offset 0, or nil when
// src has no nulls.
func validity(mem memory.Allocator, src arrow.Array) *memory.Buffer {
	if src.NullN() == 0 {
		return nil
	}
	n := src.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bitutil.CopyBitmap(src.NullBitmapBytes(), src.Data().Offset(), n, buf.Bytes(), 0)
	return buf
}

// allValid returns a bitmap of n set bits.
func allValid(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bitutil.SetBitsTo(buf.Bytes(), 0, int64(n), true)
	return buf
}

// newArray makes an array of a fixed-width type from its buffers, taking
// over their references.
func newArray(t arrow.DataType, n int, valid, vals *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	data := array.NewData(t, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	a := array.MakeFromData(data)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	vals.Release()
	return a
}
