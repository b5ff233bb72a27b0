package tree

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vaticml/vatic/stats"
)

// CARTParams are the growth rules of one CART tree (Breiman et al. 1984):
// binary splits x[f] ≤ t chosen to maximise the decrease of the weighted
// impurity (the sum of squared errors for regression, n·Gini for classes),
// grown until a node cannot be split into two children of MinLeaf
// distinct rows each, or it is pure (one target value, one class).
type CARTParams struct {
	// MTry is the number of non-constant features tried at each node,
	// drawn without replacement; features constant within the node do
	// not count (as in scikit-learn), so a split is found when one exists.
	MTry int
	// MinLeaf is the minimum number of distinct rows in a leaf.
	MinLeaf int
	// Draws is the number of bootstrap draws (with replacement) per tree;
	// 0 means every row once, no bootstrap.
	Draws int
}

// CARTData is the training data shared read-only by the trees of a
// forest: the columns and a presorted row order per column, so no tree
// sorts.
//
// Word columns (NewSparseCARTData) follow the d dense ones: feature d+j
// is word j. A word column keeps only its non-zero rows, sorted by value
// (stable by row): a CSC sorted by value; its zeros are implicit. A tree
// partitions a word's non-zeros only, so a node costs its rows plus its
// non-zeros, never rows × words.
type CARTData struct {
	n, d int
	x    []float64 // column-major: column j is x[j*n : (j+1)*n]
	// y holds targets, or class indices 0…k−1 when k > 0.
	y     []float64
	k     int
	w     []float64 // sample weights; nil means 1
	order []int32   // column j's rows by increasing x: order[j*n : (j+1)*n]
	// nw is the number of word columns; word j's non-zeros, by
	// increasing value, are rows wr[wp[j]:wp[j+1]] with values wv[…].
	nw int
	wp []int32
	wr []int32
	wv []float64
}

// Width is the number of features: the dense columns and the words.
func (cd *CARTData) Width() int { return cd.d + cd.nw }

// NewSparseCARTData is NewCARTData with the word columns of words (one
// row per element of y) after the d dense ones; d may be 0 (text only,
// x empty). It builds the value-sorted CSC in O(nnz log nnz) and keeps
// no reference to words. Zeros stored in words are dropped; negative
// values are allowed (the zero group sits between the negative and the
// positive non-zeros of a column). It panics on a NaN value or when
// words has more than 2³¹−1 non-zeros or the wrong number of rows:
// programmer errors (TF-IDF weights are finite and positive).
func NewSparseCARTData(x []float64, words *stats.CSR, y, w []float64, d, classes int) *CARTData {
	cd := NewCARTData(x, y, w, d, classes)
	if words.Rows != cd.n || words.NNZ() > math.MaxInt32 {
		panic(fmt.Sprintf("tree: %d word rows and %d non-zeros for %d rows", words.Rows, words.NNZ(), cd.n))
	}
	nw := words.Cols
	cd.nw = nw
	cd.wp = make([]int32, nw+1)
	for i, v := range words.Data {
		if v != 0 {
			cd.wp[words.Indices[i]+1]++
		}
	}
	for j := range nw {
		cd.wp[j+1] += cd.wp[j]
	}
	nnz := cd.wp[nw]
	cd.wr = make([]int32, nnz)
	cd.wv = make([]float64, nnz)
	next := slices.Clone(cd.wp[:nw])
	for i := range cd.n { // rows in increasing order: the sort below is stable by row
		cols, vals := words.Row(i)
		for t, j := range cols {
			v := vals[t]
			if math.IsNaN(v) {
				panic(fmt.Sprintf("tree: word %d of row %d is NaN", j, i))
			}
			if v == 0 {
				continue
			}
			cd.wr[next[j]], cd.wv[next[j]] = int32(i), v
			next[j]++
		}
	}
	type nz struct {
		v float64
		r int32
	}
	var buf []nz
	for j := range nw {
		lo, hi := cd.wp[j], cd.wp[j+1]
		buf = buf[:0]
		for p := lo; p < hi; p++ {
			buf = append(buf, nz{cd.wv[p], cd.wr[p]})
		}
		slices.SortStableFunc(buf, func(a, b nz) int {
			switch {
			case a.v < b.v:
				return -1
			case a.v > b.v:
				return 1
			}
			return 0
		})
		for t, e := range buf {
			cd.wv[lo+int32(t)], cd.wr[lo+int32(t)] = e.v, e.r
		}
	}
	return cd
}

