package ingest_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

func TestCSV(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		opts  ingest.Options
		types string
		rows  []string
	}{
		{"header", "a,b\n1,x\n2,y\n", ingest.Options{}, "a:numeric,b:string", []string{"1|x", "2|y"}},
		{"no trailing newline", "a,b\n1,x\n2,y", ingest.Options{}, "a:numeric,b:string", []string{"1|x", "2|y"}},
		{"crlf", "a,b\r\n1,x\r\n2,y\r\n", ingest.Options{}, "a:numeric,b:string", []string{"1|x", "2|y"}},
		{"crlf no trailing", "a,b\r\n1,x\r\n2,y\r", ingest.Options{}, "a:numeric,b:string", []string{"1|x", "2|y"}},
		{"bom", "\ufeffa,b\n1,x\n", ingest.Options{}, "a:numeric,b:string", []string{"1|x"}},
		{"blank lines", "\na,b\n\n1,x\r\n\r\n2,y\n\n", ingest.Options{}, "a:numeric,b:string", []string{"1|x", "2|y"}},
		{"header only", "a,b\n", ingest.Options{}, "a:string,b:string", nil},
		{"no header", "1,1,2010-02-05,24924.5,FALSE\n2,1,2010-02-12,46039.49,TRUE\n", ingest.Options{},
			"column1:numeric,column2:numeric,column3:date,column4:numeric,column5:logical",
			[]string{"1|1|2010-02-05T00:00:00Z|24924.5|false", "2|1|2010-02-12T00:00:00Z|46039.49|true"}},
		{"header with a number", "id,2017\n1,2\n", ingest.Options{}, "id:numeric,2017:numeric", []string{"1|2"}},
		{"quoted header values are data", "\"2010-02-05\",\"3\"\n\"2010-02-06\",4\n", ingest.Options{},
			"column1:date,column2:numeric", []string{"2010-02-05T00:00:00Z|3", "2010-02-06T00:00:00Z|4"}},
		{"empty names", "a,,c\n1,2,3\n", ingest.Options{}, "a:numeric,column2:numeric,c:numeric", []string{"1|2|3"}},
		{"names trimmed", " a , b\n1,2\n", ingest.Options{}, "a:numeric,b:numeric", []string{"1|2"}},
		{"quotes", "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n\"multi\nline\",\"\"\n", ingest.Options{},
			"a:string,b:string", []string{"x,y|say \"hi\"", "multi\nline|∅"}},
		{"crlf inside quotes", "a\r\n\"x\r\ny\"\r\n", ingest.Options{}, "a:string", []string{"x\r\ny"}},
		{"missing values", "a,b,c\n1, ,x\n,NA,NA\n3,4,?\n", ingest.Options{MissingValues: []string{"NA", " ? "}},
			"a:numeric,b:numeric,c:string", []string{"1|∅|x", "∅|∅|∅", "3|4|∅"}},
		{"all missing", "a\n\"\"\n \n", ingest.Options{}, "a:string", []string{"∅", "∅"}},
		{"numbers with spaces", "a\n 1.5 \n-2e3\n+.5\n", ingest.Options{}, "a:numeric", []string{"1.5", "-2000", "0.5"}},
		{"zero one stays numeric", "a\n0\n1\n1\n", ingest.Options{}, "a:numeric", []string{"0", "1", "1"}},
		{"logical yes no", "a\nYes\nno\n\n", ingest.Options{}, "a:logical", []string{"true", "false"}},
		{"logical on off", "a\nON\noff\n", ingest.Options{}, "a:logical", []string{"true", "false"}},
		{"mixed logical pairs", "a\ntrue\nno\n", ingest.Options{}, "a:string", []string{"true", "no"}},
		{"nan is not numeric", "a\n1\nNaN\n", ingest.Options{}, "a:string", []string{"1", "NaN"}},
		{"dates", "d\n1-1-2017\n12/31/2017 4:00 PM\n2017-01-02T00:00:00-04:00\n", ingest.Options{}, "d:date",
			[]string{"2017-01-01T00:00:00Z", "2017-12-31T16:00:00Z", "2017-01-02T04:00:00Z"}},
		{"text", "t\nthe quick brown fox\njumps over the lazy dog\na b c\n", ingest.Options{}, "t:text",
			[]string{"the quick brown fox", "jumps over the lazy dog", "a b c"}},
		{"repeated phrases are string", "t\nsame three words\nsame three words\nsame three words\n", ingest.Options{},
			"t:string", []string{"same three words", "same three words", "same three words"}},
		{"strings not trimmed", "a,b\n x ,1\n", ingest.Options{}, "a:string,b:numeric", []string{" x |1"}},
		{"declared", "Sales,Day,Note\n1,2017-01-01,x\n", ingest.Options{Declared: map[string]columnar.DataType{
			"sales": columnar.NumericMeasure, "day": columnar.String, "note": columnar.Text}},
			"Sales:numericMeasure,Day:string,Note:text", []string{"1|2017-01-01|x"}},
		{"declared logical", "a\n1\n0\nyes\n", ingest.Options{Declared: map[string]columnar.DataType{"a": columnar.Logical}},
			"a:logical", []string{"true", "false", "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := readCSV(t, tt.in, tt.opts)
			if res.err != nil {
				t.Fatalf("NewCSV(%q): %v", tt.in, res.err)
			}
			if res.types != tt.types {
				t.Errorf("NewCSV(%q) types = %s, want %s", tt.in, res.types, tt.types)
			}
			if fmt.Sprint(res.rows) != fmt.Sprint(tt.rows) {
				t.Errorf("NewCSV(%q) rows = %q, want %q", tt.in, res.rows, tt.rows)
			}
		})
	}
}

