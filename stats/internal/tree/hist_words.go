package tree

import (
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// The histogram grower's word columns (issue 16): the words of a
// training set's text columns, a stats.CSR block after its dense
// columns, are binned and split on without an n × words matrix.
//
// A word column's edges are those Binning gives the same column written
// out densely, computed from its non-zeros and its implicit zeros (rows −
// non-zeros of them, see edgesSparse), so a split on its bins is the same
// split on raw values; only the number of bins differs: at most WordBins
// for a word (MaxBins for a dense column), which makes most words a
// present-or-absent split and keeps the histograms small (see WordBins).
//
// The bins of the non-zeros are stored aligned with the CSR (one byte a
// stored value, sharing its Indptr and Indices), with each word's zero bin
// (for non-negative values such as TF-IDF, bin 0). A node's histogram of
// the words walks its rows' non-zeros into their cells, keeping each
// word's sums over them, and adds to each word's zero bin the node's
// totals minus those sums: O(rows' non-zeros + words + cells), not
// O(rows × words). A word split partitions rows by a binary search of the
// word in each row's non-zeros (absent: the zero bin).

// wordBins are the bins of a CSR block's non-zeros: the non-zeros of row
// i are bins[indptr[i]:indptr[i+1]], in the word columns
// indices[indptr[i]:indptr[i+1]] (increasing); a word absent from a row
// is in its column's bin zero[j].
type wordBins struct {
	indptr  []int
	indices []int32
	bins    []uint8
	zero    []uint8
}

// WordBins is the most bins a word column gets from the families' fits
// (a dense column gets MaxBins). With the binning of edgesOf, a word of at
// most WordBins distinct values has one bin for each, and a commoner word
// quantile bins over its values and its zeros: a word in a share s of
// the rows gets about WordBins·s bins above zero, and a rare one (s below
// 1/WordBins) two, absent and present. The histograms of a node and
// findSplit cost Σ bins over columns, which at 255 bins a word was most
// of a fit: rare words had a bin for each of their up to 254 values, of
// which a split with leaves of 20 rows uses few. Measured on
// BenchmarkGBMWords at 10 000 rows (1 000 words, 30 a row; fit seconds,
// held-out macro-F1 / RMSE): classification 255 bins 11.9 s, 0.703; 32
// bins 4.9 s, 0.697; 8 bins 3.8 s, 0.696; regression 255 bins 22.3 s,
// RMSE 1.267; 64: 13.0 s, 1.233; 32: 13.3 s, 1.199; 16: 9.2 s, 1.199.
// 32 keeps the accuracy at less than half the time.
const WordBins = 32

// Binned is a training set binned for the histogram grower: n rows of d
// dense columns (column-major bins, as Binning) and, when it has words,
// the binned words after them. Edges has a column's upper bin edges for
// every column, dense then words. It is read-only once built and may be
// shared by growers.
type Binned struct {
	n, d  int
	bins  []uint8
	edges [][]float64
	words *wordBins
}

// Bin bins a training set's dense block x (nil or empty when it has none)
// and its words (nil without text; at most wordBins bins a word, see
// WordBins) from all its rows or maxEdgeRows of them drawn with rng.
// Without words it bins exactly as Binning does (same edges, same draws
// of rng); with wordBins = MaxBins a word gets the bins of its column
// written out densely.
func Bin(x *mat.Dense, words *stats.CSR, wordBins int, rng *rand.Rand) *Binned {
	n, d, _ := stats.WordDims(x, words)
	pick := edgeRows(n, rng)
	var xc []float64
	if d > 0 {
		xc = Columns(x)
	}
	edges, bins := binDense(xc, n, d, pick)
	b := &Binned{n: n, d: d, bins: bins, edges: edges}
	if words != nil {
		var we [][]float64
		we, b.words = binWords(words, pick, wordBins)
		b.edges = append(b.edges, we...)
	}
	return b
}

// Rows is the number of binned rows.
func (b *Binned) Rows() int { return b.n }

// Cols is the number of columns, dense and words.
func (b *Binned) Cols() int { return len(b.edges) }

// Grower returns a grower over b's rows (see NewGrower).
func (b *Binned) Grower(p HistParams, workers int) *Grower {
	return newGrower(b.bins, b.n, b.edges, b.words, p, workers)
}

// Subset returns the rows i of b with keep[i], binned with b's edges: the
// training part of an early-stopping split.
func (b *Binned) Subset(keep []bool) *Binned {
	bins, m := Subset(b.bins, b.n, b.d, keep)
	out := &Binned{n: m, d: b.d, bins: bins, edges: b.edges}
	if w := b.words; w != nil {
		nnz := 0
		for i, k := range keep {
			if k {
				nnz += w.indptr[i+1] - w.indptr[i]
			}
		}
		sub := &wordBins{indptr: make([]int, 1, m+1), indices: make([]int32, 0, nnz), bins: make([]uint8, 0, nnz), zero: w.zero}
		for i, k := range keep {
			if k {
				lo, hi := w.indptr[i], w.indptr[i+1]
				sub.indices = append(sub.indices, w.indices[lo:hi]...)
				sub.bins = append(sub.bins, w.bins[lo:hi]...)
				sub.indptr = append(sub.indptr, len(sub.bins))
			}
		}
		out.words = sub
	}
	return out
}

// binWords returns the edges of m's columns, from the rows pick (nil:
// all), and the bins of its non-zeros.
func binWords(m *stats.CSR, pick []int, bins int) ([][]float64, *wordBins) {
	each := func(f func(i int)) {
		if pick == nil {
			for i := range m.Rows {
				f(i)
			}
			return
		}
		for _, i := range pick {
			f(i)
		}
	}
	// The edge rows' non-zeros column by column, to sort each column's.
	start := make([]int, m.Cols+1)
	each(func(i int) {
		c, _ := m.Row(i)
		for _, j := range c {
			start[j+1]++
		}
	})
	for j := range m.Cols {
		start[j+1] += start[j]
	}
	vals := make([]float64, start[m.Cols])
	fill := slices.Clone(start[:m.Cols])
	each(func(i int) {
		c, v := m.Row(i)
		for k, j := range c {
			vals[fill[j]] = v[k]
			fill[j]++
		}
	})
	rows := m.Rows
	if pick != nil {
		rows = len(pick)
	}
	edges := make([][]float64, m.Cols)
	wb := &wordBins{indptr: m.Indptr, indices: m.Indices, bins: make([]uint8, m.NNZ()), zero: make([]uint8, m.Cols)}
	for j := range m.Cols {
		nz := vals[start[j]:start[j+1]]
		slices.Sort(nz)
		edges[j] = edgesSparse(nz, rows-len(nz), bins)
		b, _ := slices.BinarySearch(edges[j], 0)
		wb.zero[j] = uint8(b)
	}
	for k, j := range m.Indices {
		b, _ := slices.BinarySearch(edges[j], m.Data[k])
		wb.bins[k] = uint8(b)
	}
	return edges, wb
}

// edgesSparse is edgesOf of a column whose non-zeros are nz (sorted) and
// which holds zeros zeros besides: the same edges, without writing the
// zeros out.
func edgesSparse(nz []float64, zeros, bins int) []float64 {
	neg, _ := slices.BinarySearch(nz, 0) // the non-zeros below 0
	at := func(k int) float64 {
		switch {
		case k < neg:
			return nz[k]
		case k < neg+zeros:
			return 0
		}
		return nz[k-zeros]
	}
	uniq := make([]float64, 0, len(nz)+1)
	uniq = append(uniq, nz[:neg]...)
	if zeros > 0 {
		uniq = append(uniq, 0)
	}
	uniq = slices.Compact(append(uniq, nz[neg:]...))
	return edgesAt(len(nz)+zeros, at, uniq, bins)
}

// buildWithWords fills h with the histogram of rows seg, dense columns
// and words: the words in a goroutine of their own beside the dense
// columns' when the grower has workers and the node is large (big), so
// the histogram does not depend on the number of workers either.
func (g *Grower) buildWithWords(h []histCell, seg []int32, gr, hs []float64, w int, big bool) {
	if g.workers < 2 || !big {
		g.buildCols(h, seg, gr, hs, 0, g.d)
		g.buildWords(h, seg, gr, hs)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { g.buildWords(h, seg, gr, hs) })
	if w-1 >= 2 {
		g.buildParallel(h, seg, gr, hs, w-1)
	} else {
		g.buildCols(h, seg, gr, hs, 0, g.d)
	}
	wg.Wait()
}

// buildWords fills the cells of the word columns, as buildCols those of
// the dense ones: each non-zero of the rows into its cell, in row order,
// and into its word's sums; then each word's zero bin gets the node's
// totals minus those sums (its zeros' sums up to rounding: they differ
// from a dense column's sum over the same rows in the last bits).
func (g *Grower) buildWords(h []histCell, seg []int32, gr, hs []float64) {
	w, off := g.words, g.off[g.d:]
	clear(h[off[0]:])
	sums := g.wsum
	clear(sums)
	var tg, th float64
	for k, gk := range gr {
		r := k
		if seg != nil {
			r = int(seg[k])
		}
		hk := 0.0
		if hs != nil {
			hk = hs[k]
		}
		tg += gk
		th += hk
		for p := w.indptr[r]; p < w.indptr[r+1]; p++ {
			j := w.indices[p]
			c := &h[off[j]+int(w.bins[p])]
			c.g += gk
			c.h += hk
			c.n++
			s := &sums[j]
			s.g += gk
			s.h += hk
			s.n++
		}
	}
	tn := int64(len(gr))
	for j, s := range sums {
		c := &h[off[j]+int(w.zero[j])]
		c.g += tg - s.g
		c.h += th - s.h
		c.n += tn - s.n
	}
}

// partitionWord moves the rows of seg whose bin in word column j is at
// most b to the front of seg, in order, and the others to tmp, returning
// how many of each.
func (g *Grower) partitionWord(seg []int32, j int, b uint8) (li, ri int) {
	w := g.words
	zeroLeft := w.zero[j] <= b
	for _, r := range seg {
		lo, hi := w.indptr[r], w.indptr[r+1]
		left := zeroLeft
		if k, ok := slices.BinarySearch(w.indices[lo:hi], int32(j)); ok {
			left = w.bins[lo+k] <= b
		}
		if left {
			seg[li] = r
			li++
		} else {
			g.tmp[ri] = r
			ri++
		}
	}
	return li, ri
}

// Held are rows held out of a fit (the validation slice of early
// stopping), read a row at a time by Leaf without a dense copy of their
// words: the dense columns row-major, the words as a CSR.
type Held struct {
	rows, d int
	x       []float64
	words   *stats.CSR
}

// Hold returns the rows i of x (dense block, nil or empty when there is
// none) and words (nil without text) with take[i].
func Hold(x *mat.Dense, words *stats.CSR, take []bool) *Held {
	_, d, _ := stats.WordDims(x, words)
	h := &Held{d: d}
	var rows []int
	for i, t := range take {
		if t {
			rows = append(rows, i)
			if d > 0 {
				h.x = append(h.x, x.RawRowView(i)...)
			}
		}
	}
	h.rows = len(rows)
	if words != nil {
		h.words = words.SelectRows(rows)
	}
	return h
}

// Len is the number of rows held.
func (h *Held) Len() int { return h.rows }

// Leaf returns the value of the leaf that held row i reaches in tree t
// (as Leaf of the row written out densely).
func (h *Held) Leaf(t []Node, i int) float64 {
	x := h.x[i*h.d : (i+1)*h.d]
	if h.words == nil {
		return Leaf(t, x)
	}
	cols, vals := h.words.Row(i)
	d := int32(h.d)
	k := int32(0)
	for {
		nd := &t[k]
		if nd.Feat < 0 {
			return nd.V
		}
		var v float64
		if nd.Feat < d {
			v = x[nd.Feat]
		} else if p, ok := slices.BinarySearch(cols, nd.Feat-d); ok {
			v = vals[p]
		}
		if v <= nd.V {
			k = nd.Left
		} else {
			k = nd.Left + 1
		}
	}
}
