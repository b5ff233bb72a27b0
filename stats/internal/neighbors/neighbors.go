// Package neighbors answers k-nearest-neighbour queries over a fixed set of
// points in Euclidean space, for the k-NN models of stats/regress and
// stats/classify. It is numerics over gonum; WordIndex (words.go) reads
// the words as a stats.CSR, its only import from the module.
//
// Neighbours are ranked by (squared distance, row index), so ties break
// the same way whether the search is brute force (up to BruteMaxRows
// rows) or a k-d tree (above, when the points have at most TreeMaxDims
// coordinates), and results never depend on the search method.
package neighbors

import (
	"cmp"
	"container/heap"
	"math"
	"slices"

	"gonum.org/v1/gonum/spatial/kdtree"
)

const (
	// BruteMaxRows is the largest point set searched by brute force; above
	// it a k-d tree answers queries (MODELLING §16).
	BruteMaxRows = 20000
	// TreeMaxDims bounds the dimension where a k-d tree beats brute
	// force. MODELLING §16 says 20, but gonum's tree (one point per node,
	// interface calls per visit) is measured slower than brute force from
	// about 9 i.i.d. Gaussian dimensions on 100 000 rows (10: 3.1 ms vs
	// 1.4 ms per 10-NN query; 8: 0.87 vs 1.2 ms; 6: 0.17 vs 0.84 ms).
	TreeMaxDims = 8
)

// Neighbor is one search result: the squared distance to the query and
// the point's row index.
type Neighbor struct {
	D2  float64
	Row int
}

// Dist2 is the squared Euclidean distance over q's coordinates; brute
// force and the k-d tree both call it, with the query first, so they
// compute identical values.
func Dist2(q, r []float64) float64 {
	r = r[:len(q)]
	var s float64
	for j, v := range q {
		d := v - r[j]
		s += d * d
	}
	return s
}

// Index answers k-nearest queries over n points of dim coordinates, by
// brute force or with a k-d tree. It is immutable after New and safe for
// concurrent Search with distinct Searchers.
type Index struct {
	rows   []float64 // n×dim, row-major
	n, dim int
	tree   *kdtree.Tree
}

// New indexes n points of dim coordinates stored row-major in rows, which
// the Index keeps (the caller must not modify it). It builds a k-d tree
// when n > BruteMaxRows and 1 ≤ dim ≤ TreeMaxDims.
func New(rows []float64, n, dim int) *Index {
	if len(rows) != n*dim {
		panic("neighbors: rows do not hold n×dim values")
	}
	ix := &Index{rows: rows, n: n, dim: dim}
	if n > BruteMaxRows && dim >= 1 && dim <= TreeMaxDims {
		ix.buildTree()
	}
	return ix
}

// Rows returns the indexed points, row-major (not a copy: do not modify).
func (ix *Index) Rows() []float64 { return ix.rows }

// Len is the number of points.
func (ix *Index) Len() int { return ix.n }

// HasTree reports whether searches use a k-d tree.
func (ix *Index) HasTree() bool { return ix.tree != nil }

// WithTree returns an index over the same points that searches with a
// k-d tree whatever its size (for tests comparing the two searches).
func (ix *Index) WithTree() *Index {
	c := &Index{rows: ix.rows, n: ix.n, dim: ix.dim}
	c.buildTree()
	return c
}

// Brute returns an index over the same points that searches by brute
// force whatever its size.
func (ix *Index) Brute() *Index { return &Index{rows: ix.rows, n: ix.n, dim: ix.dim} }

// buildTree indexes the rows in a k-d tree whose pivots are chosen
// deterministically (gonum's default pivot samples a global random
// source), so an index answers the same after a model is decoded.
func (ix *Index) buildTree() {
	pts := make(points, ix.n)
	for i := range pts {
		pts[i] = &point{x: ix.rows[i*ix.dim : (i+1)*ix.dim], idx: i}
	}
	ix.tree = kdtree.New(pts, false)
	// Lay the points and their coordinates out in the tree's pre-order so a
	// search, which walks down and then back up subtrees, reads nearby
	// memory rather than rows scattered by the build's sorting.
	coords := make([]float64, 0, len(ix.rows))
	slab := make([]point, 0, ix.n)
	var walk func(nd *kdtree.Node)
	walk = func(nd *kdtree.Node) {
		for ; nd != nil; nd = nd.Right {
			p := nd.Point.(*point)
			coords = append(coords, p.x...)
			slab = append(slab, point{x: coords[len(coords)-ix.dim : len(coords) : len(coords)], idx: p.idx})
			nd.Point = &slab[len(slab)-1]
			walk(nd.Left)
		}
	}
	walk(ix.tree.Root)
}

// Searcher holds one goroutine's scratch space for searches; its zero
// value is ready to use.
type Searcher struct {
	out    []Neighbor
	keeper keeper
	query  point
	// WordIndex.Search's: the approximate distances, the k best upper
	// bounds and the scaled query words.
	acc []float64
	ub  []Neighbor
	qc  []int32
	qv  []float64
}

