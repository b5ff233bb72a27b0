package regress_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/regress"
)

// The forest fitted on the words as CSR columns (600 of them, past
// stats.MaxDenseWords) predicts every training row as its fit on the same
// columns as one dense matrix, up to rounding (1e-9 relative: the zero
// rows' sums are the node's less the non-zeros'), with no bootstrap. The
// trees need not be the same: the candidates are scanned in another
// order, so of two columns that split a node's rows alike either may be
// chosen (see tree.TestSparseCARTEqualsDense). Their total importance
// agrees too.
func TestForestWordsMatchDense(t *testing.T) {
	split, full := wordsData(300, 600, 8)
	dense := regress.Data{X: full, Y: split.Y}
	ms, md := regress.FitForestAll(split, 2), regress.FitForestAll(dense, 2)
	ps, pd := make([]float64, 300), make([]float64, 300)
	ms.Predict(stats.NewSparseMatrix(split.X, split.Words), ps)
	md.Predict(full, pd)
	if d := relDiff(ps, pd); d > 1e-9 {
		t.Fatalf("training rows' predictions differ by %g relative", d)
	}
	var gs, gd float64
	for j, v := range ms.Importance() {
		gs += v
		gd += md.Importance()[j]
	}
	if math.Abs(gs-gd) > 1e-9*gd {
		t.Fatalf("total importance %g on words, %g dense", gs, gd)
	}
}

// The forest on words reads a SparseMatrix as its dense copy, rejects
// every truncation of its bytes (TestWordsMatchDense decodes them whole,
// with 60 words), fits text alone (no dense column) and refits. (Past stats.MaxDenseWords
// words it reads words a bounded block would leave out:
// TestWordsBoundedBlock.)
func TestForestWords(t *testing.T) {
	split, _ := wordsData(300, 600, 9)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	m, got := predictOf(t, regress.RandomForest{}, split, xs)
	again := make([]float64, 300)
	m.Predict(xs.ToDense(), again)
	if d := relDiff(again, got); d != 0 {
		t.Fatalf("dense rows read differently from sparse ones: %g", d)
	}
	blob, err := m.MarshalBinary() // the round trip: TestWordsMatchDense
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(blob); cut += 1 + cut/3 {
		if _, err := regress.Unmarshal(blob[:cut]); err == nil {
			t.Fatalf("%d of %d bytes decoded", cut, len(blob))
		}
	}
	if fi := m.Importance(); len(fi) != 602 {
		t.Fatalf("importance of %d columns, want 602", len(fi))
	}
	// Text alone: the words are the only columns, and they carry the
	// target's word effects.
	text := regress.Data{Words: split.Words, Y: split.Y}
	tm, tp := predictOf(t, regress.RandomForest{}, text, stats.NewSparseMatrix(nil, split.Words))
	var mean, sse, sst float64
	for _, y := range split.Y {
		mean += y / 300
	}
	for i, y := range split.Y {
		sse += (y - tp[i]) * (y - tp[i])
		sst += (y - mean) * (y - mean)
	}
	if sse > 0.9*sst {
		t.Fatalf("text alone: training SSE %g of %g", sse, sst)
	}
	if _, err := tm.Refit(text, regress.Options{Seed: 1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	short := regress.Data{Words: split.Words, Y: split.Y[:10]}
	if _, err := (regress.RandomForest{}).Fit(short, regress.Options{Workers: 1}); err == nil {
		t.Fatal("targets of 10 rows for 300 rows of words: no error")
	}
}

// A saved forest of the old bounded kind (the dense columns and five
// words as one dense block, framed by stats.MarshalBounded as Fit framed
// it before it read words natively) still decodes and predicts as its
// block forest does on the rows' kept columns.
func TestForestBoundedStillDecodes(t *testing.T) {
	split, _ := wordsData(100, 600, 10)
	words := []int{1, 5, 9, 100, 599}
	xs := stats.NewSparseMatrix(split.X, split.Words)
	block := xs.DenseColumns(words)
	inner, err := regress.RandomForest{}.Fit(regress.Data{X: block, Y: split.Y}, regress.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, blob := oldBounded(t, inner, words)
	got, want := make([]float64, 100), make([]float64, 100)
	m.Predict(xs, got)
	inner.Predict(block, want)
	if d := relDiff(got, want); d != 0 {
		t.Fatalf("bounded forest predictions differ by %g", d)
	}
	if m.Key() != "random_forest" || len(m.Importance()) != 602 {
		t.Fatalf("decoded %s with %d importances", m.Key(), len(m.Importance()))
	}
	for _, cut := range []int{1, 20, 40, len(blob) - 1} {
		if _, err := regress.Unmarshal(blob[:cut]); err == nil {
			t.Fatalf("%d of %d bounded bytes decoded", cut, len(blob))
		}
	}
}
