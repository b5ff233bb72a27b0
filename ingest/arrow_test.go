package ingest_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

// ipcBody writes recs as an Arrow IPC stream.
func ipcBody(t testing.TB, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(recs[0].Schema()))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parquetBody writes recs as a Parquet file with row groups of at most
// groupRows rows, keeping the Arrow schema (so dictionaries, large strings
// and unsigned integers come back as such).
func parquetBody(t testing.TB, groupRows int64, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	defer tbl.Release()
	if err := pqarrow.WriteTable(tbl, &buf, groupRows, nil, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// record builds a batch from columns given as name and array.
func record(t testing.TB, names []string, cols ...arrow.Array) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
	for _, c := range cols {
		c.Release()
	}
	t.Cleanup(rec.Release)
	return rec
}

// typesRecord has one column of each supported kind of incoming type,
// three rows, the second holding the nulls (and a NaN).
func typesRecord(t testing.TB) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	valid := []bool{true, false, true}
	i64 := array.NewInt64Builder(mem)
	i64.AppendValues([]int64{1, 0, 0}, valid)
	u8 := array.NewUint8Builder(mem)
	u8.AppendValues([]uint8{7, 0, 255}, valid)
	f32 := array.NewFloat32Builder(mem)
	f32.AppendValues([]float32{1.5, 0, -2.25}, valid)
	f64 := array.NewFloat64Builder(mem)
	f64.AppendValues([]float64{0.5, math.NaN(), math.Inf(1)}, nil)
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	dec.AppendValues([]decimal128.Num{decimal128.FromI64(12345), {}, decimal128.FromI64(-5)}, valid)
	b := array.NewBooleanBuilder(mem)
	b.AppendValues([]bool{true, false, false}, valid)
	tsS := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"})
	tsS.AppendValues([]arrow.Timestamp{1_600_000_000, 0, 1_600_000_060}, valid)
	tsNs := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	tsNs.AppendValues([]arrow.Timestamp{1_600_000_000_123_456_789, 0, -1}, valid)
	d32 := array.NewDate32Builder(mem)
	d32.AppendValues([]arrow.Date32{18262, 0, 18263}, valid)
	d64 := array.NewDate64Builder(mem)
	d64.AppendValues([]arrow.Date64{1_577_836_800_000, 0, 1_577_923_200_000}, valid)
	s := array.NewStringBuilder(mem)
	s.AppendValues([]string{"north", "", "south"}, valid)
	ls := array.NewLargeStringBuilder(mem)
	ls.AppendValues([]string{"a", "", "ç"}, valid)
	dict := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	dict.AppendString("x")
	dict.AppendNull()
	dict.AppendString("x")
	null := array.NewNull(3)
	return record(t, []string{"i64", "u8", "f32", "f64", "dec", "b", "tsS", "tsNs", "d32", "d64", "s", "ls", "dict", "null"},
		i64.NewArray(), u8.NewArray(), f32.NewArray(), f64.NewArray(), dec.NewArray(), b.NewArray(), tsS.NewArray(), tsNs.NewArray(),
		d32.NewArray(), d64.NewArray(), s.NewArray(), ls.NewArray(), dict.NewArray(), null)
}

