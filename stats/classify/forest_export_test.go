package classify

import (
	"reflect"

	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

// FitForestAll grows trees trees on every row of d (no bootstrap) with
// every column, dense and word, a candidate at each node: the forest
// without its random rows and columns, to compare a fit on words with one
// on the same columns dense.
func FitForestAll(d Data, trees int) Model {
	c := d.denseCols() + d.wordCols()
	return fitForest(d, tree.CARTParams{MTry: c, MinLeaf: forestMinLeaf}, trees, Options{Workers: 1})
}

// FitForestTrees is RandomForest's Fit with trees trees, for benchmarks
// that cannot afford 200; mtry > 0 replaces its candidates per node.
func FitForestTrees(d Data, trees, mtry int, opt Options) (Model, error) {
	if err := forestCheck(d); err != nil {
		return nil, err
	}
	p := forestParams(d)
	if mtry > 0 {
		p.MTry = mtry
	}
	return fitForest(d, p, trees, opt), nil
}

// LeafProba is a random forest's Proba one row at a time (tree.Find in
// every tree, the leaves' distributions summed in order): the walk Proba
// must match to the bit.
func LeafProba(m Model, x *mat.Dense) *mat.Dense {
	f := m.(*forestModel)
	n, _ := x.Dims()
	out := mat.NewDense(n, f.k, nil)
	acc := make([]float64, f.k)
	scale := 1 / float64(len(f.trees))
	for i := range n {
		clear(acc)
		for t, nodes := range f.trees {
			leaf := int(tree.Find(nodes, x.RawRowView(i)))
			for c, v := range f.dist[t][leaf*f.k : (leaf+1)*f.k] {
				acc[c] += v
			}
		}
		for c, v := range acc {
			out.Set(i, c, min(1, v*scale))
		}
	}
	return out
}

// ForestPrefix reports how many trees forest a has, and whether they are
// b's first trees, node for node with the same leaf distributions.
func ForestPrefix(a, b Model) (trees int, prefix bool) {
	fa, fb := a.(*forestModel), b.(*forestModel)
	n := len(fa.trees)
	if n > len(fb.trees) {
		return n, false
	}
	return n, reflect.DeepEqual(fa.trees, fb.trees[:n]) && reflect.DeepEqual(fa.dist, fb.dist[:n])
}
