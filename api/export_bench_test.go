package api_test

import (
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/vaticml/vatic/bench"
)

var exportRows = flag.Int("export-rows", 2_000_000, "rows of the dataset BenchmarkExport exports")

// BenchmarkExport is GET /data/{name} of the benchmark table (bench's
// generated shape: a timestamp, five numbers, two short strings; 2 M rows
// unless -export-rows says otherwise) through the real stack and a
// loopback HTTP connection, whole, as an Arrow IPC stream, as Parquet and
// as CSV; and, as anchors on the same table in the same run, the engine's
// read of the table into Arrow batches (which every export starts with)
// and DuckDB's own COPY … TO a Parquet and a CSV file. Rows/s is what to
// compare:
//
//	go test -tags duckdb_arrow -run '^$' -bench Export -benchtime 3x ./api
func BenchmarkExport(b *testing.B) {
	s := newServer(b)
	rows := *exportRows
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(bench.WriteCSV(pw, rows, 1)) }()
	if res := s.do(b, http.MethodPut, "/v1/data/bench", pr, "Content-Type", "text/csv"); res.status != http.StatusCreated {
		b.Fatalf("PUT bench = %d %s", res.status, res.body)
	}
	for _, f := range []struct{ name, accept string }{
		{"arrow", acceptArrow}, {"parquet", acceptParquet}, {"csv", "text/csv"},
	} {
		b.Run(f.name, func(b *testing.B) {
			var size int64
			buf := make([]byte, 1<<20)
			for b.Loop() {
				req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, s.URL+"/v1/data/bench", nil)
				req.Header.Set("api-key", "test-key")
				req.Header.Set("Accept", f.accept)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				// A reader's large buffer, as a client pulling an export has
				// (io.Discard's own would read in 8 KiB pieces).
				size, err = io.CopyBuffer(struct{ io.Writer }{io.Discard}, res.Body, buf)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("GET %s = %d, %v", f.name, res.StatusCode, err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "bytes")
		})
	}
	// The engine's own read of the table into Arrow batches, which every
	// export starts with: the ceiling of the Arrow answer.
	b.Run("duckdb-arrow-read", func(b *testing.B) {
		for b.Loop() {
			rr, err := s.store.Query(b.Context(), "SELECT * FROM data.bench")
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rr.Next() {
				n += int(rr.RecordBatch().NumRows())
			}
			err = rr.Err()
			rr.Release()
			if err != nil || n != rows {
				b.Fatalf("read %d rows, %v", n, err)
			}
		}
		b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
	dir := b.TempDir()
	for _, f := range []struct{ name, options string }{
		{"duckdb-copy-parquet", "FORMAT parquet"}, {"duckdb-copy-csv", "FORMAT csv"},
	} {
		b.Run(f.name, func(b *testing.B) {
			path := filepath.Join(dir, f.name)
			for b.Loop() {
				if _, err := s.store.Exec(b.Context(), "COPY (SELECT * FROM data.bench) TO '"+path+"' ("+f.options+")"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
