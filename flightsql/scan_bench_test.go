package flightsql_test

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/vaticml/vatic/duckstore"
	vflight "github.com/vaticml/vatic/flightsql"
)

// scanRows is the size of the scanned dataset, as in the system benchmarks.
const scanRows = 2_000_000

// BenchmarkScan reads every row of a 2M-row dataset (a timestamp, two
// doubles, a boolean and a short text, as an upload stores them) through
// Flight SQL over loopback gRPC, next to DuckDB's own in-process Arrow scan
// of the same table in the same run: the difference is what serving costs
// (IPC encoding, gRPC framing, the client's decoding).
//
//	go test -tags duckdb_arrow -run '^$' -bench Scan -count 3 ./flightsql | benchstat -
func BenchmarkScan(b *testing.B) {
	ctx := b.Context()
	store, err := duckstore.Open(ctx, filepath.Join(b.TempDir(), "vatic.duckdb"), duckstore.Options{Threads: 2, NoExternalAccess: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for _, q := range []string{
		`CREATE SCHEMA data`,
		`CREATE TABLE data.bench AS SELECT TIMESTAMP '2017-01-01' + to_seconds(range) AS day,
			range * 1.5 AS sales, random() AS noise, range % 3 = 0 AS promo, 'store-' || (range % 100) AS store
			FROM range(2000000)`,
	} {
		if _, err := store.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	const scan = `SELECT * FROM data.bench`
	check := func(b *testing.B, n int64) {
		if n != scanRows {
			b.Fatalf("read %d rows, want %d", n, scanRows)
		}
	}
	b.Run("duckdb-arrow", func(b *testing.B) {
		for b.Loop() {
			rr, err := store.Query(ctx, scan)
			if err != nil {
				b.Fatal(err)
			}
			check(b, drain(b, rr))
		}
		b.ReportMetric(float64(b.N)*scanRows/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("duckdb-stream", func(b *testing.B) {
		for b.Loop() {
			rr, err := store.StreamQuery(ctx, scan)
			if err != nil {
				b.Fatal(err)
			}
			check(b, drain(b, rr))
		}
		b.ReportMetric(float64(b.N)*scanRows/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("flightsql", func(b *testing.B) {
		srv, err := vflight.New(querier{store}, vflight.Options{Keys: map[string]bool{"k": true}})
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Stop()
		c, err := flightsql.NewClient(ln.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		ctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer k")
		for b.Loop() {
			info, err := c.Execute(ctx, scan)
			if err != nil {
				b.Fatal(err)
			}
			r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			r.Release()
			check(b, n)
		}
		b.ReportMetric(float64(b.N)*scanRows/b.Elapsed().Seconds(), "rows/s")
	})
}

func drain(b *testing.B, rr array.RecordReader) int64 {
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// querier is the store as the server consumes it; the benchmark needs no
// error classification.
type querier struct{ s *duckstore.Store }

func (q querier) Describe(ctx context.Context, query string) (result, params *arrow.Schema, err error) {
	d, err := q.s.ReadOnlyDescribe(ctx, query)
	return d.Result, d.Params, err
}

func (q querier) ReadOnlyQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	return q.s.ReadOnlyQuery(ctx, query, args...)
}
