package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Media types of the columnar formats (REFERENCE §1: Arrow IPC stream
// format and Parquet), negotiated by Content-Type and Accept.
const (
	MediaCSV     = "text/csv"
	MediaJSON    = "application/json"
	MediaArrow   = "application/vnd.apache.arrow.stream"
	MediaParquet = "application/vnd.apache.parquet"
)

// columnarBatchRows is the length of the record batches the harness
// writes, and of the Parquet row groups (DuckDB's default row group size,
// so that both sides read files of the same layout).
const columnarBatchRows = 122_880

// tableSchema is the Arrow schema of the generated table ([Columns]), with
// the types the server stores its columns as (columnar/types.go): ts a
// timestamp in microseconds without a zone (a date column), a…e float64
// (numeric; b and e hold integers, which the CSV upload also infers as
// numeric), s1 and s2 utf8 (string).
var tableSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "a", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "e", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s1", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "s2", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// batchWriter writes record batches in one columnar format.
type batchWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// newBatchWriter returns a writer of media type MediaArrow (an IPC stream)
// or MediaParquet (Snappy-compressed, one row group per batch: the
// common default of pyarrow and DuckDB) to w.
func newBatchWriter(media string, schema *arrow.Schema, w io.Writer) (batchWriter, error) {
	switch media {
	case MediaArrow:
		return ipc.NewWriter(w, ipc.WithSchema(schema)), nil
	case MediaParquet:
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithMaxRowGroupLength(columnarBatchRows))
		return pqarrow.NewFileWriter(schema, w, props, pqarrow.DefaultWriterProps())
	}
	return nil, fmt.Errorf("bench: no columnar writer for %s", media)
}

// convertTable writes the generated CSV file at src (the layout of
// [WriteCSV]) to dst as media (MediaArrow, MediaParquet or MediaJSON) and
// returns the rows written. Arrow and Parquet files have [tableSchema]; the
// JSON file is a PUT body, {"data": [...]}, one object per row with the
// numbers as JSON numbers (their CSV text) and ts, s1 and s2 as strings.
func convertTable(src, dst, media string) (rows int, err error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	sc := bufio.NewScanner(bufio.NewReaderSize(in, 1<<20))
	if !sc.Scan() || sc.Text() != strings.Join(Columns, ",") {
		return 0, fmt.Errorf("bench: %s: want the header %s", src, strings.Join(Columns, ","))
	}
	var each func(fields []string) error
	var finish func() error
	if media == MediaJSON {
		each, finish = jsonRowWriter(bw)
	} else {
		each, finish, err = arrowRowWriter(bw, media)
		if err != nil {
			return 0, err
		}
	}
	fields := make([]string, len(Columns))
	for sc.Scan() {
		line := sc.Text()
		for j := range fields {
			var ok bool
			if fields[j], line, ok = strings.Cut(line, ","); !ok && j < len(fields)-1 {
				return rows, fmt.Errorf("bench: %s line %d: %d fields, want %d", src, rows+2, j+1, len(Columns))
			}
		}
		if err := each(fields); err != nil {
			return rows, fmt.Errorf("bench: %s line %d: %w", src, rows+2, err)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		return rows, err
	}
	if err := finish(); err != nil {
		return rows, err
	}
	return rows, bw.Flush()
}

// jsonRowWriter writes rows of the generated table as a JSON PUT body.
func jsonRowWriter(w *bufio.Writer) (each func([]string) error, finish func() error) {
	w.WriteString(`{"data":[`)
	first := true
	line := make([]byte, 0, 256)
	each = func(f []string) error {
		line = line[:0]
		if !first {
			line = append(line, ",\n"...)
		}
		first = false
		line = append(line, '{')
		for j, c := range Columns {
			if j > 0 {
				line = append(line, ',')
			}
			line = appendJSONString(line, c)
			line = append(line, ':')
			if c == "ts" || c == "s1" || c == "s2" {
				line = appendJSONString(line, f[j])
			} else {
				line = append(line, f[j]...)
			}
		}
		line = append(line, '}')
		_, err := w.Write(line)
		return err
	}
	finish = func() error {
		_, err := w.WriteString("]}\n")
		return err
	}
	return each, finish
}

// arrowRowWriter writes rows of the generated table as record batches of
// [columnarBatchRows] rows.
func arrowRowWriter(w io.Writer, media string) (each func([]string) error, finish func() error, err error) {
	bw, err := newBatchWriter(media, tableSchema, w)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, tableSchema)
	ts := b.Field(0).(*array.TimestampBuilder)
	nums := make([]*array.Float64Builder, 5)
	for j := range nums {
		nums[j] = b.Field(1 + j).(*array.Float64Builder)
	}
	strs := []*array.StringBuilder{b.Field(6).(*array.StringBuilder), b.Field(7).(*array.StringBuilder)}
	n := 0
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		n = 0
		return bw.Write(rec)
	}
	each = func(f []string) error {
		t, err := time.Parse(time.DateTime, f[0])
		if err != nil {
			return err
		}
		ts.Append(arrow.Timestamp(t.UnixMicro()))
		for j, nb := range nums {
			v, err := strconv.ParseFloat(f[1+j], 64)
			if err != nil {
				return err
			}
			nb.Append(v)
		}
		strs[0].Append(f[6])
		strs[1].Append(f[7])
		if n++; n == columnarBatchRows {
			return flush()
		}
		return nil
	}
	finish = func() error {
		defer b.Release()
		var err error
		if n > 0 {
			err = flush()
		}
		return errors.Join(err, bw.Close())
	}
	return each, finish, nil
}

