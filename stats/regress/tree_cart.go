package regress

import (
	"math/rand/v2"
	"slices"
)

// cartParams are the growth rules of one CART regression tree (Breiman
// et al. 1984): binary splits x[f] ≤ t chosen to maximise the reduction of
// the (bootstrap-weighted) sum of squared errors, grown until a node cannot
// be split into two children of minLeaf distinct rows each, or its targets
// are all equal.
type cartParams struct {
	// mtry is the number of non-constant features tried at each node,
	// drawn without replacement; features constant within the node do
	// not count (as in scikit-learn), so a split is found when one exists.
	mtry int
	// minLeaf is the minimum number of distinct rows in a leaf.
	minLeaf int
	// draws is the number of bootstrap draws (with replacement) per tree;
	// 0 means every row once, no bootstrap.
	draws int
}

// cartData is the training data shared read-only by the trees of a forest:
// the columns and a presorted row order per column, so no tree sorts.
type cartData struct {
	n, d  int
	x     []float64 // column-major: column j is x[j*n : (j+1)*n]
	y     []float64
	order []int32 // column j's rows by increasing x: order[j*n : (j+1)*n]
}

func newCARTData(x []float64, y []float64, d int) *cartData {
	n := len(y)
	cd := &cartData{n: n, d: d, x: x, y: y, order: make([]int32, n*d)}
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

// cartTask is a node waiting to be split: its node index and its rows,
// the segment [s, e) of every column's sorted list.
type cartTask struct {
	node, s, e int32
}

// cartBuilder holds one goroutine's scratch for growing trees one after
// another; it is not safe for concurrent use.
type cartBuilder struct {
	data *cartData
	p    cartParams

	w, wy  []float64 // bootstrap weight (count) and weight·y per row
	sorted []int32   // in-bag rows by increasing x, per column (m each)
	tmp    []int32
	left   []bool // per row: goes to the left child of the current split
	feats  []int
	stack  []cartTask
}

func newCARTBuilder(data *cartData, p cartParams) *cartBuilder {
	inBag := data.n // most distinct rows a tree sees
	if p.draws > 0 {
		inBag = min(inBag, p.draws)
	}
	return &cartBuilder{
		data:   data,
		p:      p,
		w:      make([]float64, data.n),
		wy:     make([]float64, data.n),
		sorted: make([]int32, inBag*data.d),
		tmp:    make([]int32, data.n),
		left:   make([]bool, data.n),
		feats:  make([]int, data.d),
	}
}

// grow builds one tree with randomness from rng and adds each split's SSE
// reduction to gain[feature]. The nodes are new memory the caller keeps.
func (b *cartBuilder) grow(rng *rand.Rand, gain []float64) []treeNode {
	cd := b.data
	n, d := cd.n, cd.d
	clear(b.w)
	if b.p.draws > 0 {
		for range b.p.draws {
			b.w[rng.IntN(n)]++
		}
	} else {
		for i := range b.w {
			b.w[i] = 1
		}
	}
	for i, w := range b.w {
		b.wy[i] = w * cd.y[i]
	}
	m := 0 // distinct in-bag rows
	for _, w := range b.w {
		if w > 0 {
			m++
		}
	}
	// Every column's sorted list keeps the in-bag rows only: O(n·d), no
	// sort. Column j's list is sorted[j*m : (j+1)*m].
	for j := range d {
		dst := b.sorted[j*m : j*m]
		for _, r := range cd.order[j*n : (j+1)*n] {
			if b.w[r] > 0 {
				dst = append(dst, r)
			}
		}
	}
	sorted := b.sorted[:m*d]
	for j := range b.feats {
		b.feats[j] = j
	}

	nodes := []treeNode{{feat: -1}}
	b.stack = append(b.stack[:0], cartTask{node: 0, s: 0, e: int32(m)})
	for len(b.stack) > 0 {
		t := b.stack[len(b.stack)-1]
		b.stack = b.stack[:len(b.stack)-1]
		s, e := int(t.s), int(t.e)
		seg := sorted[s:e] // column 0's rows: any column has the same set
		var sw, sy float64
		ymin, ymax := cd.y[seg[0]], cd.y[seg[0]]
		for _, r := range seg {
			sw += b.w[r]
			sy += b.wy[r]
			ymin = min(ymin, cd.y[r])
			ymax = max(ymax, cd.y[r])
		}
		nodes[t.node].v = sy / sw
		if e-s < 2*b.p.minLeaf || ymin == ymax {
			continue
		}
		f, pos, thr, g := b.split(rng, sorted, m, s, e, sw, sy)
		if f < 0 {
			continue
		}
		gain[f] += g
		// Mark the rows going left, then partition every other column's
		// segment stably, so both children stay sorted.
		fs := sorted[f*m+s : f*m+e]
		for k, r := range fs {
			b.left[r] = k < pos
		}
		for j := range d {
			if j == f {
				continue
			}
			js := sorted[j*m+s : j*m+e]
			li, ri := 0, 0
			for _, r := range js {
				if b.left[r] {
					js[li] = r
					li++
				} else {
					b.tmp[ri] = r
					ri++
				}
			}
			copy(js[li:], b.tmp[:ri])
		}
		l := int32(len(nodes))
		nodes[t.node] = treeNode{v: thr, feat: int32(f), left: l}
		nodes = append(nodes, treeNode{feat: -1}, treeNode{feat: -1})
		mid := int32(s + pos)
		b.stack = append(b.stack, cartTask{node: l + 1, s: mid, e: t.e}, cartTask{node: l, s: t.s, e: mid})
	}
	return slices.Clip(nodes)
}

// split finds the best split of rows [s, e) among mtry features drawn at
// random (Fisher–Yates over b.feats). It returns the feature (−1 when no
// split leaves minLeaf distinct rows on both sides), the number of rows
// going left, the threshold (midpoint between the two neighbouring
// values, as scikit-learn) and the SSE reduction.
func (b *cartBuilder) split(rng *rand.Rand, sorted []int32, m, s, e int, sw, sy float64) (feat, pos int, thr, gain float64) {
	cd := b.data
	n, d := cd.n, cd.d
	minLeaf := b.p.minLeaf
	feat = -1
	// Maximising sl²/wl + sr²/wr maximises the SSE reduction
	// (sl²/wl + sr²/wr − s²/w); ties keep the first found.
	best := -1.0
	tried := 0
	for i := 0; i < d && tried < b.p.mtry; i++ {
		r := i + rng.IntN(d-i)
		b.feats[i], b.feats[r] = b.feats[r], b.feats[i]
		f := b.feats[i]
		xs := cd.x[f*n : (f+1)*n]
		rows := sorted[f*m+s : f*m+e]
		if xs[rows[0]] == xs[rows[len(rows)-1]] {
			continue // constant in this node
		}
		tried++
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
				thr = xa/2 + xb/2
				if thr >= xb {
					thr = xa
				}
			}
		}
	}
	if feat >= 0 {
		gain = max(0, best-sy*sy/sw)
	}
	return feat, pos, thr, gain
}
