//go:build unix

package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/regress"
)

// BenchmarkRegressionContest runs runRegression's whole contest (the six
// contestants' test fits, then the repeats × 5-fold cross-validation)
// on friedman1 training parts up to cvMaxTrainRows, with its 10 features
// or 40 columns of noise more, the budget of
// issue 14 ("a few seconds on 2 cores"). cpu-s/op is the process's user
// and system CPU time per contest, a figure other processes on the machine
// do not inflate as they do the wall time; cpu-s/op ÷ 2 bounds the wall
// time on two idle cores.
//
//	go test -tags 'duckdb_arrow assert' -run '^$' -bench RegressionContest -benchtime 3x ./engine/
func BenchmarkRegressionContest(b *testing.B) {
	x, y := measureCSV(b, "../stats/regress/testdata/friedman1.csv")
	workers := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ rows, noise int }{{300, 0}, {1250, 0}, {1250, 40}} { // 240 and 1 000 training rows; 10 or 50 features
		xs, ys := widen(denseRows(x, seq(c.rows)), c.noise), y[:c.rows]
		_, d := xs.Dims()
		seed := sessionSeed("5f0c2a8e-6b1d-4e3f-9a7c-1d2e3f4a5b6c")
		trainPos, testPos := split(seed, c.rows)
		xTrain, yTrain, xTest, yTest := denseRows(xs, trainPos), pick(ys, trainPos), denseRows(xs, testPos), pick(ys, testPos)
		for _, repeats := range []int{0, 3} {
			b.Run(fmt.Sprintf("train=%d/features=%d/repeats=%d", len(trainPos), d, repeats), func(b *testing.B) {
				cpu0 := cpuTime(b)
				for b.Loop() {
					if _, _, _, err := regressionContest(b.Context(), regress.Algorithms(), regress.Data{X: xTrain, Y: yTrain}, xTest, yTest, seed, workers, repeats, func(int) {}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// BenchmarkClassificationContest is BenchmarkRegressionContest for
// runClassification's contest (balanced, as by default): iris, wine and
// breast_cancer split as a session splits them, without and with
// cross-validation, and 800 training rows × 10 features of 2, 4 and 8
// classes (Gaussian clouds) for one repetition, the cost cvClassRepeats
// weighs by the number of classes.
//
//	go test -tags 'duckdb_arrow assert' -run '^$' -bench ClassificationContest -benchtime 1x ./engine/
func BenchmarkClassificationContest(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	seed := sessionSeed("5f0c2a8e-6b1d-4e3f-9a7c-1d2e3f4a5b6c")
	run := func(name string, x *mat.Dense, y []int, k int, repeats []int) {
		_, d := x.Dims()
		trainPos, testPos := stratifiedSplit(seed, y, k)
		yTrain := pick(y, trainPos)
		train := classify.Data{X: denseRows(x, trainPos), Y: yTrain, K: k, W: balanceWeights(yTrain, k)}
		xTest, yTest := denseRows(x, testPos), pick(y, testPos)
		for _, r := range repeats {
			b.Run(fmt.Sprintf("%s/train=%d/features=%d/classes=%d/repeats=%d", name, len(trainPos), d, k, r), func(b *testing.B) {
				cpu0 := cpuTime(b)
				for b.Loop() {
					if _, _, _, err := classificationContest(b.Context(), classify.Algorithms(), train, xTest, yTest, seed, workers, r, func(int) {}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
	for _, name := range []string{"iris", "wine", "breast_cancer"} {
		x, y, k := measureClassCSV(b, "../stats/classify/testdata/"+name+".csv")
		run(name, x, y, k, []int{0, 1, 3})
	}
	for _, k := range []int{2, 4, 8} {
		const n, d = 1000, 10
		rng := rand.New(rand.NewPCG(5, uint64(k)))
		x := mat.NewDense(n, d, nil)
		y := make([]int, n)
		for i := range n {
			y[i] = i % k
			for j := range d {
				x.Set(i, j, rng.NormFloat64()+0.7*float64((y[i]+j)%k))
			}
		}
		run("clouds", x, y, k, []int{0, 1})
	}
}

// widen appends extra columns of uniform noise to x.
func widen(x *mat.Dense, extra int) *mat.Dense {
	r, c := x.Dims()
	out := mat.NewDense(r, c+extra, nil)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range r {
		for j := range c + extra {
			if j < c {
				out.Set(i, j, x.At(i, j))
			} else {
				out.Set(i, j, rng.Float64())
			}
		}
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
