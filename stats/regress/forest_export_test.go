package regress

import "github.com/vaticml/vatic/stats/internal/tree"

// FitForestAll grows trees trees on every row of d (no bootstrap), every
// column, dense and word, a candidate at each node (as Fit), to compare a
// fit on words with one on the same columns dense.
func FitForestAll(d Data, trees int) Model {
	p := tree.CARTParams{MTry: d.denseCols() + d.wordCols(), MinLeaf: rfMinLeaf}
	return growForest(forestData(d), p, trees, Options{Workers: 1})
}

// FitForestTrees is RandomForest's Fit with trees trees, for benchmarks
// that cannot afford 200.
func FitForestTrees(d Data, trees int, opt Options) (Model, error) {
	if err := checkData(d, 10); err != nil {
		return nil, err
	}
	return growForest(forestData(d), wordsParams(d), trees, opt), nil
}
