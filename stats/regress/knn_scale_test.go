package regress_test

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/wordsim"
	"github.com/vaticml/vatic/stats/regress"
)

// importance is each word's summed |correlation| with the class
// indicators and the target, the stand-in for the session's word

// TestKNNTextScale fits both k-NN families on wordsim.Bench's training
// rows (VATIC_BENCH_WORDS_ROWS, default 80 000: 3 dense columns and
// 1 000 Zipf words, about 30 draws a row) and predicts the first
// VATIC_KNN_PREDICT of its test rows (default all, a quarter as many) on
// 2 workers, logging fit and predict time, bytes allocated, model bytes
// and held-out macro-F1 (4 classes) / RMSE. The word importance (which
// only the old bounded models read) is each word's summed |correlation|
// with the targets. It is a measurement, not a check: skipped unless
// VATIC_KNN_SCALE is set; VATIC_KNN_FAMILY (classify or regress) runs
// one family. Build it against the bounded path (main) and the sparse one
// and run the two binaries alternately.
func TestKNNTextScale(t *testing.T) {
	if os.Getenv("VATIC_KNN_SCALE") == "" {
		t.Skip("VATIC_KNN_SCALE unset: the k-NN text scale measurement is skipped")
	}
	train, test := wordsim.Bench(4)
	n := train.Words.Rows
	nPred := test.Words.Rows
	if v, err := strconv.Atoi(os.Getenv("VATIC_KNN_PREDICT")); err == nil && v < nPred {
		nPred = v
		test = test.Rows(0, v)
	}
	xt := test.Matrix()
	t.Logf("train %d rows, %d word non-zeros (%.1f a row); predict %d rows", n, train.Words.NNZ(), float64(train.Words.NNZ())/float64(n), nPred)
	family := os.Getenv("VATIC_KNN_FAMILY")
	measure := func(name string, fit func() (any, error), predict func(m any) string) {
		runtime.GC()
		var m0, m1, m2 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		m, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		fitTime := time.Since(start)
		runtime.ReadMemStats(&m1)
		start = time.Now()
		score := predict(m)
		predTime := time.Since(start)
		runtime.ReadMemStats(&m2)
		blob, err := m.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var live runtime.MemStats
		runtime.ReadMemStats(&live)
		t.Logf("%s: fit %.2f s (%.0f MB allocated), predict %d rows %.2f s (%.0f MB allocated), model %.1f MB, live heap with the model %.0f MB, %s",
			name, fitTime.Seconds(), float64(m1.TotalAlloc-m0.TotalAlloc)/1e6, nPred, predTime.Seconds(),
			float64(m2.TotalAlloc-m1.TotalAlloc)/1e6, float64(len(blob))/1e6, float64(live.HeapAlloc)/1e6, score)
		runtime.KeepAlive(m)
	}
	if family == "" || family == "classify" {
		measure("classify knn", func() (any, error) {
			return classify.KNN{}.Fit(classify.Data{X: train.Dense, Words: train.Words, Y: train.Class, K: train.K}, classify.Options{Seed: 1, Workers: 2})
		}, func(m any) string {
			p := mat.NewDense(nPred, train.K, nil)
			parallelRows(nPred, func(lo, hi int) {
				m.(classify.Model).Proba(xt.SelectRows(seq(lo, hi)), p.Slice(lo, hi, 0, train.K).(*mat.Dense))
			})
			pred := classify.Predict(p)
			f1 := stats.ClassificationMetrics(test.Class, pred, train.K, nil)[stats.MacroAverageF1Score]
			return fmt.Sprintf("held-out macro-F1 %.4f", f1)
		})
	}
	if family == "" || family == "regress" {
		measure("regress knn", func() (any, error) {
			return regress.KNN{}.Fit(regress.Data{X: train.Dense, Words: train.Words, Y: train.Y}, regress.Options{Seed: 1, Workers: 2})
		}, func(m any) string {
			p := make([]float64, nPred)
			parallelRows(nPred, func(lo, hi int) {
				m.(regress.Model).Predict(xt.SelectRows(seq(lo, hi)), p[lo:hi])
			})
			var se float64
			for i, v := range p {
				se += (v - test.Y[i]) * (v - test.Y[i])
			}
			return fmt.Sprintf("held-out RMSE %.4f", math.Sqrt(se/float64(nPred)))
		})
	}
}

// parallelRows runs fn over [0, n) in two halves on two goroutines (the
// engine predicts in chunks on its workers).
func parallelRows(n int, fn func(lo, hi int)) {
	done := make(chan struct{})
	go func() { fn(0, n/2); done <- struct{}{} }()
	fn(n/2, n)
	<-done
}

// seq is lo..hi-1.
func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}
