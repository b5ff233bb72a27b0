// Package enginetest holds the conformance suite every engine.Store must
// pass; columnar/duckstore runs it against DuckDB.
package enginetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// StoreSuite runs the conformance tests on stores made by open; each
// subtest gets a fresh store.
func StoreSuite(t *testing.T, open func(t *testing.T) engine.Store) {
	t.Run("ExecAndRows", func(t *testing.T) {
		s := open(t)
		ctx := t.Context()
		mustExec(t, s, ctx, `CREATE TABLE t (a INTEGER, b VARCHAR)`)
		n, err := s.Exec(ctx, `INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, ?)`, "z")
		if err != nil || n != 3 {
			t.Fatalf("Exec(insert) = %d, %v, want 3, nil", n, err)
		}
		if got := count(t, s, ctx, `SELECT count(*) FROM t WHERE b = ?`, "z"); got != 1 {
			t.Errorf("count with bound parameter = %d, want 1", got)
		}
	})
	t.Run("TxCommitAndRollback", func(t *testing.T) {
		s := open(t)
		ctx := t.Context()
		mustExec(t, s, ctx, `CREATE TABLE t (a INTEGER)`)
		err := s.Tx(ctx, func(ctx context.Context) error {
			mustExec(t, s, ctx, `INSERT INTO t VALUES (1)`)
			// Inside the transaction its own writes are visible.
			if got := count(t, s, ctx, `SELECT count(*) FROM t`); got != 1 {
				t.Errorf("count inside tx = %d, want 1", got)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Tx(commit) = %v", err)
		}
		boom := errors.New("boom")
		err = s.Tx(ctx, func(ctx context.Context) error {
			mustExec(t, s, ctx, `INSERT INTO t VALUES (2)`)
			mustExec(t, s, ctx, `CREATE TABLE u (x INTEGER)`)
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx(rollback) = %v, want boom", err)
		}
		if got := count(t, s, ctx, `SELECT count(*) FROM t`); got != 1 {
			t.Errorf("count after rollback = %d, want 1", got)
		}
		if _, err := s.Exec(ctx, `SELECT * FROM u`); err == nil {
			t.Errorf("table created in a rolled-back tx exists")
		}
		func() {
			defer func() { _ = recover() }()
			_ = s.Tx(ctx, func(ctx context.Context) error {
				mustExec(t, s, ctx, `INSERT INTO t VALUES (3)`)
				panic("programmer error")
			})
		}()
		if got := count(t, s, ctx, `SELECT count(*) FROM t`); got != 1 {
			t.Errorf("count after panic in tx = %d, want 1", got)
		}
	})
	t.Run("CreateTableAppendQuery", func(t *testing.T) {
		s := open(t)
		ctx := t.Context()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		schema := arrow.NewSchema([]arrow.Field{
			columnar.Field("ts", columnar.Date), columnar.Field("x", columnar.Numeric),
			columnar.Field("flag", columnar.Logical), columnar.Field("Name With \"Quote\"", columnar.Text),
		}, nil)
		table, _ := columnar.QualifiedIdent("main", "my table")
		if err := s.CreateTable(ctx, table, schema); err != nil {
			t.Fatalf("CreateTable = %v", err)
		}
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		t0 := time.Date(2017, 1, 2, 3, 4, 5, 0, time.UTC)
		b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(t0.UnixMicro()), 0}, []bool{true, false})
		b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 2.5}, nil)
		b.Field(2).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		b.Field(3).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		rec := b.NewRecordBatch()
		defer rec.Release()
		// Append matches by name: a reader with only some columns, in
		// another order, fills the rest with NULL.
		sub := arrow.NewSchema([]arrow.Field{schema.Field(1), schema.Field(0)}, nil)
		subRec := array.NewRecordBatch(sub, []arrow.Array{rec.Column(1), rec.Column(0)}, 2)
		defer subRec.Release()
		for _, r := range []arrow.RecordBatch{rec, subRec} {
			rr, _ := array.NewRecordReader(r.Schema(), []arrow.RecordBatch{r})
			n, err := s.Append(ctx, table, rr)
			rr.Release()
			if err != nil || n != 2 {
				t.Fatalf("Append = %d, %v, want 2, nil", n, err)
			}
		}
		rr, err := s.Query(ctx, `SELECT ts, x, flag, "Name With ""Quote""" FROM `+table+` ORDER BY rowid`)
		if err != nil {
			t.Fatalf("Query = %v", err)
		}
		defer rr.Release()
		rows := 0
		for rr.Next() {
			r := rr.RecordBatch()
			rows += int(r.NumRows())
			if r.NumCols() != 4 {
				t.Fatalf("Query columns = %d, want 4", r.NumCols())
			}
			ts := r.Column(0).(*array.Timestamp)
			if got := ts.Value(0).ToTime(arrow.Microsecond); !got.Equal(t0) {
				t.Errorf("ts[0] = %v, want %v", got, t0)
			}
			if !ts.IsNull(1) || r.Column(2).IsNull(0) || !r.Column(3).IsNull(2) {
				t.Errorf("nulls not preserved: %v", r)
			}
		}
		if err := rr.Err(); err != nil || rows != 4 {
			t.Errorf("Query rows = %d, %v, want 4", rows, err)
		}
	})
	t.Run("CanceledContext", func(t *testing.T) {
		s := open(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.Exec(ctx, `SELECT 1`); err == nil {
			t.Errorf("Exec with a canceled context succeeded")
		}
	})
}

func mustExec(t *testing.T, s engine.Store, ctx context.Context, q string, args ...any) {
	t.Helper()
	if _, err := s.Exec(ctx, q, args...); err != nil {
		t.Fatalf("Exec(%s) = %v", q, err)
	}
}

func count(t *testing.T, s engine.Store, ctx context.Context, q string, args ...any) int64 {
	t.Helper()
	rows, err := s.Rows(ctx, q, args...)
	if err != nil {
		t.Fatalf("Rows(%s) = %v", q, err)
	}
	defer rows.Close()
	var n int64
	if !rows.Next() {
		t.Fatalf("Rows(%s): no row", q)
	}
	if err := rows.Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