// NewCARTData prepares column-major x (d columns of len(y) rows, see
// Columns) for growing trees. classes is 0 for regression, where y holds
// targets; otherwise y holds class indices in [0, classes) and trees grow
// by Gini impurity. w is nil (unit weights) or one positive weight per
// row; a bootstrap count multiplies it. CARTData keeps x, y and w.
func NewCARTData(x, y, w []float64, d, classes int) *CARTData {
	n := len(y)
	cd := &CARTData{n: n, d: d, x: x, y: y, k: classes, w: w, order: make([]int32, n*d)}
	for j := range d {
		col := x[j*n : (j+1)*n]
		o := cd.order[j*n : (j+1)*n]
		for i := range o {
			o[i] = int32(i)
		}
		// Stable on ties, so the order is the same on every run.
		slices.SortStableFunc(o, func(a, b int32) int {
			switch {
			case col[a] < col[b]:
				return -1
			case col[a] > col[b]:
				return 1
			}
			return 0
		})
	}
	return cd
}

// Forest is what GrowForest returns: the trees, for classification each
// tree's class distributions (Dist[t][i*k : (i+1)*k] for node i of tree
// t, zeros on internal nodes), and the impurity decrease per column
// summed over every split of every tree.
type Forest struct {
	Trees [][]Node
	Dist  [][]float64
	Gain  []float64
}

// GrowForest grows trees trees with parameters p, with up to workers
// goroutines; tree i draws from stats.Rand(seed, "<key>/tree<i>"). Workers
// take tree indices in turn and each tree lands in its own slot, so the
// result is the same for any number of workers.
func GrowForest(data *CARTData, p CARTParams, trees int, seed uint64, key string, workers int) Forest {
	width := data.Width()
	f := Forest{Trees: make([][]Node, trees), Gain: make([]float64, width)}
	if data.k > 0 {
		f.Dist = make([][]float64, trees)
	}
	gains := make([][]float64, trees)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, trees)) {
		wg.Go(func() {
			b := newCARTBuilder(data, p)
			for {
				i := int(next.Add(1) - 1)
				if i >= trees {
					return
				}
				rng := stats.Rand(seed, fmt.Sprintf("%s/tree%d", key, i))
				gains[i] = make([]float64, width)
				var dist []float64
				f.Trees[i], dist = b.grow(rng, gains[i])
				if f.Dist != nil {
					f.Dist[i] = dist
				}
			}
		})
	}
	wg.Wait()
	for _, g := range gains {
		for j, v := range g {
			f.Gain[j] += v
		}
	}
	return f
}

// cartTask is a node waiting to be split: its node index, its rows, the
// segment [s, e) of every row list, and its present words, the entries
// [ws, we) of the builder's word arena.
type cartTask struct {
	node, s, e int32
	ws, we     int32
}

// wordSeg is a word column present in a node: word j's in-bag non-zeros
// in the node are wsorted[s:e] (positions in the CARTData's CSC), by
// increasing value.
type wordSeg struct {
	j, s, e int32
}