// numericBody encodes rows of numbers given as text (the predict tables'
// features) as a request body of media type media: a CSV header and rows,
// a JSON {"data": [...]} of strings ([predictJSON]), or float64 columns in
// an Arrow IPC stream or a Parquet file.
func numericBody(media string, header []string, rows [][]string) ([]byte, error) {
	var buf bytes.Buffer
	switch media {
	case MediaCSV:
		w := csv.NewWriter(&buf)
		w.Write(header)
		w.WriteAll(rows)
		return buf.Bytes(), w.Error()
	case MediaJSON:
		return predictJSON(header, rows), nil
	}
	fields := make([]arrow.Field, len(header))
	for j, h := range header {
		fields[j] = arrow.Field{Name: h, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	bw, err := newBatchWriter(media, schema, &buf)
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for start := 0; start < len(rows); start += columnarBatchRows {
		end := min(start+columnarBatchRows, len(rows))
		for j := range header {
			fb := b.Field(j).(*array.Float64Builder)
			fb.Reserve(end - start)
			for _, r := range rows[start:end] {
				v, err := strconv.ParseFloat(r[j], 64)
				if err != nil {
					return nil, fmt.Errorf("bench: %s = %q is not a number", header[j], r[j])
				}
				fb.UnsafeAppend(v)
			}
		}
		rec := b.NewRecordBatch()
		err := bw.Write(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	if err := bw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// arrowPredictions reads the target column of a predict answer given as
// an Arrow IPC stream: float64 (or another number type), or text.
func arrowPredictions(body []byte, target string) ([]float64, error) {
	r, err := ipc.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("bench: read Arrow predict answer: %w", err)
	}
	defer r.Release()
	col := r.Schema().FieldIndices(target)
	if len(col) == 0 {
		return nil, fmt.Errorf("bench: Arrow predict answer schema %v lacks %q", r.Schema(), target)
	}
	var out []float64
	for r.Next() {
		if out, err = appendNumbers(out, r.RecordBatch().Column(col[0]), target); err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("bench: read Arrow predict answer: %w", err)
	}
	return out, nil
}

// parquetPredictions reads the target column of a predict answer given as
// a Parquet file.
func parquetPredictions(body []byte, target string) ([]float64, error) {
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(body), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("bench: read Parquet predict answer: %w", err)
	}
	defer tbl.Release()
	col := tbl.Schema().FieldIndices(target)
	if len(col) == 0 {
		return nil, fmt.Errorf("bench: Parquet predict answer schema %v lacks %q", tbl.Schema(), target)
	}
	var out []float64
	for _, chunk := range tbl.Column(col[0]).Data().Chunks() {
		if out, err = appendNumbers(out, chunk, target); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendNumbers appends the values of a numeric or text column; a null is
// an error (every row is predicted).
func appendNumbers(out []float64, a arrow.Array, name string) ([]float64, error) {
	for i := range a.Len() {
		if a.IsNull(i) {
			return nil, fmt.Errorf("bench: %s is null in row %d", name, len(out)+1)
		}
		switch a := a.(type) {
		case *array.Float64:
			out = append(out, a.Value(i))
		case *array.Float32:
			out = append(out, float64(a.Value(i)))
		case *array.Int64:
			out = append(out, float64(a.Value(i)))
		case *array.String:
			v, err := strconv.ParseFloat(a.Value(i), 64)
			if err != nil {
				return nil, fmt.Errorf("bench: %s = %q is not a number in row %d", name, a.Value(i), len(out)+1)
			}
			out = append(out, v)
		default:
			return nil, fmt.Errorf("bench: %s has type %s, want a number", name, a.DataType())
		}
	}
	return out, nil
}

// countArrowRows reads an Arrow IPC stream to its end and returns its
// rows.
func countArrowRows(r io.Reader) (int64, error) {
	ar, err := ipc.NewReader(r)
	if err != nil {
		return 0, err
	}
	defer ar.Release()
	var rows int64
	for ar.Next() {
		rows += ar.RecordBatch().NumRows()
	}
	return rows, ar.Err()
}

// parquetRows returns the row count of a Parquet file from its footer.
func parquetRows(r parquet.ReaderAtSeeker) (int64, error) {
	pr, err := file.NewParquetReader(r)
	if err != nil {
		return 0, err
	}
	defer pr.Close()
	return pr.NumRows(), nil
}
