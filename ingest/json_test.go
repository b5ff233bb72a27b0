package ingest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

func readJSON(t testing.TB, input string, opts ingest.Options, prepare func(ingest.JSONMeta) (ingest.Options, error)) result {
	t.Helper()
	if opts.Allocator == nil {
		opts.Allocator = checkedMem(t)
	}
	r, err := ingest.NewJSON(strings.NewReader(input), opts, prepare)
	if err != nil {
		return result{err: err}
	}
	return drain(t, r)
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		types string
		rows  []string
	}{
		{"object", `{"data":[{"a":1,"b":"x","c":true,"d":"2017-01-01"},{"a":2.5,"b":"y","c":false,"d":"1-2-2017"}]}`,
			"a:numeric,b:string,c:logical,d:date", []string{"1|x|true|2017-01-01T00:00:00Z", "2.5|y|false|2017-01-02T00:00:00Z"}},
		{"top-level array", `[{"a":"1"},{"a":"2"}]`, "a:numeric", []string{"1", "2"}},
		{"bom and spaces", "\ufeff \n[{\"a\":1}] \n", "a:numeric", []string{"1"}},
		{"key case", `[{"Sales":1,"x":1},{"sales":2,"SALES":3}]`, "Sales:numeric,x:numeric", []string{"1|1", "3|∅"}},
		{"union of keys", `[{"a":1},{"b":"x"},{"a":3,"c":null}]`, "a:numeric,b:string,c:string", []string{"1|∅|∅", "∅|x|∅", "3|∅|∅"}},
		{"nulls and empty", `[{"a":null,"b":""},{"a":" ","b":"z"}]`, "a:string,b:string", []string{"∅|∅", "∅|z"}},
		{"numbers keep text", `[{"a":1e2,"b":"007"},{"a":0.1,"b":"x"}]`, "a:numeric,b:string", []string{"100|007", "0.1|x"}},
		{"no data", `{"columns":{"a":{}}}`, "", nil},
		{"null data", `{"data":null}`, "", nil},
		{"empty data", `{"data":[]}`, "", nil},
		{"streamed with trailing properties", `{"columns":{},"missingValues":[],"data":[{"a":1},{"a":2}],"extra":{"x":[1,{"y":2}]},"columns":5}`,
			"a:numeric", []string{"1", "2"}},
		{"other properties", `{"dataSetName":"x","extra":{"data":[1]},"Data":[{"a":1}],"more":[[{}]]}`, "a:numeric", []string{"1"}},
		{"escaped keys and values", `[{"a\u0062":1,"s":"x\"y\u00e9"},{"ab":2,"A\u0042":3,"s":"\u0041"}]`, "ab:numeric,s:string",
			[]string{"1|x\"yé", "3|A"}},
		{"repeated key", `[{"a":1,"b":2,"a":3},{"a":null,"b":4,"a":5}]`, "a:numeric,b:numeric", []string{"3|2", "5|4"}},
		{"invalid UTF-8", "[{\"a\":\"x\xffy\"}]", "a:string", []string{"x\ufffdy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := readJSON(t, tt.in, ingest.Options{}, nil)
			if res.err != nil {
				t.Fatalf("NewJSON(%s): %v", tt.in, res.err)
			}
			if res.types != tt.types || fmt.Sprint(res.rows) != fmt.Sprint(tt.rows) {
				t.Errorf("NewJSON(%s) = %s %q, want %s %q", tt.in, res.types, res.rows, tt.types, tt.rows)
			}
		})
	}
}

