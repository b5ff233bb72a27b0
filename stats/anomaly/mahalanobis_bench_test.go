package anomaly_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/mat"
)

// benchCols returns n rows of d correlated columns from a fixed seed:
// x = z·A with z uniform and A lower triangular with unit diagonal.
func benchCols(n, d int) [][]float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	cols := make([][]float64, d)
	for j := range cols {
		cols[j] = make([]float64, n)
		for i := range cols[j] {
			cols[j][i] = rng.Float64()
		}
	}
	for j := d - 1; j > 0; j-- {
		for i := range n {
			cols[j][i] += 0.5 * cols[j-1][i]
		}
	}
	return cols
}

// BenchmarkMahalanobisD2 times the D² kernel on 1 M rows (the metric is
// prepared once: Covariance is timed separately) with 2 workers. Besides
// rows/s it reports rows per CPU-second of the process (rows/cpu-s, both
// workers' time added), which a loaded machine distorts much less: on 2
// idle cores rows/s approaches twice rows/cpu-s. Compare runs with
//
//	go test -run '^$' -bench MahalanobisD2 -count 6 -cpu 2 ./stats/anomaly | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkMahalanobisD2(b *testing.B) {
	const n = 1 << 20
	for _, d := range []int{10, 20, 50} {
		cols := benchCols(n, d)
		mu, cov, err := anomaly.Covariance(cols, 2)
		if err != nil {
			b.Fatal(err)
		}
		m, err := anomaly.NewMetric(mu, cov, n)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]float64, n)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			b.SetBytes(int64(n * d * 8))
			c0 := cpuTime()
			for b.Loop() {
				m.D2(cols, dst, 2)
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
			if c := cpuTime() - c0; c > 0 {
				b.ReportMetric(float64(b.N)*n/c.Seconds(), "rows/cpu-s")
			}
		})
	}
}

// BenchmarkCovariance times the two-pass covariance on 1 M rows.
func BenchmarkCovariance(b *testing.B) {
	const n = 1 << 20
	for _, d := range []int{20, 50} {
		cols := benchCols(n, d)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			b.SetBytes(int64(n * d * 8))
			for b.Loop() {
				if _, _, err := anomaly.Covariance(cols, 2); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkFit times a fit (which scores the training rows for the
// offset) of each detector on 100 000 rows × 20 columns.
func BenchmarkFit(b *testing.B) {
	const n, d = 100_000, 20
	cols := benchCols(n, d)
	x := mat.NewDense(n, d, nil)
	for j, c := range cols {
		x.SetCol(j, c)
	}
	for _, a := range anomaly.Algorithms() {
		b.Run(a.Key(), func(b *testing.B) {
			for b.Loop() {
				if _, err := a.Fit(x, anomaly.Options{Seed: 1, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkForestScore times scoring 100 000 rows × 20 columns with
// forests fitted on 20, 200 and 2 000 of them: below 1 024 training rows
// the forest holds more, smaller trees (forestSize).
func BenchmarkForestScore(b *testing.B) {
	const n, d = 100_000, 20
	cols := benchCols(n, d)
	x := mat.NewDense(n, d, nil)
	for j, c := range cols {
		x.SetCol(j, c)
	}
	dst := make([]float64, n)
	for _, fit := range []int{20, 200, 2000} {
		b.Run(fmt.Sprintf("fit=%d", fit), func(b *testing.B) {
			m, err := anomaly.IsolationForest{}.Fit(x.Slice(0, fit, 0, d).(*mat.Dense), anomaly.Options{Seed: 1, Workers: 2})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				m.Score(x, dst)
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
