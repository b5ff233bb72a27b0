package regress_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/internal/statstest"
	"github.com/vaticml/vatic/stats/regress"
)

// BenchmarkForestWords fits the random forest on text-like rows
// (statstest.Text: 3 dense columns, 1 000 words, 30 Zipf tokens a row;
// VATIC_FOREST_BENCH_ROWS training rows, default 80 000, and a quarter as
// many held out) with VATIC_FOREST_BENCH_TREES trees (default 10; the
// forest's 200 cost 20 times as much) on 2 workers, and reports the
// held-out RMSE.
func BenchmarkForestWords(b *testing.B) {
	trees := statstest.EnvInt("VATIC_FOREST_BENCH_TREES", 10)
	train, test, y, yTest := statstest.TextSplit(80_000, 1)
	d := regress.Data{X: train.Dense, Words: train.Words, Y: y}
	b.ResetTimer()
	for range b.N {
		m, err := regress.FitForestTrees(d, trees, regress.Options{Seed: 1, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		pred := make([]float64, len(yTest))
		m.Predict(test, pred)
		var sse float64
		for i, p := range pred {
			sse += (p - yTest[i]) * (p - yTest[i])
		}
		b.ReportMetric(math.Sqrt(sse/float64(len(pred))), "rmse")
	}
}
