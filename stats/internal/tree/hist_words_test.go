package tree

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// edgeCases are word columns as (non-zeros, zeros): few distinct values
// (midpoint edges), many (quantile edges), negative values, a dense
// column, a rare word and a word present in every row.
func edgeCases(rng *rand.Rand) [][]float64 {
	var cols [][]float64
	for _, c := range []struct {
		nz, zeros, distinct int
		neg                 bool
	}{{5, 100, 5, false}, {40, 2000, 1000, false}, {600, 400, 1000, false}, {300, 300, 1000, true}, {3, 10000, 3, false}, {500, 0, 1000, false}, {200, 50, 7, true}} {
		col := make([]float64, 0, c.nz+c.zeros)
		for range c.nz {
			v := float64(1+rng.IntN(c.distinct)) / float64(c.distinct)
			if c.neg && rng.IntN(2) == 0 {
				v = -v
			}
			col = append(col, v)
		}
		cols = append(cols, append(col, make([]float64, c.zeros)...))
	}
	return cols
}

// edgesSparse of a column's non-zeros and zero count is edgesOf of the
// column written out, to the bit.
func TestEdgesSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k, col := range edgeCases(rng) {
		sorted := slices.Sorted(slices.Values(col))
		var nz []float64
		for _, v := range sorted {
			if v != 0 {
				nz = append(nz, v)
			}
		}
		want := edgesOf(sorted)
		if got := edgesSparse(nz, len(col)-len(nz), MaxBins); !slices.Equal(got, want) {
			t.Errorf("column %d: edgesSparse = %v, edgesOf = %v", k, got, want)
		}
	}
}

// wordRows is n rows of d dense normal columns and w word columns of
// about 8 non-zeros a row (some words far more common than others, some
// values negative), as the split blocks and as one dense matrix; grad and
// hess are continuous (no two rows alike), so no two candidate splits tie
// and rounding cannot flip a choice.
func wordRows(n, d, w int, seed uint64) (x *mat.Dense, words *stats.CSR, full *mat.Dense, grad, hess []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	if d > 0 {
		x = mat.NewDense(n, d, nil)
	}
	full = mat.NewDense(n, d+w, nil)
	words = stats.NewCSR(n, w, 0)
	grad, hess = make([]float64, n), make([]float64, n)
	for i := range n {
		for j := range d {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			full.Set(i, j, v)
		}
		present := map[int32]bool{}
		for range 8 {
			present[int32(rng.IntN(1+rng.IntN(w)))] = true
		}
		cols := slices.Sorted(func(yield func(int32) bool) {
			for j := range present {
				if !yield(j) {
					return
				}
			}
		})
		vals := make([]float64, len(cols))
		for k, j := range cols {
			vals[k] = float64(1+rng.IntN(400)) / 100
			if j%5 == 0 && rng.IntN(2) == 0 {
				vals[k] = -vals[k]
			}
			full.Set(i, d+int(j), vals[k])
			grad[i] += math.Sin(float64(j)) * vals[k]
		}
		words.AppendRow(cols, vals)
		if d > 0 {
			grad[i] += x.At(i, 0)
		}
		grad[i] += 0.1 * rng.NormFloat64()
		hess[i] = 0.1 + rng.Float64()
	}
	return x, words, full, grad, hess
}

// Bin of split blocks gives every column the edges of Binning of the
// dense matrix, and every value its bin.
func TestBinWordsMatchesDense(t *testing.T) {
	x, words, full, _, _ := wordRows(700, 2, 90, 1)
	b := Bin(x, words, MaxBins, nil)
	edges, bins := Binning(Columns(full), 700, 92, nil)
	for j := range edges {
		if !slices.Equal(b.edges[j], edges[j]) {
			t.Fatalf("column %d: edges %v, dense %v", j, b.edges[j], edges[j])
		}
	}
	if !slices.Equal(b.bins, bins[:2*700]) {
		t.Fatal("dense bins differ")
	}
	for j, e := range Bin(x, words, 8, nil).edges {
		if j < 2 && !slices.Equal(e, edges[j]) || j >= 2 && len(e) > 7 {
			t.Fatalf("column %d: %d edges with 8 bins a word", j, len(e))
		}
	}
	for i := range 700 {
		for j := range 90 {
			got := b.words.zero[j]
			lo, hi := b.words.indptr[i], b.words.indptr[i+1]
			if k, ok := slices.BinarySearch(b.words.indices[lo:hi], int32(j)); ok {
				got = b.words.bins[lo+k]
			}
			if want := bins[(2+j)*700+i]; got != want {
				t.Fatalf("row %d word %d: bin %d, dense %d", i, j, got, want)
			}
		}
	}
}