// cartBuilder holds one goroutine's scratch for growing trees one after
// another; it is not safe for concurrent use.
type cartBuilder struct {
	data *CARTData
	p    CARTParams

	w, wy []float64 // weight (bootstrap count × sample weight) and weight·y per row
	// sorted holds lists row lists of the in-bag rows (m each): the d
	// dense columns' rows by increasing x, or, without dense columns but
	// with words, one list of the rows in increasing index, which marks a
	// node's rows and is never split on.
	lists  int
	sorted []int32
	tmp    []int32
	// in and left are per row, 1 or 0: in the tree's bootstrap sample,
	// and going to the left child of the current split. Integers rather
	// than booleans, so the two compactions below add them instead of
	// branching on them: which way a row goes is a coin toss the branch
	// predictor cannot learn.
	in, left []int32
	feats    []int
	stack    []cartTask
	// Class scratch (k > 0): the node's weighted class counts and the
	// left and right counts of a scan, and a word's zero group's counts.
	cnt, cl, cr, zc []float64
	// Words: the in-bag non-zeros of every word (CSC positions), the
	// arena of the nodes' present words (a stack: a task's list is on top
	// when it is popped), the children's lists while they are built, and
	// a node's candidate features (dense columns, then present words).
	wsorted  []int32
	wseg     []wordSeg
	wlt, wrt []wordSeg
	cand     []int32
}

func newCARTBuilder(data *CARTData, p CARTParams) *cartBuilder {
	inBag := data.n // most distinct rows a tree sees
	if p.Draws > 0 {
		inBag = min(inBag, p.Draws)
	}
	lists := data.d
	if data.nw > 0 {
		lists = max(lists, 1)
	}
	b := &cartBuilder{
		data:  data,
		p:     p,
		w:     make([]float64, data.n),
		wy:    make([]float64, data.n),
		lists: lists,
		// One slot more than the lists need: the in-bag compaction
		// writes every row before deciding to keep it.
		sorted: make([]int32, inBag*lists+1),
		tmp:    make([]int32, data.n),
		in:     make([]int32, data.n),
		left:   make([]int32, data.n),
		feats:  make([]int, data.d),
		cnt:    make([]float64, data.k),
		cl:     make([]float64, data.k),
		cr:     make([]float64, data.k),
	}
	if data.nw > 0 {
		b.wsorted = make([]int32, len(data.wr)+1)
		b.cand = make([]int32, data.d+data.nw)
		b.zc = make([]float64, data.k)
	}
	return b
}

