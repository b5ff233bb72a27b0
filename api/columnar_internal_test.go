package api

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// The conformer retypes what queries may give to the export schema's
// types, keeping missing values and slice offsets.
func TestConformer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	day := time.Date(2017, 7, 4, 12, 30, 0, 0, time.UTC)
	src := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, src)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{9, 1, 0, 3}, []bool{true, true, false, true})
	b.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, arrow.Timestamp(day.UnixNano()), 0, 1500}, []bool{true, true, false, true})
	b.Field(2).(*array.Date32Builder).AppendValues([]arrow.Date32{0, arrow.Date32FromTime(day), 0, 1}, []bool{true, true, false, true})
	b.Field(3).(*array.LargeStringBuilder).AppendValues([]string{"x", "a,b", "", "ü"}, []bool{true, true, false, true})
	b.Field(4).(*array.Int64Builder).AppendValues([]int64{0, -42, 0, 7}, []bool{true, true, false, true})
	whole := b.NewRecordBatch()
	defer whole.Release()
	rec := whole.NewSlice(1, 4) // an offset of one row
	defer rec.Release()

	schema, err := exportSchema([]columnar.Column{
		{Name: "n", DataType: columnar.Numeric}, {Name: "ns", DataType: columnar.Date},
		{Name: "d", DataType: columnar.Date}, {Name: "s", DataType: columnar.Text}, {Name: "i", DataType: columnar.String},
	})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := newConformer(src, schema)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conv.conform(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if !out.Schema().Equal(schema) {
		t.Fatalf("schema = %v, want %v", out.Schema(), schema)
	}
	var got []string
	for c := range int(out.NumCols()) {
		col := out.Column(c)
		for i := range col.Len() {
			got = append(got, col.ValueStr(i))
		}
	}
	want := []string{
		"1", "(null)", "3",
		"2017-07-04T12:30:00Z", "(null)", "1970-01-01T00:00:00.000001Z",
		"2017-07-04T00:00:00Z", "(null)", "1970-01-02T00:00:00Z",
		"a,b", "(null)", "ü",
		"-42", "(null)", "7",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("conformed values = %q, want %q", got, want)
	}

	// A type with no conversion is refused before anything is written.
	bad := arrow.NewSchema([]arrow.Field{{Name: "flag", Type: arrow.PrimitiveTypes.Float64}}, nil)
	to, _ := exportSchema([]columnar.Column{{Name: "flag", DataType: columnar.Logical}})
	if _, err := newConformer(bad, to); err == nil || !strings.Contains(err.Error(), `"flag"`) {
		t.Errorf("float64 as logical: err = %v, want one naming the column", err)
	}
}
