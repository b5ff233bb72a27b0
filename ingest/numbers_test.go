package ingest_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/ingest"
)

// numberLeading is the leading set of the number tests: a field starting
// with a space makes its record not plain.
var numberLeading = func() (set [256]bool) {
	set[' '] = true
	return set
}()

// parseNA reads a field as a number unless it is the token NA.
func parseNA(b []byte) (float64, bool) {
	if string(b) == "NA" {
		return 0, false
	}
	return ingest.ParseNumber(b)
}

// hintedBatch is one batch of a verbatim reader: its columns' text (a
// float64 column as its numbers' %v), which were float64, and its lines.
type hintedBatch struct {
	cells  [][]string
	floats []bool
	lines  string
	plain  bool
}

// readHinted reads body with a verbatim reader in batches of rows rows,
// with hint (marking columns marks) given right after NewCSV when
// marks is not nil.
func readHinted(t *testing.T, body string, rows, block int, marks []bool) []hintedBatch {
	t.Helper()
	out, err := readHintedErr(t, body, rows, block, marks)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readHintedErr is readHinted that returns the reader's error (with the
// batches before it).
func readHintedErr(t *testing.T, body string, rows, block int, marks []bool) ([]hintedBatch, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := ingest.NewCSV(strings.NewReader(body), ingest.WithBlockBytes(ingest.Options{Verbatim: true, Workers: 2, BatchRows: rows, Allocator: mem}, block))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if marks != nil {
		r.ParseNumbers(&ingest.NumberHint{Columns: marks, Leading: &numberLeading, Parse: parseNA})
	}
	var out []hintedBatch
	for r.Next() {
		rec := r.RecordBatch()
		b := hintedBatch{floats: make([]bool, rec.NumCols())}
		for j, col := range rec.Columns() {
			var cells []string
			switch a := col.(type) {
			case *array.String:
				for i := range a.Len() {
					cells = append(cells, a.Value(i))
				}
			case *array.Float64:
				b.floats[j] = true
				if rec.Schema().Field(j).Type.ID() != arrow.FLOAT64 {
					t.Fatalf("column %d is float64 under a %s field", j, rec.Schema().Field(j).Type)
				}
				for _, v := range a.Float64Values() {
					cells = append(cells, fmt.Sprint(v))
				}
			default:
				t.Fatalf("column %d is %s", j, col.DataType())
			}
			b.cells = append(b.cells, cells)
		}
		d, e, ok := r.Lines(nil, nil, &numberLeading)
		b.plain = ok
		from := int32(0)
		var lines []string
		for _, end := range e {
			lines = append(lines, string(d[from:end]))
			from = end
		}
		b.lines = strings.Join(lines, ";")
		out = append(out, b)
	}
	return out, r.Err()
}

// checkHinted compares a hinted read with the plain one: the same
// batches and lines; a float64 column only where the column is marked
// and the batch plain, holding the numbers parseNA reads from the plain
// read's text; every other column the same text. It returns how many
// columns were float64.
func checkHinted(t *testing.T, body string, plain, hinted []hintedBatch, marks []bool) int {
	t.Helper()
	if len(plain) != len(hinted) {
		t.Fatalf("%q: %d batches hinted, %d without", body, len(hinted), len(plain))
	}
	floats := 0
	for i, h := range hinted {
		p := plain[i]
		if h.lines != p.lines || h.plain != p.plain {
			t.Fatalf("%q batch %d: lines %q %v hinted, %q %v without", body, i, h.lines, h.plain, p.lines, p.plain)
		}
		for j, cells := range h.cells {
			if !h.floats[j] {
				if strings.Join(cells, "\x00") != strings.Join(p.cells[j], "\x00") {
					t.Fatalf("%q batch %d column %d: %q hinted, %q without", body, i, j, cells, p.cells[j])
				}
				continue
			}
			floats++
			if !marks[j] || !h.plain {
				t.Fatalf("%q batch %d column %d: numbers in a column not marked (%v) or a batch not plain (%v)", body, i, j, marks[j], h.plain)
			}
			for k, text := range p.cells[j] {
				v, ok := parseNA([]byte(text))
				if !ok || fmt.Sprint(v) != cells[k] || math.IsNaN(v) {
					t.Fatalf("%q batch %d column %d row %d: %s for text %q", body, i, j, k, cells[k], text)
				}
			}
		}
	}
	return floats
}

// A number hint turns the marked columns of plain chunks into float64
// arrays of what Parse reads, column by column within a chunk: a column
// with a field Parse refuses (a token, text, an empty field) keeps its
// text, as does every column of a chunk that is not plain (a quote, a
// carriage return, a field starting with a leading byte). Lines and the
// unmarked columns are those of the reader without the hint.
func TestCSVParseNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,c,d\n")
	for i := range 200 {
		switch i % 10 {
		case 3:
			fmt.Fprintf(&b, "%d,NA,t%d,%d.5\n", i, i, i) // b refuses
		case 5:
			fmt.Fprintf(&b, "%d,\"%d\",t%d,%d\n", i, i, i, i) // quoted: not plain
		case 7:
			fmt.Fprintf(&b, "%d,%d, t%d,\n", i, -i, i) // leading space; d empty
		default:
			fmt.Fprintf(&b, "%d,%de-3,t%d,%d.25\n", i, i, i, i)
		}
	}
	body := b.String()
	marks := []bool{true, true, false, true}
	for _, rows := range []int{1, 3, 64} {
		plain := readHinted(t, body, rows, 64, nil)
		hinted := readHinted(t, body, rows, 64, marks)
		if n := checkHinted(t, body, plain, hinted, marks); n == 0 {
			t.Errorf("batches of %d rows: no float64 column", rows)
		}
		// Marks of the wrong width are no hint.
		if n := checkHinted(t, body, plain, readHinted(t, body, rows, 64, marks[:2]), marks[:2]); n != 0 {
			t.Errorf("batches of %d rows: %d float64 columns under marks of the wrong width", rows, n)
		}
	}
}

// FuzzCSVParseNumbers: under any body and marks, a hinted read is the
// plain read with some marked columns of plain batches as the numbers
// their text reads as (checkHinted), and frees every buffer.
func FuzzCSVParseNumbers(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n2,3\n", "a,b\n1,2\n3,4\n5,NA\n", "x,y\n\"1\",2\n3,4\n", "p,q\n1, 2\n3,4\r\n5,6\n"} {
		f.Add(s, uint8(3), uint8(1))
	}
	f.Fuzz(func(t *testing.T, body string, knob, rows uint8) {
		if _, err := ingest.NewCSV(strings.NewReader(body), ingest.Options{Verbatim: true}); err != nil {
			return
		}
		r, _ := ingest.NewCSV(strings.NewReader(body), ingest.Options{Verbatim: true})
		ncol := len(r.Columns())
		r.Release()
		marks := make([]bool, ncol)
		for j := range marks {
			marks[j] = knob>>(j%8)&1 == 1
		}
		n := int(rows%8) + 1
		plain, perr := readHintedErr(t, body, n, 16, nil)
		hinted, herr := readHintedErr(t, body, n, 16, marks)
		if fmt.Sprint(perr) != fmt.Sprint(herr) {
			t.Fatalf("%q: error %v hinted, %v without", body, herr, perr)
		}
		checkHinted(t, body, plain, hinted, marks)
	})
}
