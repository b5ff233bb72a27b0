package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats/anomaly"
)

// The Mahalanobis distances of an anomalies session (MODELLING §8.3, issue
// 15) run in columns from the snapshot table to the distances table: the
// feature columns come from DuckDB as Arrow record batches and are encoded
// straight into one []float64 per encoded column (a DOUBLE feature is a
// copy of its Arrow buffer with missing values filled), the stats/anomaly
// kernel takes those columns, and the distances go back to DuckDB as one
// Arrow batch whose buffers are the Go slices. No row is gathered into a
// matrix or boxed into an interface value on the way (with the
// duckdb_arrow tag; without it duckstore builds the batches from
// database/sql rows, and stores them through its Appender).

// sessionDistances computes the D² of each of the n rows of session id's
// snapshot over the encoded features of p: all rows' mean and sample
// covariance, the pseudo-inverse when it is singular. buf is scratch
// memory for the encoded columns (see encodedColumns).
func (e *Engine) sessionDistances(ctx context.Context, id string, p pipeline, n, workers int, buf []float64) ([]float64, error) {
	cols, err := e.encodedColumns(ctx, id, p, n, buf)
	if err != nil {
		return nil, err
	}
	mu, cov, err := anomaly.Covariance(cols, workers)
	if err != nil {
		return nil, fmt.Errorf("mahalanobis: %w", err)
	}
	d2 := make([]float64, n)
	if err := anomaly.MahalanobisD2(cols, mu, cov, d2, workers); err != nil {
		return nil, fmt.Errorf("mahalanobis: %w", err)
	}
	return d2, nil
}

// encodedColumns reads the n rows of session id's snapshot and encodes
// them with p, one slice per encoded column in p.Features order: the
// columns p.encode gives for every row, value for value.
//
// The rows come from one streaming query (Store.StreamQuery): DuckDB
// scans the table on its own threads and hands over a chunk at a time,
// which is encoded as it arrives. Until duckdb-go's materialising Query
// was replaced here, the read was split into concurrent range queries of
// 65 536 rows, because one query over 1 M rows × 20 columns drained at a
// third of their speed; streamed, one query over all rows used the least
// CPU of every split tried (BenchmarkDistancesEndToEnd at load 12 to 15,
// read 134 to 214 ms and 2.0 to 2.5 M rows per CPU-second, against 1.8 to
// 2.6 s and 0.6 to 0.9 M for the ranges through Query, and 0.3 to 0.8 s
// for 2 or 4 streamed ranges on 2 workers).
//
// When buf holds at least n values per encoded column, the columns are
// consecutive slices of it rather than new memory: the caller passes
// memory it no longer needs and has already touched (an anomalies
// session, the encoded matrix its detectors are done with). Memory new to
// the process is paid for in page faults as it is first written: on this
// project's VM at load 11 to 13, writing 160 MB (1 M rows × 20 columns)
// took 2.2 to 2.9 s into new pages and 7 to 74 ms into the same pages
// again, and BenchmarkDistancesEndToEnd's read took a median 3.2 s with
// the buffer against 6.1 s without (load 9 to 15).
func (e *Engine) encodedColumns(ctx context.Context, id string, p pipeline, n int, buf []float64) ([][]float64, error) {
	names := make([]string, len(p.Columns))
	for i, pc := range p.Columns {
		names[i] = pc.Name
	}
	q, err := sqlgen.DistanceInputs(id, names)
	if err != nil {
		return nil, err
	}
	features, _ := p.Features()
	cols := make([][]float64, len(features))
	reuse := len(buf) >= n*len(cols)
	for j := range cols {
		if reuse {
			cols[j] = buf[j*n : (j+1)*n : (j+1)*n]
		} else {
			cols[j] = make([]float64, n)
		}
	}
	if err := e.readRows(ctx, q, p, n, cols); err != nil {
		return nil, fmt.Errorf("read session data: %w", err)
	}
	return cols, nil
}

