package regress

import (
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

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

// treesOf returns the trees of a random forest or gbm model, with the
// base and scale its Predict applies to their sum.
func treesOf(m Model) (trees [][]tree.Node, d int, base, scale float64) {
	switch m := m.(type) {
	case *rfModel:
		return m.trees, m.d, 0, 1 / float64(len(m.trees))
	case *gbmModel:
		return m.trees, m.d, m.base, 1
	}
	panic("regress: not a tree ensemble")
}

// LeafWalk predicts the rows of x with m's trees one row at a time
// (tree.Leaf of every tree, summed in order): the walk Predict must
// match to the bit.
func LeafWalk(m Model, x *mat.Dense) []float64 {
	trees, _, base, scale := treesOf(m)
	n, _ := x.Dims()
	out := make([]float64, n)
	for i := range n {
		sum := 0.0
		for _, t := range trees {
			sum += tree.Leaf(t, x.RawRowView(i))
		}
		out[i] = base + scale*sum
	}
	return out
}

// EnsembleWalk predicts the rows of x with a tree.Ensemble of m's trees.
func EnsembleWalk(m Model, x *mat.Dense) []float64 {
	trees, d, base, scale := treesOf(m)
	n, _ := x.Dims()
	out := make([]float64, n)
	tree.NewEnsemble(trees, d).Predict(base, scale, x, out)
	return out
}
