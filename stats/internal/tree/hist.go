package tree

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

const (
	// MaxBins is the most bins a column gets, so a bin index fits a byte.
	MaxBins = 255
	// maxEdgeRows is the most rows the bin edges are computed from
	// (a random subset above it, as scikit-learn's 2·10⁵).
	maxEdgeRows = 200_000
	// parallelCells is the least rows × columns for which a histogram
	// is built by several goroutines: below it, starting them costs more
	// than they save.
	parallelCells = 1 << 15
)

// edgesOf returns the upper bin edges of one column from its values
// sorted in increasing order: with at most MaxBins distinct values the
// midpoints between neighbours (every value its own bin), else the
// quantiles k/MaxBins, k = 1…MaxBins−1 (MODELLING §0, linear
// interpolation), without repeats. Bin b holds edges[b−1] < x ≤ edges[b].
func edgesOf(sorted []float64) []float64 {
	return edgesAt(len(sorted), func(k int) float64 { return sorted[k] }, slices.Compact(slices.Clone(sorted)), MaxBins)
}

// edgesAt is edgesOf of the n sorted values at(0) ≤ … ≤ at(n−1), whose
// distinct values are uniq (increasing), with at most bins bins (MaxBins
// in edgesOf): the same edges whether the values are a slice or a word
// column's non-zeros and implicit zeros.
func edgesAt(n int, at func(int) float64, uniq []float64, bins int) []float64 {
	if len(uniq) <= bins {
		edges := make([]float64, 0, len(uniq)-1)
		for k := 1; k < len(uniq); k++ {
			a, b := uniq[k-1], uniq[k]
			t := a/2 + b/2
			if t >= b || t < a {
				t = a
			}
			edges = append(edges, t)
		}
		return edges
	}
	top := at(n - 1)
	edges := make([]float64, 0, bins-1)
	for k := 1; k < bins; k++ {
		h := float64(k) / float64(bins) * float64(n-1)
		lo := int(math.Floor(h))
		q := at(lo)
		if lo+1 < n {
			q += (h - float64(lo)) * (at(lo+1) - at(lo))
		}
		// Skip repeats, and an edge at the maximum (an empty top bin).
		if (len(edges) == 0 || q > edges[len(edges)-1]) && q < top {
			edges = append(edges, q)
		}
	}
	return edges
}

// Binning returns each column's edges, computed from all n rows or
// from maxEdgeRows of them drawn with rng, and the bin of every value,
// column-major like xc.
func Binning(xc []float64, n, d int, rng *rand.Rand) (edges [][]float64, bins []uint8) {
	return binDense(xc, n, d, edgeRows(n, rng))
}

// edgeRows is the rows the bin edges are computed from: nil (all n) up
// to maxEdgeRows, else maxEdgeRows of them drawn with rng.
func edgeRows(n int, rng *rand.Rand) []int {
	if n > maxEdgeRows {
		return rng.Perm(n)[:maxEdgeRows]
	}
	return nil
}

// binDense is Binning with the rows of the edges chosen (edgeRows).
func binDense(xc []float64, n, d int, pick []int) (edges [][]float64, bins []uint8) {
	edges = make([][]float64, d)
	bins = make([]uint8, n*d)
	var buf []float64
	for j := range d {
		col := xc[j*n : (j+1)*n]
		if pick == nil {
			buf = append(buf[:0], col...)
		} else {
			buf = buf[:0]
			for _, i := range pick {
				buf = append(buf, col[i])
			}
		}
		slices.Sort(buf)
		e := edgesOf(buf)
		edges[j] = e
		bj := bins[j*n : (j+1)*n]
		for i, v := range col {
			// The number of edges below v: v ≤ edges[b] ⇔ bin ≤ b, so a
			// split on bins is the same split on raw values.
			b, _ := slices.BinarySearch(e, v)
			bj[i] = uint8(b)
		}
	}
	return edges, bins
}

// HistParams are the growth rules of one boosted tree.
type HistParams struct {
	Leaves  int     // most leaves, grown best-first
	MinLeaf int     // least rows in a leaf
	Lambda  float64 // L2 penalty on leaf values
	Rate    float64 // learning rate (shrinkage of leaf values)
	// ParallelCells overrides the least rows × columns for which a
	// histogram is built by several goroutines when positive (tests).
	ParallelCells int
}

// minHessian is the least Hessian sum of a child when Hessians are given
// (scikit-learn's min_hessian_to_split): a child whose rows are all
// nearly certain has no curvature to place a leaf value by.
const minHessian = 1e-3

