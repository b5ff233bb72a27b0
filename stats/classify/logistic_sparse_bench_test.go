package classify_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vaticml/vatic/stats/classify"
)

// sparseBenchData is the shape of a text session's training set: 4 000
// rows of 1 000 TF-IDF-like columns in 6 topics, with balance weights.
func sparseBenchData(density float64) classify.Data {
	return linBalance(sparseText(4000, 1000, 6, density, 1))
}

// BenchmarkLogisticLoss times one evaluation of the logistic loss and its
// gradient on each path over a ladder of densities (the share of
// non-zero entries), which is where logisticSparseDensity comes from:
//
//	go test -run '^$' -bench LogisticLoss -count 6 ./stats/classify
func BenchmarkLogisticLoss(b *testing.B) {
	for _, density := range []float64{0.015, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5} {
		d := sparseBenchData(density)
		_, p := d.X.Dims()
		rng := rand.New(rand.NewPCG(1, 2))
		theta := make([]float64, d.K*(p+1))
		for i := range theta {
			theta[i] = 0.1 * rng.NormFloat64()
		}
		grad := make([]float64, len(theta))
		for _, path := range []string{"dense", "sparse"} {
			b.Run(fmt.Sprintf("density=%g/%s", density, path), func(b *testing.B) {
				restore := classify.ForceLogisticPath(path)
				loss := classify.LogisticLoss(d)
				restore()
				for b.Loop() {
					loss(theta, grad)
				}
			})
		}
	}
}

// BenchmarkLogisticSparseFit times Fit (C search included) of both
// logistic regressions on 4 000 × 1 000 at 1.5 % non-zeros, 6 classes,
// on each path, with two workers. The dense path takes minutes:
//
//	go test -run '^$' -bench LogisticSparseFit -benchtime 1x ./stats/classify
func BenchmarkLogisticSparseFit(b *testing.B) {
	d := sparseBenchData(0.015)
	for _, alg := range []classify.Algorithm{classify.LogisticL2{}, classify.LogisticL1{}} {
		for _, path := range []string{"dense", "sparse"} {
			b.Run(alg.Key()+"/"+path, func(b *testing.B) {
				defer classify.ForceLogisticPath(path)()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := alg.Fit(d, classify.Options{Seed: 1, Workers: 2}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