// readAll reads every batch of rd into Go values by column name.
func readAll(t *testing.T, rd *ingest.Reader) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	for rd.Next() {
		rec := rd.RecordBatch()
		for j, f := range rec.Schema().Fields() {
			if !arrow.TypeEqual(f.Type, columnar.FieldDataType(f).ArrowType()) {
				t.Fatalf("column %s has Arrow type %s, want %s", f.Name, f.Type, columnar.FieldDataType(f).ArrowType())
			}
			col := rec.Column(j)
			for i := range col.Len() {
				var v any
				if col.IsValid(i) {
					switch a := col.(type) {
					case *array.Float64:
						v = a.Value(i)
					case *array.Boolean:
						v = a.Value(i)
					case *array.Timestamp:
						v = time.UnixMicro(int64(a.Value(i))).UTC()
					case *array.String:
						v = a.Value(i)
					}
				}
				out[f.Name] = append(out[f.Name], v)
			}
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestColumnarTypes(t *testing.T) {
	rec := typesRecord(t)
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	want := map[string][]any{
		"i64":  {1.0, nil, 0.0},
		"u8":   {7.0, nil, 255.0},
		"f32":  {1.5, nil, -2.25},
		"f64":  {0.5, nil, nil},
		"dec":  {123.45, nil, -0.05},
		"b":    {true, nil, false},
		"tsS":  {time.Unix(1_600_000_000, 0).UTC(), nil, time.Unix(1_600_000_060, 0).UTC()},
		"tsNs": {time.Unix(1_600_000_000, 123_456_000).UTC(), nil, time.UnixMicro(-1).UTC()},
		"d32":  {day(2020, 1, 1), nil, day(2020, 1, 2)},
		"d64":  {day(2020, 1, 1), nil, day(2020, 1, 2)},
		"s":    {"north", nil, "south"},
		"ls":   {"a", nil, "ç"},
		"dict": {"x", nil, "x"},
		"null": {nil, nil, nil},
	}
	wantTypes := map[string]columnar.DataType{"b": columnar.Logical, "tsS": columnar.Date, "tsNs": columnar.Date, "d32": columnar.Date,
		"d64": columnar.Date, "s": columnar.String, "ls": columnar.String, "dict": columnar.String, "null": columnar.String}
	open := map[string]func([]byte, ingest.Options) (*ingest.Reader, error){
		"ipc": func(b []byte, o ingest.Options) (*ingest.Reader, error) {
			return ingest.NewArrowStream(bytes.NewReader(b), o)
		},
		"parquet": func(b []byte, o ingest.Options) (*ingest.Reader, error) {
			return ingest.NewParquet(bytes.NewReader(b), o)
		},
	}
	bodies := map[string][]byte{"ipc": ipcBody(t, rec, rec), "parquet": parquetBody(t, 3, rec, rec)}
	for format, body := range bodies {
		t.Run(format, func(t *testing.T) {
			// The declared type refines the storage class (numeric to
			// numericMeasure), and the null column takes a declared type.
			decl := map[string]columnar.DataType{"i64": columnar.NumericMeasure, "null": columnar.Date}
			rd, err := open[format](body, ingest.Options{BatchRows: 2, Declared: decl, SpoolDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Release()
			got := readAll(t, rd)
			for name, w := range want {
				w = append(w, w...)
				if len(got[name]) != len(w) {
					t.Fatalf("%s: got %v, want %v", name, got[name], w)
				}
				for i := range w {
					if name == "dec" && w[i] != nil && got[name][i] != nil {
						if math.Abs(got[name][i].(float64)-w[i].(float64)) > 1e-12 {
							t.Errorf("%s[%d] = %v, want %v", name, i, got[name][i], w[i])
						}
						continue
					}
					if got[name][i] != w[i] {
						t.Errorf("%s[%d] = %v, want %v", name, i, got[name][i], w[i])
					}
				}
			}
			if rd.Rows() != 6 {
				t.Errorf("Rows = %d, want 6", rd.Rows())
			}
			if rd.Bytes() <= 0 || rd.Bytes() > int64(len(body)) {
				t.Errorf("Bytes = %d, body %d", rd.Bytes(), len(body))
			}
			for _, c := range rd.Columns() {
				wt := wantTypes[c.Name]
				if wt == "" {
					wt = columnar.Numeric
				}
				switch c.Name {
				case "i64":
					wt = columnar.NumericMeasure
				case "null":
					wt = columnar.Date
				}
				if c.DataType != wt || c.Declared != (decl[c.Name] != "") {
					t.Errorf("column %s: %s declared %v, want %s", c.Name, c.DataType, c.Declared, wt)
				}
				if (c.Name == "i64") != c.ZeroOne {
					t.Errorf("column %s: ZeroOne %v", c.Name, c.ZeroOne)
				}
				if c.Name == "tsS" && c.Increasing {
					t.Errorf("column tsS repeats its values yet is increasing")
				}
			}
		})
	}
}

// TestColumnarBadInput checks the errors of both readers: each is a
// *ParseError naming what is wrong and, when one is, the column.
func TestColumnarBadInput(t *testing.T) {
	mem := memory.DefaultAllocator
	ints := func(vs ...int64) arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
	strs := func(vs ...string) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(1)
	nested := record(t, []string{"id", "tags"}, ints(1), lb.NewArray())
	lb.Release()
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	bb.Append([]byte{0, 1})
	binary := record(t, []string{"id", "blob"}, ints(1), bb.NewArray())
	bb.Release()
	plain := record(t, []string{"id", "name"}, ints(1, 2), strs("a", "b"))
	dup := record(t, []string{"id", "ID"}, ints(1), ints(2))
	badUTF8 := record(t, []string{"id", "name"}, ints(1, 2), strs("a", "\xff"))
	// Valid text as a whole, but the character é is split between rows.
	splitRune := record(t, []string{"id", "name"}, ints(1, 2, 3, 4), strs("plain ascii", "é", "a\xc3", "\xa9b"))
	nulls := record(t, []string{"a", "b"}, array.NewNull(5), array.NewNull(5))

	cases := []struct {
		name     string
		rec      arrow.RecordBatch
		opts     ingest.Options
		column   string
		contains []string
	}{
		{"nested", nested, ingest.Options{}, "tags", []string{"list<", "int64", "not supported"}},
		{"binary", binary, ingest.Options{}, "blob", []string{"binary", "not supported"}},
		{"declared", plain, ingest.Options{Declared: map[string]columnar.DataType{"name": columnar.Numeric}}, "name", []string{"utf8", "numeric"}},
		{"declared date", plain, ingest.Options{Declared: map[string]columnar.DataType{"id": columnar.Date}}, "id", []string{"int64", "date"}},
		{"duplicate", dup, ingest.Options{}, "ID", []string{"duplicate"}},
		{"too wide", plain, ingest.Options{MaxColumns: 1}, "", []string{"column limit is 1"}},
		{"invalid UTF-8", badUTF8, ingest.Options{}, "name", []string{"invalid UTF-8"}},
		{"split character", splitRune, ingest.Options{}, "name", []string{"row 3", "invalid UTF-8"}},
		{"only nulls", nulls, ingest.Options{}, "", []string{"no values"}},
	}
	for _, format := range []string{"ipc", "parquet"} {
		for _, c := range cases {
			t.Run(format+"/"+c.name, func(t *testing.T) {
				var rd *ingest.Reader
				var err error
				if format == "ipc" {
					rd, err = ingest.NewArrowStream(bytes.NewReader(ipcBody(t, c.rec)), c.opts)
				} else {
					rd, err = ingest.NewParquet(bytes.NewReader(parquetBody(t, 10, c.rec)), c.opts)
				}
				if err == nil {
					for rd.Next() {
					}
					err = rd.Err()
					rd.Release()
				}
				var pe *ingest.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v (%T), want a *ParseError", err, err)
				}
				if pe.Column != c.column {
					t.Errorf("error %q names column %q, want %q", pe, pe.Column, c.column)
				}
				for _, s := range c.contains {
					if !strings.Contains(pe.Error(), s) {
						t.Errorf("error %q does not say %q", pe, s)
					}
				}
			})
		}
	}

	// CheckName's error comes back as is.
	errName := errors.New("bad name")
	opts := ingest.Options{CheckName: func(n string) error {
		if n == "name" {
			return errName
		}
		return nil
	}}
	if _, err := ingest.NewArrowStream(bytes.NewReader(ipcBody(t, plain)), opts); err != errName {
		t.Errorf("CheckName: error %v, want %v", err, errName)
	}
}

// TestColumnarTruncated cuts valid bodies everywhere: every prefix is a
// *ParseError (never a panic), and no spool file stays behind.
func TestColumnarTruncated(t *testing.T) {
	rec := typesRecord(t)
	ipcData := ipcBody(t, rec, rec)
	pqData := parquetBody(t, 2, rec, rec)
	dir := t.TempDir()
	for n := range len(ipcData) {
		// A cut between two messages leaves a valid stream (the end
		// marker is optional): whole batches, no error.
		rows, err := readRows(ingest.NewArrowStream(bytes.NewReader(ipcData[:n]), ingest.Options{}))
		if !isParseError(err) && (err != nil || rows%rec.NumRows() != 0) {
			t.Fatalf("IPC cut at %d of %d: %d rows, error %v", n, len(ipcData), rows, err)
		}
	}
	for n := range len(pqData) {
		if err := readErr(ingest.NewParquet(bytes.NewReader(pqData[:n]), ingest.Options{SpoolDir: dir})); !isParseError(err) {
			t.Fatalf("Parquet cut at %d of %d: error %v", n, len(pqData), err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("spool files left: %v", left)
	}
}

// readErr reads a Reader to its end and returns its error.
func readErr(rd *ingest.Reader, err error) error {
	_, err = readRows(rd, err)
	return err
}

// readRows reads a Reader to its end and returns its rows and error.
func readRows(rd *ingest.Reader, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	defer rd.Release()
	for rd.Next() {
	}
	return rd.Rows(), rd.Err()
}

func isParseError(err error) bool {
	var pe *ingest.ParseError
	return errors.As(err, &pe)
}

// TestColumnarReadErrors checks that a failing source is reported as the
// source's error (the size cap), not as a malformed body.
func TestColumnarReadErrors(t *testing.T) {
	rec := typesRecord(t)
	for name, body := range map[string][]byte{"ipc": ipcBody(t, rec, rec, rec), "parquet": parquetBody(t, 2, rec)} {
		capped, err := ingest.Decompress(bytes.NewReader(body), "", int64(len(body)-10))
		if err != nil {
			t.Fatal(err)
		}
		if name == "ipc" {
			err = readErr(ingest.NewArrowStream(capped, ingest.Options{}))
		} else {
			err = readErr(ingest.NewParquet(capped, ingest.Options{SpoolDir: t.TempDir()}))
		}
		if !errors.Is(err, ingest.ErrTooLarge) {
			t.Errorf("%s over the cap: error %v, want ErrTooLarge", name, err)
		}
	}
}

// TestParquetSpool checks that the spool file lives in SpoolDir while the
// Reader is open, goes with Release, and that RemoveSpools knows it.
func TestParquetSpool(t *testing.T) {
	dir := t.TempDir()
	body := parquetBody(t, 1, typesRecord(t))
	rd, err := ingest.NewParquet(bytes.NewReader(body), ingest.Options{SpoolDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 {
		t.Fatalf("spool files while reading: %v", left)
	}
	if !rd.Next() || rd.RecordBatch().NumRows() != 1 {
		t.Fatalf("row groups of one row: first batch %v", rd.RecordBatch())
	}
	rd.Release()
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("spool files after Release: %v", left)
	}
	if err := os.WriteFile(left[0], body, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := ingest.RemoveSpools(dir); n != 1 || err != nil {
		t.Errorf("RemoveSpools = %d, %v; want 1", n, err)
	}
}

// FuzzArrowStream feeds arbitrary bytes to the IPC reader: it must return
// a Reader or an error, and reading must end in batches of Vatic's types
// or a *ParseError, never a panic.
func FuzzArrowStream(f *testing.F) {
	rec := typesRecord(f)
	f.Add(ipcBody(f, rec))
	f.Add(ipcBody(f, rec, rec)[:200])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzzRead(t, func() (*ingest.Reader, error) {
			return ingest.NewArrowStream(bytes.NewReader(data), ingest.Options{BatchRows: 2})
		})
	})
}

// FuzzParquet is FuzzArrowStream for Parquet.
func FuzzParquet(f *testing.F) {
	rec := typesRecord(f)
	f.Add(parquetBody(f, 2, rec))
	f.Add([]byte("PAR1PAR1"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzzRead(t, func() (*ingest.Reader, error) {
			return ingest.NewParquet(bytes.NewReader(data), ingest.Options{BatchRows: 2, SpoolDir: dir})
		})
	})
}

// checkFuzzRead opens and reads a Reader: the only errors allowed are
// a *ParseError and, for content that claims to expand past the limits,
// ErrTooLarge.
func checkFuzzRead(t *testing.T, open func() (*ingest.Reader, error)) {
	refused := func(err error) bool { return isParseError(err) || errors.Is(err, ingest.ErrTooLarge) }
	rd, err := open()
	if err != nil {
		if !refused(err) {
			t.Fatalf("error %v (%T), want a *ParseError", err, err)
		}
		return
	}
	defer rd.Release()
	for rd.Next() {
		for j, f := range rd.RecordBatch().Schema().Fields() {
			if !arrow.TypeEqual(rd.RecordBatch().Column(j).DataType(), columnar.FieldDataType(f).ArrowType()) {
				t.Fatalf("column %s has type %s", f.Name, rd.RecordBatch().Column(j).DataType())
			}
		}
	}
	if err := rd.Err(); err != nil && !refused(err) {
		t.Fatalf("Err = %v (%T), want a *ParseError", err, err)
	}
}

// TestParquetPageHeader checks the page header walk on hand-encoded
// headers (thrift compact protocol): a data page must carry its data page
// header, and a page must end within its column chunk.
func TestParquetPageHeader(t *testing.T) {
	page := make([]byte, 10)
	// type DATA_PAGE, uncompressed 10, compressed 10, no data page header.
	bare := append([]byte{0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x00}, page...)
	// The same with an (empty) data page header, field 5.
	full := append([]byte{0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x2c, 0x00, 0x00}, page...)
	if _, err := ingest.CheckPageHeader(bytes.NewReader(bare), 0, int64(len(bare))); err == nil || !strings.Contains(err.Error(), "without its header") {
		t.Errorf("a data page without its header: error %v", err)
	}
	if n, err := ingest.CheckPageHeader(bytes.NewReader(full), 0, int64(len(full))); err != nil || n != int64(len(full)) {
		t.Errorf("a data page with its header = %d, %v; want %d", n, err, len(full))
	}
	if _, err := ingest.CheckPageHeader(bytes.NewReader(full), 0, int64(len(full)-1)); err == nil {
		t.Errorf("a page past the end of its chunk: no error")
	}
	if _, err := ingest.CheckPageHeader(bytes.NewReader(full[:5]), 0, 5); err == nil {
		t.Errorf("a truncated header: no error")
	}
}

// TestArrowStreamCompressed reads streams whose writer compressed the
// buffers (zstd, LZ4), and refuses one whose buffers expand past
// MaxDecodedBytes before anything is allocated for them.
func TestArrowStreamCompressed(t *testing.T) {
	rec := typesRecord(t)
	for name, opt := range map[string]ipc.Option{"zstd": ipc.WithZstd(), "lz4": ipc.WithLZ4()} {
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()), opt)
		for range 3 {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err := readRows(ingest.NewArrowStream(bytes.NewReader(buf.Bytes()), ingest.Options{}))
		if err != nil || rows != 3*rec.NumRows() {
			t.Errorf("%s: %d rows, error %v; want %d", name, rows, err, 3*rec.NumRows())
		}
		// Together the three batches expand to more than 300 bytes.
		_, err = readRows(ingest.NewArrowStream(bytes.NewReader(buf.Bytes()), ingest.Options{MaxDecodedBytes: 300}))
		if !errors.Is(err, ingest.ErrTooLarge) {
			t.Errorf("%s over MaxDecodedBytes: error %v, want ErrTooLarge", name, err)
		}
	}
}
