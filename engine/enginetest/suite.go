// Package enginetest holds the conformance suite every engine.Store must
// pass; duckstore runs it against DuckDB.
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
	t.Run("AppendEveryEngineType", func(t *testing.T) { appendEveryType(t, open(t)) })
	t.Run("QueryTypes", func(t *testing.T) { queryTypes(t, open(t)) })
	t.Run("QueryStreamsBatches", func(t *testing.T) {
		s := open(t)
		rr, err := s.Query(t.Context(), `SELECT range AS i FROM range(100000)`)
		if err != nil {
			t.Fatalf("Query = %v", err)
		}
		defer rr.Release()
		var rows, batches int64
		for rr.Next() {
			batches++
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil || rows != 100000 || batches < 2 {
			t.Errorf("Query = %d rows in %d batches, %v; want 100000 rows in several batches", rows, batches, err)
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

// appendEveryType appends a batch holding every Arrow type the engine
// writes (int64, int32, float64, boolean, string, timestamp), each with a
// null, into a table whose columns are typed by SQL and then into one made
// by CreateTable from the same schema, and reads both back.
func appendEveryType(t *testing.T, s engine.Store) {
	ctx := t.Context()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: columnar.TimestampType, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	t0 := time.Date(2017, 1, 2, 3, 4, 5, 678000, time.UTC)
	valid := []bool{true, false, true}
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 0, 1 << 53}, valid)
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{-7, 0, 1 << 30}, valid)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{0.1, 0, -2.5e300}, valid)
	b.Field(3).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, valid)
	b.Field(4).(*array.StringBuilder).AppendValues([]string{"", "", "é\"'\n"}, valid)
	b.Field(5).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(t0.UnixMicro()), 0, 0}, valid)
	rec := b.NewRecordBatch()
	defer rec.Release()

	mustExec(t, s, ctx, `CREATE TABLE typed (s VARCHAR, extra DOUBLE, ts TIMESTAMP, b BOOLEAN, f64 DOUBLE, i32 INTEGER, i64 BIGINT)`)
	if err := s.CreateTable(ctx, "made", schema); err != nil {
		t.Fatalf("CreateTable = %v", err)
	}
	for _, table := range []string{"typed", "made"} {
		rr, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		n, err := s.Append(ctx, table, rr)
		rr.Release()
		if err != nil || n != 3 {
			t.Fatalf("Append(%s) = %d, %v, want 3, nil", table, n, err)
		}
		rows, err := s.Rows(ctx, `SELECT i64, i32, f64, b, s, ts FROM `+table+` ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]any
		for rows.Next() {
			vals := make([]any, 6)
			ptrs := make([]any, 6)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			got = append(got, vals)
		}
		_ = rows.Close()
		want := [][]any{
			{int64(0), int32(-7), 0.1, true, "", t0},
			{nil, nil, nil, nil, nil, nil},
			{int64(1 << 53), int32(1 << 30), -2.5e300, false, "é\"'\n", time.Unix(0, 0).UTC()},
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", table, len(got), len(want))
		}
		for i := range want {
			for j := range want[i] {
				g, w := got[i][j], want[i][j]
				if wt, ok := w.(time.Time); ok {
					if gt, ok := g.(time.Time); !ok || !gt.Equal(wt) {
						t.Errorf("%s row %d col %s = %v, want %v", table, i, schema.Field(j).Name, g, w)
					}
					continue
				}
				if g != w {
					t.Errorf("%s row %d col %s = %#v, want %#v", table, i, schema.Field(j).Name, g, w)
				}
			}
		}
	}
}

// queryTypes checks the Arrow type Query gives each DuckDB type the engine
// reads, with the values and nulls: every Store answers with the same types.
func queryTypes(t *testing.T, s engine.Store) {
	rr, err := s.Query(t.Context(), `SELECT * FROM (VALUES
		(42::BIGINT, 7::INTEGER, 1.5::DOUBLE, true, 'x', TIMESTAMP '2017-01-02 03:04:05.678', DATE '2017-01-02', 12.25::DECIMAL(9,2), 3::HUGEINT, 2.5::FLOAT),
		(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
	) AS v(i64, i32, f64, b, s, ts, d, dec, huge, f32)`)
	if err != nil {
		t.Fatalf("Query = %v", err)
	}
	defer rr.Release()
	want := []struct {
		id   arrow.Type
		text string
	}{
		{arrow.INT64, "42"}, {arrow.INT32, "7"}, {arrow.FLOAT64, "1.5"}, {arrow.BOOL, "true"},
		{arrow.STRING, "x"}, {arrow.TIMESTAMP, "2017-01-02T03:04:05.678"},
		{arrow.DATE32, "2017-01-02"}, {arrow.DECIMAL128, "12.25"}, {arrow.DECIMAL128, "3"}, {arrow.FLOAT32, "2.5"},
	}
	rows := 0
	for rr.Next() {
		r := rr.RecordBatch()
		for c, w := range want {
			a := r.Column(c)
			if a.DataType().ID() != w.id {
				t.Errorf("column %s: Arrow type %s, want %s", r.ColumnName(c), a.DataType(), w.id)
				continue
			}
			if ts, ok := a.(*array.Timestamp); ok {
				tt := ts.DataType().(*arrow.TimestampType)
				if tt.Unit != arrow.Microsecond || tt.TimeZone != "" {
					t.Errorf("column ts: %s, want microseconds without a zone", tt)
				}
			}
			for i := 0; i < a.Len(); i++ {
				if rows+i == 1 {
					if !a.IsNull(i) {
						t.Errorf("column %s row 1 is %s, want null", r.ColumnName(c), a.ValueStr(i))
					}
					continue
				}
				if got := a.ValueStr(i); got != w.text {
					t.Errorf("column %s row %d = %q, want %q", r.ColumnName(c), rows+i, got, w.text)
				}
			}
		}
		rows += int(r.NumRows())
	}
	if err := rr.Err(); err != nil || rows != 2 {
		t.Errorf("Query rows = %d, %v, want 2", rows, err)
	}
}
