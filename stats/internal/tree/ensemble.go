package tree

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Ensemble is a forest of flat trees laid out for prediction: the []Node
// trees stay the model's saved form, the Ensemble only walks them faster.
// NewEnsemble only wraps the trees; the packed layout below is built by
// the first walk of ensembleMinRows rows or more and kept. It is safe for
// concurrent use.
//
// A large forest's walk is bound by cache misses, so the Ensemble halves
// the bytes a node takes. Thresholds become ranks: per feature f the
// distinct thresholds of every split on f, sorted, are cuts[f], and a
// split x[f] ≤ t becomes rank(x[f]) ≤ code where code is t's index in
// cuts[f] and rank(x) counts the cuts below x (len(cuts[f]) for NaN).
// That is exact: if x ≤ t every cut below x is below t, so rank(x) ≤
// code; if x > t then t and every cut below it are below x, so rank(x) >
// code; NaN ranks above every code and goes right, as in Find. Each block
// of rows is ranked once (a binary search per value), then every tree
// compares uint32s. A node is 8 bytes (code, and feature and next node
// packed in one uint32) rather than Node's 16.
//
// A leaf points to itself, through a constant column of rank 0 (feature
// d), so a walk steps every lane of rows without asking whether it
// reached a leaf (a branch the CPU cannot predict), and stops when no
// lane moved. The leaves keep their Node indices, so callers read leaf
// values or class distributions by the index the walk returns.
//
// A forest that does not fit the packing (more than 511 features, as
// a text model's words may be, or a tree of more than 2²⁰ nodes) or with
// a NaN threshold keeps the plain walk (Predict, FindLanes), with the
// same results.
type Ensemble struct {
	d     int
	trees [][]Node
	// The packed form is laid out once, by the first walk of at least
	// ensembleMinRows rows (sync.Once); lay stays nil until then, and for
	// good when the forest does not fit the packing.
	once sync.Once
	lay  atomic.Pointer[layout]
}

// layout is an Ensemble's packed form.
type layout struct {
	packed [][]packedNode
	// vals holds each tree's leaf values in node order, and a leaf's code
	// (which its walk never reads: a leaf compares rank 0 of the constant
	// column, never above any code) is its index there. Predict reads a
	// tree's leaves from this array, a quarter of the bytes of the tree's
	// Nodes, so that the values a block's rows reach stay in the closest
	// cache.
	vals [][]float64
	cuts [][]float64 // per feature, the distinct thresholds ascending
	zero []uint32    // per feature, the rank of 0 (sparse rows are mostly 0)
	// rows is how many rows a block ranks: enough that a tree's top
	// levels, and a small tree whole, are read from cache by the block's
	// rows after the first.
	rows int
}

// packedNode is a node of the packed walk: row goes to next when
// rank(x[feat]) ≤ code and to next+1 otherwise, where word holds next
// (high bits) and feat·Lanes (low bits). A leaf is next = itself, feat
// = d.
type packedNode struct {
	code uint32
	word uint32
}

// featBits is how many low bits of packedNode.word hold feature·Lanes:
// the packed walk takes up to 511 features and 2²⁰ nodes a tree. Fixed
// bits, not sized to the forest: a shift by a constant keeps the lanes'
// registers free (a variable shift holds CX, which spilled them).
const (
	featBits = 12
	featMask = 1<<featBits - 1
)

// ensembleRows is the packed walk's block: rows ranked at once and taken
// down each tree in turn. 256 rows (Blocks' block) read a tree of tens
// of thousands of nodes mostly from memory, one miss per row and level
// below the shared top; more rows share more of it. A block's ranks take
// at most ensembleBytes, but a block has at least Blocks' 256 rows (whose
// float64 values took twice the bytes).
const (
	ensembleRows  = 1024
	ensembleBytes = 1 << 20
)

// ensembleMinRows is the smallest walk that lays out the packed form.
// Laying it out sorts every split's threshold, which costs more than
// the plain walk of a few hundred rows: a contest's fold models predict
// their 30–100 validation rows once each and are dropped, while a saved
// model's predict requests (batches of thousands of rows) reuse it.
// Smaller walks use the packed form once it exists.
const ensembleMinRows = 1024

// NewEnsemble lays out trees (rows of d columns) for prediction. The
// trees must be valid for d columns, as Reader.Trees and the growers
// make them. The Ensemble shares trees, which must not change after.
func NewEnsemble(trees [][]Node, d int) *Ensemble {
	return &Ensemble{d: d, trees: trees}
}

// Packed lays out the packed form now, if the forest fits it, and returns
// e: for a decoded model, whose predict requests of any size then take
// the packed walk.
func (e *Ensemble) Packed() *Ensemble {
	e.layout(ensembleMinRows)
	return e
}

// layout returns the packed form for a walk of r rows, laying it out
// when r reaches ensembleMinRows; nil when it is not laid out (yet) or
// the forest does not fit it.
func (e *Ensemble) layout(r int) *layout {
	if r >= ensembleMinRows {
		e.once.Do(func() { e.lay.Store(pack(e.trees, e.d)) })
	}
	return e.lay.Load()
}

