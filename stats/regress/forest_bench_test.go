package regress_test

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/vaticml/vatic/stats/internal/wordsim"
	"github.com/vaticml/vatic/stats/regress"
)

// benchTrees is VATIC_FOREST_BENCH_TREES, or 10.
func benchTrees() int {
	if v, err := strconv.Atoi(os.Getenv("VATIC_FOREST_BENCH_TREES")); err == nil && v > 0 {
		return v
	}
	return 10
}

// BenchmarkForestWords fits the random forest on wordsim.Bench's text-like
// rows (3 dense columns, 1 000 Zipf words, about 30 a row;
// VATIC_BENCH_WORDS_ROWS training rows, default 80 000, and a quarter as
// many held out) with VATIC_FOREST_BENCH_TREES trees (default 10; the
// forest's 200 cost 20 times as much) on 2 workers, and reports the
// held-out RMSE.
func BenchmarkForestWords(b *testing.B) {
	trees := benchTrees()
	train, test := wordsim.Bench(2)
	y, yTest := train.Y, test.Y
	d := regress.Data{X: train.Dense, Words: train.Words, Y: y}
	b.ResetTimer()
	for range b.N {
		m, err := regress.FitForestTrees(d, trees, regress.Options{Seed: 1, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		pred := make([]float64, len(yTest))
		m.Predict(test.Matrix(), pred)
		var sse float64
		for i, p := range pred {
			sse += (p - yTest[i]) * (p - yTest[i])
		}
		b.ReportMetric(math.Sqrt(sse/float64(len(pred))), "rmse")
	}
}
