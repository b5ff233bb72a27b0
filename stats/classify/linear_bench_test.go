package classify_test

import (
	"testing"

	"github.com/vaticml/vatic/stats/classify"
)

// BenchmarkLinearFit times Fit (hyper-parameter search included) of each
// algorithm on breast cancer (569 rows × 30 columns, 2 classes) with
// balance weights and two workers. Compare runs with
//
//	go test -run '^$' -bench LinearFit -count 6 ./stats/classify | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkLinearFit(b *testing.B) {
	d := linBalance(loadCSV(b, "breast_cancer"))
	rows := len(d.Y)
	for _, tc := range linAlgorithms {
		b.Run(tc.key, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.alg.Fit(d, classify.Options{Seed: 1, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkLinearProba times Proba of the 569 breast cancer rows with a
// model fitted on them.
func BenchmarkLinearProba(b *testing.B) {
	d := linBalance(loadCSV(b, "breast_cancer"))
	rows := len(d.Y)
	for _, tc := range linAlgorithms {
		b.Run(tc.key, func(b *testing.B) {
			m, err := tc.alg.Fit(d, classify.Options{Seed: 1, Workers: 2})
			if err != nil {
				b.Fatal(err)
			}
			dst := proba(m, d.X)
			b.ReportAllocs()
			for b.Loop() {
				m.Proba(d.X, dst)
			}
			b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