// pack lays trees out for the packed walk; nil when they do not fit it.
func pack(trees [][]Node, d int) *layout {
	if d*Lanes > featMask {
		return nil
	}
	cuts := make([][]float64, d)
	for _, t := range trees {
		if len(t) > 1<<(32-featBits) {
			return nil
		}
		for _, nd := range t {
			if nd.Feat < 0 {
				continue
			}
			if math.IsNaN(nd.V) {
				return nil
			}
			cuts[nd.Feat] = append(cuts[nd.Feat], nd.V+0) // +0: −0 and 0 are one cut
		}
	}
	for f, c := range cuts {
		slices.Sort(c)
		cuts[f] = slices.Clip(slices.Compact(c))
	}
	packed := make([][]packedNode, len(trees))
	vals := make([][]float64, len(trees))
	for k, t := range trees {
		p := make([]packedNode, len(t))
		for i, nd := range t {
			if nd.Feat < 0 {
				p[i] = packedNode{code: uint32(len(vals[k])), word: uint32(i)<<featBits | uint32(d*Lanes)}
				vals[k] = append(vals[k], nd.V)
				continue
			}
			code, _ := slices.BinarySearch(cuts[nd.Feat], nd.V+0)
			p[i] = packedNode{code: uint32(code), word: uint32(nd.Left)<<featBits | uint32(nd.Feat)*Lanes}
		}
		packed[k] = p
	}
	l := &layout{packed: packed, vals: vals, cuts: cuts, zero: make([]uint32, d)}
	for f, c := range cuts {
		l.zero[f] = rank(c, 0)
	}
	l.rows = max(block, min(ensembleRows, ensembleBytes/(4*(d+1)))) &^ (Lanes - 1)
	return l
}

// Trees returns the trees the Ensemble walks (shared, not copied).
func (e *Ensemble) Trees() [][]Node { return e.trees }

// Walk calls f for every block of rows of x and every tree, trees in
// order within a block: lo is the block's first row and leaves[i] the
// index (in the tree's Nodes) of the leaf row lo+i reaches in tree k. It
// panics when x does not have d columns, a programmer error.
func (e *Ensemble) Walk(x mat.Matrix, f func(lo, k int, leaves []int32)) {
	d := e.d
	var leaves [ensembleRows]int32
	r, _ := x.Dims()
	l := e.layout(r)
	if l == nil {
		Blocks(x, d, func(lo int, rows []float64) {
			nr := len(rows) / d
			at := leaves[:nr]
			for k, t := range e.trees {
				i := 0
				for ; i+Lanes <= nr; i += Lanes {
					FindLanes(t, rows[i*d:(i+Lanes)*d], d, (*[Lanes]int32)(at[i:i+Lanes]))
				}
				for ; i < nr; i++ {
					at[i] = Find(t, rows[i*d:(i+1)*d])
				}
				f(lo, k, at)
			}
		})
		return
	}
	g := (d + 1) * Lanes // ranks of a lane group
	l.ranked(x, d, func(lo, nr int, ranks []uint32) {
		at := leaves[:len(ranks)/g*Lanes]
		for k, t := range l.packed {
			for i := 0; i < len(at); i += Lanes {
				lanes(t, ranks[i/Lanes*g:(i/Lanes+1)*g], (*[Lanes]int32)(at[i:i+Lanes]))
			}
			f(lo, k, at[:nr])
		}
	})
}

// Predict writes base + scale·Σ_t leaf_t(x_i) for every row of x into
// dst, summing trees in order, as Predict does (the same sums to the
// bit). It panics when x does not have d columns or dst has the wrong
// length, which are programmer errors.
func (e *Ensemble) Predict(base, scale float64, x mat.Matrix, dst []float64) {
	if r, _ := x.Dims(); len(dst) != r {
		panic("tree: predict destination length mismatch")
	}
	if len(e.trees) == 0 {
		for i := range dst {
			dst[i] = base + scale*0
		}
		return
	}
	var sum [ensembleRows]float64
	r, _ := x.Dims()
	// With l, Walk takes the packed walk; a leaf keeps its Node index
	// either way, so reading e.trees stays right should the layout
	// appear between this call and the walk.
	l := e.layout(r)
	last := len(e.trees) - 1
	e.Walk(x, func(lo, k int, leaves []int32) {
		acc := sum[:len(leaves)]
		if k == 0 {
			clear(acc)
		}
		if l != nil {
			// The leaf's value through its code (layout.vals).
			t, vals := l.packed[k], l.vals[k]
			for i, leaf := range leaves {
				acc[i] += vals[t[leaf].code]
			}
		} else {
			t := e.trees[k]
			for i, leaf := range leaves {
				acc[i] += t[leaf].V
			}
		}
		if k == last {
			for i, v := range acc {
				dst[lo+i] = base + scale*v
			}
		}
	})
}

