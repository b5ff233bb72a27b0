//go:build duckdb_arrow

package duckstore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// int64Batches returns batches of the given sizes holding 0, 1, 2, … in
// one int64 column, and a string column holding the same numbers as text.
func int64Batches(mem memory.Allocator, sizes ...int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var out []arrow.RecordBatch
	next := int64(0)
	for _, n := range sizes {
		for range n {
			b.Field(0).(*array.Int64Builder).Append(next)
			if next%3 == 0 {
				b.Field(1).(*array.StringBuilder).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprint(next))
			}
			next++
		}
		out = append(out, b.NewRecordBatch())
	}
	return out
}

// drain reads r to its end, checking that the values run 0, 1, 2, … in
// order, and returns the size of each batch.
func drain(t *testing.T, r *rowGroupReader) []int64 {
	t.Helper()
	var sizes []int64
	next := int64(0)
	for r.Next() {
		rec := r.RecordBatch()
		ints := rec.Column(0).(*array.Int64)
		strs := rec.Column(1).(*array.String)
		for i := range ints.Len() {
			if got := ints.Value(i); got != next {
				t.Fatalf("row %d holds %d", next, got)
			}
			if null := strs.IsNull(i); null != (next%3 == 0) || (!null && strs.Value(i) != fmt.Sprint(next)) {
				t.Fatalf("row %d: string %q (null %v)", next, strs.Value(i), null)
			}
			next++
		}
		sizes = append(sizes, rec.NumRows())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return sizes
}

func TestRowGroupReader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []int
		want  []int64
		size  int64
		total int
	}{
		{"small batches are joined", []int{3, 3, 3, 3, 3}, []int64{10, 5}, 10, 15},
		{"large batches are cut", []int{25}, []int64{10, 10, 5}, 10, 25},
		{"exact row groups pass", []int{10, 10}, []int64{10, 10}, 10, 20},
		{"mixed", []int{1, 12, 0, 4, 30, 2}, []int64{10, 10, 10, 10, 9}, 10, 49},
		{"shorter than a row group", []int{4}, []int64{4}, 10, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			defer mem.AssertSize(t, 0)
			batches := int64Batches(mem, tc.in...)
			r := newRowGroupReader(&sliceReader{batches: batches}, mem, tc.size)
			got := drain(t, r)
			r.close()
			for _, b := range batches {
				b.Release()
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("batch sizes %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRowGroupReaderClosedEarly checks that close frees what a reader
// holds when its consumer stops before the end (a failed insert).
func TestRowGroupReaderClosedEarly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	batches := int64Batches(mem, 7, 7, 7)
	r := newRowGroupReader(&sliceReader{batches: batches}, mem, 10)
	if !r.Next() || r.RecordBatch().NumRows() != 10 {
		t.Fatal("want a first batch of 10 rows")
	}
	r.close()
	for _, b := range batches {
		b.Release()
	}
}

// TestRowGroupReaderUnjoinable checks the fallback when pieces cannot be
// concatenated (there: types that differ, which a Segment never mixes;
// in use, text past what one utf8 array holds): they are served one by
// one, in order.
func TestRowGroupReaderUnjoinable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	a := int64Batches(mem, 4)
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	for i := int64(4); i < 7; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.LargeStringBuilder).Append(fmt.Sprint(i))
	}
	odd := b.NewRecordBatch()
	b.Release()
	batches := append(a, odd)
	r := newRowGroupReader(&sliceReader{batches: batches}, mem, 10)
	var sizes []int64
	next := int64(0)
	for r.Next() {
		rec := r.RecordBatch()
		for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
			if v != next {
				t.Fatalf("row %d holds %d", next, v)
			}
			next++
		}
		sizes = append(sizes, rec.NumRows())
	}
	r.close()
	for _, b := range batches {
		b.Release()
	}
	if fmt.Sprint(sizes) != "[4 3]" {
		t.Fatalf("batch sizes %v, want [4 3]", sizes)
	}
}

// TestAppendKeepsOrder appends batches that are cut and joined into row
// groups, with two threads, and checks that the rows are stored in input
// order (rowid) and counted.
func TestAppendKeepsOrder(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "order.duckdb"), Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batches := int64Batches(memory.DefaultAllocator, 70_000, 1, 200_000, 65_536, 3)
	if err := s.CreateTable(t.Context(), `"t"`, batches[0].Schema()); err != nil {
		t.Fatal(err)
	}
	n, err := s.Append(t.Context(), `"t"`, &sliceReader{batches: batches})
	if err != nil || n != 335_540 {
		t.Fatalf("Append = %d, %v; want 335540 rows", n, err)
	}
	rows, err := s.Rows(t.Context(), `SELECT count(*), count(*) FILTER (WHERE i <> rowid OR s IS DISTINCT FROM CASE WHEN i % 3 <> 0 THEN i::VARCHAR END) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total, wrong int64
	if !rows.Next() || rows.Scan(&total, &wrong) != nil || total != n || wrong != 0 {
		t.Fatalf("%d rows stored, %d out of place; want %d, 0", total, wrong, n)
	}
}
