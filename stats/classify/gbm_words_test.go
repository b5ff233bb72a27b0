package classify_test

import (
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/wordsim"
)

// weighted gives d's rows distinct weights, so the gradients of a round
// take as many values as there are rows and no two candidate splits tie.
func weighted(d classify.Data) classify.Data {
	d.W = make([]float64, len(d.Y))
	for i := range d.W {
		d.W[i] = 0.5 + float64((i*7919)%1000)/1000
	}
	return d
}

// Boosting on the words as a CSR block grows the trees of boosting on the
// same rows as one dense matrix: the same splits, probabilities within
// 1e-12 (a word's zero bin sums as the node's totals minus its non-zeros,
// which rounds otherwise than the dense sum of its zeros; the difference
// stays in the last bits of the leaf values since no two splits tie under
// distinct weights: without them, as in TestWordsBlockMatchesDense, exact
// ties of two-valued gradients can break either way). Past
// stats.MaxDenseWords words every word is a candidate: the 3 000 × 700
// fit splits on words beyond the 500th.
func TestGBMWordsMatchDense(t *testing.T) {
	for _, c := range []struct{ n, words, k int }{{300, 60, 3}, {300, 60, 2}, {3000, 700, 3}} {
		split, full := wordsData(c.n, c.words, c.k, 1)
		split = weighted(split)
		dense := classify.Data{X: full, Y: split.Y, K: split.K, W: split.W}
		xs := stats.NewSparseMatrix(split.X, split.Words)
		for _, rounds := range []int{1, 5, 20} {
			want := mat.NewDense(c.n, c.k, nil)
			dm := classify.FitGBMFixed(dense, 31, rounds, 0, 1)
			dm.Proba(full, want)
			got := mat.NewDense(c.n, c.k, nil)
			sm := classify.FitGBMFixed(split, 31, rounds, 0, 2)
			sm.Proba(xs, got)
			if d := maxDiff(got, want); d > 1e-12 {
				t.Fatalf("%d×%d K %d, %d rounds: probabilities differ from the dense fit's by %g", c.n, c.words, c.k, rounds, d)
			}
			late := 0.0
			for j, v := range sm.Importance() {
				if j >= 2+stats.MaxDenseWords {
					late += v
				}
			}
			if c.words > stats.MaxDenseWords && rounds == 20 && late == 0 {
				t.Fatalf("%d×%d: no split on a word past the %dth", c.n, c.words, stats.MaxDenseWords)
			}
		}
	}
}

// A fit on words with early stopping rejects every truncation of its
// bytes (TestWordsBlockMatchesDense reads them back whole) and refits on
// words with its number of rounds.
func TestGBMWordsModel(t *testing.T) {
	split, _ := wordsData(600, 80, 3, 5)
	m, err := classify.GradientBoosting{}.Fit(split, classify.Options{Seed: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	blob, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(blob); cut += 1 + cut/64 {
		if _, err := classify.Unmarshal(blob[:cut]); err == nil {
			t.Fatalf("%d of %d bytes decoded without an error", cut, len(blob))
		}
	}
	r, err := m.Refit(split, classify.Options{Seed: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if classify.GBMRounds(r) != classify.GBMRounds(m) {
		t.Fatalf("refit boosted %d rounds, the fit %d", classify.GBMRounds(r), classify.GBMRounds(m))
	}
	if _, err := (classify.GradientBoosting{}).Fit(classify.Data{Words: split.Words, Y: split.Y[:10], K: 3}, classify.Options{}); err == nil {
		t.Fatal("a fit of 600 rows of words and 10 classes gave no error")
	}
}

// A boosted model of the bounded kind (stats.MarshalBounded of a fit on
// the dense columns and the best words, what fits with words saved
// before boosting read the words sparsely) still decodes and predicts
// rows of every column.
func TestGBMOldBoundedModel(t *testing.T) {
	split, _ := wordsData(300, 600, 3, 6)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	words := stats.BoundedWords(600, nil)
	block := xs.DenseColumns(words)
	inner, err := classify.GradientBoosting{}.Fit(classify.Data{X: block, Y: split.Y, K: 3}, classify.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := oldBounded(t, inner, words)
	want, got := mat.NewDense(300, 3, nil), mat.NewDense(300, 3, nil)
	inner.Proba(block, want)
	m.Proba(xs, got)
	if d := maxDiff(got, want); d != 0 || m.Key() != "gbm" || len(m.Importance()) != 602 {
		t.Fatalf("the bounded model decodes as %s with %d importances, probabilities %g from its inner model's", m.Key(), len(m.Importance()), d)
	}
}

// BenchmarkGBMWords fits gradient boosting at VATIC_BENCH_WORDS_ROWS
// (default 80 000) training rows of 3 dense columns and 1 000 word columns
// (about 30 Zipf-distributed draws a row, wordsim.Make, 3 classes) and
// reports the macro-F1 on a quarter as many held-out rows: bounded is
// the fit before issue 16's sparse trees (the dense columns and the 500
// commonest words as one dense block, as fitBounded built with no word
// importance), sparse the fit on every word. Run one at a time with
// -benchtime 1x under /usr/bin/time -v for the peak memory.
func BenchmarkGBMWords(b *testing.B) {
	train, test := wordsim.Bench(3)
	for _, mode := range []string{"bounded", "sparse"} {
		b.Run(mode, func(b *testing.B) {
			var f1 float64
			var rounds int
			for b.Loop() {
				d := classify.Data{X: train.Dense, Words: train.Words, Y: train.Class, K: 3}
				x := mat.Matrix(test.Matrix())
				start := time.Now()
				if mode == "bounded" {
					words := stats.BoundedWords(1000, nil)
					d = classify.Data{X: train.Matrix().DenseColumns(words), Y: train.Class, K: 3}
					x = test.Matrix().DenseColumns(words)
				}
				m, err := classify.GradientBoosting{}.Fit(d, classify.Options{Seed: 1, Workers: 2})
				if err != nil {
					b.Fatal(err)
				}
				fit := time.Since(start)
				p := mat.NewDense(len(test.Class), 3, nil)
				m.Proba(x, p)
				f1, rounds = macroF1(test.Class, classify.Predict(p), 3), classify.GBMRounds(m)
				b.ReportMetric(fit.Seconds(), "fit-s")
			}
			b.ReportMetric(f1, "macro-F1")
			b.ReportMetric(float64(rounds), "rounds")
		})
	}
}
