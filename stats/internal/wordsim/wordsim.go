// Package wordsim simulates the training sets of a text session for the
// tests and benchmarks of the families that read words (issue 16): a few
// dense columns and a CSR block of TF-IDF-like word columns, with a
// regression target and a class that both depend on dense columns and
// words. Only tests import it.
package wordsim

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// Set is a simulated training set: Dense (n × dense, nil with no dense
// column) and Words (n × words) are the rows, Y the regression target and
// Class the class (0…K−1) of each row.
type Set struct {
	Dense *mat.Dense
	Words *stats.CSR
	Y     []float64
	Class []int
	K     int
}

// Make simulates n rows of dense normal columns and words word columns
// with about perRow draws of a word a row, the word's rank Zipf-distributed
// (exponent 1.1, so the commonest words are in most rows and the rarest in
// a few), each value (1 + log count)·idf with idf = 1 + log(1 + rank),
// rows normalised to unit L2 norm: values in (0, 1]. The target is
// x₀ − x₁x₂ plus 3·Σ effect·value over the row's words (effects standard
// normal) plus noise of SD 0.5; the class of k is the argmax over k of a
// score of the same kind with effects of its own plus Gumbel noise.
func Make(n, dense, words, perRow, k int, seed uint64) Set {
	rng := rand.New(rand.NewPCG(seed, 16))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(words-1))
	effect := make([]float64, words*(k+1)) // regression, then each class
	for j := range effect {
		effect[j] = rng.NormFloat64()
	}
	s := Set{Words: stats.NewCSR(n, words, n*perRow), Y: make([]float64, n), Class: make([]int, n), K: k}
	if dense > 0 {
		s.Dense = mat.NewDense(n, dense, nil)
	}
	count := map[int32]int{}
	var cols []int32
	var vals []float64
	score := make([]float64, k)
	for i := range n {
		clear(count)
		for range perRow {
			count[int32(zipf.Uint64())]++
		}
		cols = cols[:0]
		for j := range count {
			cols = append(cols, j)
		}
		slices.Sort(cols)
		vals = vals[:0]
		var norm float64
		for _, j := range cols {
			v := (1 + math.Log(float64(count[j]))) * (1 + math.Log(2+float64(j)))
			vals = append(vals, v)
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for u := range vals {
			vals[u] /= norm
		}
		s.Words.AppendRow(cols, vals)

		var x [3]float64
		if dense > 0 {
			row := s.Dense.RawRowView(i)
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			copy(x[:], row)
		}
		y := x[0] - x[1]*x[2]
		for c := range score {
			score[c] = x[min(c, 2)]
		}
		for u, j := range cols {
			y += 3 * effect[j] * vals[u]
			for c := range score {
				score[c] += 3 * effect[(c+1)*words+int(j)] * vals[u]
			}
		}
		s.Y[i] = y + 0.5*rng.NormFloat64()
		best := 0
		for c := range score {
			score[c] -= math.Log(-math.Log(rng.Float64())) // Gumbel noise
			if score[c] > score[best] {
				best = c
			}
		}
		s.Class[i] = best
	}
	return s
}

// Rows is s's rows lo…hi−1.
func (s Set) Rows(lo, hi int) Set {
	rows := make([]int, hi-lo)
	for i := range rows {
		rows[i] = lo + i
	}
	out := Set{Words: s.Words.SelectRows(rows), Y: s.Y[lo:hi], Class: s.Class[lo:hi], K: s.K}
	if s.Dense != nil {
		_, c := s.Dense.Dims()
		out.Dense = mat.DenseCopyOf(s.Dense.Slice(lo, hi, 0, c))
	}
	return out
}

// Matrix is s's rows as one stats.SparseMatrix.
func (s Set) Matrix() *stats.SparseMatrix { return stats.NewSparseMatrix(s.Dense, s.Words) }

// Bench is the training and test rows of the families' word benchmarks:
// VATIC_BENCH_WORDS_ROWS (default 80 000) training rows and a quarter as
// many test rows of 3 dense columns and 1 000 words, about 30 draws of a
// word a row, k classes, seed 1.
func Bench(k int) (train, test Set) {
	n := 80_000
	if s := os.Getenv("VATIC_BENCH_WORDS_ROWS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v >= 10 {
			n = v
		}
	}
	all := Make(n+n/4, 3, 1000, 30, k, 1)
	return all.Rows(0, n), all.Rows(n, n+n/4)
}