func TestCSVSchemaMetadata(t *testing.T) {
	r, err := ingest.NewCSV(strings.NewReader("a,b,c\n1,x,2017-01-01\n"), ingest.Options{
		Allocator: checkedMem(t), Declared: map[string]columnar.DataType{"a": columnar.NumericMeasure}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	want := []columnar.DataType{columnar.NumericMeasure, columnar.String, columnar.Date}
	for i, f := range r.Schema().Fields() {
		if got := columnar.FieldDataType(f); got != want[i] {
			t.Errorf("field %s type = %s, want %s", f.Name, got, want[i])
		}
	}
	if !r.Columns()[0].Declared || r.Columns()[1].Declared {
		t.Errorf("Columns() = %+v, want only a declared", r.Columns())
	}
}

func TestCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts ingest.Options
		want ingest.ParseError
	}{
		{"empty", "", ingest.Options{}, ingest.ParseError{Msg: "no data"}},
		{"only bom", "\ufeff", ingest.Options{}, ingest.ParseError{Msg: "no data"}},
		{"only blank lines", "\n\r\n\n", ingest.Options{}, ingest.ParseError{Msg: "no data"}},
		{"duplicate names", "a,b,A\n1,2,3\n", ingest.Options{}, ingest.ParseError{Line: 1, Column: "A", Msg: `duplicate column name "A"`}},
		{"duplicate generated", "a,,column2\n", ingest.Options{}, ingest.ParseError{Line: 1, Column: "column2", Msg: `duplicate column name "column2"`}},
		{"jagged short", "a,b\n1,2\n3\n", ingest.Options{}, ingest.ParseError{Line: 3, Row: 2, Msg: "expected 2 fields, got 1"}},
		{"jagged long", "a,b\n1,2,3\n", ingest.Options{}, ingest.ParseError{Line: 2, Row: 1, Msg: "expected 2 fields, got 3"}},
		{"bare quote", "a,b\n1,x\"y\n", ingest.Options{}, ingest.ParseError{Line: 2, Row: 1, Column: "b", Msg: `bare " in an unquoted field`}},
		{"unterminated quote", "a,b\n1,\"xy\n2,3\n", ingest.Options{}, ingest.ParseError{Line: 2, Row: 1, Column: "b", Msg: "unterminated quoted field"}},
		{"after closing quote", "a,b\n\"x\"y,1\n", ingest.Options{}, ingest.ParseError{Line: 2, Row: 1, Column: "a", Msg: "unexpected character after a closing quote"}},
		{"invalid utf8 header", "a\xff\n1\n", ingest.Options{}, ingest.ParseError{Line: 1, Msg: "invalid UTF-8"}},
		{"invalid utf8", "a,b\n1,x\n2,\"q\xffz\"\n", ingest.Options{}, ingest.ParseError{Line: 3, Row: 2, Column: "b", Msg: "invalid UTF-8"}},
		{"declared numeric", "a,sales\n1,2\n2,abc\n", ingest.Options{Declared: map[string]columnar.DataType{"sales": columnar.Numeric}},
			ingest.ParseError{Line: 3, Row: 2, Column: "sales", Msg: `value "abc" is not numeric`}},
		{"declared line after quoted newlines", "a,d\n\"x\ny\",2017-01-01\n\"p\n\nq\",nope\n", ingest.Options{Declared: map[string]columnar.DataType{"d": columnar.Date}},
			ingest.ParseError{Line: 4, Row: 2, Column: "d", Msg: `value "nope" is not a date`}},
		{"declared logical", "a\ntrue\nmaybe\n", ingest.Options{Declared: map[string]columnar.DataType{"a": columnar.Logical}},
			ingest.ParseError{Line: 3, Row: 2, Column: "a", Msg: `value "maybe" is not logical`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, block := range []int{0, 1, 7} {
				opts := ingest.WithBlockBytes(tt.opts, block)
				res := readCSV(t, tt.in, opts)
				var pe *ingest.ParseError
				if !errors.As(res.err, &pe) {
					t.Fatalf("NewCSV(%q) error = %v, want a *ParseError", tt.in, res.err)
				}
				if *pe != tt.want {
					t.Errorf("NewCSV(%q) (block %d) error = %#v, want %#v", tt.in, block, *pe, tt.want)
				}
			}
		})
	}
}