// A grower over split blocks grows the trees of a grower over the dense
// matrix: the same splits (column, threshold, shape), and leaf values and
// importance equal up to the rounding of the words' zero bins (their sums
// are node totals minus the non-zeros' sums), 1e-12 relative; with
// several workers the same trees to the bit as with one.
func TestGrowWordsMatchesDense(t *testing.T) {
	for _, d := range []int{0, 2} {
		n, w := 900, 600
		x, words, full, grad, hess := wordRows(n, d, w, uint64(2+d))
		sparse := Bin(x, words, MaxBins, nil)
		edges, bins := Binning(Columns(full), n, d+w, nil)
		for _, h := range [][]float64{nil, hess} {
			p := HistParams{Leaves: 31, MinLeaf: 10, Lambda: 1, Rate: 0.1, ParallelCells: 1}
			predA, predB, predC := make([]float64, n), make([]float64, n), make([]float64, n)
			impA, impB, impC := make([]float64, d+w), make([]float64, d+w), make([]float64, d+w)
			a := NewGrower(bins, n, edges, p, 1).Grow(grad, h, predA, impA, nil)
			b := sparse.Grower(p, 1).Grow(grad, h, predB, impB, nil)
			c := sparse.Grower(p, 3).Grow(grad, h, predC, impC, nil)
			if !slices.Equal(b, c) || !slices.Equal(predB, predC) || !slices.Equal(impB, impC) {
				t.Fatalf("d %d: 3 workers grow another tree than 1", d)
			}
			if len(a) != len(b) {
				t.Fatalf("d %d: %d nodes, dense %d", d, len(b), len(a))
			}
			words := 0
			for k := range a {
				if a[k].Feat != b[k].Feat || a[k].Left != b[k].Left || (a[k].Feat >= 0 && a[k].V != b[k].V) {
					t.Fatalf("d %d: node %d is %+v, dense %+v", d, k, b[k], a[k])
				}
				if a[k].Feat < 0 && !close(a[k].V, b[k].V) {
					t.Fatalf("d %d: leaf %d = %v, dense %v", d, k, b[k].V, a[k].V)
				}
				if int(a[k].Feat) >= d {
					words++
				}
			}
			if words < 5 {
				t.Fatalf("d %d: only %d splits on words", d, words)
			}
			for j := range impA {
				if !close(impA[j], impB[j]) {
					t.Fatalf("d %d: importance %d = %v, dense %v", d, j, impB[j], impA[j])
				}
			}
		}
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b), 1e-300) }

// Subset of split blocks keeps the rows' bins; Held reads rows as Leaf
// reads them written out.
func TestBinnedSubsetHeld(t *testing.T) {
	x, words, full, grad, _ := wordRows(300, 1, 40, 7)
	b := Bin(x, words, MaxBins, nil)
	keep := make([]bool, 300)
	var rows []int
	for i := range keep {
		if keep[i] = i%3 != 0; keep[i] {
			rows = append(rows, i)
		}
	}
	s := b.Subset(keep)
	if s.Rows() != len(rows) || s.Cols() != 41 {
		t.Fatalf("Subset has %d rows, %d columns, want %d, 41", s.Rows(), s.Cols(), len(rows))
	}
	for k, i := range rows {
		w, sw := b.words, s.words
		lo, hi, slo, shi := w.indptr[i], w.indptr[i+1], sw.indptr[k], sw.indptr[k+1]
		if !slices.Equal(sw.indices[slo:shi], w.indices[lo:hi]) || !slices.Equal(sw.bins[slo:shi], w.bins[lo:hi]) || s.bins[k] != b.bins[i] {
			t.Fatalf("Subset row %d is not row %d", k, i)
		}
	}
	p := HistParams{Leaves: 15, MinLeaf: 5, Lambda: 1, Rate: 0.1}
	tr := b.Grower(p, 1).Grow(grad, nil, make([]float64, 300), nil, nil)
	held := Hold(x, words, keep)
	row := make([]float64, 41)
	for k, i := range rows {
		copy(row, full.RawRowView(i))
		if got, want := held.Leaf(tr, k), Leaf(tr, row); got != want {
			t.Fatalf("held row %d: leaf %v, dense %v", k, got, want)
		}
	}
	if held.Len() != len(rows) {
		t.Fatalf("Held.Len = %d, want %d", held.Len(), len(rows))
	}
}