// grow builds one tree with randomness from rng and adds each split's
// impurity decrease to gain[feature]. The nodes (and, for classes, the
// distributions per node) are new memory the caller keeps.
func (b *cartBuilder) grow(rng *rand.Rand, gain []float64) ([]Node, []float64) {
	cd := b.data
	n, d, k := cd.n, cd.d, cd.k
	clear(b.w)
	if b.p.Draws > 0 {
		for range b.p.Draws {
			b.w[rng.IntN(n)]++
		}
	} else {
		for i := range b.w {
			b.w[i] = 1
		}
	}
	if cd.w != nil {
		for i, v := range cd.w {
			b.w[i] *= v
		}
	}
	for i, w := range b.w {
		b.wy[i] = w * cd.y[i]
	}
	m := 0 // distinct in-bag rows
	for i, w := range b.w {
		b.in[i] = 0
		if w > 0 {
			b.in[i] = 1
			m++
		}
	}
	// Every row list keeps the in-bag rows only: O(n·d), no sort. List
	// j is sorted[j*m : (j+1)*m]. Each row is written at the next free
	// slot, which moves on only when the row is in the bag; the slot
	// after a list is the next list's first (or the spare last one),
	// overwritten next.
	for j := range b.lists {
		dst := b.sorted[j*m:]
		q := int32(0)
		if j < d {
			for _, r := range cd.order[j*n : (j+1)*n] {
				dst[q] = r
				q += b.in[r]
			}
			continue
		}
		for r := range n {
			dst[q] = int32(r)
			q += b.in[r]
		}
	}
	sorted := b.sorted[:m*b.lists]
	for j := range b.feats {
		b.feats[j] = j
	}
	// Every word keeps its in-bag non-zeros the same way, O(nnz); the
	// root's present words are those with any.
	b.wseg = b.wseg[:0]
	if cd.nw > 0 {
		q := int32(0)
		for j := range cd.nw {
			s := q
			for p := cd.wp[j]; p < cd.wp[j+1]; p++ {
				b.wsorted[q] = p
				q += b.in[cd.wr[p]]
			}
			if q > s {
				b.wseg = append(b.wseg, wordSeg{j: int32(j), s: s, e: q})
			}
		}
	}

	nodes := []Node{{Feat: -1}}
	var dist []float64
	if k > 0 {
		dist = make([]float64, k)
	}
	b.stack = append(b.stack[:0], cartTask{node: 0, s: 0, e: int32(m), we: int32(len(b.wseg))})
	for len(b.stack) > 0 {
		t := b.stack[len(b.stack)-1]
		b.stack = b.stack[:len(b.stack)-1]
		b.wseg = b.wseg[:t.we] // the lists above t's were its popped siblings'
		s, e := int(t.s), int(t.e)
		seg := sorted[s:e] // list 0's rows: any list has the same set
		var sw, sy float64
		ymin, ymax := cd.y[seg[0]], cd.y[seg[0]]
		clear(b.cnt)
		for _, r := range seg {
			sw += b.w[r]
			sy += b.wy[r]
			ymin = min(ymin, cd.y[r])
			ymax = max(ymax, cd.y[r])
			if k > 0 {
				b.cnt[int(cd.y[r])] += b.w[r]
			}
		}
		// parent is Σ s²/w over the node's sums s: s = Σw·y for
		// regression, the class weights for Gini.
		parent := sy * sy / sw
		if k > 0 {
			parent = 0
			for c, v := range b.cnt {
				dist[int(t.node)*k+c] = v / sw
				parent += v * v
			}
			parent /= sw
		} else {
			nodes[t.node].V = sy / sw
		}
		if e-s < 2*b.p.MinLeaf || ymin == ymax {
			continue
		}
		var f, wi, pos int
		var thr, best float64
		if cd.nw == 0 {
			f, pos, thr, best = b.split(rng, sorted, m, s, e, sw, sy)
		} else {
			f, wi, pos, thr, best = b.splitWords(rng, sorted, m, t, sw, sy)
		}
		if f < 0 {
			continue
		}
		gain[f] += max(0, best-parent)
		if k > 0 {
			clear(dist[int(t.node)*k : int(t.node+1)*k])
		}
		// Mark the rows going left, then partition every other row
		// list's segment stably, so both children stay sorted.
		if f < d {
			fs := sorted[f*m+s : f*m+e]
			for _, r := range fs[:pos] {
				b.left[r] = 1
			}
			for _, r := range fs[pos:] {
				b.left[r] = 0
			}
		} else {
			// A word: its zeros go left when 0 ≤ thr, its non-zeros by
			// value.
			zl := int32(0)
			if 0 <= thr {
				zl = 1
			}
			for _, r := range seg {
				b.left[r] = zl
			}
			g := b.wseg[wi]
			for _, p := range b.wsorted[g.s:g.e] {
				b.left[cd.wr[p]] = 0
				if cd.wv[p] <= thr {
					b.left[cd.wr[p]] = 1
				}
			}
		}
		lists := b.lists
		if cd.nw == 0 && b.leaves(sorted[f*m+s:f*m+e], pos) {
			// Both children stay leaves: they read only their rows'
			// set, from list 0, so the other lists need not follow.
			lists = 1
		}
		for j := range lists {
			if j == f && f < d {
				continue
			}
			partition(sorted[j*m+s:j*m+e], b.tmp, b.left)
		}
		ws, wm, we := t.ws, t.we, t.we
		if cd.nw > 0 {
			ws, wm, we = b.splitWordLists(t)
		}
		l := int32(len(nodes))
		nodes[t.node] = Node{V: thr, Feat: int32(f), Left: l}
		nodes = append(nodes, Node{Feat: -1}, Node{Feat: -1})
		if k > 0 {
			dist = append(dist, make([]float64, 2*k)...)
		}
		mid := int32(s + pos)
		b.stack = append(b.stack,
			cartTask{node: l + 1, s: mid, e: t.e, ws: ws, we: wm},
			cartTask{node: l, s: t.s, e: mid, ws: wm, we: we})
	}
	return slices.Clip(nodes), slices.Clip(dist)
}