// The same errors must carry the same positions when they are found by the
// workers rather than in the sample.
func TestCSVErrorsAfterSample(t *testing.T) {
	prefix := "a,b\n" + strings.Repeat("1,2\n", 100)
	tests := []struct {
		in   string
		want ingest.ParseError
	}{
		{prefix + "3\n", ingest.ParseError{Line: 102, Row: 101, Msg: "expected 2 fields, got 1"}},
		{prefix + "\"x\ny\",\"p\"q\n", ingest.ParseError{Line: 103, Row: 101, Column: "b", Msg: "unexpected character after a closing quote"}},
		{prefix + "1,\xfe\n", ingest.ParseError{Line: 102, Row: 101, Column: "b", Msg: "invalid UTF-8"}},
		{prefix + "1,\"open\n", ingest.ParseError{Line: 102, Row: 101, Column: "b", Msg: "unterminated quoted field"}},
	}
	for _, tt := range tests {
		for _, block := range []int{1, 13, 64, 4096} {
			opts := ingest.WithBlockBytes(ingest.Options{SampleRows: 3, Workers: 3, BatchRows: block % 5}, block)
			res := readCSV(t, tt.in, opts)
			var pe *ingest.ParseError
			if !errors.As(res.err, &pe) || *pe != tt.want {
				t.Errorf("NewCSV(…%q) (block %d) error = %v, want %v", tt.in[len(prefix):], block, res.err, &tt.want)
			}
		}
	}
	in := prefix + "1,abc\n"
	opts := ingest.Options{SampleRows: 3, Declared: map[string]columnar.DataType{"b": columnar.Numeric}}
	res := readCSV(t, in, ingest.WithBlockBytes(opts, 16))
	want := ingest.ParseError{Line: 102, Row: 101, Column: "b", Msg: `value "abc" is not numeric`}
	var pe *ingest.ParseError
	if !errors.As(res.err, &pe) || *pe != want {
		t.Errorf("declared mismatch after sample: error = %v, want %v", res.err, &want)
	}
	if len(res.rows) > 100 {
		t.Errorf("declared mismatch after sample: %d rows emitted, want at most 100", len(res.rows))
	}
}

