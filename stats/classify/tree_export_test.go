package classify

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/tree"
)

// FitCART grows one Gini tree on every row of d with every feature tried
// at each node and leaves of at least minLeaf rows: scikit-learn's
// DecisionTreeClassifier(min_samples_leaf=minLeaf), for the reference test.
func FitCART(d Data, minLeaf int) Model {
	_, c := d.X.Dims()
	return fitForest(d, tree.CARTParams{MTry: c, MinLeaf: minLeaf}, 1, Options{Workers: 1})
}

// FitGBMFixed boosts rounds rounds of trees of at most leaves leaves with
// L2 penalty lambda on every row of d, without a validation slice:
// scikit-learn's HistGradientBoostingClassifier(max_iter=rounds,
// max_leaf_nodes=leaves, l2_regularization=lambda, early_stopping=False),
// for the reference test.
// With words, every word is a column.
func FitGBMFixed(d Data, leaves, rounds int, lambda float64, workers int) Model {
	p := tree.HistParams{Leaves: leaves, MinLeaf: gbmMinLeaf, Lambda: lambda, Rate: gbmRate}
	return fitGBM(tree.Bin(d.X, d.Words, tree.MaxBins, nil), d, p, rounds, workers)
}

// GBMRounds returns a gradient-boosting model's number of rounds.
func GBMRounds(m Model) int { return m.(*gbmModel).rounds() }

// GBMPlainProba is a gradient-boosting model's Proba by the plain walk
// (tree.Predict per score, summing its rounds in order): the scores its
// tree.Ensemble must match to the bit.
func GBMPlainProba(m Model, x *mat.Dense) *mat.Dense {
	g := m.(*gbmModel)
	r, _ := x.Dims()
	raw := make([][]float64, len(g.trees))
	for k, ts := range g.trees {
		raw[k] = make([]float64, r)
		tree.Predict(ts, g.d, g.base[k], 1, x, raw[k])
	}
	out := mat.NewDense(r, g.k, nil)
	p := make([]float64, g.k)
	for i := range r {
		gbmProba(raw, i, p)
		out.SetRow(i, p)
	}
	return out
}