// histCell is one histogram bin: the sums of gradients and Hessians (the
// latter left at zero under unit Hessians) and the row count.
type histCell struct {
	g, h float64
	n    int64
}

// histLeaf is a leaf of the tree being grown, its rows the segment
// rows[s:e] of the grower's partition, with its best split so far.
type histLeaf struct {
	node       int32
	s, e       int
	sumG, sumH float64
	cnt        int64
	hist       []histCell // nil once the leaf cannot split
	feat       int        // best split's column, −1 when none
	bin        int        // rows with bin ≤ bin go left
	gain       float64
	gl, hl     float64 // left child's gradient and Hessian sums
	nl         int64   // left child's row count
}

// Grower grows trees by histograms (Ke et al. 2017, "LightGBM"; the
// second-order leaf values of Chen and Guestrin 2016, "XGBoost"): columns
// are binned once, a node's split is found from per-bin gradient and
// Hessian sums, the leaf with the largest gain is split next, and only the
// smaller child's histogram is built: the larger one is its parent's minus
// the smaller's. It holds scratch for one goroutine's fit and is not safe
// for concurrent use.
type Grower struct {
	n, d    int     // rows, dense columns
	cols    int     // dense and word columns: d without words
	bins    []uint8 // column-major n·d bins of the training rows
	words   *wordBins
	wsum    []histCell // per word column, the sums of its non-zeros (buildWords)
	edges   [][]float64
	off     []int // column j's cells are hist[off[j]:off[j+1]]
	p       HistParams
	workers int
	unit    bool // the current tree's Hessians are all 1 (squared loss)

	rows, tmp []int32
	og, oh    []float64 // gradients and Hessians in the order of a segment's rows
	inv       []float64 // inv[k] = 1/(k+λ), k = 0…n: unit Hessian sums
	free      [][]histCell
	leaves    []histLeaf
}

// NewGrower returns a grower over the n binned rows of Binning (bins and
// edges), using up to workers goroutines per histogram.
func NewGrower(bins []uint8, n int, edges [][]float64, p HistParams, workers int) *Grower {
	return newGrower(bins, n, edges, nil, p, workers)
}

// newGrower is NewGrower with the binned words of the last columns of
// edges (nil without words).
func newGrower(bins []uint8, n int, edges [][]float64, words *wordBins, p HistParams, workers int) *Grower {
	cols := len(edges)
	d := cols
	if words != nil {
		d -= len(words.zero)
	}
	g := &Grower{
		n: n, d: d, cols: cols, bins: bins, words: words, edges: edges, p: p, workers: max(1, workers),
		off:  make([]int, cols+1),
		rows: make([]int32, n),
		tmp:  make([]int32, n),
		og:   make([]float64, n),
		oh:   make([]float64, n),
	}
	g.inv = make([]float64, n+1)
	for k := range g.inv {
		g.inv[k] = 1 / (float64(k) + p.Lambda)
	}
	for j, e := range edges {
		g.off[j+1] = g.off[j] + len(e) + 1
	}
	if words != nil {
		g.wsum = make([]histCell, cols-d)
	}
	return g
}

func (g *Grower) alloc() []histCell {
	if k := len(g.free); k > 0 {
		h := g.free[k-1]
		g.free = g.free[:k-1]
		return h
	}
	return make([]histCell, g.off[g.cols])
}

func (g *Grower) release(h []histCell) {
	if h != nil {
		g.free = append(g.free, h)
	}
}

// Grow fits one tree to the gradients grad and Hessians hess of the loss
// at the current predictions (hess nil: all 1, squared loss), each leaf
// valued −Rate·G/(H+λ); it adds the leaf values to pred for the training
// rows, adds each split's gain to imp (when not nil) and returns the tree
// in nodes[:0]'s memory.
func (g *Grower) Grow(grad, hess, pred, imp []float64, nodes []Node) []Node {
	g.unit = hess == nil
	for i := range g.rows {
		g.rows[i] = int32(i)
	}
	var sum, sumH float64
	for _, v := range grad {
		sum += v
	}
	for _, v := range hess {
		sumH += v
	}
	root := histLeaf{s: 0, e: g.n, sumG: sum, sumH: sumH, cnt: int64(g.n), feat: -1}
	nodes = append(nodes[:0], Node{Feat: -1})
	if g.splittable(&root) {
		root.hist = g.alloc()
		g.build(root.hist, nil, grad, hess)
		g.findSplit(&root)
	}
	g.leaves = append(g.leaves[:0], root)
	for len(g.leaves) < g.p.Leaves {
		bi := -1
		for i := range g.leaves {
			if l := &g.leaves[i]; l.feat >= 0 && (bi < 0 || l.gain > g.leaves[bi].gain) {
				bi = i
			}
		}
		if bi < 0 {
			break
		}
		l := g.leaves[bi]
		left, right := g.split(&l, grad, hess, &nodes, len(g.leaves)+1 == g.p.Leaves)
		if imp != nil {
			imp[l.feat] += l.gain
		}
		g.leaves[bi] = left
		g.leaves = append(g.leaves, right)
	}
	for i := range g.leaves {
		l := &g.leaves[i]
		g.release(l.hist)
		v := -g.p.Rate * l.sumG * g.invH(l.sumH, l.cnt)
		nodes[l.node].V = v
		for _, r := range g.rows[l.s:l.e] {
			pred[r] += v
		}
	}
	return nodes
}

