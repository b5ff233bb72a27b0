package regress_test

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/wordsim"
	"github.com/vaticml/vatic/stats/regress"
)

// Boosting on the words as a CSR block grows the trees of boosting on the
// same rows as one dense matrix: the same splits, predictions within
// 1e-12 relative (a word's zero bin sums as the node's totals minus its
// non-zeros, which rounds otherwise than the dense sum of its zeros; the
// targets are continuous, so no two splits tie and the rounding stays in
// the last bits of the leaf values). Past stats.MaxDenseWords words every
// word is a candidate: the 3 000 × 700 fit splits on words beyond the
// 500th. With or without dense columns.
func TestGBMWordsMatchDense(t *testing.T) {
	for _, c := range []struct {
		n, words int
		noDense  bool
	}{{400, 60, false}, {400, 60, true}, {3000, 700, false}} {
		split, full := wordsData(c.n, c.words, 1)
		if c.noDense {
			split.X = nil
			full = mat.DenseCopyOf(full.Slice(0, c.n, 2, 2+c.words))
		}
		xs := stats.NewSparseMatrix(split.X, split.Words)
		for _, rounds := range []int{1, 5, 30} {
			dm := regress.FitGBMFixed(full, split.Y, 31, rounds, 1)
			want := make([]float64, c.n)
			dm.Predict(full, want)
			sm := regress.FitGBMWords(split, 31, rounds, 1, 2)
			got := make([]float64, c.n)
			sm.Predict(xs, got)
			if d := relDiff(got, want); d > 1e-12 {
				t.Fatalf("%d×%d, %d rounds: predictions differ from the dense fit's by %g relative", c.n, c.words, rounds, d)
			}
			late := 0.0
			for j, v := range sm.Importance() {
				if j >= 2+stats.MaxDenseWords {
					late += v
				}
			}
			if c.words > stats.MaxDenseWords && rounds == 30 && late == 0 {
				t.Fatalf("%d×%d: no split on a word past the %dth", c.n, c.words, stats.MaxDenseWords)
			}
		}
	}
}

// A refit on words keeps the leaves and rounds of the fit
// (TestWordsMatchDense reads the model's rows and bytes), and rows of
// words that disagree with the targets are an error.
func TestGBMWordsModel(t *testing.T) {
	split, _ := wordsData(600, 80, 5)
	m, err := regress.GradientBoosting{}.Fit(split, regress.Options{Seed: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Refit(split, regress.Options{Seed: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	leaves, rounds := regress.GBMShape(m)
	if l, n := regress.GBMShape(r); l != leaves || n != rounds {
		t.Fatalf("refit has %d leaves, %d rounds, the fit %d, %d", l, n, leaves, rounds)
	}
	if _, err := (regress.GradientBoosting{}).Fit(regress.Data{Words: split.Words, Y: split.Y[:9]}, regress.Options{}); err == nil {
		t.Fatal("a fit of 600 rows of words and 9 targets gave no error")
	}
}

// A boosted model of the bounded kind (stats.MarshalBounded of a fit on
// the dense columns and the best words, what fits with words saved
// before boosting read the words sparsely) still decodes and predicts
// rows of every column.
func TestGBMOldBoundedModel(t *testing.T) {
	split, _ := wordsData(300, 600, 6)
	xs := stats.NewSparseMatrix(split.X, split.Words)
	words := stats.BoundedWords(600, nil)
	block := xs.DenseColumns(words)
	inner, err := regress.GradientBoosting{}.Fit(regress.Data{X: block, Y: split.Y}, regress.Options{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := oldBounded(t, inner, words)
	want, got := make([]float64, 300), make([]float64, 300)
	inner.Predict(block, want)
	m.Predict(xs, got)
	if d := relDiff(got, want); d != 0 || m.Key() != "gbm" || len(m.Importance()) != 602 {
		t.Fatalf("the bounded model decodes as %s with %d importances, predictions %g from its inner model's", m.Key(), len(m.Importance()), d)
	}
}

// BenchmarkGBMWords fits gradient boosting at VATIC_BENCH_WORDS_ROWS
// (default 80 000) training rows of 3 dense columns and 1 000 word columns
// (about 30 Zipf-distributed draws a row, wordsim.Make) and reports the
// RMSE on a quarter as many held-out rows: bounded is the fit before
// issue 16's sparse trees (the dense columns and the 500 commonest words
// as one dense block, as fitWords built with no word importance), sparse
// the fit on every word. Run one at a time with -benchtime 1x under
// /usr/bin/time -v for the peak memory.
func BenchmarkGBMWords(b *testing.B) {
	train, test := wordsim.Bench(3)
	for _, mode := range []string{"bounded", "sparse"} {
		b.Run(mode, func(b *testing.B) {
			var rmse float64
			var leaves, rounds int
			for b.Loop() {
				d := regress.Data{X: train.Dense, Words: train.Words, Y: train.Y}
				x := mat.Matrix(test.Matrix())
				start := time.Now()
				if mode == "bounded" {
					words := stats.BoundedWords(1000, nil)
					d = regress.Data{X: train.Matrix().DenseColumns(words), Y: train.Y}
					x = test.Matrix().DenseColumns(words)
				}
				m, err := regress.GradientBoosting{}.Fit(d, regress.Options{Seed: 1, Workers: 2})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "fit-s")
				p := make([]float64, len(test.Y))
				m.Predict(x, p)
				var s float64
				for i, y := range test.Y {
					s += (p[i] - y) * (p[i] - y)
				}
				rmse = math.Sqrt(s / float64(len(p)))
				leaves, rounds = regress.GBMShape(m)
			}
			b.ReportMetric(rmse, "RMSE")
			b.ReportMetric(float64(leaves), "leaves")
			b.ReportMetric(float64(rounds), "rounds")
		})
	}
}
