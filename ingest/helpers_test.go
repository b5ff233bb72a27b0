package ingest_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

// result is everything a Reader produced, in a form easy to compare.
type result struct {
	rows    []string // values joined by "|", null as "∅"
	batches int
	types   string // "name:type,…" after the last batch
	err     error
}

func checkedMem(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// drain reads r to the end, checks every batch, and releases r.
func drain(t testing.TB, r *ingest.Reader) result {
	t.Helper()
	defer r.Release()
	var res result
	for r.Next() {
		rec := r.RecordBatch()
		res.batches++
		checkBatch(t, rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			vals := make([]string, rec.NumCols())
			for c, col := range rec.Columns() {
				vals[c] = valueString(col, i)
			}
			res.rows = append(res.rows, strings.Join(vals, "|"))
		}
	}
	res.err = r.Err()
	var types []string
	for _, c := range r.Columns() {
		types = append(types, c.Name+":"+string(c.DataType))
	}
	res.types = strings.Join(types, ",")
	return res
}

func checkBatch(t testing.TB, rec arrow.RecordBatch) {
	t.Helper()
	if int(rec.NumCols()) != len(rec.Schema().Fields()) {
		t.Fatalf("batch has %d columns, schema %d", rec.NumCols(), len(rec.Schema().Fields()))
	}
	for c, col := range rec.Columns() {
		if int64(col.Len()) != rec.NumRows() {
			t.Fatalf("column %d has %d rows, batch %d", c, col.Len(), rec.NumRows())
		}
		f := rec.Schema().Field(c)
		if !arrow.TypeEqual(f.Type, col.DataType()) {
			t.Fatalf("column %d type %v, field %v", c, col.DataType(), f.Type)
		}
		if !arrow.TypeEqual(columnar.FieldDataType(f).ArrowType(), f.Type) {
			t.Fatalf("field %v: metadata type %s does not match", f, columnar.FieldDataType(f))
		}
	}
}

func valueString(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "∅"
	}
	switch a := col.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Timestamp:
		return time.UnixMicro(int64(a.Value(i))).UTC().Format(time.RFC3339Nano)
	case *array.String:
		return a.Value(i)
	}
	return "?" + col.DataType().String()
}

func readCSV(t testing.TB, input string, opts ingest.Options) result {
	t.Helper()
	if opts.Allocator == nil {
		opts.Allocator = checkedMem(t)
	}
	r, err := ingest.NewCSV(strings.NewReader(input), opts)
	if err != nil {
		return result{err: err}
	}
	return drain(t, r)
}
