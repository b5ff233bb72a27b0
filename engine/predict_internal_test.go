package engine

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// oneBatch is a PredictSource of one record.
type oneBatch struct {
	b    PredictBatch
	done bool
}

func (s *oneBatch) Options() (PredictOptions, bool, error) { return PredictOptions{}, true, nil }

func (s *oneBatch) Next() (PredictBatch, error) {
	if s.done {
		return PredictBatch{}, io.EOF
	}
	s.done = true
	return s.b, nil
}

// predicted drains an answer into its prediction column.
func predicted(t *testing.T, out *PredictOutput) ([]float64, []arrow.RecordBatch) {
	t.Helper()
	var ys []float64
	var recs []arrow.RecordBatch
	for {
		rec, err := out.Next()
		if err == io.EOF {
			return ys, recs
		}
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Schema().Equal(out.Schema()) {
			t.Fatalf("batch schema %s, want %s", rec.Schema(), out.Schema())
		}
		y := rec.Column(int(rec.NumCols()) - 1).(*array.Float64)
		ys = append(ys, y.Float64Values()...)
		recs = append(recs, rec)
	}
}

// linearModel trains a regression of y on a and b (linearCSV, 300 rows)
// and returns its model id.
func (e *Engine) linearModel(t *testing.T) string {
	t.Helper()
	e.putTestCSV(t, "lin", linearCSV(300))
	s, err := e.CreateSession(t.Context(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitSession(t, s.ID)
	if done.ModelID == "" {
		t.Fatalf("session = %+v", done)
	}
	return done.ModelID
}

// Typed columns (as Arrow IPC or Parquet bodies bring) are read by their
// type and echoed as they are; JSON literals read as JSON gives them: a
// literal true is 1 in a numeric column, a string "true" is an error.
func TestPredictStreamTypedAndLiterals(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	model := e.linearModel(t)
	mem := memory.DefaultAllocator

	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{3, 5}, nil)
	a := fb.NewArray()
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues([]bool{true, false}, nil)
	b := bb.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Float64}, {Name: "B", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	out, err := e.PredictStream(ctx, model, &oneBatch{b: PredictBatch{Rec: array.NewRecordBatch(schema, []arrow.Array{a, b}, 2)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ys, recs := predicted(t, out)
	out.Close()
	if len(ys) != 2 || math.Abs(ys[0]-(2*3-3*1+1)) > 0.5 || math.Abs(ys[1]-(2*5-3*0+1)) > 0.5 {
		t.Errorf("typed predictions = %v, want about 4 and 11", ys)
	}
	if got := recs[0].Schema().Field(1); got.Name != "B" || got.Type.ID() != arrow.BOOL {
		t.Errorf("echoed column = %v, want B as bool", got)
	}

	text := func(vals ...string) arrow.Array {
		sb := array.NewStringBuilder(mem)
		sb.AppendValues(vals, nil)
		return sb.NewArray()
	}
	ab := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String}, {Name: "b", Type: arrow.BinaryTypes.String}}, nil)
	lit := PredictBatch{Rec: array.NewRecordBatch(ab, []arrow.Array{text("3"), text("true")}, 1), Literal: [][]bool{{true}, {true}}}
	out, err = e.PredictStream(ctx, model, &oneBatch{b: lit}, nil)
	if err != nil {
		t.Fatalf("literal true: %v", err)
	}
	if ys, _ := predicted(t, out); len(ys) != 1 || math.Abs(ys[0]-4) > 0.5 {
		t.Errorf("literal true prediction = %v, want about 4", ys)
	}
	out.Close()
	str := PredictBatch{Rec: array.NewRecordBatch(ab, []arrow.Array{text("3"), text("true")}, 1)}
	if _, err := e.PredictStream(ctx, model, &oneBatch{b: str}, nil); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("string true = %v, want not a number", err)
	}

	// Row numbers count across batches.
	_, err = e.predictText(ctx, model, []string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}, [][]string{{"5", "6"}, {"7", "x"}})
	if err == nil || !strings.Contains(err.Error(), "Row 3:") {
		t.Errorf("bad value in the second batch = %v, want Row 3", err)
	}
}