func TestParseErrorMessage(t *testing.T) {
	tests := []struct {
		e    ingest.ParseError
		want string
	}{
		{ingest.ParseError{Line: 7, Row: 6, Column: "sales", Msg: `value "abc" is not numeric`}, `line 7, column "sales": value "abc" is not numeric`},
		{ingest.ParseError{Row: 3, Column: "x", Msg: "nested object or array value"}, `row 3, column "x": nested object or array value`},
		{ingest.ParseError{Msg: "no data"}, "no data"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// genQuoted returns a CSV with quoted fields holding commas, quotes and
// newlines, CRLF line ends and blank lines, for chunking tests.
func genQuoted(rows int) string {
	var b strings.Builder
	b.WriteString("id,text,n,when\r\n")
	for i := range rows {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "%d,\"a, \"\"quoted\"\"\nvalue %d\",%d.5,2020-01-%02d 00:00:00\r\n", i, i, i, i%28+1)
		case 1:
			fmt.Fprintf(&b, "%d,plain %d,%d,\r\n\r\n", i, i, i)
		case 2:
			fmt.Fprintf(&b, "\"%d\",\"\",\"%d\",\"1/%d/2021\"\n", i, i, i%28+1)
		default:
			fmt.Fprintf(&b, "%d,\"multi\r\n\r\nline\",,2020-02-01T10:00:00Z\n", i)
		}
	}
	return b.String()
}

func TestCSVChunking(t *testing.T) {
	in := genQuoted(200)
	base := readCSV(t, in, ingest.Options{Workers: 1})
	if base.err != nil || len(base.rows) != 200 || base.types != "id:numeric,text:string,n:numeric,when:date" {
		t.Fatalf("NewCSV(quoted) = %d rows, %s, %v", len(base.rows), base.types, base.err)
	}
	for _, block := range []int{1, 2, 3, 5, 17, 64, 1000} {
		for _, workers := range []int{1, 3} {
			for _, batch := range []int{1, 7, 0} {
				opts := ingest.WithBlockBytes(ingest.Options{Workers: workers, BatchRows: batch, SampleRows: 10}, block)
				res := readCSV(t, in, opts)
				if res.err != nil || res.types != base.types || fmt.Sprint(res.rows) != fmt.Sprint(base.rows) {
					t.Fatalf("block %d workers %d batch %d: %d rows, %s, %v; want the unchunked result",
						block, workers, batch, len(res.rows), res.types, res.err)
				}
				if batch > 0 && res.batches < 200/batch {
					t.Errorf("block %d workers %d batch %d: %d batches, want at least %d", block, workers, batch, res.batches, 200/batch)
				}
			}
		}
	}
}

func TestCSVBatchRows(t *testing.T) {
	in := "a\n" + strings.Repeat("1\n", 1000)
	mem := checkedMem(t)
	r, err := ingest.NewCSV(strings.NewReader(in), ingest.Options{Allocator: mem, BatchRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	total := int64(0)
	for r.Next() {
		n := r.RecordBatch().NumRows()
		if n > 64 {
			t.Errorf("batch of %d rows, want at most 64", n)
		}
		total += n
		if r.Rows() != total {
			t.Errorf("Rows() = %d, want %d", r.Rows(), total)
		}
	}
	if r.Err() != nil || total != 1000 {
		t.Errorf("read %d rows, %v; want 1000", total, r.Err())
	}
	if got, want := r.Bytes(), int64(len(in)-2); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
}

func TestCSVWidening(t *testing.T) {
	in := "n,s,d,l\n1,a,2020-01-01,true\n2,b,2020-01-02,false\n1.50,c,2020-01-03,yes\nx,d,never,maybe\n7,e,2020-01-05,no\n"
	for _, block := range []int{1, 20, 0} {
		for _, workers := range []int{1, 4} {
			mem := checkedMem(t)
			opts := ingest.WithBlockBytes(ingest.Options{Allocator: mem, SampleRows: 2, BatchRows: 1, Workers: workers}, block)
			r, err := ingest.NewCSV(strings.NewReader(in), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(typesOf(r)); got != "[numeric string date logical]" {
				t.Errorf("initial types = %s", got)
			}
			var got []string
			for r.Next() {
				rec := r.RecordBatch()
				checkBatch(t, rec)
				var vals []string
				for _, col := range rec.Columns() {
					vals = append(vals, valueString(col, 0))
				}
				got = append(got, fmt.Sprint(schemaTypes(r))+strings.Join(vals, "|"))
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			want := []string{
				"[numeric string date logical]1|a|2020-01-01T00:00:00Z|true",
				"[numeric string date logical]2|b|2020-01-02T00:00:00Z|false",
				"[numeric string date logical]1.5|c|2020-01-03T00:00:00Z|true",
				"[string string string string]x|d|never|maybe",
				"[string string string string]7|e|2020-01-05|no",
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("block %d workers %d: batches\n%q\nwant\n%q", block, workers, got, want)
			}
			if got := fmt.Sprint(typesOf(r)); got != "[string string string string]" {
				t.Errorf("final types = %s", got)
			}
			r.Release()
		}
	}
}

func typesOf(r *ingest.Reader) []columnar.DataType {
	var ts []columnar.DataType
	for _, c := range r.Columns() {
		ts = append(ts, c.DataType)
	}
	return ts
}

func schemaTypes(r *ingest.Reader) []columnar.DataType {
	var ts []columnar.DataType
	for _, f := range r.Schema().Fields() {
		ts = append(ts, columnar.FieldDataType(f))
	}
	return ts
}

func TestCSVWorkersAgree(t *testing.T) {
	data := string(genCSV(30000, 2))
	base := readCSV(t, data, ingest.Options{Workers: 1})
	if base.err != nil || len(base.rows) != 30000 {
		t.Fatalf("NewCSV = %d rows, %v", len(base.rows), base.err)
	}
	if want := "ts:date,a:numeric,b:numeric,c:numeric,d:numeric,e:numeric,store:string,item:string"; base.types != want {
		t.Errorf("types = %s, want %s", base.types, want)
	}
	res := readCSV(t, data, ingest.WithBlockBytes(ingest.Options{Workers: 4, BatchRows: 1000}, 4096))
	if res.err != nil || fmt.Sprint(res.rows) != fmt.Sprint(base.rows) {
		t.Errorf("Workers 4 differ from Workers 1 (%v)", res.err)
	}
}

func TestCSVReleaseEarly(t *testing.T) {
	data := genCSV(50000, 3)
	before := runtime.NumGoroutine()
	for _, n := range []int{0, 1, 3} {
		mem := checkedMem(t)
		r, err := ingest.NewCSV(bytes.NewReader(data), ingest.WithBlockBytes(ingest.Options{Allocator: mem, Workers: 4}, 8192))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n && r.Next(); i++ {
		}
		r.Release()
		r.Release()
		if r.Next() {
			t.Error("Next after Release = true")
		}
	}
	waitGoroutines(t, before)
}

func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestCSVReadError(t *testing.T) {
	boom := errors.New("boom")
	for _, rows := range []int{100, 80000} { // the error hits the sample, or a later block
		data := genCSV(rows, 4)
		mem := checkedMem(t)
		r, err := ingest.NewCSV(&errReader{data: data, err: boom}, ingest.WithBlockBytes(ingest.Options{Allocator: mem}, 4096))
		if err == nil {
			err = drain(t, r).err
		}
		if !errors.Is(err, boom) {
			t.Errorf("%d rows: error = %v, want boom", rows, err)
		}
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n", "1,2\n3,4", "\ufeffa\r\n\"x\ny\"\r\n", "a,b\n1\n", "a,\"b\"\"\"\n\"", "a\n\xff\n",
		"d,n\n2020-01-01,1\nx,y\n", "a,a\n", "\n\n", genQuoted(8),
		"a,b,c,d,e\n1,2,3,4,5\n", "1,2,3,4\n5,6,7,8\n", "a\x00,b\n1,2\n", "a,\"b,c\",d,e\n"} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x40))
	}
	f.Fuzz(func(t *testing.T, data []byte, knob uint8) {
		if len(data) > 8<<10 { // tiny blocks make big inputs slow to fuzz
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		base := ingest.Options{Allocator: mem, SampleRows: int(knob%5) + 1, MissingValues: []string{"NA"}, CheckName: checkNameParseError}
		if knob&0x40 != 0 {
			base.MaxColumns = 3
		}
		if knob&0x80 != 0 {
			base.Declared = map[string]columnar.DataType{"a": columnar.Numeric, "column1": columnar.Date}
		}
		chunked := base
		chunked.BatchRows, chunked.Workers = int(knob/5%4)+1, int(knob%3)+1
		chunked = ingest.WithBlockBytes(chunked, int(knob%17)+1)

		var results [2]result
		var initial [2]string
		for i, opts := range []ingest.Options{base, chunked} {
			r, err := ingest.NewCSV(bytes.NewReader(data), opts)
			if err != nil {
				var pe *ingest.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("NewCSV error %v is not a *ParseError", err)
				}
				results[i].err = err
				continue
			}
			initial[i] = fmt.Sprint(typesOf(r))
			results[i] = drain(t, r)
			var pe *ingest.ParseError
			if results[i].err != nil && !errors.As(results[i].err, &pe) {
				t.Fatalf("Err() = %v, not a *ParseError", results[i].err)
			}
		}
		// Chunking, batch size and workers change neither whether the
		// input is valid nor, barring widening, the values.
		a, b := results[0], results[1]
		if (a.err == nil) != (b.err == nil) {
			t.Fatalf("unchunked error %v, chunked error %v", a.err, b.err)
		}
		if a.err == nil && len(a.rows) != len(b.rows) {
			t.Fatalf("unchunked %d rows, chunked %d", len(a.rows), len(b.rows))
		}
		if a.err == nil && a.types == b.types && initial[0] == initial[1] && fmt.Sprint(typesOf2(a.types)) == initial[0] &&
			fmt.Sprint(a.rows) != fmt.Sprint(b.rows) {
			t.Fatalf("unchunked rows %q, chunked %q", a.rows, b.rows)
		}
	})
}

// typesOf2 extracts the types from a result's "name:type,…" list.
func typesOf2(types string) []columnar.DataType {
	var ts []columnar.DataType
	if types == "" {
		return ts
	}
	for _, nt := range strings.Split(types, ",") {
		ts = append(ts, columnar.DataType(nt[strings.LastIndexByte(nt, ':')+1:]))
	}
	return ts
}

func TestCSVZeroOne(t *testing.T) {
	r, err := ingest.NewCSV(strings.NewReader("a,b,c,d\n0,0,x,\n1,2,y,\n,1,z,\n"), ingest.Options{BatchRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
	}
	var got []bool
	for _, c := range r.Columns() {
		got = append(got, c.ZeroOne)
	}
	if fmt.Sprint(got) != "[true false false false]" {
		t.Errorf("ZeroOne of a,b,c,d = %v, want [true false false false]", got)
	}
}

func TestCSVIncreasingDates(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		want bool
	}{
		{"increasing", "d,x\n2017-01-01,1\n2017-01-02,2\n\n2017-01-03,3\n", true},
		{"missing values skipped", "d,x\n2017-01-01,1\n,2\n2017-01-03,3\n", true},
		{"repeated", "d,x\n2017-01-01,1\n2017-01-01,2\n", false},
		{"decreasing", "d,x\n2017-01-02,1\n2017-01-01,2\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := ingest.NewCSV(strings.NewReader(c.body), ingest.Options{BatchRows: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			for r.Next() {
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			cols := r.Columns()
			if cols[0].DataType != columnar.Date || cols[0].Increasing != c.want || cols[1].Increasing {
				t.Errorf("Columns(%q) = %+v, want d increasing=%v", c.body, cols, c.want)
			}
		})
	}
}

// A verbatim CSV reader's Lines are each batch's records as written, when
// they are plain: no quote, no carriage return, no field starting with a
// byte of leading. A batch that is not plain reports false and appends
// nothing; batches after it are plain again. Other readers have no lines.
func TestCSVLines(t *testing.T) {
	var leading [256]bool
	leading[' '] = true
	body := "a,b,c\n1,x,\n\n2,yy,3\n" + // a blank line is not a record
		"4,\"q\",5\n" + // quoted
		"6,z,7\n" +
		"8, w,9\n" + // a leading space
		"10,v,11\r\n" + // a carriage return
		"12,,u\n" // empty fields
	// One record a batch: "" for a batch that is not plain.
	want := "1,x,|2,yy,3||6,z,7|||12,,u"
	opts := ingest.WithBlockBytes(ingest.Options{Verbatim: true, Workers: 2, BatchRows: 1}, 1)
	r, err := ingest.NewCSV(strings.NewReader(body), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	dst, ends := []byte("keep"), []int32{4}
	if _, _, ok := r.Lines(dst, ends, &leading); ok {
		t.Error("Lines before Next = true")
	}
	var got []string
	for r.Next() {
		d, e, ok := r.Lines(dst, ends, &leading)
		if string(d[:4]) != "keep" || e[0] != 4 {
			t.Fatalf("Lines overwrote dst: %q %v", d, e)
		}
		if !ok && (len(d) != 4 || len(e) != 1) {
			t.Errorf("Lines = false and appended %q %v", d[4:], e[1:])
		}
		var lines []string
		if ok {
			from := int32(4)
			for _, end := range e[1:] {
				lines = append(lines, string(d[from:end]))
				from = end
			}
		}
		if ok && len(lines) != int(r.RecordBatch().NumRows()) {
			t.Errorf("%d lines for %d rows", len(lines), r.RecordBatch().NumRows())
		}
		got = append(got, strings.Join(lines, ";"))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("lines = %s, want %s", g, want)
	}

	// In batches as the reader cuts them: the body is not plain; without
	// its bad records it is, to its last line without a line break.
	for _, c := range []struct {
		body, want string
		ok         bool
	}{
		{body, "", false},
		{"a,b\n1,x\n\n2,y\n3,z", "1,x;2,y;3,z", true},
	} {
		r, err := ingest.NewCSV(strings.NewReader(c.body), ingest.Options{Verbatim: true})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		ok := true
		for r.Next() {
			d, e, plain := r.Lines(nil, nil, &leading)
			ok = ok && plain
			if len(e) != 0 && len(e) != int(r.RecordBatch().NumRows()) {
				t.Errorf("%d lines for %d rows", len(e), r.RecordBatch().NumRows())
			}
			from := int32(0)
			for _, end := range e {
				lines = append(lines, string(d[from:end]))
				from = end
			}
		}
		if g := strings.Join(lines, ";"); ok != c.ok || g != c.want {
			t.Errorf("Lines of %q = %q %v, want %q %v", c.body, g, ok, c.want, c.ok)
		}
		r.Release()
	}

	// Not verbatim: no lines.
	r2, err := ingest.NewCSV(strings.NewReader("a,b\n1,2\n"), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Release()
	for r2.Next() {
		if _, _, ok := r2.Lines(nil, nil, &leading); ok {
			t.Error("Lines of a typed CSV reader = true")
		}
	}
}
