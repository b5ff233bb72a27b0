package classify_test

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/statstest"
)

// BenchmarkForestWords fits the random forest on text-like rows
// (statstest.Text: 3 dense columns, 1 000 words, 30 Zipf tokens a row;
// VATIC_FOREST_BENCH_ROWS training rows, default 80 000, and a quarter as
// many held out), three classes by the latent score's tertiles, with
// VATIC_FOREST_BENCH_TREES trees (default 10; the forest's 200 cost 20
// times as much) on 2 workers, and reports the held-out macro-F1
// (VATIC_FOREST_BENCH_MTRY, when set, replaces the candidates a node).
func BenchmarkForestWords(b *testing.B) {
	trees := statstest.EnvInt("VATIC_FOREST_BENCH_TREES", 10)
	train, test, score, testScore := statstest.TextSplit(80_000, 1)
	n := len(score)
	score = append(score, testScore...)
	cuts := slices.Clone(score[:n])
	slices.Sort(cuts)
	y := make([]int, len(score))
	for i, s := range score {
		for _, c := range []float64{cuts[n/3], cuts[2*n/3]} {
			if s > c {
				y[i]++
			}
		}
	}
	d := classify.Data{X: train.Dense, Words: train.Words, Y: y[:n], K: 3}
	b.ResetTimer()
	for range b.N {
		m, err := classify.FitForestTrees(d, trees, statstest.EnvInt("VATIC_FOREST_BENCH_MTRY", 0), classify.Options{Seed: 1, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		p := mat.NewDense(n/4, 3, nil)
		m.Proba(test, p)
		var tp, fp, fn [3]float64
		for i := range n / 4 {
			got := 0
			for c := range 3 {
				if p.At(i, c) > p.At(i, got) {
					got = c
				}
			}
			if want := y[n+i]; got == want {
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