// The spool keeps batches in memory up to its limit, then in an unlinked
// file, and replays them in order.
func TestPredictSpool(t *testing.T) {
	dir := t.TempDir()
	sp := &predictSpool{dir: dir, limit: 40}
	defer sp.close()
	for i := range 4 {
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil),
			[]arrow.Array{float64Array([]float64{float64(i), float64(i) + 0.5})}, 2)
		if err := sp.add(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if len(sp.mem) == 0 || sp.onFile == 0 {
		t.Fatalf("spool: %d in memory, %d on file; want both", len(sp.mem), sp.onFile)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spool files visible: %v", left)
	}
	for i := 0; ; i++ {
		rec, err := sp.read(i)
		if err == io.EOF {
			if i != 4 {
				t.Errorf("replayed %d batches, want 4", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if v := rec.Column(0).(*array.Float64).Value(1); v != float64(i)+0.5 {
			t.Errorf("batch %d = %v, want %v", i, v, float64(i)+0.5)
		}
		rec.Release()
	}
}

// The text spool keeps rendered batches in memory up to its limit, then
// in an unlinked file, and replays them in order with their row marks.
func TestTextSpool(t *testing.T) {
	dir := t.TempDir()
	sp := &textSpool{dir: dir, limit: 20}
	defer sp.close()
	var want []textBatch
	for i := range 4 {
		b := textBatch{echoed: i, data: fmt.Appendf(nil, "a%d|p%d\nb%d|q%d\n", i, i, i, i)}
		b.marks, b.cuts, b.ends = []int{2, 9}, []int{5, 11}, []int{6, 12}
		want = append(want, textBatch{echoed: b.echoed, data: bytes.Clone(b.data), marks: b.marks, cuts: b.cuts, ends: b.ends})
		if err := sp.add(&b); err != nil {
			t.Fatal(err)
		}
	}
	if len(sp.mem) == 0 || sp.onFile == 0 {
		t.Fatalf("spool: %d in memory, %d on file; want both", len(sp.mem), sp.onFile)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spool files visible: %v", left)
	}
	i := 0
	err := sp.replay(func(b *textBatch) error {
		if w := want[i]; string(b.data) != string(w.data) || b.echoed != w.echoed || !slices.Equal(b.marks, w.marks) || !slices.Equal(b.cuts, w.cuts) || !slices.Equal(b.ends, w.ends) {
			t.Errorf("batch %d = %+v, want %+v", i, *b, w)
		}
		i++
		return nil
	})
	if err != nil || i != 4 {
		t.Errorf("replayed %d batches (%v), want 4", i, err)
	}
}

// The prediction count a request checks its quota against is kept in
// memory: it counts every committed prediction, and an engine reopened on
// the same store starts from the stored count.
// linearModelAt opens an engine on dir and trains a regression model of
// a and b on it, returning the engine, its close and the model's id.
func linearModelAt(t *testing.T, dir string, opts Options) (*Engine, func(), string) {
	t.Helper()
	e, closeEngine := openEngineAt(t, dir, opts)
	e.putTestCSV(t, "lin", linearCSV(300))
	s, err := e.CreateSession(t.Context(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	return e, closeEngine, e.waitSession(t, s.ID).ModelID
}

func TestPredictionCountCached(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Allotments: Allotments{Predictions: 5}}
	e, closeEngine, id := linearModelAt(t, dir, opts)
	rows := [][]string{{"1", "2"}, {"3", "4"}}
	for i, want := range []bool{true, true, false} { // 2, 4, then 6 > 5
		if _, err := e.predictText(t.Context(), id, []string{"a", "b"}, rows); (err == nil) != want {
			t.Fatalf("predict %d = %v, want success %v", i, err, want)
		}
	}
	if u, err := e.Usage(t.Context()); err != nil || u.Predictions != 4 {
		t.Errorf("usage = %+v, %v; want 4 predictions", u, err)
	}
	closeEngine()
	e, _ = openEngineAt(t, dir, opts)
	if _, err := e.predictText(t.Context(), id, []string{"a", "b"}, rows); err == nil || !strings.Contains(err.Error(), "1 Predictions left") {
		t.Errorf("predict after a restart = %v, want 1 prediction left", err)
	}
}

// Migration 0009 gives a catalog without the prediction count's row one
// at 0, and leaves a count already there as it is; predicts then count on
// it.
func TestUsageRowMigration(t *testing.T) {
	dir := t.TempDir()
	e, closeE, id := linearModelAt(t, dir, Options{})
	rows := [][]string{{"1", "2"}, {"3", "4"}}
	for _, c := range []struct {
		what   string
		before []string
		want   int64
	}{
		{"no row", []string{`DELETE FROM catalog.usage`}, 2},
		{"a count", []string{`UPDATE catalog.usage SET count = 40`}, 42},
	} {
		for _, q := range append(c.before, `DELETE FROM catalog.migrations WHERE version = 9`) {
			if _, err := e.store.Exec(t.Context(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		closeE()
		e, closeE = openEngineAt(t, dir, Options{})
		if _, err := e.predictText(t.Context(), id, []string{"a", "b"}, rows); err != nil {
			t.Fatalf("%s: predict = %v", c.what, err)
		}
		n, err := e.countPredictions(t.Context())
		if err != nil || n != c.want {
			t.Errorf("%s: stored count after a predict of 2 rows = %d, %v; want %d", c.what, n, err, c.want)
		}
	}
	closeE()
}
