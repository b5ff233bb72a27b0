package ingest_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/vaticml/vatic/ingest"
)

// countingReader counts the bytes read from r, to show that a refusal
// came early.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endless repeats unit forever after prefix.
type endless struct {
	prefix []byte
	unit   []byte
	off    int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for n < len(p) {
		k := copy(p[n:], e.unit[e.off:])
		n += k
		e.off = (e.off + k) % len(e.unit)
	}
	return n, nil
}

// wideCSV is a header of ncol distinct names and one row.
func wideCSV(ncol int) []byte {
	var b bytes.Buffer
	for j := range ncol {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for j := range ncol {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('1')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// wideJSON is rows rows of keys distinct keys each, all rows' keys
// different (the attack: 200 × 500 makes 100 000 columns).
func wideJSON(rows, keys int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"data":[`)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k := range keys {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d_%d":1`, i, k)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func wantParseError(t *testing.T, err error, msg string) *ingest.ParseError {
	t.Helper()
	var pe *ingest.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, msg) {
		t.Fatalf("error = %v, want a *ParseError containing %q", err, msg)
	}
	return pe
}

func TestCSVMaxColumns(t *testing.T) {
	t.Run("50000 columns", func(t *testing.T) {
		in := &countingReader{r: bytes.NewReader(wideCSV(50000))}
		_, err := ingest.NewCSV(in, ingest.Options{Allocator: checkedMem(t)})
		pe := wantParseError(t, err, "more than 4096 columns; the column limit is 4096")
		if pe.Line != 1 {
			t.Errorf("line = %d, want 1", pe.Line)
		}
	})
	t.Run("endless header", func(t *testing.T) {
		// The header is refused at its 4097th field, after the sample
		// (4 MiB) was read, and never longer.
		in := &countingReader{r: &endless{unit: []byte("x,")}}
		_, err := ingest.NewCSV(in, ingest.Options{Allocator: checkedMem(t)})
		wantParseError(t, err, "more than 4096 columns")
		if in.n > 5<<20 {
			t.Errorf("read %d bytes before refusing, want at most the 4 MiB sample", in.n)
		}
	})
	t.Run("headerless", func(t *testing.T) {
		_, err := ingest.NewCSV(strings.NewReader("1,2,3,4\n5,6,7,8\n"), ingest.Options{Allocator: checkedMem(t), MaxColumns: 3})
		wantParseError(t, err, "more than 3 columns; the column limit is 3")
	})
	t.Run("at the limit", func(t *testing.T) {
		res := drain(t, mustCSV(t, wideCSV(4096), ingest.Options{Allocator: checkedMem(t)}))
		if res.err != nil || len(res.rows) != 1 {
			t.Errorf("4096 columns: %d rows, error %v; want 1 row", len(res.rows), res.err)
		}
	})
}

func mustCSV(t *testing.T, data []byte, opts ingest.Options) *ingest.Reader {
	t.Helper()
	r, err := ingest.NewCSV(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestJSONMaxColumns(t *testing.T) {
	t.Run("200 rows of 500 new keys", func(t *testing.T) {
		// Refused at the 4097th key, in row 9, with the rest unread
		// (beyond what the decoder buffers).
		data := wideJSON(200, 500)
		in := &countingReader{r: bytes.NewReader(data)}
		_, err := ingest.NewJSON(in, ingest.Options{Allocator: checkedMem(t)}, nil)
		pe := wantParseError(t, err, "more than 4096 columns; the column limit is 4096")
		if pe.Row != 9 {
			t.Errorf("row = %d, want 9", pe.Row)
		}
		if in.n > int64(len(data))/10 {
			t.Errorf("read %d of %d bytes before refusing", in.n, len(data))
		}
	})
	t.Run("after the sample", func(t *testing.T) {
		res := readJSON(t, string(wideJSON(10, 3)), ingest.Options{SampleRows: 2, MaxColumns: 8}, nil)
		pe := wantParseError(t, res.err, "more than 8 columns")
		if pe.Row != 3 {
			t.Errorf("row = %d, want 3", pe.Row)
		}
	})
	t.Run("spooled", func(t *testing.T) {
		in := strings.TrimSuffix(string(wideJSON(10, 3)), "}") + `,"columns":{}}`
		wantParseError(t, readJSON(t, in, ingest.Options{MaxColumns: 8}, nil).err, "more than 8 columns")
	})
	t.Run("columns property", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"columns":{`)
		for k := range 5000 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"c%d":{"dataType":"numeric"}`, k)
		}
		b.WriteString(`},"data":[]}`)
		wantParseError(t, readJSON(t, b.String(), ingest.Options{}, nil).err, "columns: more than 4096 columns")
	})
	t.Run("repeated keys count once", func(t *testing.T) {
		res := readJSON(t, `[{"a":1,"A":2,"b":3},{"a":4,"b":5}]`, ingest.Options{MaxColumns: 2}, nil)
		if res.err != nil || res.types != "a:numeric,b:numeric" {
			t.Errorf("result = %+v, want two numeric columns", res)
		}
	})
}

func TestJSONDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		name, in string
	}{
		{"ignored property", `{"x":` + deep(100) + `,"data":[{"a":1}]}`},
		{"ignored after the rows", `{"data":[{"a":1}],"columns":{},"missingValues":[],"x":` + deep(100) + `}`},
		{"ignored after spooled rows", `{"data":[{"a":1}],"x":` + deep(100) + `}`},
		{"unknown column metadata", `{"columns":{"a":{"x":` + deep(100) + `}},"data":[{"a":1}]}`},
		{"spooled row", `{"data":[{"a":1},` + deep(100) + `]}`},
		{"top-level array", `[` + strings.Repeat(`{"a":1},`, 1000) + `{"a":` + deep(100) + `}]`},
		{"row value", `[{"a":` + deep(100) + `}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := readJSON(t, tt.in, ingest.Options{}, nil)
			wantParseError(t, res.err, "JSON nests arrays and objects deeper than 64 levels")
		})
	}
	t.Run("top-level array of arrays", func(t *testing.T) {
		// Rows are read one at a time: the first, an array, is refused
		// before the reading gets deeper than the limit.
		res := readJSON(t, deep(100), ingest.Options{}, nil)
		wantParseError(t, res.err, "row must be an object")
	})
	t.Run("64 levels", func(t *testing.T) {
		in := `{"x":` + deep(63) + `,"data":[{"a":1}]}`
		if res := readJSON(t, in, ingest.Options{}, nil); res.err != nil || len(res.rows) != 1 {
			t.Errorf("64 levels: %+v, want one row", res)
		}
	})
	t.Run("brackets in strings", func(t *testing.T) {
		in := `[{"a":"` + strings.Repeat("[{", 100) + `\"[","[\\":"x"}]`
		if res := readJSON(t, in, ingest.Options{}, nil); res.err != nil || len(res.rows) != 1 {
			t.Errorf("brackets in strings: %+v, want one row", res)
		}
	})
	t.Run("endless", func(t *testing.T) {
		// The attack: {"x": and then [ for ever, inside a property that is
		// ignored. It is refused after a few kilobytes.
		in := &countingReader{r: &endless{prefix: []byte(`{"x":`), unit: []byte("[")}}
		_, err := ingest.NewJSON(in, ingest.Options{Allocator: checkedMem(t)}, nil)
		wantParseError(t, err, "deeper than 64 levels")
		if in.n > 1<<20 {
			t.Errorf("read %d bytes before refusing", in.n)
		}
	})
}

func TestLimitDepth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		deep bool
	}{
		{`{}`, false},
		{strings.Repeat("[", 64) + strings.Repeat("]", 64), false},
		{strings.Repeat("[", 65), true},
		{strings.Repeat(`{"a":`, 65), true},
		{`["` + strings.Repeat("[", 100) + `"]`, false},
		{`["\"` + strings.Repeat("[", 100) + `"]`, false},
		{`["\\"` + strings.Repeat(",[", 100), true},
		{strings.Repeat("[]", 1000), false},
	} {
		_, err := io.ReadAll(ingest.LimitDepth(strings.NewReader(tt.in)))
		if errors.Is(err, ingest.ErrTooDeep) != tt.deep || (err != nil && !tt.deep) {
			t.Errorf("LimitDepth(%.40q…) error = %v, want too deep %v", tt.in, err, tt.deep)
		}
		if err := ingest.CheckDepth([]byte(tt.in)); errors.Is(err, ingest.ErrTooDeep) != tt.deep {
			t.Errorf("CheckDepth(%.40q…) = %v, want too deep %v", tt.in, err, tt.deep)
		}
	}
}

var errBadName = errors.New("bad name")

func TestCheckName(t *testing.T) {
	check := func(name string) error {
		if name == "" || strings.ContainsRune(name, 0) || len(name) > 255 {
			return fmt.Errorf("%w %q", errBadName, name)
		}
		return nil
	}
	long := strings.Repeat("x", 10000)
	opts := ingest.Options{CheckName: check}
	for _, tt := range []struct {
		name, in string
		csv      bool
	}{
		{"CSV NUL", "a,b\x00c\n1,2\n", true},
		{"CSV long", "a," + long + "\n1,2\n", true},
		{"JSON NUL", `[{"a":1,"b\u0000":2}]`, false},
		{"JSON empty", `[{"a":1,"":2}]`, false},
		{"JSON long", `[{"a":1,"` + long + `":2}]`, false},
		{"JSON after the sample", `[{"a":1},{"a":1},{"":2}]`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.Allocator = checkedMem(t)
			o.SampleRows = 2
			var err error
			if tt.csv {
				var r *ingest.Reader
				if r, err = ingest.NewCSV(strings.NewReader(tt.in), o); err == nil {
					err = drain(t, r).err
				}
			} else {
				err = readJSON(t, tt.in, o, nil).err
			}
			if !errors.Is(err, errBadName) {
				t.Errorf("error = %v, want the CheckName error", err)
			}
		})
	}
	// Empty CSV header fields are named columnN, which passes.
	if res := drain(t, mustCSV(t, []byte("a,,c\n1,2,3\n"), ingest.Options{Allocator: checkedMem(t), CheckName: check})); res.err != nil {
		t.Errorf("empty header field: %v", res.err)
	}
}
