package ingest

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzVerbatimStrings: buildStrings, which builds a verbatim reader's
// columns row by row, gives every column the array buildString gives it
// column by column (each field's text, quoted and escaped ones
// included), and frees every buffer.
func FuzzVerbatimStrings(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n", "1,2\n3,4", "\"x\"\"y\",2\n,\n", "a,\"b,c\",d\n\"e\nf\",,g\n", "\n\n", "x\r\n\"\"\r\n"} {
		for ncol := range 4 {
			f.Add([]byte(s), uint8(ncol))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, knob uint8) {
		ncol := int(knob%4) + 1
		var fs fieldSet
		if _, _, err := splitCSV(&fs, data, ncol, math.MaxInt, true); err != nil {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		cv := newConverter(Options{Allocator: mem, Verbatim: true})
		got := cv.buildStrings(&fs, fs.rows, nil)
		if len(got) != ncol {
			t.Fatalf("%d arrays for %d columns", len(got), ncol)
		}
		for j, a := range got {
			want := cv.buildString(&fs, j, 0, fs.rows)
			if !array.Equal(a, want) || a.NullN() != 0 {
				t.Fatalf("column %d of %q: row-major %v, column by column %v", j, data, a, want)
			}
			if err := a.(*array.String).Validate(); err != nil { // offsets; a verbatim field may be invalid UTF-8
				t.Fatalf("column %d of %q: %v", j, data, err)
			}
			want.Release()
			a.Release()
		}
	})
}
