package regress

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

const (
	// histMaxBins is the most bins a column gets, so a bin index fits a byte.
	histMaxBins = 255
	// histMaxEdgeRows is the most rows the bin edges are computed from
	// (a random subset above it, as scikit-learn's 2·10⁵).
	histMaxEdgeRows = 200_000
	// histParallelCells is the least rows × columns for which a histogram
	// is built by several goroutines: below it, starting them costs more
	// than they save.
	histParallelCells = 1 << 15
)

// histEdges returns the upper bin edges of one column from its values
// sorted in increasing order: with at most histMaxBins distinct values the
// midpoints between neighbours (every value its own bin), else the
// quantiles k/histMaxBins, k = 1…histMaxBins−1 (MODELLING §0, linear
// interpolation), without repeats. Bin b holds edges[b−1] < x ≤ edges[b].
func histEdges(sorted []float64) []float64 {
	uniq := slices.Compact(slices.Clone(sorted))
	if len(uniq) <= histMaxBins {
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
	n := len(sorted)
	edges := make([]float64, 0, histMaxBins-1)
	for k := 1; k < histMaxBins; k++ {
		h := float64(k) / histMaxBins * float64(n-1)
		lo := int(math.Floor(h))
		q := sorted[lo]
		if lo+1 < n {
			q += (h - float64(lo)) * (sorted[lo+1] - sorted[lo])
		}
		// Skip repeats, and an edge at the maximum (an empty top bin).
		if (len(edges) == 0 || q > edges[len(edges)-1]) && q < sorted[n-1] {
			edges = append(edges, q)
		}
	}
	return edges
}

// histBinning returns each column's edges, computed from all n rows or
// from histMaxEdgeRows of them drawn with rng, and the bin of every value,
// column-major like xc.
func histBinning(xc []float64, n, d int, rng *rand.Rand) (edges [][]float64, bins []uint8) {
	var pick []int
	if n > histMaxEdgeRows {
		pick = rng.Perm(n)[:histMaxEdgeRows]
	}
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
		e := histEdges(buf)
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

// histParams are the growth rules of one boosted tree.
type histParams struct {
	leaves  int     // most leaves, grown best-first
	minLeaf int     // least rows in a leaf
	lambda  float64 // L2 penalty on leaf values
	rate    float64 // learning rate (shrinkage of leaf values)
	// parallelCells overrides histParallelCells when positive (tests).
	parallelCells int
}

// histCell is one histogram bin: the sum of gradients and the row count
// (the Hessian sum, squared loss having unit Hessians).
type histCell struct {
	g float64
	n int64
}

// histLeaf is a leaf of the tree being grown, its rows the segment
// rows[s:e] of the grower's partition, with its best split so far.
type histLeaf struct {
	node int32
	s, e int
	sumG float64
	cnt  int64
	hist []histCell // nil once the leaf cannot split
	feat int        // best split's column, −1 when none
	bin  int        // rows with bin ≤ bin go left
	gain float64
	gl   float64 // left child's gradient sum
	nl   int64   // left child's row count
}

// histGrower grows squared-loss regression trees by histograms (Ke et al.
// 2017, "LightGBM"): columns are binned once, a node's split is found from
// per-bin gradient sums, the leaf with the largest gain is split next, and
// only the smaller child's histogram is built: the larger one is its
// parent's minus the smaller's. It holds scratch for one goroutine's fit.
type histGrower struct {
	n, d    int
	bins    []uint8 // column-major n·d bins of the training rows
	edges   [][]float64
	off     []int // column j's cells are hist[off[j]:off[j+1]]
	p       histParams
	workers int

	rows, tmp []int32
	og        []float64 // gradients in the order of a segment's rows
	inv       []float64 // inv[k] = 1/(k+λ), k = 0…n
	free      [][]histCell
	leaves    []histLeaf
}

func newHistGrower(bins []uint8, n int, edges [][]float64, p histParams, workers int) *histGrower {
	d := len(edges)
	g := &histGrower{
		n: n, d: d, bins: bins, edges: edges, p: p, workers: max(1, workers),
		off:  make([]int, d+1),
		rows: make([]int32, n),
		tmp:  make([]int32, n),
		og:   make([]float64, n),
	}
	g.inv = make([]float64, n+1)
	for k := range g.inv {
		g.inv[k] = 1 / (float64(k) + p.lambda)
	}
	for j, e := range edges {
		g.off[j+1] = g.off[j] + len(e) + 1
	}
	return g
}

func (g *histGrower) alloc() []histCell {
	if k := len(g.free); k > 0 {
		h := g.free[k-1]
		g.free = g.free[:k-1]
		return h
	}
	return make([]histCell, g.off[g.d])
}

func (g *histGrower) release(h []histCell) {
	if h != nil {
		g.free = append(g.free, h)
	}
}

// grow fits one tree to the gradients grad (prediction − target), adds
// its leaf values to pred for the training rows, adds each split's gain to
// imp (when not nil) and returns the tree in nodes[:0]'s memory.
func (g *histGrower) grow(grad, pred, imp []float64, nodes []treeNode) []treeNode {
	for i := range g.rows {
		g.rows[i] = int32(i)
	}
	var sum float64
	for _, v := range grad {
		sum += v
	}
	root := histLeaf{s: 0, e: g.n, sumG: sum, cnt: int64(g.n), feat: -1}
	nodes = append(nodes[:0], treeNode{feat: -1})
	if g.splittable(&root) {
		root.hist = g.alloc()
		g.build(root.hist, nil, grad)
		g.findSplit(&root)
	}
	g.leaves = append(g.leaves[:0], root)
	for len(g.leaves) < g.p.leaves {
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
		left, right := g.split(&l, grad, &nodes, len(g.leaves)+1 == g.p.leaves)
		if imp != nil {
			imp[l.feat] += l.gain
		}
		g.leaves[bi] = left
		g.leaves = append(g.leaves, right)
	}
	for i := range g.leaves {
		l := &g.leaves[i]
		g.release(l.hist)
		v := -g.p.rate * l.sumG * g.inv[l.cnt]
		nodes[l.node].v = v
		for _, r := range g.rows[l.s:l.e] {
			pred[r] += v
		}
	}
	return nodes
}

func (g *histGrower) splittable(l *histLeaf) bool {
	return l.cnt >= int64(2*g.p.minLeaf)
}

// split partitions leaf l's rows by its best split and returns the two
// children with their histograms and best splits, unless last (the tree
// is full, the children stay leaves).
func (g *histGrower) split(l *histLeaf, grad []float64, nodes *[]treeNode, last bool) (left, right histLeaf) {
	col := g.bins[l.feat*g.n : (l.feat+1)*g.n]
	seg := g.rows[l.s:l.e]
	b := uint8(l.bin)
	li, ri := 0, 0
	for _, r := range seg {
		if col[r] <= b {
			seg[li] = r
			li++
		} else {
			g.tmp[ri] = r
			ri++
		}
	}
	copy(seg[li:], g.tmp[:ri])

	k := int32(len(*nodes))
	(*nodes)[l.node] = treeNode{v: g.edges[l.feat][l.bin], feat: int32(l.feat), left: k}
	*nodes = append(*nodes, treeNode{feat: -1}, treeNode{feat: -1})
	left = histLeaf{node: k, s: l.s, e: l.s + li, sumG: l.gl, cnt: l.nl, feat: -1}
	right = histLeaf{node: k + 1, s: l.s + li, e: l.e, sumG: l.sumG - l.gl, cnt: l.cnt - l.nl, feat: -1}

	small, large := &left, &right
	if large.cnt < small.cnt {
		small, large = large, small
	}
	if last || !g.splittable(large) && !g.splittable(small) {
		g.release(l.hist)
		return left, right
	}
	small.hist = g.alloc()
	g.build(small.hist, g.rows[small.s:small.e], grad)
	large.hist = l.hist // parent − small, in place
	for i, c := range small.hist {
		large.hist[i].g -= c.g
		large.hist[i].n -= c.n
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
func (g *histGrower) build(h []histCell, seg []int32, grad []float64) {
	gr := grad
	if seg != nil {
		gr = g.og[:len(seg)]
		for k, r := range seg {
			gr[k] = grad[r]
		}
	}
	rows := len(grad)
	if seg != nil {
		rows = len(seg)
	}
	w := min(g.workers, g.d)
	minCells := histParallelCells
	if g.p.parallelCells > 0 {
		minCells = g.p.parallelCells
	}
	if w < 2 || rows*g.d < minCells {
		g.buildCols(h, seg, gr, 0, g.d)
		return
	}
	g.buildParallel(h, seg, gr, w)
}

// buildParallel runs buildCols over w groups of columns, one goroutine
// each (a separate function so the serial path allocates no closure).
func (g *histGrower) buildParallel(h []histCell, seg []int32, gr []float64, w int) {
	var wg sync.WaitGroup
	per := (g.d + w - 1) / w
	for lo := per; lo < g.d; lo += per {
		wg.Go(func() { g.buildCols(h, seg, gr, lo, min(lo+per, g.d)) })
	}
	g.buildCols(h, seg, gr, 0, min(per, g.d))
	wg.Wait()
}

// buildCols fills the cells of columns [lo, hi): gr[k] is the gradient of
// row seg[k] (of row k when seg is nil). Each column sums in row order,
// so the histogram does not depend on the number of workers.
func (g *histGrower) buildCols(h []histCell, seg []int32, gr []float64, lo, hi int) {
	for j := lo; j < hi; j++ {
		hj := h[g.off[j]:g.off[j+1]]
		clear(hj)
		col := g.bins[j*g.n : (j+1)*g.n]
		if seg == nil {
			for i, b := range col {
				c := &hj[b]
				c.g += gr[i]
				c.n++
			}
			continue
		}
		for k, r := range seg {
			c := &hj[col[r]]
			c.g += gr[k]
			c.n++
		}
	}
}

// findSplit sets l's best split: the bin boundary maximising
// G_L²/(N_L+λ) + G_R²/(N_R+λ) − G²/(N+λ), the reduction of the penalised
// squared loss, with at least minLeaf rows on each side; first found wins
// ties (lowest column, then lowest bin). feat stays −1 without a gain.
func (g *histGrower) findSplit(l *histLeaf) {
	inv := g.inv // 1/(k+λ): multiplications instead of divisions
	minLeaf := int64(g.p.minLeaf)
	sumG, cnt := l.sumG, l.cnt
	parent := sumG * sumG * inv[cnt]
	best := parent
	feat, bin, bestGL, bestNL := -1, 0, 0.0, int64(0)
	for j := range g.d {
		// The last bin cannot be a boundary: nothing would go right.
		hj := l.hist[g.off[j] : g.off[j+1]-1]
		var gl float64
		var nl int64
		for b, c := range hj {
			// An empty bin repeats the previous boundary's value, which
			// cannot beat itself (strict >): no test needed.
			gl += c.g
			nl += c.n
			if nl < minLeaf {
				continue
			}
			nr := cnt - nl
			if nr < minLeaf {
				break
			}
			gr := sumG - gl
			if v := gl*gl*inv[nl] + gr*gr*inv[nr]; v > best {
				best, feat, bin, bestGL, bestNL = v, j, b, gl, nl
			}
		}
	}
	l.feat, l.bin, l.gl, l.nl = feat, bin, bestGL, bestNL
	l.gain = best - parent
}
