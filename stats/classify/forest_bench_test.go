package classify_test

import (
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/wordsim"
)

// benchEnv is the positive integer in environment variable name, or def.
func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkForestWords fits the random forest on wordsim.Bench's text-like
// rows (3 dense columns, 1 000 Zipf words, about 30 a row, three classes;
// VATIC_BENCH_WORDS_ROWS training rows, default 80 000, and a quarter as
// many held out) with VATIC_FOREST_BENCH_TREES trees (default 10; the
// forest's 200 cost 20 times as much) on 2 workers, and reports the
// held-out macro-F1 (VATIC_FOREST_BENCH_MTRY, when set, replaces the
// candidates a node).
func BenchmarkForestWords(b *testing.B) {
	trees := benchEnv("VATIC_FOREST_BENCH_TREES", 10)
	train, test := wordsim.Bench(3)
	nt := len(test.Class)
	d := classify.Data{X: train.Dense, Words: train.Words, Y: train.Class, K: 3}
	b.ResetTimer()
	for range b.N {
		m, err := classify.FitForestTrees(d, trees, benchEnv("VATIC_FOREST_BENCH_MTRY", 0), classify.Options{Seed: 1, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		p := mat.NewDense(nt, 3, nil)
		m.Proba(test.Matrix(), p)
		var tp, fp, fn [3]float64
		for i := range nt {
			got := 0
			for c := range 3 {
				if p.At(i, c) > p.At(i, got) {
					got = c
				}
			}
			if want := test.Class[i]; got == want {
				tp[got]++
			} else {
				fp[got]++
				fn[want]++
			}
		}
		var f1 float64
		for c := range 3 {
			if tp[c] > 0 {
				f1 += 2 * tp[c] / (2*tp[c] + fp[c] + fn[c]) / 3
			}
		}
		b.ReportMetric(f1, "macroF1")
	}
}
