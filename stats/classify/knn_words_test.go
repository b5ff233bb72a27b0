package classify_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/statstest"
)

// knnWordsTol bounds how far k-NN on words (every varying word divided by
// one pooled factor, not centred; the expanded distance then exact
// recomputation) is from k-NN on the same rows as dense columns
// (z-scored) when every varying word column has sd 1
// (statstest.EqualWordVariance): the squared distances differ by rounding
// (centring first, then dividing by sds of about 1), a few ulps, so the
// same neighbours are found and only the 1/distance weights move,
// relatively by about 1e-15.
const knnWordsTol = 1e-12

// k-NN on X and a CSR of 600 words (past stats.MaxDenseWords) whose
// varying columns have equal training variances, so that the pooled word
// factor and per-column z-scores coincide, equals k-NN on the same rows
// as one dense matrix: with k and either weighting forced the held-out
// probabilities agree to knnWordsTol. The search (cross-validated, each
// fold pooling its own rows' variances, which no longer all equal 1)
// picks a k and weighting whose fixed fit it equals. The model reads a
// SparseMatrix and its ToDense alike, survives its bytes, rejects their
// truncations, and its bytes hold the words sparsely.
func TestKNNWordsMatchDense(t *testing.T) {
	split, full := wordsData(400, 600, 3, 11)
	test, testFull := wordsData(100, 600, 3, 99) // held-out rows: no neighbour at distance 0
	_, sd := split.Words.ColumnMeanSD()
	statstest.EqualWordVariance(sd, split.Words, full, 2)
	statstest.EqualWordVariance(sd, test.Words, testFull, 2)
	dense := classify.Data{X: full, Y: split.Y, K: split.K}
	ts := stats.NewSparseMatrix(test.X, test.Words)
	m, got := probaOf(t, classify.KNN{}, split, ts)
	km := m.(*classify.KNNModel)
	fixed, err := classify.FitKNNAt(split, km.K(), km.DistanceWeighted())
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(got, proba(fixed, ts)); d != 0 {
		t.Fatalf("the searched fit (k %d distance %v) differs from the fixed fit by %g", km.K(), km.DistanceWeighted(), d)
	}
	for _, distance := range []bool{false, true} {
		a, err := classify.FitKNNAt(split, 10, distance)
		if err != nil {
			t.Fatal(err)
		}
		b, err := classify.FitKNNAt(dense, 10, distance)
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := proba(a, ts), proba(b, testFull)
		d := maxDiff(pa, pb)
		if d > knnWordsTol {
			t.Fatalf("10-NN distance %v: words and dense probabilities differ by %g", distance, d)
		}
		if !distance && d != 0 {
			t.Fatalf("uniform votes differ by %g: the neighbours differ", d)
		}
		t.Logf("10-NN distance %v: within %g of the dense fit", distance, d)
		if d := maxDiff(proba(a, ts.ToDense()), pa); d != 0 {
			t.Fatalf("the model reads dense rows differently from split ones: %g", d)
		}
		blob, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := b.MarshalBinary(); len(blob) >= len(raw)/4 {
			t.Fatalf("words model of %d bytes, the dense one %d: the words are not stored sparsely", len(blob), len(raw))
		}
		back, err := classify.Unmarshal(blob)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(proba(back, ts), pa); d != 0 {
			t.Fatalf("round trip changed the probabilities by %g", d)
		}
		for cut := 0; cut < len(blob); cut += 1 + cut/32 {
			if _, err := classify.Unmarshal(blob[:cut]); err == nil {
				t.Fatalf("%d of %d bytes decoded without an error", cut, len(blob))
			}
		}
	}
}

// Words alone (no dense column) fit, predict and round-trip; a refit on
// other rows keeps k and the weighting.
func TestKNNWordsOnly(t *testing.T) {
	split, full := wordsData(200, 80, 2, 12)
	_, sd := split.Words.ColumnMeanSD()
	statstest.EqualWordVariance(sd, split.Words, full, 2) // the pooled factor then equals per-column z-scores
	split.X = nil
	xs := stats.NewSparseMatrix(nil, split.Words)
	m, got := probaOf(t, classify.KNN{}, split, xs)
	dense := classify.Data{X: mat.DenseCopyOf(full.Slice(0, 200, 2, 82)), Y: split.Y, K: split.K}
	if _, want := probaOf(t, classify.KNN{}, dense, dense.X); maxDiff(got, want) > knnWordsTol {
		t.Fatalf("words-only fit differs from the dense fit by %g", maxDiff(got, want))
	}
	sub := classify.Data{Words: split.Words.SelectRows([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), Y: split.Y[:12], K: 2}
	r, err := m.Refit(sub, classify.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.(*classify.KNNModel).K() != m.(*classify.KNNModel).K() {
		t.Fatal("refit changed k")
	}
	blob, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := classify.Unmarshal(blob)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(proba(back, xs), proba(r, xs)); d != 0 {
		t.Fatalf("round trip changed the probabilities by %g", d)
	}
}

// A k-NN model of the old bounded kind (a dense k-NN on X and the best
// words, framed by stats.MarshalBounded, as fits with words saved before
// k-NN read them sparsely) still decodes and predicts as its inner model
// does on the bounded block.
func TestKNNOldBoundedModelDecodes(t *testing.T) {
	split, _ := wordsData(120, 600, 3, 13)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	words := stats.BoundedWords(600, nil)
	block := xs.DenseColumns(words)
	inner, err := classify.FitKNNAt(classify.Data{X: block, Y: split.Y, K: 3}, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := oldBounded(t, inner, words)
	if m.Key() != "knn" {
		t.Fatalf("decoded key %s", m.Key())
	}
	if d := maxDiff(proba(m, xs), proba(inner, block)); d != 0 {
		t.Fatalf("the old bounded model predicts %g from its inner model", d)
	}
}

// FuzzKNNUnmarshal feeds the k-NN decoder (wire 1, and wire 2 with the
// words as CSR) arbitrary bytes: it rejects them or decodes a model whose
// own bytes decode again, never panics. Seeds: a fit without words and
// one with words.
func FuzzKNNUnmarshal(f *testing.F) {
	split, full := wordsData(60, 40, 3, 5)
	for _, d := range []classify.Data{{X: full, Y: split.Y, K: split.K}, split} {
		m, err := classify.KNN{}.Fit(d, classify.Options{Seed: 1, Workers: 1})
		if err != nil {
			f.Fatal(err)
		}
		b, _ := m.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m, err := classify.Unmarshal(data)
		if err != nil {
			return
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := classify.Unmarshal(b); err != nil {
			t.Fatalf("a decoded %s model's own bytes: %v", m.Key(), err)
		}
	})
}
