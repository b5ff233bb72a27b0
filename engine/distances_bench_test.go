package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats/anomaly"
)

// benchSnapshot creates the snapshot table of session id in a real DuckDB
// file: n rows of d DOUBLE columns f0…f(d−1) of uniform values, and
// returns the pipeline of a session using them all (numeric, no missing
// values).
func benchSnapshot(b *testing.B, e *Engine, id string, n, d int) pipeline {
	b.Helper()
	t, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, sqlgen.SnapshotTable(id))
	if err != nil {
		b.Fatal(err)
	}
	var sel strings.Builder
	p := pipeline{}
	for j := range d {
		fmt.Fprintf(&sel, ", random() + %d AS f%d", j, j)
		p.Columns = append(p.Columns, prepColumn{Name: fmt.Sprintf("f%d", j), Type: columnar.Numeric})
	}
	q := fmt.Sprintf("CREATE TABLE %s AS SELECT range AS %s%s FROM range(%d)", t, sqlgen.RowColumn, sel.String(), n)
	if _, err := e.store.Exec(b.Context(), q); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkDistancesEndToEnd times issue 15's end-to-end path on 1 M
// rows × 20 numeric columns: from the session's snapshot table in a
// DuckDB file to the stored distances table, with 2 workers. read=arrow-buf
// is the session's path (encodedColumns into memory already written, as
// the session's encoded matrix), read=arrow the same into new memory, paying
// its page faults; read=matrix, the anchor, reads as
// the sessions did before it (the frame, p.encode's row-major matrix,
// then a copy per column). Besides rows/s and rows/cpu-s (the process's
// CPU time, DuckDB's threads included, which a loaded machine distorts
// less) it reports the milliseconds of each stage per run: read (DuckDB to
// the encoded columns), cov (Covariance), d2 (the metric and the kernel)
// and write (the distances table). Compare runs with
//
//	go test -tags duckdb_arrow -run '^$' -bench DistancesEndToEnd -count 6 -cpu 2 ./engine | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkDistancesEndToEnd(b *testing.B) {
	const n, d, workers = 1 << 20, 20, 2
	e := newBenchEngine(b)
	pipe := benchSnapshot(b, e, "bench", n, d)
	meta := make([]columnar.Column, d)
	for j, pc := range pipe.Columns {
		meta[j] = columnar.Column{Name: pc.Name, DataType: pc.Type, Role: columnar.RoleFeature}
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	matrix := func(ctx context.Context) ([][]float64, error) {
		frame, err := e.readSnapshot(ctx, "bench", meta)
		if err != nil {
			return nil, err
		}
		x, err := pipe.encode(frame, rows)
		if err != nil {
			return nil, err
		}
		cols := make([][]float64, d)
		for j := range cols {
			cols[j] = make([]float64, n)
			mat.Col(cols[j], j, x)
		}
		return cols, nil
	}
	arrow := func(ctx context.Context) ([][]float64, error) {
		return e.encodedColumns(ctx, "bench", pipe, n, nil)
	}
	// A session passes the memory of its encoded matrix, written before
	// (encodedColumns): buf stands for it.
	buf := make([]float64, n*d)
	for i := range buf {
		buf[i] = 1
	}
	arrowBuf := func(ctx context.Context) ([][]float64, error) {
		return e.encodedColumns(ctx, "bench", pipe, n, buf)
	}
	for _, r := range []struct {
		name string
		read func(context.Context) ([][]float64, error)
	}{{"arrow", arrow}, {"arrow-buf", arrowBuf}, {"matrix", matrix}} {
		b.Run("read="+r.name, func(b *testing.B) {
			ctx := b.Context()
			var read, cov, d2, write time.Duration
			dst := make([]float64, n)
			c0 := cpuTime(b)
			for b.Loop() {
				t0 := time.Now()
				cols, err := r.read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				mu, sigma, err := anomaly.Covariance(cols, workers)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if err := anomaly.MahalanobisD2(cols, mu, sigma, dst, workers); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				if err := e.writeDistances(ctx, "bench", dst); err != nil {
					b.Fatal(err)
				}
				t4 := time.Now()
				read, cov, d2, write = read+t1.Sub(t0), cov+t2.Sub(t1), d2+t3.Sub(t2), write+t4.Sub(t3)
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(b.N)*n/(cpuTime(b)-c0).Seconds(), "rows/cpu-s")
			for _, s := range []struct {
				name string
				t    time.Duration
			}{{"read", read}, {"cov", cov}, {"d2", d2}, {"write", write}} {
				b.ReportMetric(s.t.Seconds()*1e3/float64(b.N), s.name+"-ms/op")
			}
		})
	}
}
