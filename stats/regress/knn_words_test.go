package regress_test

import (
	"testing"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/statstest"
	"github.com/vaticml/vatic/stats/regress"
)

// knnWordsTol bounds, relative, how far k-NN on words (every varying
// word divided by one pooled factor, not centred; the expanded distance
// then exact recomputation) is from k-NN on the same rows as dense
// columns (z-scored) when every varying word column has sd 1
// (statstest.EqualWordVariance): the squared distances differ by rounding
// (centring first, then dividing by sds of about 1), a few ulps, so the
// same neighbours are found and only the 1/distance weights move, by
// about 1e-15.
const knnWordsTol = 1e-12

// k-NN on X and a CSR of 600 words (past stats.MaxDenseWords) whose
// varying columns have equal training variances, so that the pooled word
// factor and per-column z-scores coincide, equals k-NN on the same rows
// as one dense matrix: with k and either weighting forced the held-out
// predictions agree to knnWordsTol. The search (cross-validated, each
// fold pooling its own rows' variances, which no longer all equal 1)
// picks a k and weighting whose fixed fit it equals. The model reads a
// SparseMatrix and its ToDense alike, survives its bytes, rejects their
// truncations, and its bytes hold the words sparsely.
func TestKNNWordsMatchDense(t *testing.T) {
	split, full := wordsData(400, 600, 21)
	test, testFull := wordsData(100, 600, 22)
	_, sd := split.Words.ColumnMeanSD()
	statstest.EqualWordVariance(sd, split.Words, full, 2)
	statstest.EqualWordVariance(sd, test.Words, testFull, 2)
	ts := stats.NewSparseMatrix(test.X, test.Words)
	m, got := predictOf(t, regress.KNN{}, split, ts)
	km := m.(*regress.KNNModel)
	fixed, err := regress.FitKNNWords(split, km.K(), km.DistanceWeighted())
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(got))
	fixed.Predict(ts, want)
	if d := relDiff(got, want); d != 0 {
		t.Fatalf("the searched fit (k %d distance %v) differs from the fixed fit by %g relative", km.K(), km.DistanceWeighted(), d)
	}
	for _, distance := range []bool{false, true} {
		a, err := regress.FitKNNWords(split, 10, distance)
		if err != nil {
			t.Fatal(err)
		}
		b, err := regress.FitKNNAt(full, split.Y, 10, distance)
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := make([]float64, 100), make([]float64, 100)
		a.Predict(ts, pa)
		b.Predict(testFull, pb)
		d := relDiff(pa, pb)
		if d > knnWordsTol {
			t.Fatalf("10-NN distance %v: words and dense predictions differ by %g relative", distance, d)
		}
		if !distance && d != 0 {
			t.Fatalf("uniform averages differ by %g: the neighbours differ", d)
		}
		t.Logf("10-NN distance %v: within %g of the dense fit, relative", distance, d)
		again := make([]float64, 100)
		a.Predict(ts.ToDense(), again)
		if relDiff(again, pa) != 0 {
			t.Fatalf("the model reads dense rows differently from split ones: %g", relDiff(again, pa))
		}
		blob, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := b.MarshalBinary(); len(blob) >= len(raw)/4 {
			t.Fatalf("words model of %d bytes, the dense one %d: the words are not stored sparsely", len(blob), len(raw))
		}
		back, err := regress.Unmarshal(blob)
		if err != nil {
			t.Fatal(err)
		}
		back.Predict(ts, again)
		if relDiff(again, pa) != 0 {
			t.Fatalf("round trip changed the predictions by %g", relDiff(again, pa))
		}
		for cut := 0; cut < len(blob); cut += 1 + cut/32 {
			if _, err := regress.Unmarshal(blob[:cut]); err == nil {
				t.Fatalf("%d of %d bytes decoded without an error", cut, len(blob))
			}
		}
	}
	// The refit keeps k and the weighting, on the training rows as Fit.
	r, err := m.Refit(split, regress.Options{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	again := make([]float64, 100)
	r.Predict(ts, again)
	if relDiff(again, got) != 0 {
		t.Fatalf("refit on the same rows predicts %g from the fit", relDiff(again, got))
	}
}

// A k-NN model of the old bounded kind (a dense k-NN on X and the best
// words, framed by stats.MarshalBounded, as fits with words saved before
// k-NN read them sparsely) still decodes and predicts as its inner model
// does on the bounded block.
func TestKNNOldBoundedModelDecodes(t *testing.T) {
	split, _ := wordsData(120, 600, 23)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	words := stats.BoundedWords(600, nil)
	block := xs.DenseColumns(words)
	inner, err := regress.FitKNNAt(block, split.Y, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := oldBounded(t, inner, words)
	if m.Key() != "knn" {
		t.Fatalf("decoded key %s", m.Key())
	}
	got, want := make([]float64, 120), make([]float64, 120)
	m.Predict(xs, got)
	inner.Predict(block, want)
	if relDiff(got, want) != 0 {
		t.Fatalf("the old bounded model predicts %g from its inner model", relDiff(got, want))
	}
}

// FuzzKNNUnmarshal feeds the k-NN decoder (wire 1, and wire 2 with the
// words as CSR) arbitrary bytes: it rejects them or decodes a model whose
// own bytes decode again, never panics. Seeds: a fit without words and
// one with words.
func FuzzKNNUnmarshal(f *testing.F) {
	split, full := wordsData(60, 40, 5)
	for _, d := range []regress.Data{{X: full, Y: split.Y}, split} {
		m, err := regress.KNN{}.Fit(d, regress.Options{Seed: 1, Workers: 1})
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
		m, err := regress.Unmarshal(data)
		if err != nil {
			return
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := regress.Unmarshal(b); err != nil {
			t.Fatalf("a decoded %s model's own bytes: %v", m.Key(), err)
		}
	})
}
