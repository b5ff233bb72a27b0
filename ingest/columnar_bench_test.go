package ingest_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vaticml/vatic/bench"
	"github.com/vaticml/vatic/ingest"
)

const benchRows = 2_000_000

// benchBodies holds the benchmark file (bench.WriteCSV, 2 M rows) as CSV,
// as an Arrow IPC stream and as Parquet (snappy, row groups of 128 Ki
// rows), the last two with the types a client would send: ts a
// microsecond timestamp, b and e (integers) int64, a, c and d float64, s1
// and s2 utf8.
var benchBodies = sync.OnceValues(func() (map[string][]byte, error) {
	var csv bytes.Buffer
	if err := bench.WriteCSV(&csv, benchRows, 1); err != nil {
		return nil, err
	}
	rd, err := ingest.NewCSV(bytes.NewReader(csv.Bytes()), ingest.Options{})
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rd.Next() {
		recs = append(recs, clientTypes(rd.RecordBatch()))
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	var ipcBuf, pqBuf bytes.Buffer
	w := ipc.NewWriter(&ipcBuf, ipc.WithSchema(recs[0].Schema()))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	defer tbl.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	if err := pqarrow.WriteTable(tbl, &pqBuf, 128<<10, props, pqarrow.DefaultWriterProps()); err != nil {
		return nil, err
	}
	return map[string][]byte{"csv": csv.Bytes(), "ipc": ipcBuf.Bytes(), "parquet": pqBuf.Bytes()}, nil
})

// clientTypes rewrites the integer columns b and e of a batch read from
// the benchmark CSV as int64, and drops the column metadata.
func clientTypes(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := make([]arrow.Field, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	for j, f := range rec.Schema().Fields() {
		col := rec.Column(j)
		if f.Name == "b" || f.Name == "e" {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for i, v := range col.(*array.Float64).Float64Values() {
				if col.IsNull(i) {
					b.AppendNull()
				} else {
					b.Append(int64(v))
				}
			}
			cols[j] = b.NewArray()
			b.Release()
		} else {
			col.Retain()
			cols[j] = col
		}
		fields[j] = arrow.Field{Name: f.Name, Type: cols[j].DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// BenchmarkColumnarRead reads the 2 M-row benchmark file as CSV, Arrow IPC
// and Parquet through the ingest Readers and reports rows/s (the issue's
// target: IPC at least twice CSV's). Run with:
//
//	go test -run '^$' -bench ColumnarRead -benchtime 5x ./ingest
func BenchmarkColumnarRead(b *testing.B) {
	bodies, err := benchBodies()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	open := map[string]func(io.Reader) (*ingest.Reader, error){
		"csv":     func(r io.Reader) (*ingest.Reader, error) { return ingest.NewCSV(r, ingest.Options{}) },
		"ipc":     func(r io.Reader) (*ingest.Reader, error) { return ingest.NewArrowStream(r, ingest.Options{}) },
		"parquet": func(r io.Reader) (*ingest.Reader, error) { return ingest.NewParquet(r, ingest.Options{SpoolDir: dir}) },
	}
	for _, format := range []string{"csv", "ipc", "parquet"} {
		b.Run(format, func(b *testing.B) {
			body := bodies[format]
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				rd, err := open[format](bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for rd.Next() {
					n += rd.RecordBatch().NumRows()
				}
				if err := rd.Err(); err != nil {
					b.Fatal(err)
				}
				rd.Release()
				if n != benchRows {
					b.Fatalf("read %d rows, want %d", n, benchRows)
				}
			}
			b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