// Search returns the min(k, Len) points nearest to q (dim coordinates)
// ordered by (distance, row). The slice is reused by the next search with
// the same Searcher.
func (ix *Index) Search(q []float64, k int, sr *Searcher) []Neighbor {
	k = min(k, ix.n)
	out := sr.out[:0]
	if k <= 0 {
		return out
	}
	if ix.tree != nil {
		sr.keeper.reset(k)
		sr.query = point{x: q, idx: -1}
		ix.tree.NearestSet(&sr.keeper, &sr.query)
		// NearestSet leaves the kept points sorted best first.
		for _, c := range sr.keeper.h {
			out = append(out, Neighbor{D2: c.Dist, Row: c.Comparable.(*point).idx})
		}
		sr.out = out
		return out
	}
	dim := ix.dim
	for i := range ix.n {
		out = keepBest(out, k, Neighbor{Dist2(q, ix.rows[i*dim:(i+1)*dim]), i})
	}
	sr.out = out
	return out
}

// keepBest adds nb to out, the at most k best neighbours so far sorted by
// (distance, row), when it ranks among them; nb's row comes after every
// row in out (rows are offered in index order), so an equal distance
// loses.
func keepBest(out []Neighbor, k int, nb Neighbor) []Neighbor {
	if len(out) == k {
		if nb.D2 >= out[k-1].D2 {
			return out
		}
		out = out[:k-1]
	}
	pos := len(out)
	for pos > 0 && out[pos-1].D2 > nb.D2 {
		pos--
	}
	return slices.Insert(out, pos, nb)
}

// point is an indexed row in the k-d tree, carrying its index for tie
// breaks.
type point struct {
	x   []float64
	idx int
}

// Compare is p.x[d] − c.x[d].
func (p *point) Compare(c kdtree.Comparable, d kdtree.Dim) float64 {
	return p.x[d] - c.(*point).x[d]
}

// Dims is the number of coordinates.
func (p *point) Dims() int { return len(p.x) }

// Distance is the squared Euclidean distance to c.
func (p *point) Distance(c kdtree.Comparable) float64 { return Dist2(p.x, c.(*point).x) }

// points is the kdtree.Interface over indexed rows: Index, Len, Slice and
// Pivot.
type points []*point

func (p points) Index(i int) kdtree.Comparable         { return p[i] }
func (p points) Len() int                              { return len(p) }
func (p points) Slice(start, end int) kdtree.Interface { return p[start:end] }

// Pivot sorts by coordinate d, then row index, and returns the middle:
// deterministic, at O(m log m) per node.
func (p points) Pivot(d kdtree.Dim) int {
	slices.SortFunc(p, func(a, b *point) int {
		if c := cmp.Compare(a.x[d], b.x[d]); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	return len(p) / 2
}

// keeper is a kdtree.Keeper retaining the k best points by (distance, row
// index), the order brute force uses. Its heap is a max-heap with a nil
// sentinel at infinite distance until k points are kept.
type keeper struct {
	h []kdtree.ComparableDist
}

func (kp *keeper) reset(k int) {
	if cap(kp.h) != k {
		kp.h = make([]kdtree.ComparableDist, 1, k)
	}
	kp.h = kp.h[:1]
	kp.h[0] = kdtree.ComparableDist{Dist: math.Inf(1)}
}

// worse reports whether a ranks after b.
func worse(a, b kdtree.ComparableDist) bool {
	if a.Comparable == nil || b.Comparable == nil {
		return a.Comparable == nil && b.Comparable != nil
	}
	if a.Dist != b.Dist {
		return a.Dist > b.Dist
	}
	return a.Comparable.(*point).idx > b.Comparable.(*point).idx
}

// Keep adds c when it ranks before the worst kept point.
func (kp *keeper) Keep(c kdtree.ComparableDist) {
	if !worse(kp.h[0], c) {
		return
	}
	if len(kp.h) == cap(kp.h) {
		kp.h[0] = c
		heap.Fix(kp, 0)
		return
	}
	// heap.Push without boxing c into an interface (an allocation per
	// kept point): append and sift up.
	kp.h = append(kp.h, c)
	for i := len(kp.h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !kp.Less(i, parent) {
			break
		}
		kp.Swap(i, parent)
		i = parent
	}
}

// Max is the worst kept point (or the sentinel).
func (kp *keeper) Max() kdtree.ComparableDist { return kp.h[0] }

// Len, Less, Swap, Push and Pop implement heap.Interface (a max-heap).
func (kp *keeper) Len() int           { return len(kp.h) }
func (kp *keeper) Less(i, j int) bool { return worse(kp.h[i], kp.h[j]) }
func (kp *keeper) Swap(i, j int)      { kp.h[i], kp.h[j] = kp.h[j], kp.h[i] }

// Push appends x.
func (kp *keeper) Push(x any) { kp.h = append(kp.h, x.(kdtree.ComparableDist)) }

// Pop removes the last element.
func (kp *keeper) Pop() any {
	x := kp.h[len(kp.h)-1]
	kp.h = kp.h[:len(kp.h)-1]
	return x
}