// leaves reports whether both children of a split, the first pos rows of
// the split feature's list and the rest, will stay leaves (as grow finds
// when it pops them): too few rows to split, or one target value. Then
// grow partitions list 0 alone, which on fully grown trees (one-row
// leaves, the classification forest's) spares the partition of the
// other d−1 lists at the nodes above the leaves.
func (b *cartBuilder) leaves(rows []int32, pos int) bool {
	return b.pure(rows[:pos]) && b.pure(rows[pos:])
}

// pure reports whether a node of these rows is not split: fewer than
// 2·MinLeaf rows or one target value.
func (b *cartBuilder) pure(rows []int32) bool {
	if len(rows) < 2*b.p.MinLeaf {
		return true
	}
	y := b.data.y
	v := y[rows[0]]
	for _, r := range rows[1:] {
		if y[r] != v {
			return false
		}
	}
	return true
}

// partition reorders a row list stably so the rows whose left mark is 1
// come first and returns their number. Every row is written to both
// sides and the side it belongs to keeps it (list[li] is at or behind the
// row being read); tmp holds the right side.
func partition(list, tmp, left []int32) int32 {
	li, ri := int32(0), int32(0)
	for _, r := range list {
		list[li] = r
		tmp[ri] = r
		l := left[r]
		li += l
		ri += 1 - l
	}
	copy(list[li:], tmp[:ri])
	return li
}

// partitionWord is partition of a word's non-zeros, CSC positions whose
// rows are rows[p].
func partitionWord(list, tmp, left, rows []int32) int32 {
	li, ri := int32(0), int32(0)
	for _, p := range list {
		list[li] = p
		tmp[ri] = p
		l := left[rows[p]]
		li += l
		ri += 1 - l
	}
	copy(list[li:], tmp[:ri])
	return li
}

// splitWordLists partitions the non-zeros of every word present in t by
// the left marks and replaces t's list in the arena by the right child's
// list then the left child's (a word is in a child's list when the child
// has any of its non-zeros). It returns the right list's start, the left
// list's start and the left list's end.
func (b *cartBuilder) splitWordLists(t cartTask) (ws, wm, we int32) {
	b.wlt, b.wrt = b.wlt[:0], b.wrt[:0]
	for _, g := range b.wseg[t.ws:t.we] {
		li := g.s + partitionWord(b.wsorted[g.s:g.e], b.tmp, b.left, b.data.wr)
		if li > g.s {
			b.wlt = append(b.wlt, wordSeg{j: g.j, s: g.s, e: li})
		}
		if li < g.e {
			b.wrt = append(b.wrt, wordSeg{j: g.j, s: li, e: g.e})
		}
	}
	b.wseg = append(append(b.wseg[:t.ws], b.wrt...), b.wlt...)
	return t.ws, t.ws + int32(len(b.wrt)), int32(len(b.wseg))
}

// split finds the best split of rows [s, e) among mtry features drawn at
// random (Fisher–Yates over b.feats). It returns the feature (−1 when no
// split leaves minLeaf distinct rows on both sides), the number of rows
// going left, the threshold (midpoint between the two neighbouring
// values, as scikit-learn) and the criterion Σ s²/w of the two children
// (s the sum of w·y, or each class's weight), which the impurity
// decrease is relative to the parent's.
func (b *cartBuilder) split(rng *rand.Rand, sorted []int32, m, s, e int, sw, sy float64) (feat, pos int, thr, best float64) {
	d := b.data.d
	feat = -1
	// Maximising the children's Σ s²/w maximises the decrease: for
	// squared error SSE = Σw·y² − s²/w, for Gini w·(1 − Σ(c/w)²) =
	// w − Σc²/w. Ties keep the first found.
	best = -1.0
	tried := 0
	for i := 0; i < d && tried < b.p.MTry; i++ {
		r := i + rng.IntN(d-i)
		b.feats[i], b.feats[r] = b.feats[r], b.feats[i]
		f := b.feats[i]
		p, t, v, ok := b.scanDense(f, sorted[f*m+s:f*m+e], sw, sy, best)
		if !ok {
			continue // constant in this node
		}
		tried++
		if v > best {
			best, feat, pos, thr = v, f, p, t
		}
	}
	return feat, pos, thr, best
}

