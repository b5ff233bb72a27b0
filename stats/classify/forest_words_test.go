package classify_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// The forest fitted on the words as CSR columns (600 of them, past
// stats.MaxDenseWords) puts every training row in leaves of the same
// class distribution as its fit on the same columns as one dense matrix,
// up to rounding (1e-9: the zero rows' class weights are the node's less
// the non-zeros'), with every column tried at each node and no bootstrap.
// The trees need not be the same: the candidates are scanned in another
// order, so of two columns that split a node's rows alike either may be
// chosen (see tree.TestSparseCARTEqualsDense); the weights are
// continuous so that different splits do not tie. Their total importance
// agrees too.
func TestForestWordsMatchDense(t *testing.T) {
	split, full := wordsData(300, 600, 3, 8)
	rng := rand.New(rand.NewPCG(8, 9))
	split.W = make([]float64, 300)
	for i := range split.W {
		split.W[i] = 0.5 + rng.Float64()
	}
	dense := classify.Data{X: full, Y: split.Y, K: split.K, W: split.W}
	ms, md := classify.FitForestAll(split, 2), classify.FitForestAll(dense, 2)
	ps, pd := mat.NewDense(300, 3, nil), mat.NewDense(300, 3, nil)
	ms.Proba(stats.NewSparseMatrix(split.X, split.Words), ps)
	md.Proba(full, pd)
	if d := maxDiff(ps, pd); d > 1e-9 {
		t.Fatalf("training rows' probabilities differ by %g", d)
	}
	var gs, gd float64
	for j, v := range ms.Importance() {
		gs += v
		gd += md.Importance()[j]
	}
	if d := gs - gd; d > 1e-9*gd || d < -1e-9*gd {
		t.Fatalf("total importance %g on words, %g dense", gs, gd)
	}
}

// The forest on words reads a SparseMatrix as its dense copy, rejects
// every truncation of its bytes (TestWordsBlockMatchesDense decodes them
// whole), fits
// text alone (no dense column) and refits; it splits on words.
func TestForestWords(t *testing.T) {
	split, _ := wordsData(300, 600, 3, 9)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	m, got := probaOf(t, classify.RandomForest{}, split, xs)
	again := mat.NewDense(300, 3, nil)
	m.Proba(xs.ToDense(), again)
	if d := maxDiff(again, got); d != 0 {
		t.Fatalf("dense rows read differently from sparse ones: %g", d)
	}
	blob, err := m.MarshalBinary() // the round trip: TestWordsBlockMatchesDense
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(blob); cut += 1 + cut/3 {
		if _, err := classify.Unmarshal(blob[:cut]); err == nil {
			t.Fatalf("%d of %d bytes decoded", cut, len(blob))
		}
	}
	imp := m.Importance()
	if len(imp) != 602 {
		t.Fatalf("importance of %d columns, want 602", len(imp))
	}
	var words float64
	for _, v := range imp[2:] {
		words += v
	}
	if !(words > 0) {
		t.Fatal("no split on a word")
	}
	// Text alone: the words are the only columns; the class shifts
	// which words occur, so the forest separates the classes.
	text := classify.Data{Words: split.Words, Y: split.Y, K: split.K}
	tm, tp := probaOf(t, classify.RandomForest{}, text, stats.NewSparseMatrix(nil, split.Words))
	right := 0
	for i, c := range split.Y {
		if mat.Row(nil, i, tp)[c] > 0.5 {
			right++
		}
	}
	if right < 250 {
		t.Fatalf("text alone: %d of 300 training rows get their class", right)
	}
	if _, err := tm.Refit(text, classify.Options{Seed: 1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	short := classify.Data{Words: split.Words, Y: split.Y[:10], K: 3}
	if _, err := (classify.RandomForest{}).Fit(short, classify.Options{Workers: 1}); err == nil {
		t.Fatal("labels of 10 rows for 300 rows of words: no error")
	}
}

// boundedForest is a forest of the old bounded kind on split's rows: the
// dense columns and five words as one dense block, framed by
// stats.MarshalBounded as RandomForest.Fit framed it before it read words
// natively. It returns the bytes, their decoded model and the block's
// forest.
func boundedForest(t *testing.T, split classify.Data) ([]byte, classify.Model, classify.Model) {
	t.Helper()
	words := []int{1, 5, 9, 100, 599}
	xs := stats.NewSparseMatrix(split.X, split.Words)
	inner, err := classify.RandomForest{}.Fit(classify.Data{X: xs.DenseColumns(words), Y: split.Y, K: split.K}, classify.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, c := xs.Dims()
	blob, err := stats.MarshalBounded(stats.Bounded{Width: c, Dense: 2, Words: words}, inner)
	if err != nil {
		t.Fatal(err)
	}
	m, err := classify.Unmarshal(blob)
	if err != nil {
		t.Fatal(err)
	}
	return blob, m, inner
}

// A saved forest of the old bounded kind still decodes and gives its
// block forest's probabilities of the rows' kept columns.
func TestForestBoundedStillDecodes(t *testing.T) {
	split, _ := wordsData(100, 600, 2, 10)
	_, m, inner := boundedForest(t, split)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	got, want := mat.NewDense(100, 2, nil), mat.NewDense(100, 2, nil)
	m.Proba(xs, got)
	inner.Proba(xs.DenseColumns([]int{1, 5, 9, 100, 599}), want)
	if d := maxDiff(got, want); d != 0 {
		t.Fatalf("bounded forest probabilities differ by %g", d)
	}
	if m.Key() != "random_forest_classification" || len(m.Importance()) != 602 {
		t.Fatalf("decoded %s with %d importances", m.Key(), len(m.Importance()))
	}
}
