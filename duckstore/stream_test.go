//go:build duckdb_arrow

package duckstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/vaticml/vatic/duckstore"
)

// sumRows reads every batch of rr, returning the row count and the sum
// of its first column (an Int64).
func sumRows(rr array.RecordReader) (rows, sum int64) {
	for rr.Next() {
		b := rr.RecordBatch()
		rows += b.NumRows()
		for _, v := range b.Column(0).(*array.Int64).Int64Values() {
			sum += v
		}
	}
	return rows, sum
}

// rssBytes is the process's resident memory (Linux; 0 elsewhere).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, rss int64
	if _, err := fmt.Sscan(string(b), &size, &rss); err != nil {
		return 0
	}
	return rss * int64(os.Getpagesize())
}

// peakRows reads rr to its end like sumRows, sampling the resident
// memory every 256 batches; it reports the highest sample.
func peakRows(rr array.RecordReader) (rows, sum, peak int64) {
	for i := 0; rr.Next(); i++ {
		b := rr.RecordBatch()
		rows += b.NumRows()
		for _, v := range b.Column(0).(*array.Int64).Int64Values() {
			sum += v
		}
		if i%256 == 0 {
			peak = max(peak, rssBytes())
		}
	}
	return rows, sum, peak
}

// The answer streams: the first batch of an endless scan arrives, and a
// 160 MB answer passes through while the process grows by a fraction of
// it (the materialising Query, run after for comparison, holds it all).
func TestStreamQueryBoundedMemory(t *testing.T) {
	s := open(t, "")
	rr, err := s.StreamQuery(t.Context(), "SELECT range AS i FROM range(9223372036854775807)")
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() || rr.RecordBatch().NumRows() == 0 {
		t.Fatalf("no first batch of an endless scan: %v", rr.Err())
	}
	rr.Release()

	const n = 20_000_000 // 160 MB of BIGINT
	const query = "SELECT range AS i FROM range(20000000)"
	answer := int64(n * 8)
	debug.FreeOSMemory()
	base := rssBytes()
	if base == 0 {
		t.Skip("no /proc/self/statm")
	}
	rr, err = s.StreamQuery(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	rows, sum, peak := peakRows(rr)
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	if rows != n || sum != n*(n-1)/2 {
		t.Fatalf("streamed %d rows summing to %d, want %d and %d", rows, sum, n, n*(n-1)/2)
	}
	streamed := peak - base

	debug.FreeOSMemory()
	base = rssBytes()
	rr, err = s.Query(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	_, _, peak = peakRows(rr)
	rr.Release()
	materialised := peak - base
	t.Logf("resident growth for a %d MB answer: streaming %d MB, materialising %d MB", answer>>20, streamed>>20, materialised>>20)
	if streamed > answer/4 {
		t.Errorf("streaming grew the process by %d MB for a %d MB answer", streamed>>20, answer>>20)
	}
}

// Parameters bind in order; a wrong count is DuckDB's invalid input.
func TestStreamQueryParameters(t *testing.T) {
	s := open(t, "")
	rr, err := s.StreamQuery(t.Context(), "SELECT range::BIGINT AS i, ?::VARCHAR AS s FROM range(?) WHERE range >= ?", "x", 10, int64(7))
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if got := rr.Schema().String(); rr.Schema().NumFields() != 2 || rr.Schema().Field(1).Name != "s" {
		t.Fatalf("schema = %s", got)
	}
	rows, sum := sumRows(rr)
	if rr.Err() != nil || rows != 3 || sum != 7+8+9 {
		t.Fatalf("rows %d sum %d err %v, want 3, 24, nil", rows, sum, rr.Err())
	}
	_, err = s.StreamQuery(t.Context(), "SELECT ?::BIGINT", 1, 2)
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeInvalidInput {
		t.Fatalf("two values for one parameter: %v, want invalid input", err)
	}
	_, err = s.StreamQuery(t.Context(), "SELECT * FROM no_such_table")
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeCatalog {
		t.Fatalf("unknown table: %v, want a catalog error", err)
	}
}

// Cancelling the context interrupts a query between batches and while
// DuckDB computes one; the connection is usable after.
func TestStreamQueryCancel(t *testing.T) {
	s := open(t, "")
	ctx, cancel := context.WithCancel(t.Context())
	rr, err := s.StreamQuery(ctx, "SELECT range AS i FROM range(1000000000)")
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() {
		t.Fatalf("no first batch: %v", rr.Err())
	}
	cancel()
	if rr.Next() {
		t.Fatal("a batch after cancel")
	}
	if !errors.Is(rr.Err(), context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", rr.Err())
	}
	rr.Release()

	// One chunk that takes long: an aggregate over a huge range.
	ctx, cancel = context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rr, err = s.StreamQuery(ctx, "SELECT sum(range) AS i FROM range(1000000000000)")
	if err == nil {
		sumRows(rr)
		err = rr.Err()
		rr.Release()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the interrupt took %s", d)
	}
	if _, err := s.Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatalf("the store after an interrupt: %v", err)
	}
}

// Inside Tx the stream runs on the transaction: it sees its own writes.
func TestStreamQueryInTx(t *testing.T) {
	s := open(t, "")
	if _, err := s.Exec(t.Context(), "CREATE TABLE t (i BIGINT)"); err != nil {
		t.Fatal(err)
	}
	err := s.Tx(t.Context(), func(ctx context.Context) error {
		if _, err := s.Exec(ctx, "INSERT INTO t SELECT range FROM range(5000)"); err != nil {
			return err
		}
		rr, err := s.StreamQuery(ctx, "SELECT i FROM t")
		if err != nil {
			return err
		}
		defer rr.Release()
		rows, _ := sumRows(rr)
		if rows != 5000 {
			t.Errorf("streamed %d rows inside the transaction, want 5000", rows)
		}
		return rr.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ReadOnlyDescribe types the result and the parameters without running
// the statement, and refuses what ReadOnlyQuery refuses.
func TestReadOnlyDescribe(t *testing.T) {
	s, _ := sealed(t)
	d, err := s.ReadOnlyDescribe(t.Context(), "SELECT x, x::VARCHAR AS s, ? AS anything FROM data.t WHERE x > ?::BIGINT")
	if err != nil {
		t.Fatal(err)
	}
	if d.Result != nil {
		t.Errorf("result schema with a column of a parameter's type = %s, want unknown (nil)", d.Result)
	}
	if got, want := d.Params.String(), "schema:\n  fields: 2\n    - $1: type=null, nullable\n    - $2: type=int64, nullable"; got != want {
		t.Errorf("parameter schema\n%s\nwant\n%s", got, want)
	}
	d, err = s.ReadOnlyDescribe(t.Context(), "SELECT x, x::VARCHAR AS s FROM data.t WHERE x > ?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Result.String(), "schema:\n  fields: 2\n    - x: type=int64, nullable\n    - s: type=utf8, nullable"; got != want {
		t.Errorf("result schema\n%s\nwant\n%s", got, want)
	}
	if _, err := s.ReadOnlyDescribe(t.Context(), "DELETE FROM data.t"); !errors.Is(err, duckstore.ErrRefused) {
		t.Errorf("DELETE: %v, want ErrRefused", err)
	}
	if _, err := s.ReadOnlyDescribe(t.Context(), "SELECT * FROM data.nope"); !errors.Is(err, duckstore.ErrInvalidQuery) {
		t.Errorf("unknown table: %v, want ErrInvalidQuery", err)
	}
}
