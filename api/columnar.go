package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vaticml/vatic/columnar"
)

// This file writes rows as Arrow IPC streams and Parquet files (issue 17):
// the engine's record batches go out as they are read, retyped where the
// query's types differ from the columns' declared ones, never gathered
// into a table.

// exportTimestamp is the Arrow type of date columns in columnar answers:
// the stored microseconds, marked UTC, which is what they are. Parquet
// writes it as TIMESTAMP(isAdjustedToUTC, MICROS), which DuckDB reads as
// TIMESTAMP WITH TIME ZONE and pyarrow as timestamp[us, tz=UTC].
var exportTimestamp = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// metaColumns is the schema metadata key holding every column's name,
// dataType and role as JSON, for readers that show Parquet key-value
// metadata but not Arrow field metadata (DuckDB's parquet_kv_metadata).
const metaColumns = "vatic.columns"

// parquetRowGroupRows is the least row count of a Parquet row group (the
// last one may be shorter): DuckDB's own default, so readers get the row
// groups they are tuned for. The writer holds one row group's batches.
const parquetRowGroupRows = 122_880

// exportSchema is the Arrow schema of columnar answers for cols: one
// nullable field per column with the Arrow type of its dataType (numbers
// float64, logical bool, dates timestamp[us, UTC], strings utf8), its
// dataType and role in the field metadata (columnar.MetaDataType,
// columnar.MetaRole), and all of them again under metaColumns.
func exportSchema(cols []columnar.Column) (*arrow.Schema, error) {
	type colJSON struct {
		Name     string `json:"name"`
		DataType string `json:"dataType"`
		Role     string `json:"role,omitempty"`
	}
	fields := make([]arrow.Field, len(cols))
	desc := make([]colJSON, len(cols))
	for i, c := range cols {
		keys, vals := []string{columnar.MetaDataType}, []string{string(c.DataType)}
		if c.Role != "" {
			keys, vals = append(keys, columnar.MetaRole), append(vals, string(c.Role))
		}
		typ := c.DataType.ArrowType()
		if c.DataType == columnar.Date {
			typ = exportTimestamp
		}
		fields[i] = arrow.Field{Name: c.Name, Type: typ, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
		desc[i] = colJSON{Name: c.Name, DataType: string(c.DataType), Role: string(c.Role)}
	}
	b, err := json.Marshal(desc)
	if err != nil {
		return nil, err
	}
	md := arrow.NewMetadata([]string{metaColumns}, []string{string(b)})
	return arrow.NewSchema(fields, &md), nil
}

// batchWriter writes record batches of one schema as an Arrow IPC stream
// or a Parquet file, buffered. It is the one columnar encoder of the API:
// a handler with batches in hand (rows of a dataset, predictions) makes
// one with newBatchWriter, writes each batch, and closes it to end the
// stream or write the Parquet footer.
type batchWriter struct {
	bw     *bufio.Writer
	schema *arrow.Schema
	ipc    *ipc.Writer
	pq     *pqarrow.FileWriter
	// Parquet: the batches of the row group being gathered, and their rows.
	group     []arrow.RecordBatch
	groupRows int64
}

// newBatchWriter starts an answer in f (formatArrow or formatParquet) on
// w.
//
// Arrow IPC batches go out uncompressed, as they come: no reader has to
// support IPC compression, and the encoder is a copy (about 100 M rows/s
// of the benchmark table, BenchmarkBatchWriter).
//
// Parquet gathers batches into row groups of parquetRowGroupRows and
// writes each as a table, column after column: pqarrow's buffered mode
// (every column's pages held until the group closes) wrote the same file
// 2 to 4 times slower (0.18–0.31 M against 0.39–0.60 M rows/s over three
// runs of 200 000 rows of the benchmark table, on a loaded machine). Pages
// are Snappy compressed: the format's common default (DuckDB's and
// pyarrow's), read by every Parquet reader. In one run LZ4_RAW wrote 1.4
// times faster at the same size, but older readers lack it; zstd made a
// file 23% smaller 1.5 times slower. Dictionary encoding is kept for strings only, where repeated
// values are the rule; for numbers and dates it costs a dictionary build
// per page and rarely pays.
func newBatchWriter(w io.Writer, f rowFormat, schema *arrow.Schema) (*batchWriter, error) {
	b := &batchWriter{bw: bufio.NewWriterSize(w, 64<<10), schema: schema}
	if f == formatArrow {
		b.ipc = ipc.NewWriter(b.bw, ipc.WithSchema(schema))
		return b, nil
	}
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false),
	}
	for _, fd := range schema.Fields() {
		if fd.Type.ID() == arrow.STRING {
			opts = append(opts, parquet.WithDictionaryFor(fd.Name, true))
		}
	}
	var err error
	b.pq, err = pqarrow.NewFileWriter(schema, b.bw, parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Write writes one batch, whose schema must be the writer's. A Parquet
// writer keeps (retains) it until its row group is written.
func (b *batchWriter) Write(rec arrow.RecordBatch) error {
	if b.ipc != nil {
		return b.ipc.Write(rec)
	}
	rec.Retain()
	b.group = append(b.group, rec)
	b.groupRows += rec.NumRows()
	if b.groupRows < parquetRowGroupRows {
		return nil
	}
	return b.writeGroup()
}

// writeGroup writes the gathered batches as one Parquet row group.
func (b *batchWriter) writeGroup() error {
	defer b.releaseGroup()
	if len(b.group) == 0 {
		return nil
	}
	tbl := array.NewTableFromRecords(b.schema, b.group)
	defer tbl.Release()
	return b.pq.WriteTable(tbl, tbl.NumRows())
}

func (b *batchWriter) releaseGroup() {
	for _, rec := range b.group {
		rec.Release()
	}
	b.group, b.groupRows = b.group[:0], 0
}

// Close ends the stream (or writes the last row group and the Parquet
// footer) and flushes; it does not close the underlying writer.
func (b *batchWriter) Close() error {
	var err error
	if b.ipc != nil {
		err = b.ipc.Close()
	} else {
		err = errors.Join(b.writeGroup(), b.pq.Close())
	}
	if err != nil {
		return err
	}
	return b.bw.Flush()
}

// writeBatches writes every batch of rr to w in f, each retyped by conv
// to its schema; n is the number of rows.
func writeBatches(w io.Writer, f rowFormat, conv *conformer, rr array.RecordReader) (n int64, err error) {
	bw, err := newBatchWriter(w, f, conv.schema)
	if err != nil {
		return 0, err
	}
	for rr.Next() {
		rec, err := conv.conform(rr.RecordBatch())
		if err != nil {
			return n, err
		}
		err = bw.Write(rec)
		rows := rec.NumRows()
		rec.Release()
		if err != nil {
			return n, err
		}
		n += rows
	}
	if err := rr.Err(); err != nil {
		return n, err
	}
	return n, bw.Close()
}

// conformer retypes the batches of a query to an export schema: the
// stored types mostly match already, but some queries give integers (a
// view's calendar flags), other timestamp units, or no time zone.
type conformer struct {
	schema *arrow.Schema
	convs  []func(arrow.Array) arrow.Array // nil keeps the array as it is
}

// newConformer prepares the conversion of batches of schema src to dst,
// column by column; a column with none is an error, met before anything
// is written.
func newConformer(src, dst *arrow.Schema) (*conformer, error) {
	if src.NumFields() != dst.NumFields() {
		return nil, fmt.Errorf("export: the query has %d columns, the schema %d", src.NumFields(), dst.NumFields())
	}
	c := &conformer{schema: dst, convs: make([]func(arrow.Array) arrow.Array, dst.NumFields())}
	for i, to := range dst.Fields() {
		from := src.Field(i).Type
		if arrow.TypeEqual(from, to.Type) {
			continue
		}
		conv := converter(from, to.Type)
		if conv == nil {
			return nil, fmt.Errorf("export: column %q holds %s, which cannot be written as %s", to.Name, from, to.Type)
		}
		c.convs[i] = conv
	}
	return c, nil
}

// conform returns rec with the export schema; the caller releases it.
func (c *conformer) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if rec.NumCols() != int64(len(c.convs)) {
		return nil, fmt.Errorf("export: a batch has %d columns, want %d", rec.NumCols(), len(c.convs))
	}
	cols := make([]arrow.Array, len(c.convs))
	for i, conv := range c.convs {
		if conv == nil {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		cols[i] = conv(rec.Column(i))
	}
	out := array.NewRecordBatch(c.schema, cols, rec.NumRows())
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// converter returns the function that turns arrays of type from into
// arrays of type to, or nil when there is none. It covers what queries
// give for Vatic's types: timestamps and dates, integers and float32 as
// numbers, any string type (and anything else) as text.
func converter(from, to arrow.DataType) func(arrow.Array) arrow.Array {
	switch to.ID() {
	case arrow.TIMESTAMP:
		unit := to.(*arrow.TimestampType).Unit
		switch ft := from.(type) {
		case *arrow.TimestampType:
			if ft.Unit == unit {
				return func(a arrow.Array) arrow.Array { return retype(a, to) }
			}
			return func(a arrow.Array) arrow.Array {
				vals := a.(*array.Timestamp).TimestampValues()
				return timestamps(a, to, func(i int) int64 { return toUnit(int64(vals[i]), ft.Unit, unit) })
			}
		case *arrow.Date32Type:
			return func(a arrow.Array) arrow.Array {
				vals := a.(*array.Date32).Date32Values()
				return timestamps(a, to, func(i int) int64 { return toUnit(int64(vals[i])*86_400, arrow.Second, unit) })
			}
		case *arrow.Date64Type:
			return func(a arrow.Array) arrow.Array {
				vals := a.(*array.Date64).Date64Values()
				return timestamps(a, to, func(i int) int64 { return toUnit(int64(vals[i]), arrow.Millisecond, unit) })
			}
		}
	case arrow.FLOAT64:
		switch from.ID() {
		case arrow.INT8:
			return numbers(func(a arrow.Array) []int8 { return a.(*array.Int8).Int8Values() })
		case arrow.INT16:
			return numbers(func(a arrow.Array) []int16 { return a.(*array.Int16).Int16Values() })
		case arrow.INT32:
			return numbers(func(a arrow.Array) []int32 { return a.(*array.Int32).Int32Values() })
		case arrow.INT64:
			return numbers(func(a arrow.Array) []int64 { return a.(*array.Int64).Int64Values() })
		case arrow.UINT8:
			return numbers(func(a arrow.Array) []uint8 { return a.(*array.Uint8).Uint8Values() })
		case arrow.UINT16:
			return numbers(func(a arrow.Array) []uint16 { return a.(*array.Uint16).Uint16Values() })
		case arrow.UINT32:
			return numbers(func(a arrow.Array) []uint32 { return a.(*array.Uint32).Uint32Values() })
		case arrow.UINT64:
			return numbers(func(a arrow.Array) []uint64 { return a.(*array.Uint64).Uint64Values() })
		case arrow.FLOAT32:
			return numbers(func(a arrow.Array) []float32 { return a.(*array.Float32).Float32Values() })
		}
	case arrow.STRING:
		return texts
	}
	return nil
}

// retype returns a's data under type to (same layout, buffers shared).
func retype(a arrow.Array, to arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(to, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// withValues builds a fixed-width array of type to whose values buffer is
// vals (laid out from a's offset) and whose validity is a's.
func withValues(a arrow.Array, to arrow.DataType, vals []byte) arrow.Array {
	d := a.Data()
	buf := memory.NewBufferBytes(vals)
	defer buf.Release()
	nd := array.NewData(to, d.Len(), []*memory.Buffer{d.Buffers()[0], buf}, nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// numbers converts arrays of an integer or float32 type to float64.
func numbers[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](values func(arrow.Array) []T) func(arrow.Array) arrow.Array {
	return func(a arrow.Array) arrow.Array {
		off := a.Data().Offset()
		out := make([]float64, off+a.Len())
		for i, v := range values(a) {
			out[off+i] = float64(v)
		}
		return withValues(a, arrow.PrimitiveTypes.Float64, arrow.Float64Traits.CastToBytes(out))
	}
}

// timestamps builds a timestamp array of type to from value(i), the
// value of row i of a in to's unit.
func timestamps(a arrow.Array, to arrow.DataType, value func(i int) int64) arrow.Array {
	off := a.Data().Offset()
	out := make([]arrow.Timestamp, off+a.Len())
	for i := range a.Len() {
		out[off+i] = arrow.Timestamp(value(i))
	}
	return withValues(a, to, arrow.TimestampTraits.CastToBytes(out))
}

// toUnit converts v from one time unit to another.
func toUnit(v int64, from, to arrow.TimeUnit) int64 {
	fm, tm := from.Multiplier().Nanoseconds(), to.Multiplier().Nanoseconds()
	if fm >= tm {
		return v * (fm / tm)
	}
	return v / (tm / fm)
}

// texts converts an array of any type to utf8, each value as its text.
func texts(a arrow.Array) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(a.Len())
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		if s, ok := a.(interface{ Value(int) string }); ok {
			b.Append(s.Value(i))
			continue
		}
		b.Append(a.ValueStr(i))
	}
	return b.NewArray()
}