func TestJSONMeta(t *testing.T) {
	const data = `"data":[{"Sales":"1","day":"2017-01-01","note":"N/A"},{"Sales":"2.5","day":"2017-01-02","note":"x"}]`
	const cols = `"Columns":{"sales":{"DataType":"numericMeasure","Role":"target"},"day":{"dataType":null,"role":"timestamp","Imputation":"","aggregation":"sum"},"k":null}`
	const missing = `"MISSINGVALUES":["N/A",null]`
	wantMeta := ingest.JSONMeta{
		Columns: []columnar.Spec{
			{Name: "sales", DataType: "numericMeasure", Role: "target"},
			{Name: "day", Role: "timestamp", Aggregation: "sum"},
			{Name: "k"},
		},
		MissingValues: []string{"N/A"},
		HasData:       true, HasColumns: true, HasMissingValues: true,
	}
	for _, body := range []string{
		"{" + cols + "," + missing + "," + data + "}", // streamed
		"{" + data + "," + cols + "," + missing + "}", // spooled
		"{" + cols + "," + data + "," + missing + "}", // spooled
	} {
		var got ingest.JSONMeta
		prepare := func(m ingest.JSONMeta) (ingest.Options, error) {
			got = m
			opts := ingest.Options{Allocator: checkedMem(t), MissingValues: m.MissingValues, Declared: map[string]columnar.DataType{}}
			for _, c := range m.Columns {
				if dt, ok := columnar.ParseDataType(c.DataType); ok {
					opts.Declared[strings.ToLower(c.Name)] = dt
				}
			}
			return opts, nil
		}
		res := readJSON(t, body, ingest.Options{}, prepare)
		if res.err != nil {
			t.Fatalf("NewJSON(%s): %v", body, res.err)
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", wantMeta) {
			t.Errorf("NewJSON(%s) meta = %+v, want %+v", body, got, wantMeta)
		}
		if want := "Sales:numericMeasure,day:date,note:string"; res.types != want {
			t.Errorf("NewJSON(%s) types = %s, want %s", body, res.types, want)
		}
		if want := "[1|2017-01-01T00:00:00Z|∅ 2.5|2017-01-02T00:00:00Z|x]"; fmt.Sprint(res.rows) != want {
			t.Errorf("NewJSON(%s) rows = %q, want %s", body, res.rows, want)
		}
	}
}

func TestJSONPrepareError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ingest.NewJSON(strings.NewReader(`{"data":[{"a":1}]}`), ingest.Options{}, func(ingest.JSONMeta) (ingest.Options, error) {
		return ingest.Options{}, boom
	})
	if err != boom {
		t.Errorf("NewJSON with failing prepare = %v, want boom", err)
	}
}

// TestJSONSpoolFile spools rows followed by metadata to a file in
// Options.SpoolDir (not the system's temporary directory) and removes it
// on Release.
func TestJSONSpoolFile(t *testing.T) {
	dir, sysTmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", sysTmp)
	var b strings.Builder
	b.WriteString(`{"data":[`)
	const rows = 60000
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row number %d with some padding text","v":%d.25}`, i, i, i)
	}
	b.WriteString(`],"missingValues":["-1"]}`)
	mem := checkedMem(t)
	r, err := ingest.NewJSON(strings.NewReader(b.String()), ingest.Options{Allocator: mem, SpoolDir: dir}, func(m ingest.JSONMeta) (ingest.Options, error) {
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("spool: %d files in SpoolDir, want 1", len(entries))
		}
		if entries, _ := os.ReadDir(sysTmp); len(entries) != 0 {
			t.Errorf("spool: %d files in TMPDIR, want 0", len(entries))
		}
		return ingest.Options{Allocator: mem, MissingValues: m.MissingValues, BatchRows: 7000}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := drain(t, r)
	if res.err != nil || len(res.rows) != rows || res.batches < rows/7000 {
		t.Errorf("spooled read: %d rows in %d batches, %v", len(res.rows), res.batches, res.err)
	}
	if res.types != "id:numeric,name:text,v:numeric" {
		t.Errorf("types = %s", res.types)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after Release: %d files in SpoolDir, want 0", len(entries))
	}
}

