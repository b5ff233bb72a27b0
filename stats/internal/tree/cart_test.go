package tree

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGiniRootSplit checks the incremental Gini scan against a direct
// computation: on random weighted three-class data, the root split of a
// tree that tries every column has the largest weighted Gini decrease
// w·G(node) − w_l·G(left) − w_r·G(right) over every threshold of every
// column, the gains it records sum to at least that, and every leaf's
// class distribution sums to 1.
func TestGiniRootSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		n, d, k := 30+rng.IntN(40), 1+rng.IntN(4), 3
		x := make([]float64, n*d)
		for i := range x {
			x[i] = float64(rng.IntN(12)) // ties included
		}
		y, w := make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(k))
			w[i] = 0.5 + rng.Float64()
		}
		impurity := func(keep func(i int) bool) float64 { // w·Gini
			c := make([]float64, k)
			var sw float64
			for i := range n {
				if keep(i) {
					c[int(y[i])] += w[i]
					sw += w[i]
				}
			}
			var q float64
			for _, v := range c {
				q += v * v
			}
			return sw - q/sw
		}
		root := impurity(func(int) bool { return true })
		best := 0.0
		for j := range d {
			col := x[j*n : (j+1)*n]
			for thr := range 11 {
				left := func(i int) bool { return col[i] <= float64(thr)+0.5 }
				nl := 0
				for i := range n {
					if left(i) {
						nl++
					}
				}
				if nl == 0 || nl == n {
					continue
				}
				best = max(best, root-impurity(left)-impurity(func(i int) bool { return !left(i) }))
			}
		}
		f := GrowForest(NewCARTData(x, y, w, d, k), CARTParams{MTry: d, MinLeaf: 1}, 1, 1, "test", 1)
		nodes := f.Trees[0]
		var gain float64
		for _, g := range f.Gain {
			gain += g
		}
		if nodes[0].Feat < 0 {
			t.Fatalf("trial %d: the root did not split", trial)
		}
		rootOnly := rootGain(x, y, w, d, k, nodes[0])
		if math.Abs(rootOnly-best) > 1e-9*best {
			t.Errorf("trial %d: root split decrease %.12g, want the best %.12g", trial, rootOnly, best)
		}
		if gain < best-1e-9 {
			t.Errorf("trial %d: total gain %.12g below the root's %.12g", trial, gain, best)
		}
		for leaf, nd := range nodes {
			if nd.Feat >= 0 {
				continue
			}
			var s float64
			for _, v := range f.Dist[0][leaf*k : (leaf+1)*k] {
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("trial %d: leaf %d distribution sums to %g", trial, leaf, s)
			}
		}
	}
}

// rootGain is the weighted Gini decrease of splitting every row by nd.
func rootGain(x, y, w []float64, d, k int, nd Node) float64 {
	n := len(y)
	side := func(left bool) (float64, []float64) {
		c := make([]float64, k)
		var sw float64
		for i := range n {
			if (x[int(nd.Feat)*n+i] <= nd.V) == left {
				c[int(y[i])] += w[i]
				sw += w[i]
			}
		}
		return sw, c
	}
	imp := func(sw float64, c []float64) float64 {
		var q float64
		for _, v := range c {
			q += v * v
		}
		return sw - q/sw
	}
	lw, lc := side(true)
	rw, rc := side(false)
	all := make([]float64, k)
	for c := range all {
		all[c] = lc[c] + rc[c]
	}
	return imp(lw+rw, all) - imp(lw, lc) - imp(rw, rc)
}
