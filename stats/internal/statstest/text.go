package statstest

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// Text is a synthetic text-like data set for the sparse families'
// benchmarks: n rows of dense N(0, 1) columns and words word columns,
// each row perRow word tokens drawn with Zipf frequencies (s = 1.1, so a
// few words are in most rows and most are rare), valued by term count ×
// an idf-like 1 + ln(1 + rank) and L2-normalised, so every non-zero is in
// (0, 1] as TF-IDF's. score is a latent target: the first two dense
// columns plus a random effect of each word times its value, plus
// N(0, 1/4) noise; regression can fit it, classification can cut it.
func Text(n, dense, words, perRow int, seed uint64) (x *mat.Dense, w *stats.CSR, score []float64) {
	rng := rand.New(rand.NewPCG(seed, 16))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(words-1))
	effect := make([]float64, words)
	for j := range effect {
		effect[j] = rng.NormFloat64()
	}
	x = mat.NewDense(n, dense, nil)
	w = stats.NewCSR(n, words, n*perRow)
	score = make([]float64, n)
	count := make([]float64, words)
	var cols []int32
	var vals []float64
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		cols, vals = cols[:0], vals[:0]
		for range perRow {
			j := int(zipf.Uint64())
			if count[j] == 0 {
				cols = append(cols, int32(j))
			}
			count[j]++
		}
		slices.Sort(cols)
		var norm float64
		for _, j := range cols {
			v := count[j] * (1 + math.Log1p(float64(j)))
			count[j] = 0
			vals = append(vals, v)
			norm += v * v
		}
		norm = math.Sqrt(norm)
		s := 0.5 * rng.NormFloat64()
		if dense > 0 {
			s += row[0]
		}
		if dense > 1 {
			s += 0.5 * row[1]
		}
		for k, j := range cols {
			vals[k] /= norm
			s += 3 * effect[j] * vals[k]
		}
		w.AppendRow(cols, vals)
		score[i] = s
	}
	return x, w, score
}

// TextSplit is Text's rows for a benchmark: VATIC_FOREST_BENCH_ROWS
// training rows (def when unset) and a quarter as many held out, as
// SparseMatrix rows, with the latent score of each.
func TextSplit(def int, seed uint64) (train, test *stats.SparseMatrix, trainScore, testScore []float64) {
	n := EnvInt("VATIC_FOREST_BENCH_ROWS", def)
	x, words, score := Text(n+n/4, 3, 1000, 30, seed)
	all := stats.NewSparseMatrix(x, words)
	rows := func(lo, hi int) []int {
		r := make([]int, hi-lo)
		for i := range r {
			r[i] = lo + i
		}
		return r
	}
	return all.SelectRows(rows(0, n)), all.SelectRows(rows(n, n+n/4)), score[:n], score[n:]
}

// EnvInt is the positive integer in environment variable name, or def.
func EnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// EqualWordVariance divides each word column j with sd[j] > 0 by sd[j],
// in the words and in their dense copy (whose word columns start at
// column off). With sd the training words' sds (stats.CSR.ColumnMeanSD),
// every varying training word column then has sd 1, so a dense fit's
// per-column z-scores and k-NN's pooled word factor coincide up to
// rounding (the k-NN families' words tests); held-out rows are scaled by
// the same sd.
func EqualWordVariance(sd []float64, w *stats.CSR, full *mat.Dense, off int) {
	for k, j := range w.Indices {
		if s := sd[j]; s > 0 {
			w.Data[k] /= s
		}
	}
	r, _ := full.Dims()
	for i := range r {
		for j, s := range sd {
			if s > 0 {
				full.Set(i, off+j, full.At(i, off+j)/s)
			}
		}
	}
}