// TestRemoveSpools removes the spool files a killed process left, and
// nothing else.
func TestRemoveSpools(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"vatic-ingest-1.json", "vatic-ingest-22.json", "keep.json", "vatic-ingest-x.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n, err := ingest.RemoveSpools(dir)
	if err != nil || n != 2 {
		t.Errorf("RemoveSpools = %d, %v; want 2, nil", n, err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := "keep.json vatic-ingest-x.csv"; strings.Join(left, " ") != want {
		t.Errorf("after RemoveSpools: %q, want %s", left, want)
	}
	if n, err := ingest.RemoveSpools(filepath.Join(dir, "absent")); n != 0 || err != nil {
		t.Errorf("RemoveSpools(absent dir) = %d, %v; want 0, nil", n, err)
	}
}

func TestJSONSchemaChange(t *testing.T) {
	in := `[{"a":1,"b":"x"},{"a":2,"b":"y"},{"a":"three","c":5},{"a":4,"b":"z","C":6}]`
	mem := checkedMem(t)
	r, err := ingest.NewJSON(strings.NewReader(in), ingest.Options{Allocator: mem, SampleRows: 2, BatchRows: 1}, nil)
	if err != nil {
		t.Fatal(err)
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
	r.Release()
	want := []string{
		"[numeric string]1|x",
		"[numeric string]2|y",
		"[string string string]three|∅|5",
		"[string string string]4|z|6",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("batches = %q, want %q", got, want)
	}
}

func TestJSONErrors(t *testing.T) {
	declared := ingest.Options{Declared: map[string]columnar.DataType{"a": columnar.Numeric}}
	tests := []struct {
		name string
		in   string
		opts ingest.Options
		want ingest.ParseError // Msg is matched as a prefix
	}{
		{"empty", ``, ingest.Options{}, ingest.ParseError{Msg: "no data"}},
		{"scalar", `42`, ingest.Options{}, ingest.ParseError{Msg: "expected a JSON object or array"}},
		{"nested object", `[{"a":1},{"a":{"b":1}}]`, ingest.Options{}, ingest.ParseError{Row: 2, Column: "a", Msg: "nested object or array value"}},
		{"nested array", `{"data":[{"x":[1]}]}`, ingest.Options{}, ingest.ParseError{Row: 1, Column: "x", Msg: "nested object or array value"}},
		{"nested spooled", `{"data":[{"x":1},{"x":[1]}],"columns":{}}`, ingest.Options{}, ingest.ParseError{Row: 2, Column: "x", Msg: "nested object or array value"}},
		{"nested under another spelling", `[{"Ab":1},{"a\u0062":{}}]`, ingest.Options{}, ingest.ParseError{Row: 2, Column: "ab", Msg: "nested object or array value"}},
		{"row not object", `[{"a":1},2]`, ingest.Options{}, ingest.ParseError{Row: 2, Msg: "row must be an object"}},
		{"malformed row", `[{"a":1},{"a":}]`, ingest.Options{}, ingest.ParseError{Row: 2, Msg: "malformed JSON at byte"}},
		{"malformed spooled", `{"data":[{"a":1},{"a" 1}]}`, ingest.Options{}, ingest.ParseError{Row: 2, Msg: "malformed JSON at byte"}},
		{"truncated", `{"data":[{"a":1}`, ingest.Options{}, ingest.ParseError{Row: 2, Msg: "malformed JSON at byte"}},
		{"truncated array", `[{"a":1},`, ingest.Options{}, ingest.ParseError{Row: 2, Msg: "malformed JSON at byte"}},
		{"trailing data", `{"data":[{"a":1}]} x`, ingest.Options{}, ingest.ParseError{Msg: "unexpected data after the top-level value"}},
		{"trailing array", `[{"a":1}] [`, ingest.Options{}, ingest.ParseError{Msg: "unexpected data after the top-level value"}},
		{"data not array", `{"data":{"a":1}}`, ingest.Options{}, ingest.ParseError{Msg: "data must be an array"}},
		{"bad columns", `{"columns":[1]}`, ingest.Options{}, ingest.ParseError{Msg: "columns must be an object"}},
		{"bad column type", `{"columns":{"a":{"dataType":{}}}}`, ingest.Options{}, ingest.ParseError{Column: "a", Msg: "columns: dataType must be a string"}},
		{"bad missing", `{"missingValues":"x"}`, ingest.Options{}, ingest.ParseError{Msg: "missingValues must be an array of strings"}},
		{"declared mismatch", `[{"a":1},{"a":2},{"a":"x"}]`, declared, ingest.ParseError{Row: 3, Column: "a", Msg: `value "x" is not numeric`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, batch := range []int{1, 0} {
				opts := tt.opts
				opts.BatchRows = batch
				res := readJSON(t, tt.in, opts, nil)
				var pe *ingest.ParseError
				if !errors.As(res.err, &pe) {
					t.Fatalf("NewJSON(%s) error = %v, want a *ParseError", tt.in, res.err)
				}
				if pe.Row != tt.want.Row || pe.Column != tt.want.Column || !strings.HasPrefix(pe.Msg, tt.want.Msg) {
					t.Errorf("NewJSON(%s) error = %#v, want %#v", tt.in, *pe, tt.want)
				}
			}
		})
	}
}

// checkNameParseError refuses the names a dataset refuses, with a
// *ParseError, for the fuzz targets (which allow no other error).
func checkNameParseError(name string) error {
	if name == "" || strings.IndexByte(name, 0) >= 0 || len(name) > 255 {
		return &ingest.ParseError{Column: name, Msg: "invalid name"}
	}
	return nil
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"data":[{"a":1,"b":"x"}]}`, `[{"a":true},{"A":null,"c":"2017-01-01"}]`,
		`{"data":[{"a":1}],"columns":{"a":{"dataType":"numeric"}},"missingValues":["?"]}`, `[{"a":{}}]`, `[1]`, `{} x`,
		`{"x":` + strings.Repeat("[", 70), `{"columns":{"a":{"x":[[[]]]}}}`, `[{"":1}]`, `[{"a\u0000":1}]`, `{"data":[{"a\"":1,"b":[2]}]}`,
		`[{"a":1,"b":2,"c":3,"d":4}]`, `{"data":[{"a":1},{"b":2,"c":3,"d":4}],"columns":{"e":{}}}`, `{"columns":{"a":{},"b":{},"c":{},"d":{}}}`} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x40))
	}
	f.Fuzz(func(t *testing.T, data []byte, knob uint8) {
		if len(data) > 1<<16 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		opts := ingest.Options{Allocator: mem, SampleRows: int(knob%5) + 1, BatchRows: int(knob/5%4) + 1}
		if knob&0x80 != 0 {
			opts.Declared = map[string]columnar.DataType{"a": columnar.Numeric}
		}
		if knob&0x40 != 0 {
			opts.MaxColumns = 3
		}
		opts.CheckName = checkNameParseError
		prepare := func(m ingest.JSONMeta) (ingest.Options, error) {
			o := opts
			o.MissingValues = m.MissingValues
			return o, nil
		}
		r, err := ingest.NewJSON(strings.NewReader(string(data)), opts, prepare)
		if err != nil {
			var pe *ingest.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("NewJSON error %v is not a *ParseError", err)
			}
			return
		}
		defer r.Release()
		for r.Next() {
			checkBatch(t, r.RecordBatch())
		}
		if err := r.Err(); err != nil {
			var pe *ingest.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Err() = %v, not a *ParseError", err)
			}
		}
	})
}

// An error of the body's reader (the size cap, a broken connection) is
// that error, not malformed JSON, wherever the reading stops: in the
// properties, in rows read as they stream, in rows spooled.
func TestJSONReadError(t *testing.T) {
	boom := errors.New("boom")
	rows := strings.Repeat(`{"a":1,"b":"x"},`, 5000)
	for _, body := range []string{
		`{"columns":{"a":{"dataType":"numeric"}},`,
		`[` + rows,
		`{"columns":{},"missingValues":[],"data":[` + rows,
		`{"data":[` + rows,
	} {
		for _, cut := range []int{len(body) / 3, len(body) - 1, len(body)} {
			r, err := ingest.NewJSON(&errReader{data: []byte(body[:cut]), err: boom}, ingest.Options{Allocator: checkedMem(t)}, nil)
			if err == nil {
				err = drain(t, r).err
			}
			var pe *ingest.ParseError
			if !errors.Is(err, boom) || errors.As(err, &pe) {
				t.Errorf("body of %d bytes cut at %d by a read error: %v, want the read error", len(body), cut, err)
			}
		}
	}
}

// Rows may spell a column's name in any case, a new way in every row:
// past the few spellings the reader remembers, each still finds its
// column.
func TestJSONManySpellings(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		name := []byte("abcdefghij")
		for k := range name {
			if i>>k&1 == 1 {
				name[k] -= 'a' - 'A'
			}
		}
		fmt.Fprintf(&b, `{"%s":%d,"x":"y"}`, name, i)
	}
	b.WriteString("]")
	res := readJSON(t, b.String(), ingest.Options{}, nil)
	if res.err != nil || res.types != "abcdefghij:numeric,x:string" || len(res.rows) != 300 || res.rows[299] != "299|y" {
		t.Fatalf("NewJSON of 300 spellings = %v %s %d rows, want one numeric column abcdefghij", res.err, res.types, len(res.rows))
	}
}
