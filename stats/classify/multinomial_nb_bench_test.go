package classify_test

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/classify"
)

// BenchmarkMultinomialNBFit times Fit (the α search included) on
// text-like data: n rows × p term columns, three classes, each entry a
// count 0–3 that is non-zero with probability about 0.1, from splitmix.
// Gaussian naive Bayes (no search: one pass) on the same data is the
// anchor. Compare runs with
//
//	go test -run '^$' -bench MultinomialNBFit -count 6 ./stats/classify | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkMultinomialNBFit(b *testing.B) {
	for _, size := range []struct{ n, p int }{{1000, 100}, {10000, 500}} {
		u := splitmix(size.n * (size.p + 1))
		x := mat.NewDense(size.n, size.p, nil)
		y := make([]int, size.n)
		for i := range size.n {
			r := u[i*(size.p+1) : (i+1)*(size.p+1)]
			y[i] = int(3 * r[size.p])
			for j, v := range r[:size.p] {
				if j%3 == y[i] {
					v *= 0.7 // class y's terms are more frequent
				}
				if v < 0.1 {
					x.Set(i, j, float64(int(40*v)))
				}
			}
		}
		d := classify.Data{X: x, Y: y, K: 3}
		for _, a := range []classify.Algorithm{classify.MultinomialNB{}, classify.NaiveBayes{}} {
			b.Run(fmt.Sprintf("%s/%dx%d", a.Key(), size.n, size.p), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Fit(d, classify.Options{Seed: 1, Workers: 2}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(size.n)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