// readRows reads the n rows of the snapshot with q (DistanceInputs of p's
// columns) and writes their encoding into cols. A row is placed by its
// number, so the query needs no ORDER BY; a number outside 0 to n − 1, or
// a count other than n, is an error rather than rows left at zero.
func (e *Engine) readRows(ctx context.Context, q string, p pipeline, n int, cols [][]float64) error {
	rr, err := e.store.StreamQuery(ctx, q)
	if err != nil {
		return err
	}
	defer rr.Release()
	seen := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		rows, ok := rec.Column(0).(*array.Int64)
		if !ok || rows.NullN() > 0 {
			return fmt.Errorf("row numbers of type %s", rec.Column(0).DataType())
		}
		at := rows.Int64Values()
		for _, r := range at {
			if r < 0 || r >= int64(n) {
				return fmt.Errorf("row %d outside 0 to %d", r, n-1)
			}
		}
		seen += len(at)
		j := 0
		for i, pc := range p.Columns {
			w, err := encodeBatch(pc, p.Missing, rec.Column(i+1), at, cols[j:])
			if err != nil {
				return err
			}
			j += w
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	if seen != n {
		return fmt.Errorf("%d rows, %d expected", seen, n)
	}
	return nil
}

// encodeBatch writes the encoding of one batch of column pc (arr, rows
// numbered at) into the rows at of dst's leading columns and returns how
// many columns it filled. A DOUBLE column of a numeric, logical or date-
// less type is copied with NaN and nulls replaced by pc.Fill, exactly
// p.encode's rule for it; other columns go through the frame conversion
// and p.encode on the batch, so their encoding has a single definition.
func encodeBatch(pc prepColumn, missing []string, arr arrow.Array, at []int64, dst [][]float64) (int, error) {
	numeric := pc.Type != columnar.String && pc.Type != columnar.Text && pc.Type != columnar.Date
	if a, ok := arr.(*array.Float64); ok && numeric {
		col, vals := dst[0], a.Float64Values()
		if a.NullN() == 0 {
			for i, v := range vals {
				if math.IsNaN(v) {
					v = pc.Fill
				}
				col[at[i]] = v
			}
			return 1, nil
		}
		for i, v := range vals {
			if a.IsNull(i) || math.IsNaN(v) {
				v = pc.Fill
			}
			col[at[i]] = v
		}
		return 1, nil
	}
	single := pipeline{Columns: []prepColumn{pc}}
	if f, _ := single.Features(); len(f) == 0 {
		// A string column without a level (every value missing) encodes
		// to no column at all.
		return 0, nil
	}
	fc := &frameColumn{Name: pc.Name, Type: pc.Type}
	if err := appendArray(fc, arr); err != nil {
		return 0, err
	}
	frame := []*frameColumn{fc}
	markMissing(frame, missing)
	local := make([]int, len(at))
	for i := range local {
		local[i] = i
	}
	x, err := single.encode(frame, local)
	if err != nil {
		return 0, err
	}
	_, w := x.Dims()
	for j := range w {
		col := dst[j]
		for i, r := range at {
			col[r] = x.At(i, j)
		}
	}
	return w, nil
}

// distanceWriteBatch is the number of rows of one Arrow batch of
// writeDistances: DuckDB's row group size. DuckDB inserts separate batches
// in parallel; on 1 M distances into a DuckDB file, batches of this size
// took half the time of one batch (best of 10: 66 ms against 125 ms).
const distanceWriteBatch = 122_880

// writeDistances stores a session's Mahalanobis distances, one row per
// snapshot row; a distance that is not a number is stored as NULL. The
// batches' buffers are d2 itself and the row numbers, so nothing is
// appended value by value on the Go side.
func (e *Engine) writeDistances(ctx context.Context, id string, d2 []float64) error {
	q, err := sqlgen.CreateDistances(id)
	if err := e.createResults(ctx, q, err, "distances"); err != nil {
		return err
	}
	table, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, sqlgen.DistancesTable(id))
	if err != nil {
		return err
	}
	n := len(d2)
	rows := make([]int64, n)
	for i := range rows {
		rows[i] = int64(i)
	}
	var valid *memory.Buffer
	nulls := 0
	for i, v := range d2 {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			continue
		}
		if valid == nil {
			valid = memory.NewBufferBytes(make([]byte, bitutil.BytesForBits(int64(n))))
			bitutil.SetBitsTo(valid.Bytes(), 0, int64(n), true)
		}
		bitutil.ClearBit(valid.Bytes(), i)
		nulls++
	}
	rowData := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(rows))}, nil, 0, 0)
	defer rowData.Release()
	d2Data := array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(d2))}, nil, nulls, 0)
	defer d2Data.Release()
	rowArr, d2Arr := array.NewInt64Data(rowData), array.NewFloat64Data(d2Data)
	defer rowArr.Release()
	defer d2Arr.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
		{Name: sqlgen.RowColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: "d2", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil), []arrow.Array{rowArr, d2Arr}, int64(n))
	defer rec.Release()
	batches := make([]arrow.RecordBatch, 0, (n+distanceWriteBatch-1)/distanceWriteBatch)
	for lo := 0; lo < n; lo += distanceWriteBatch {
		b := rec.NewSlice(int64(lo), int64(min(lo+distanceWriteBatch, n)))
		defer b.Release()
		batches = append(batches, b)
	}
	rr, err := array.NewRecordReader(rec.Schema(), batches)
	if err != nil {
		return err
	}
	defer rr.Release()
	_, err = e.store.Append(ctx, table, rr)
	return err
}