// splitWords is split for data with words: the mtry candidates are drawn
// (Fisher–Yates) among the dense columns and the words present in task
// t's node, not among every column, so a node costs its present words,
// not all of them. A word absent from the node is constant there, so this
// draws the same candidates in distribution as split would on the dense
// matrix (constant features do not count), but not the same ones for the
// same random numbers. It also returns the split word's arena index.
func (b *cartBuilder) splitWords(rng *rand.Rand, sorted []int32, m int, t cartTask, sw, sy float64) (feat, wi, pos int, thr, best float64) {
	d := b.data.d
	s, e := int(t.s), int(t.e)
	c := d + int(t.we-t.ws)
	cand := b.cand[:c]
	for i := range cand {
		cand[i] = int32(i)
	}
	feat, best = -1, -1.0
	tried := 0
	for i := 0; i < c && tried < b.p.MTry; i++ {
		r := i + rng.IntN(c-i)
		cand[i], cand[r] = cand[r], cand[i]
		f := int(cand[i])
		if f < d {
			p, th, v, ok := b.scanDense(f, sorted[f*m+s:f*m+e], sw, sy, best)
			if !ok {
				continue
			}
			tried++
			if v > best {
				best, feat, pos, thr = v, f, p, th
			}
			continue
		}
		g := b.wseg[int(t.ws)+f-d]
		p, th, v, ok := b.scanWord(b.wsorted[g.s:g.e], e-s, sw, sy, best)
		if !ok {
			continue
		}
		tried++
		if v > best {
			best, feat, wi, pos, thr = v, d+int(g.j), int(t.ws)+f-d, p, th
		}
	}
	return feat, wi, pos, thr, best
}

// scanDense is split's scan of dense column f's sorted rows in a node:
// the best left count, threshold and criterion, and false when the
// column is constant in the node. A regression scan keeps only criteria
// above floor, the best of the columns scanned before (as the scan did
// when it was split's own loop: fewer updates, and the same first-found
// best); it returns floor when none is.
func (b *cartBuilder) scanDense(f int, rows []int32, sw, sy, floor float64) (pos int, thr, best float64, ok bool) {
	cd := b.data
	xs := cd.x[f*cd.n : (f+1)*cd.n]
	if xs[rows[0]] == xs[rows[len(rows)-1]] {
		return 0, 0, 0, false
	}
	if cd.k > 0 {
		pos, thr, best = b.scanClasses(xs, rows, sw)
		return pos, thr, best, true
	}
	minLeaf := b.p.MinLeaf
	best = floor
	var wl, sl float64
	for k := range minLeaf - 1 {
		wl += b.w[rows[k]]
		sl += b.wy[rows[k]]
	}
	last := len(rows) - minLeaf // largest left count allowed
	for k := minLeaf - 1; k < last; k++ {
		r := rows[k]
		wl += b.w[r]
		sl += b.wy[r]
		xa, xb := xs[r], xs[rows[k+1]]
		if xb <= xa {
			continue // equal values stay together
		}
		sr := sy - sl
		if v := sl*sl/wl + sr*sr/(sw-wl); v > best {
			best, pos, thr = v, k+1, midpoint(xa, xb)
		}
	}
	return pos, thr, best, true
}

// scanClasses is split's scan of one feature's sorted rows by class
// weights: it returns the best left count, threshold and Σ_k c_k²/w over
// both children, keeping Σ c_k² of each side up to date in O(1) a row.
func (b *cartBuilder) scanClasses(xs []float64, rows []int32, sw float64) (pos int, thr, best float64) {
	cd := b.data
	minLeaf := b.p.MinLeaf
	clear(b.cl)
	copy(b.cr, b.cnt)
	var wl, ql, qr float64 // left weight, Σ cl², Σ cr²
	for _, v := range b.cr {
		qr += v * v
	}
	best = -1
	last := len(rows) - minLeaf
	for k := range last {
		r := rows[k]
		c, w := int(cd.y[r]), b.w[r]
		ql += w * (2*b.cl[c] + w)
		qr += w * (w - 2*b.cr[c])
		b.cl[c] += w
		b.cr[c] -= w
		wl += w
		if k < minLeaf-1 {
			continue
		}
		xa, xb := xs[r], xs[rows[k+1]]
		if xb <= xa {
			continue
		}
		if v := ql/wl + max(0, qr)/(sw-wl); v > best {
			best, pos, thr = v, k+1, midpoint(xa, xb)
		}
	}
	return pos, thr, best
}

