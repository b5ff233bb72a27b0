package engine

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats/anomaly"
)

// TestDistancesColumnarMatchesMatrix checks that the columnar distances
// path (encodedColumns, sessionDistances) gives exactly, bit for bit, what
// the session's matrix path gives: the frame read by
// readSnapshot, the missing-value tokens, p.encode, then the kernel on the
// matrix's columns. The snapshot has every feature type, nulls, a stored
// NaN, an integer column and a missing-value token, and more rows than
// one row group (122 880), so the streamed scan hands them over from
// DuckDB's threads in many chunks. Under the
// duckdb_arrow tag the batches are DuckDB's Arrow export; without it
// (make test-plain) duckstore's database/sql fallback, so the test pins
// both builds to the same definition.
func TestDistancesColumnarMatchesMatrix(t *testing.T) {
	const n, workers = 122_880 + 4465, 2
	e := newTestEngine(t)
	ctx := t.Context()
	snap, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, sqlgen.SnapshotTable("s"))
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf(`CREATE TABLE %s AS SELECT range AS %s,
		CASE WHEN range %% 97 = 0 THEN NULL WHEN range %% 89 = 0 THEN 'NaN'::DOUBLE ELSE 5e6 + sin(range) END AS x,
		CASE WHEN range %% 13 = 0 THEN NULL ELSE cos(range * 0.7) * 100 END AS m,
		(range * 7919) %% 1000 - 500 AS i,
		CASE WHEN range %% 11 = 0 THEN NULL ELSE range %% 3 = 0 END AS flag,
		CASE WHEN range %% 17 = 0 THEN NULL WHEN range %% 19 = 0 THEN 'n/a' ELSE ['Red', 'green', 'blue', 'RED'][range %% 4 + 1] END AS colour,
		CASE WHEN range %% 23 = 0 THEN NULL ELSE TIMESTAMP '2020-01-01' + to_seconds(range * 3541) END AS at
		FROM range(%d)`, snap, sqlgen.RowColumn, n)
	if _, err := e.store.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	meta := []columnar.Column{
		{Name: "x", DataType: columnar.Numeric, Role: columnar.RoleFeature},
		{Name: "m", DataType: columnar.NumericMeasure, Role: columnar.RoleFeature},
		{Name: "i", DataType: columnar.Numeric, Role: columnar.RoleFeature, Imputation: columnar.ImputeMedian},
		{Name: "flag", DataType: columnar.Logical, Role: columnar.RoleFeature},
		{Name: "colour", DataType: columnar.String, Role: columnar.RoleFeature},
		{Name: "at", DataType: columnar.Date, Role: columnar.RoleFeature},
	}
	tokens := []string{"N/A"}
	frame, err := e.readSnapshot(ctx, "s", meta)
	if err != nil {
		t.Fatal(err)
	}
	markMissing(frame, tokens)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	pipe := fitPipeline(frame, meta, rows, tokens, fitTarget{})
	x, err := pipe.encode(frame, rows)
	if err != nil {
		t.Fatal(err)
	}
	_, d := x.Dims()
	want := make([][]float64, d)
	for j := range want {
		want[j] = mat.Col(nil, j, x)
	}

	// Into new memory, then into a scratch buffer one value longer than
	// needed whose every value is garbage (NaN) beforehand: every value of
	// every column, nulls included, must be written, and the columns are
	// consecutive slices of the buffer.
	dirty := make([]float64, n*d+1)
	for i := range dirty {
		dirty[i] = math.NaN()
	}
	names, _ := pipe.Features()
	for _, buf := range [][]float64{nil, dirty} {
		got, err := e.encodedColumns(ctx, "s", pipe, n, buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != d {
			t.Fatalf("%d encoded columns, want %d", len(got), d)
		}
		for j := range want {
			if buf != nil && &got[j][0] != &buf[j*n] {
				t.Fatalf("column %s is not in the buffer", names[j])
			}
			for i := range n {
				if math.Float64bits(got[j][i]) != math.Float64bits(want[j][i]) {
					t.Fatalf("buffer %t: column %s row %d: %v, want %v", buf != nil, names[j], i, got[j][i], want[j][i])
				}
			}
		}
	}

	mu, cov, err := anomaly.Covariance(want, workers)
	if err != nil {
		t.Fatal(err)
	}
	wantD2 := make([]float64, n)
	if err := anomaly.MahalanobisD2(want, mu, cov, wantD2, workers); err != nil {
		t.Fatal(err)
	}
	d2, err := e.sessionDistances(ctx, "s", pipe, n, workers, make([]float64, n*d-1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if math.Float64bits(d2[i]) != math.Float64bits(wantD2[i]) {
			t.Fatalf("row %d: D² %v, want %v", i, d2[i], wantD2[i])
		}
	}

}

// TestWriteDistances checks the stored distances table: every row by its
// number, across several Arrow batches, with NULL for a distance that is
// not a number.
func TestWriteDistances(t *testing.T) {
	const n = distanceWriteBatch + 3
	e := newTestEngine(t)
	ctx := t.Context()
	d2 := make([]float64, n)
	for i := range d2 {
		d2[i] = float64(i) * 0.25
	}
	null := map[int64]bool{1: true, distanceWriteBatch + 1: true}
	d2[1], d2[distanceWriteBatch+1] = math.NaN(), math.Inf(1)
	if err := e.writeDistances(ctx, "s", d2); err != nil {
		t.Fatal(err)
	}
	dt, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, sqlgen.DistancesTable("s"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.store.Rows(ctx, "SELECT "+sqlgen.RowColumn+", d2 FROM "+dt+" ORDER BY "+sqlgen.RowColumn)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stored := 0
	for r.Next() {
		var row int64
		var v *float64
		if err := r.Scan(&row, &v); err != nil {
			t.Fatal(err)
		}
		switch {
		case row != int64(stored):
			t.Fatalf("stored row %d at position %d", row, stored)
		case null[row] && v != nil:
			t.Fatalf("row %d: stored %v, want NULL", row, *v)
		case !null[row] && (v == nil || *v != d2[row]):
			t.Fatalf("row %d: stored %v, want %v", row, v, d2[row])
		}
		stored++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if stored != n {
		t.Fatalf("%d rows stored, want %d", stored, n)
	}
}

// TestEncodedColumnsRowCheck checks that encodedColumns refuses a snapshot
// with fewer rows than the session counted rather than leaving zeros.
func TestEncodedColumnsRowCheck(t *testing.T) {
	e := newTestEngine(t)
	snap, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, sqlgen.SnapshotTable("s"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Exec(t.Context(), "CREATE TABLE "+snap+" AS SELECT range AS "+sqlgen.RowColumn+", range * 1.5 AS x FROM range(10)"); err != nil {
		t.Fatal(err)
	}
	pipe := pipeline{Columns: []prepColumn{{Name: "x", Type: columnar.Numeric}}}
	if _, err := e.encodedColumns(t.Context(), "s", pipe, 12, nil); err == nil {
		t.Fatal("12 rows read from a snapshot of 10")
	}
	cols, err := e.encodedColumns(t.Context(), "s", pipe, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range cols[0] {
		if v != float64(i)*1.5 {
			t.Fatalf("row %d: %v, want %v", i, v, float64(i)*1.5)
		}
	}
}
