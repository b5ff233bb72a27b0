package tree

import (
	"fmt"
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
type CARTData struct {
	n, d int
	x    []float64 // column-major: column j is x[j*n : (j+1)*n]
	// y holds targets, or class indices 0…k−1 when k > 0.
	y     []float64
	k     int
	w     []float64 // sample weights; nil means 1
	order []int32   // column j's rows by increasing x: order[j*n : (j+1)*n]
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
	f := Forest{Trees: make([][]Node, trees), Gain: make([]float64, data.d)}
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
				gains[i] = make([]float64, data.d)
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

// cartTask is a node waiting to be split: its node index and its rows,
// the segment [s, e) of every column's sorted list.
type cartTask struct {
	node, s, e int32
}

// cartBuilder holds one goroutine's scratch for growing trees one after
// another; it is not safe for concurrent use.
type cartBuilder struct {
	data *CARTData
	p    CARTParams

	w, wy  []float64 // weight (bootstrap count × sample weight) and weight·y per row
	sorted []int32   // in-bag rows by increasing x, per column (m each)
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
	// left and right counts of a scan.
	cnt, cl, cr []float64
}

func newCARTBuilder(data *CARTData, p CARTParams) *cartBuilder {
	inBag := data.n // most distinct rows a tree sees
	if p.Draws > 0 {
		inBag = min(inBag, p.Draws)
	}
	return &cartBuilder{
		data: data,
		p:    p,
		w:    make([]float64, data.n),
		wy:   make([]float64, data.n),
		// One slot more than the lists need: the in-bag compaction
		// writes every row before deciding to keep it.
		sorted: make([]int32, inBag*data.d+1),
		tmp:    make([]int32, data.n),
		in:     make([]int32, data.n),
		left:   make([]int32, data.n),
		feats:  make([]int, data.d),
		cnt:    make([]float64, data.k),
		cl:     make([]float64, data.k),
		cr:     make([]float64, data.k),
	}
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
	// Every column's sorted list keeps the in-bag rows only: O(n·d), no
	// sort. Column j's list is sorted[j*m : (j+1)*m]. Each row is written
	// at the next free slot, which moves on only when the row is in the
	// bag; the slot after a column's list is the next column's first (or
	// the spare last one), overwritten next.
	for j := range d {
		dst := b.sorted[j*m:]
		q := int32(0)
		for _, r := range cd.order[j*n : (j+1)*n] {
			dst[q] = r
			q += b.in[r]
		}
	}
	sorted := b.sorted[:m*d]
	for j := range b.feats {
		b.feats[j] = j
	}

	nodes := []Node{{Feat: -1}}
	var dist []float64
	if k > 0 {
		dist = make([]float64, k)
	}
	b.stack = append(b.stack[:0], cartTask{node: 0, s: 0, e: int32(m)})
	for len(b.stack) > 0 {
		t := b.stack[len(b.stack)-1]
		b.stack = b.stack[:len(b.stack)-1]
		s, e := int(t.s), int(t.e)
		seg := sorted[s:e] // column 0's rows: any column has the same set
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
		f, pos, thr, best := b.split(rng, sorted, m, s, e, sw, sy)
		if f < 0 {
			continue
		}
		gain[f] += max(0, best-parent)
		if k > 0 {
			clear(dist[int(t.node)*k : int(t.node+1)*k])
		}
		// Mark the rows going left, then partition every other column's
		// segment stably, so both children stay sorted.
		fs := sorted[f*m+s : f*m+e]
		for _, r := range fs[:pos] {
			b.left[r] = 1
		}
		for _, r := range fs[pos:] {
			b.left[r] = 0
		}
		for j := range d {
			if j == f {
				continue
			}
			// Every row is written to both sides and the side it belongs
			// to keeps it (js[li] is at or behind the row being read).
			js := sorted[j*m+s : j*m+e]
			li, ri := int32(0), int32(0)
			for _, r := range js {
				js[li] = r
				b.tmp[ri] = r
				l := b.left[r]
				li += l
				ri += 1 - l
			}
			copy(js[li:], b.tmp[:ri])
		}
		l := int32(len(nodes))
		nodes[t.node] = Node{V: thr, Feat: int32(f), Left: l}
		nodes = append(nodes, Node{Feat: -1}, Node{Feat: -1})
		if k > 0 {
			dist = append(dist, make([]float64, 2*k)...)
		}
		mid := int32(s + pos)
		b.stack = append(b.stack, cartTask{node: l + 1, s: mid, e: t.e}, cartTask{node: l, s: t.s, e: mid})
	}
	return slices.Clip(nodes), slices.Clip(dist)
}

// split finds the best split of rows [s, e) among mtry features drawn at
// random (Fisher–Yates over b.feats). It returns the feature (−1 when no
// split leaves minLeaf distinct rows on both sides), the number of rows
// going left, the threshold (midpoint between the two neighbouring
// values, as scikit-learn) and the criterion Σ s²/w of the two children
// (s the sum of w·y, or each class's weight), which the impurity
// decrease is relative to the parent's.
func (b *cartBuilder) split(rng *rand.Rand, sorted []int32, m, s, e int, sw, sy float64) (feat, pos int, thr, best float64) {
	cd := b.data
	n, d := cd.n, cd.d
	minLeaf := b.p.MinLeaf
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
		xs := cd.x[f*n : (f+1)*n]
		rows := sorted[f*m+s : f*m+e]
		if xs[rows[0]] == xs[rows[len(rows)-1]] {
			continue // constant in this node
		}
		tried++
		if cd.k > 0 {
			if p, t, v := b.scanClasses(xs, rows, sw); v > best {
				best, feat, pos, thr = v, f, p, t
			}
			continue
		}
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
			v := sl*sl/wl + sr*sr/(sw-wl)
			if v > best {
				best, feat, pos = v, f, k+1
				thr = midpoint(xa, xb)
			}
		}
	}
	return feat, pos, thr, best
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

// midpoint is the threshold between neighbouring values a < b: their
// midpoint, or a when rounding puts it at b.
func midpoint(a, b float64) float64 {
	t := a/2 + b/2
	if t >= b {
		t = a
	}
	return t
}