// scanWord is split's scan of a word in a node of nrows rows whose
// non-zeros are ps (CSC positions by increasing value): the same scan as
// scanDense's over the node's values in order, where the node's zero
// rows are one group (between the negative and the positive non-zeros)
// whose weight, weighted sum and class weights are the node's totals
// less the non-zeros'. It costs the word's non-zeros in the node, not
// the node's rows. Left counts are distinct rows, zero rows included;
// false when the word is constant in the node (one value and no zeros).
// It keeps only criteria above floor, as scanDense.
func (b *cartBuilder) scanWord(ps []int32, nrows int, sw, sy, floor float64) (pos int, thr, best float64, ok bool) {
	cd := b.data
	wr, wv := cd.wr, cd.wv
	nz := len(ps)
	cz := nrows - nz // zero rows
	if cz == 0 && wv[ps[0]] == wv[ps[nz-1]] {
		return 0, 0, 0, false
	}
	classes := cd.k > 0
	var wn, sn float64
	zi := nz // position of the zero group: before the first positive
	if classes {
		copy(b.zc, b.cnt)
	}
	for i, p := range ps {
		r := wr[p]
		wn += b.w[r]
		sn += b.wy[r]
		if classes {
			b.zc[int(cd.y[r])] -= b.w[r]
		}
		if zi == nz && wv[p] > 0 {
			zi = i
		}
	}
	wz, sz := sw-wn, sy-sn
	units := nz
	if cz > 0 {
		units++
	} else {
		zi = -1
	}
	// value(u) is unit u's value: the zero group's 0 or a non-zero's.
	value := func(u int) float64 {
		switch {
		case u == zi:
			return 0
		case zi >= 0 && u > zi:
			u--
		}
		return wv[ps[u]]
	}
	minLeaf := b.p.MinLeaf
	if classes {
		clear(b.cl)
		copy(b.cr, b.cnt)
	}
	var wl, sl, ql, qr float64 // left weight, Σ w·y, Σ cl², Σ cr²
	for _, v := range b.cr[:len(b.cnt)] {
		qr += v * v
	}
	nl := 0 // distinct left rows
	best = floor
	xb := value(0)
	for u := 0; u < units-1; u++ {
		xa := xb
		if u == zi {
			wl += wz
			sl += sz
			nl += cz
			if classes {
				for c, z := range b.zc {
					ql += z * (2*b.cl[c] + z)
					qr += z * (z - 2*b.cr[c])
					b.cl[c] += z
					b.cr[c] -= z
				}
			}
		} else {
			i := u
			if zi >= 0 && u > zi {
				i--
			}
			r := wr[ps[i]]
			w := b.w[r]
			wl += w
			sl += b.wy[r]
			nl++
			if classes {
				c := int(cd.y[r])
				ql += w * (2*b.cl[c] + w)
				qr += w * (w - 2*b.cr[c])
				b.cl[c] += w
				b.cr[c] -= w
			}
		}
		xb = value(u + 1)
		if nl < minLeaf || nrows-nl < minLeaf || xb <= xa {
			continue
		}
		var v float64
		if classes {
			v = ql/wl + max(0, qr)/(sw-wl)
		} else {
			sr := sy - sl
			v = sl*sl/wl + sr*sr/(sw-wl)
		}
		if v > best {
			best, pos, thr = v, nl, midpoint(xa, xb)
		}
	}
	return pos, thr, best, true
}

// midpoint is the threshold between neighbouring values a < b: their
// midpoint, or a when rounding puts it at b.
func midpoint(a, b float64) float64 {
	t := a/2 + b/2
	if t >= b {
		t = a
	}
	return t
}
