//go:build duckdb_arrow

package duckstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The upload benchmarks write the shape of the columnar benchmark's table
// (bench.WriteCSV: a timestamp, five numbers and two short strings) into a
// fresh database file, as an upload does, next to DuckDB's own ways of
// filling a table with the same rows: copying them from a native table
// and read_parquet. Each reports rows/s and the process's CPU seconds per
// operation (cpu-s/op, DuckDB's threads included), which the machine's
// load moves far less than the wall time.

const benchUploadRows = 2_000_000

// uploadTable builds the benchmark's rows in batches of batchRows.
func uploadTable(rows, batchRows int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "a", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "e", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s1", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "s2", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"}
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var out []arrow.RecordBatch
	for i := range rows {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(start + int64(i)*60_000_000))
		b.Field(1).(*array.Float64Builder).Append(float64(r.IntN(100_000)) / 100)
		b.Field(2).(*array.Float64Builder).Append(float64(r.IntN(10_000)))
		b.Field(3).(*array.Float64Builder).Append(float64(r.IntN(200_000)-100_000) / 1000)
		b.Field(4).(*array.Float64Builder).Append(float64(r.IntN(10_000)) / 10_000)
		b.Field(5).(*array.Float64Builder).Append(float64(r.IntN(100)))
		b.Field(6).(*array.StringBuilder).Append(words[min(r.IntN(len(words)), r.IntN(len(words)))])
		b.Field(7).(*array.StringBuilder).Append(words[r.IntN(len(words))] + "-" + strconv.Itoa(r.IntN(1000)))
		if (i+1)%batchRows == 0 || i == rows-1 {
			out = append(out, b.NewRecordBatch())
		}
	}
	return out
}

// sliceReader serves batches as an array.RecordReader, again after rewind.
type sliceReader struct {
	batches []arrow.RecordBatch
	i       int
}

func (s *sliceReader) Schema() *arrow.Schema { return s.batches[0].Schema() }
func (s *sliceReader) Next() bool {
	if s.i == len(s.batches) {
		return false
	}
	s.i++
	return true
}
func (s *sliceReader) RecordBatch() arrow.RecordBatch { return s.batches[s.i-1] }
func (s *sliceReader) Record() arrow.RecordBatch      { return s.RecordBatch() }
func (s *sliceReader) Err() error                     { return nil }
func (s *sliceReader) Retain()                        {}
func (s *sliceReader) Release()                       {}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// benchUpload times fn, given a fresh database file whose prepare has run
// (outside the timer), once per iteration.
func benchUpload(b *testing.B, prepare, fn func(ctx context.Context, s *Store) error) {
	ctx := context.Background()
	var cpu float64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("u%d.duckdb", i)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if prepare != nil {
			if err := prepare(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
		c0, t0 := cpuSeconds(), time.Now()
		b.StartTimer()
		if err := s.Tx(ctx, func(ctx context.Context) error { return fn(ctx, s) }); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		elapsed += time.Since(t0)
		cpu += cpuSeconds() - c0
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchUploadRows)*float64(b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

func BenchmarkUpload(b *testing.B) {
	const table = `"t"`
	create := func(ctx context.Context, s *Store, batches []arrow.RecordBatch) error {
		return s.CreateTable(ctx, table, batches[0].Schema())
	}
	for _, batchRows := range []int{65_536, 122_880, 1 << 20} {
		batches := uploadTable(benchUploadRows, batchRows)
		b.Run(fmt.Sprintf("append/batch=%d", batchRows), func(b *testing.B) {
			benchUpload(b, nil, func(ctx context.Context, s *Store) error {
				if err := create(ctx, s, batches); err != nil {
					return err
				}
				n, err := s.Append(ctx, table, &sliceReader{batches: batches})
				if err == nil && n != benchUploadRows {
					err = fmt.Errorf("appended %d rows", n)
				}
				return err
			})
		})
	}
	batches := uploadTable(benchUploadRows, 122_880)
	// CREATE TABLE AS from the registered stream, against create and
	// INSERT BY NAME (append/batch=122880): a new dataset could take either.
	b.Run("ctas/batch=122880", func(b *testing.B) {
		benchUpload(b, nil, func(ctx context.Context, s *Store) error {
			c, release, err := s.connFor(ctx)
			if err != nil {
				return err
			}
			defer release()
			return c.Raw(func(dc any) error {
				ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
				if err != nil {
					return err
				}
				rel, err := ar.RegisterView(&sliceReader{batches: batches}, "src_view")
				if err != nil {
					return err
				}
				defer rel()
				_, err = dc.(driver.ExecerContext).ExecContext(ctx, "CREATE TABLE "+table+" AS SELECT * FROM src_view", nil)
				return err
			})
		})
	})
	load := func(ctx context.Context, s *Store) error {
		if err := s.CreateTable(ctx, `"src"`, batches[0].Schema()); err != nil {
			return err
		}
		if _, err := s.Append(ctx, `"src"`, &sliceReader{batches: batches}); err != nil {
			return err
		}
		_, err := s.Exec(ctx, "CHECKPOINT")
		return err
	}
	b.Run("anchor=native-insert", func(b *testing.B) {
		benchUpload(b, load, func(ctx context.Context, s *Store) error {
			if err := create(ctx, s, batches); err != nil {
				return err
			}
			_, err := s.Exec(ctx, "INSERT INTO "+table+" BY NAME SELECT * FROM src")
			return err
		})
	})
	parquet := filepath.Join(b.TempDir(), "t.parquet")
	b.Run("anchor=read_parquet", func(b *testing.B) {
		benchUpload(b, func(ctx context.Context, s *Store) error {
			if err := load(ctx, s); err != nil {
				return err
			}
			_, err := s.Exec(ctx, "COPY src TO '"+parquet+"' (FORMAT parquet)")
			return err
		}, func(ctx context.Context, s *Store) error {
			_, err := s.Exec(ctx, "CREATE TABLE "+table+" AS SELECT * FROM read_parquet('"+parquet+"')")
			return err
		})
	})
}