// ranked copies the rows of x (d columns) in blocks of l.rows, ranks every value
// among its feature's cuts and calls f with the first row's index, the
// number of rows and their ranks in lane groups: row i's rank of feature
// j is ranks[i/Lanes·G + j·Lanes + i%Lanes], G = (d+1)·Lanes, feature d
// the constant 0 the leaves read. The last group is padded with rows of
// rank 0 (which reach some leaf, read by no one).
func (l *layout) ranked(x mat.Matrix, d int, f func(lo, nr int, ranks []uint32)) {
	r, c := x.Dims()
	if c != d {
		panic(fmt.Sprintf("tree: predict with %d columns, model has %d", c, d))
	}
	g := (d + 1) * Lanes
	nb := min(r, l.rows)
	buf := make([]uint32, (nb+Lanes-1)/Lanes*g)
	row := make([]float64, d)
	rt, _ := x.(rowTo)
	raw, _ := x.(*mat.Dense)
	for lo := 0; lo < r; lo += nb {
		hi := min(lo+nb, r)
		ranks := buf[:(hi-lo+Lanes-1)/Lanes*g]
		clear(ranks[(hi-lo)/Lanes*g:]) // the padded group, and every constant column
		for i := lo; i < hi; i++ {
			var xs []float64
			switch {
			case raw != nil:
				xs = raw.RawRowView(i)
			case rt != nil:
				rt.RowTo(i, row)
				xs = row
			default:
				for j := range row {
					row[j] = x.At(i, j)
				}
				xs = row
			}
			grp := ranks[(i-lo)/Lanes*g+(i-lo)%Lanes:]
			for j, v := range xs {
				r := l.zero[j]
				if v != 0 {
					r = rank(l.cuts[j], v)
				}
				grp[j*Lanes] = r
			}
			grp[d*Lanes] = 0
		}
		f(lo, hi-lo, ranks)
	}
}

// rank counts the cuts below v: len(cuts) for NaN, above every code.
//
// Up to branchlessCuts cuts (16 KiB, in L1 or L2 after the first rows)
// the search halves [base, base+n) without a branch on the compare, a
// coin toss for the branch predictor, and cuts[base] < v settles the
// last one. Longer lists are searched with the branch: their loads miss
// the cache, and a predicted branch starts the next load before the
// compare is known, where the branchless search waits for every miss
// (on a forest of 200 trees grown on 20 000 rows, with ~4 000 nodes a
// tree, the branchless search made the walk 15–25% slower).
func rank(cuts []float64, v float64) uint32 {
	if v != v {
		return uint32(len(cuts))
	}
	base, n := 0, len(cuts)
	if n <= branchlessCuts {
		if n == 0 {
			return 0
		}
		for n > 1 {
			half := n >> 1
			base += half & -below(cuts[base+half-1], v)
			n -= half
		}
		return uint32(base + below(cuts[base], v))
	}
	for n > 0 {
		half := n >> 1
		if cuts[base+half] < v {
			base += half + 1
			n -= half + 1
		} else {
			n = half
		}
	}
	return uint32(base)
}

// branchlessCuts is the longest list of cuts rank searches without a
// branch.
const branchlessCuts = 2048

// below is 1 when c < v, else 0, without a branch.
func below(c, v float64) int {
	var b int
	if c < v {
		b = 1
	}
	return b
}

// step is the node after c for lane m of a lane group's ranks g in packed
// tree t: c itself at a leaf.
func step(t []packedNode, g []uint32, c, m uint32) uint32 {
	nd := t[c]
	return nd.word>>featBits + above(g[nd.word&featMask+m], nd.code)
}

// above is 1 when r > code, else 0, without a branch: which child a row
// takes is a coin toss the branch predictor cannot learn.
func above(r, code uint32) uint32 {
	var b uint32
	if r > code {
		b = 1
	}
	return b
}

// lanes sets at[m] to the leaf that row m of lane group g reaches in
// packed tree t, stepping the Lanes rows down together as FindLanes does;
// a lane at its leaf steps to itself, so no lane asks whether it is done
// (a branch the CPU cannot predict) and the walk stops when none moved.
// The lanes are spelled out (for Lanes = 8) so that they stay in
// registers.
func lanes(t []packedNode, g []uint32, at *[Lanes]int32) {
	var c0, c1, c2, c3, c4, c5, c6, c7 uint32
	for {
		n := step(t, g, c0, 0)
		moved := n ^ c0
		c0 = n
		n = step(t, g, c1, 1)
		moved |= n ^ c1
		c1 = n
		n = step(t, g, c2, 2)
		moved |= n ^ c2
		c2 = n
		n = step(t, g, c3, 3)
		moved |= n ^ c3
		c3 = n
		n = step(t, g, c4, 4)
		moved |= n ^ c4
		c4 = n
		n = step(t, g, c5, 5)
		moved |= n ^ c5
		c5 = n
		n = step(t, g, c6, 6)
		moved |= n ^ c6
		c6 = n
		n = step(t, g, c7, 7)
		moved |= n ^ c7
		c7 = n
		if moved == 0 {
			break
		}
	}
	*at = [Lanes]int32{int32(c0), int32(c1), int32(c2), int32(c3), int32(c4), int32(c5), int32(c6), int32(c7)}
}