// invH is 1/(H+λ) for a Hessian sum h over cnt rows.
func (g *Grower) invH(h float64, cnt int64) float64 {
	if g.unit {
		return g.inv[cnt]
	}
	return 1 / (h + g.p.Lambda)
}

func (g *Grower) splittable(l *histLeaf) bool {
	return l.cnt >= int64(2*g.p.MinLeaf) && (g.unit || l.sumH >= 2*minHessian)
}

// split partitions leaf l's rows by its best split and returns the two
// children with their histograms and best splits, unless last (the tree
// is full, the children stay leaves).
func (g *Grower) split(l *histLeaf, grad, hess []float64, nodes *[]Node, last bool) (left, right histLeaf) {
	seg := g.rows[l.s:l.e]
	b := uint8(l.bin)
	li, ri := 0, 0
	if l.feat >= g.d {
		li, ri = g.partitionWord(seg, l.feat-g.d, b)
	} else {
		col := g.bins[l.feat*g.n : (l.feat+1)*g.n]
		for _, r := range seg {
			if col[r] <= b {
				seg[li] = r
				li++
			} else {
				g.tmp[ri] = r
				ri++
			}
		}
	}
	copy(seg[li:], g.tmp[:ri])

	k := int32(len(*nodes))
	(*nodes)[l.node] = Node{V: g.edges[l.feat][l.bin], Feat: int32(l.feat), Left: k}
	*nodes = append(*nodes, Node{Feat: -1}, Node{Feat: -1})
	left = histLeaf{node: k, s: l.s, e: l.s + li, sumG: l.gl, sumH: l.hl, cnt: l.nl, feat: -1}
	right = histLeaf{node: k + 1, s: l.s + li, e: l.e, sumG: l.sumG - l.gl, sumH: l.sumH - l.hl, cnt: l.cnt - l.nl, feat: -1}

	small, large := &left, &right
	if large.cnt < small.cnt {
		small, large = large, small
	}
	if last || !g.splittable(large) && !g.splittable(small) {
		g.release(l.hist)
		return left, right
	}
	small.hist = g.alloc()
	g.build(small.hist, g.rows[small.s:small.e], grad, hess)
	// The large child's histogram is the parent's less the small one's,
	// in place; one that cannot split is released below, unread.
	large.hist = l.hist
	if g.splittable(large) {
		lh := large.hist[:len(small.hist)]
		for i := range lh {
			c, d := &small.hist[i], &lh[i]
			d.g -= c.g
			d.h -= c.h
			d.n -= c.n
		}
	}
	for _, c := range []*histLeaf{small, large} {
		if g.splittable(c) {
			g.findSplit(c)
		} else {
			g.release(c.hist)
			c.hist = nil
		}
	}
	return left, right
}

// build fills h with the histogram of rows seg (nil: every row, in order),
// splitting the columns among the workers when the node is large.
func (g *Grower) build(h []histCell, seg []int32, grad, hess []float64) {
	gr, hs := grad, hess
	if seg != nil {
		gr = g.og[:len(seg)]
		for k, r := range seg {
			gr[k] = grad[r]
		}
		if hess != nil {
			hs = g.oh[:len(seg)]
			for k, r := range seg {
				hs[k] = hess[r]
			}
		}
	}
	rows := len(gr)
	w := min(g.workers, g.d)
	minCells := parallelCells
	if g.p.ParallelCells > 0 {
		minCells = g.p.ParallelCells
	}
	if g.words != nil {
		g.buildWithWords(h, seg, gr, hs, w, rows*g.d >= minCells)
		return
	}
	if w < 2 || rows*g.d < minCells {
		g.buildCols(h, seg, gr, hs, 0, g.d)
		return
	}
	g.buildParallel(h, seg, gr, hs, w)
}

