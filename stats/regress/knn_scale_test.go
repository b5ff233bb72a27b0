package regress_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/regress"
)

// knnText is a synthetic text training set at scale (issue 16): rows of 3
// dense columns and 1 000 words, about 30 tokens a row drawn half from a
// global Zipf vocabulary and half from a Zipf over the row's topic's own
// ordering of it, the words' values TF-IDF (log idf + 1) over the rows,
// each row L2-normalised, so values lie in (0, 1]. The class is the
// topic (one in ten relabelled at random); the regression target a topic
// effect plus the first dense column plus noise.
type knnText struct {
	x     *mat.Dense
	words *stats.CSR
	class []int
	y     []float64
}

const knnTextTopics = 4

func newKNNText(n, vocab, tokens int, seed uint64) knnText {
	rng := rand.New(rand.NewPCG(seed, 17))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	perm := make([][]int, knnTextTopics)
	for c := range perm {
		perm[c] = rng.Perm(vocab)
	}
	effect := []float64{-3, -1, 1, 3}
	d := knnText{x: mat.NewDense(n, 3, nil), class: make([]int, n), y: make([]float64, n)}
	counts := make([]map[int32]float64, n)
	df := make([]float64, vocab)
	for i := range n {
		c := rng.IntN(knnTextTopics)
		d.x.Set(i, 0, 0.5*float64(c)+rng.NormFloat64())
		d.x.Set(i, 1, rng.NormFloat64())
		d.x.Set(i, 2, 100+10*rng.NormFloat64())
		d.y[i] = effect[c] + d.x.At(i, 0) + rng.NormFloat64()
		d.class[i] = c
		if rng.Float64() < 0.1 {
			d.class[i] = rng.IntN(knnTextTopics)
		}
		m := map[int32]float64{}
		for range tokens {
			w := int(zipf.Uint64())
			if rng.Float64() < 0.5 {
				w = perm[c][w]
			}
			if m[int32(w)] == 0 {
				df[w]++
			}
			m[int32(w)]++
		}
		counts[i] = m
	}
	d.words = stats.NewCSR(n, vocab, n*tokens)
	var cols []int32
	var vals []float64
	for i := range n {
		cols = cols[:0]
		for w := range counts[i] {
			cols = append(cols, w)
		}
		slices.Sort(cols)
		vals = vals[:0]
		var ss float64
		for _, w := range cols {
			v := counts[i][w] * (math.Log(float64(n)/df[w]) + 1)
			vals = append(vals, v)
			ss += v * v
		}
		for t := range vals {
			vals[t] /= math.Sqrt(ss)
		}
		d.words.AppendRow(cols, vals)
	}
	return d
}

// rows is the given rows of d.
func (d knnText) rows(r []int) knnText {
	s := stats.NewSparseMatrix(d.x, d.words).SelectRows(r)
	out := knnText{x: s.Dense, words: s.Words}
	for _, i := range r {
		out.class, out.y = append(out.class, d.class[i]), append(out.y, d.y[i])
	}
	return out
}

// importance is each word's summed |correlation| with the class
// indicators and the target, the stand-in for the session's word
// importance that picks the bounded block's words (old models).
func (d knnText) importance() []float64 {
	n := float64(d.words.Rows)
	targets := make([][]float64, knnTextTopics+1)
	for c := range knnTextTopics {
		targets[c] = make([]float64, d.words.Rows)
		for i, k := range d.class {
			if k == c {
				targets[c][i] = 1
			}
		}
	}
	targets[knnTextTopics] = d.y
	_, sd := d.words.ColumnMeanSD()
	imp := make([]float64, d.words.Cols)
	for _, t := range targets {
		var tm, ts float64
		for _, v := range t {
			tm += v
		}
		tm /= n
		for _, v := range t {
			ts += (v - tm) * (v - tm)
		}
		ts = math.Sqrt(ts / (n - 1))
		cov := make([]float64, d.words.Cols)
		for i := range d.words.Rows {
			c, v := d.words.Row(i)
			for k, j := range c {
				cov[j] += v[k] * (t[i] - tm)
			}
		}
		for j := range imp {
			if sd[j] > 0 && ts > 0 {
				imp[j] += math.Abs(cov[j] / (n - 1) / (sd[j] * ts))
			}
		}
	}
	return imp
}

// TestKNNTextScale fits both k-NN families on VATIC_KNN_SCALE training
// rows of knnText and predicts VATIC_KNN_PREDICT held-out rows (default
// 2 000) on 2 workers, logging fit and predict time, bytes allocated,
// model bytes and held-out macro-F1 / RMSE. It is a measurement, not a
// check: skipped unless VATIC_KNN_SCALE is set. Run the same test
// binary source against the bounded path (main) and the sparse one.
func TestKNNTextScale(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("VATIC_KNN_SCALE"))
	if err != nil {
		t.Skip("VATIC_KNN_SCALE unset: the k-NN text scale measurement is skipped")
	}
	nPred := 2000
	if v, err := strconv.Atoi(os.Getenv("VATIC_KNN_PREDICT")); err == nil {
		nPred = v
	}
	all := newKNNText(n+nPred, 1000, 30, 1)
	tr, te := make([]int, n), make([]int, nPred)
	for i := range tr {
		tr[i] = i
	}
	for i := range te {
		te[i] = n + i
	}
	train, test := all.rows(tr), all.rows(te)
	all = knnText{}
	imp := train.importance()
	xt := stats.NewSparseMatrix(test.x, test.words)
	t.Logf("train %d rows, %d word non-zeros (%.1f a row); predict %d rows", n, train.words.NNZ(), float64(train.words.NNZ())/float64(n), nPred)
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
			return classify.KNN{}.Fit(classify.Data{X: train.x, Words: train.words, WordImportance: imp, Y: train.class, K: knnTextTopics}, classify.Options{Seed: 1, Workers: 2})
		}, func(m any) string {
			p := mat.NewDense(nPred, knnTextTopics, nil)
			parallelRows(nPred, func(lo, hi int) {
				m.(classify.Model).Proba(xt.SelectRows(seq(lo, hi)), p.Slice(lo, hi, 0, knnTextTopics).(*mat.Dense))
			})
			pred := classify.Predict(p)
			f1 := stats.ClassificationMetrics(test.class, pred, knnTextTopics, nil)[stats.MacroAverageF1Score]
			return fmt.Sprintf("held-out macro-F1 %.4f", f1)
		})
	}
	if family == "" || family == "regress" {
		measure("regress knn", func() (any, error) {
			return regress.KNN{}.Fit(regress.Data{X: train.x, Words: train.words, WordImportance: imp, Y: train.y}, regress.Options{Seed: 1, Workers: 2})
		}, func(m any) string {
			p := make([]float64, nPred)
			parallelRows(nPred, func(lo, hi int) {
				m.(regress.Model).Predict(xt.SelectRows(seq(lo, hi)), p[lo:hi])
			})
			var se float64
			for i, v := range p {
				se += (v - test.y[i]) * (v - test.y[i])
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
