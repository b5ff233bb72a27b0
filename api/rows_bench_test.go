package api

import (
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// benchBatches builds the benchmark table's shape (timestamp, 5 numbers,
// 2 short strings) in batches of 2048 rows, as DuckDB returns them.
func benchBatches(tb testing.TB, rows int) (*arrow.Schema, []arrow.RecordBatch) {
	tb.Helper()
	fields := []arrow.Field{columnar.Field("ts", columnar.Date)}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		fields = append(fields, columnar.Field(n, columnar.Numeric))
	}
	fields = append(fields, columnar.Field("s1", columnar.String), columnar.Field("s2", columnar.String))
	schema := arrow.NewSchema(fields, nil)
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	t0 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []arrow.RecordBatch
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(t0.Add(time.Duration(i) * time.Minute).UnixMicro()))
		for c := 1; c <= 5; c++ {
			b.Field(c).(*array.Float64Builder).Append(float64(r.IntN(10_000_000)) / 100)
		}
		b.Field(6).(*array.StringBuilder).Append(words[r.IntN(len(words))])
		b.Field(7).(*array.StringBuilder).Append(words[r.IntN(len(words))] + "-" + strconv.Itoa(r.IntN(1000)))
		if (i+1)%2048 == 0 || i == rows-1 {
			out = append(out, b.NewRecordBatch())
		}
	}
	return schema, out
}

func benchmarkRows(b *testing.B, rw func(names []string) rowWriter) {
	const rows = 200_000
	schema, recs := benchBatches(b, rows)
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	b.ReportAllocs()
	for b.Loop() {
		rr, _ := array.NewRecordReader(schema, recs)
		if _, err := writeRows(io.Discard, rr, names, appendRowTime, rw(names)); err != nil {
			b.Fatal(err)
		}
		rr.Release()
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkWriteRowsCSV(b *testing.B) {
	benchmarkRows(b, func([]string) rowWriter { return csvRows{} })
}

func BenchmarkWriteRowsJSON(b *testing.B) {
	benchmarkRows(b, func(names []string) rowWriter { return newJSONRows(names) })
}

// BenchmarkBatchWriter is the columnar encoders alone, on the benchmark
// table's shape: what an Arrow or Parquet answer costs beyond the query.
func BenchmarkBatchWriter(b *testing.B) {
	const rows = 200_000
	schema, recs := benchBatches(b, rows)
	for _, f := range []rowFormat{formatArrow, formatParquet} {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			var size countingWriter
			for b.Loop() {
				size = 0
				bw, err := newBatchWriter(&size, f, schema)
				if err != nil {
					b.Fatal(err)
				}
				for _, rec := range recs {
					if err := bw.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				if err := bw.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "bytes")
		})
	}
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
