package classify

import "github.com/vaticml/vatic/stats/internal/tree"

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