// buildParallel runs buildCols over w groups of columns, one goroutine
// each (a separate function so the serial path allocates no closure).
func (g *Grower) buildParallel(h []histCell, seg []int32, gr, hs []float64, w int) {
	var wg sync.WaitGroup
	per := (g.d + w - 1) / w
	for lo := per; lo < g.d; lo += per {
		wg.Go(func() { g.buildCols(h, seg, gr, hs, lo, min(lo+per, g.d)) })
	}
	g.buildCols(h, seg, gr, hs, 0, min(per, g.d))
	wg.Wait()
}

// buildCols fills the cells of columns [lo, hi): gr[k] and hs[k] are the
// gradient and Hessian of row seg[k] (of row k when seg is nil; hs nil
// leaves the Hessians at zero). Each column sums in row order, so the
// histogram does not depend on the number of workers.
func (g *Grower) buildCols(h []histCell, seg []int32, gr, hs []float64, lo, hi int) {
	for j := lo; j < hi; j++ {
		hj := h[g.off[j]:g.off[j+1]]
		clear(hj)
		col := g.bins[j*g.n : (j+1)*g.n]
		switch {
		case seg == nil && hs == nil:
			for i, b := range col {
				c := &hj[b]
				c.g += gr[i]
				c.n++
			}
		case seg == nil:
			for i, b := range col {
				c := &hj[b]
				c.g += gr[i]
				c.h += hs[i]
				c.n++
			}
		case hs == nil:
			for k, r := range seg {
				c := &hj[col[r]]
				c.g += gr[k]
				c.n++
			}
		default:
			for k, r := range seg {
				c := &hj[col[r]]
				c.g += gr[k]
				c.h += hs[k]
				c.n++
			}
		}
	}
}

// findSplit sets l's best split: the bin boundary maximising
// G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), the reduction of the
// second-order approximation of the penalised loss, with at least minLeaf
// rows (and, with Hessians, a Hessian sum of minHessian) on each side;
// first found wins ties (lowest column, then lowest bin). feat stays −1
// without a gain.
func (g *Grower) findSplit(l *histLeaf) {
	inv := g.inv // 1/(k+λ): multiplications instead of divisions
	minLeaf := int64(g.p.MinLeaf)
	sumG, sumH, cnt := l.sumG, l.sumH, l.cnt
	parent := sumG * sumG * g.invH(sumH, cnt)
	best := parent
	feat, bin, bestGL, bestHL, bestNL := -1, 0, 0.0, 0.0, int64(0)
	for j := range g.cols {
		if j >= g.d && l.hist[g.off[j]+int(g.words.zero[j-g.d])].n == cnt {
			// A word absent from every row of the node (all in its zero
			// bin) has no boundary with rows on both sides: skipped, most
			// of a deep node's words cost one test instead of a pass.
			continue
		}
		// The last bin cannot be a boundary: nothing would go right.
		hj := l.hist[g.off[j] : g.off[j+1]-1]
		var gl, hl float64
		var nl int64
		for b, c := range hj {
			// An empty bin repeats the previous boundary's value, which
			// cannot beat itself (strict >): no test needed.
			gl += c.g
			hl += c.h
			nl += c.n
			if nl < minLeaf {
				continue
			}
			nr := cnt - nl
			if nr < minLeaf {
				break
			}
			gr := sumG - gl
			var il, ir float64
			if g.unit {
				il, ir = inv[nl], inv[nr]
			} else {
				hr := sumH - hl
				if hl < minHessian || hr < minHessian {
					continue
				}
				il, ir = 1/(hl+g.p.Lambda), 1/(hr+g.p.Lambda)
			}
			if v := gl*gl*il + gr*gr*ir; v > best {
				best, feat, bin, bestGL, bestHL, bestNL = v, j, b, gl, hl, nl
			}
		}
	}
	l.feat, l.bin, l.gl, l.hl, l.nl = feat, bin, bestGL, bestHL, bestNL
	l.gain = best - parent
}

// Subset returns the bins of the rows i with keep[i], column-major like
// bins (n rows, d columns), and how many rows they are: the training part
// of an early-stopping split, binned with every row's edges.
func Subset(bins []uint8, n, d int, keep []bool) ([]uint8, int) {
	m := 0
	for _, k := range keep {
		if k {
			m++
		}
	}
	out := make([]uint8, 0, m*d)
	for j := range d {
		for i, b := range bins[j*n : (j+1)*n] {
			if keep[i] {
				out = append(out, b)
			}
		}
	}
	return out, m
}
