package classify

import (
	"fmt"
	"math"

	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

const (
	forestKey = "random_forest_classification"
	// forestTrees, forestMinLeaf and forestMaxDraws are the forest's
	// fixed growth rules: 200 trees as regression's (MODELLING §6.2),
	// leaves of one row as scikit-learn's classifier (the vote fractions
	// of fully grown trees), and at most 100 000 bootstrap draws per tree
	// so cost stops growing with rows (§16).
	forestTrees    = 200
	forestMinLeaf  = 1
	forestMaxDraws = 100_000
	// forestScoringTrees is how many trees a fit for scoring grows
	// (Options.Scoring: the folds of the contest's cross-validation,
	// engine/contest_cv.go), scikit-learn's default. Tree i draws from
	// the same stream at every size, so the fold's forest is the first
	// 100 trees of the 200 a saved model would grow, and its score is
	// a slightly pessimistic estimate of the full forest's. The forest
	// was refitted 15 times a contest on iris and wine and cost a third
	// of its CPU. With 100 trees (BenchmarkClassificationContest, CPU
	// seconds of the whole contest, 8 iterations): iris 0.121 → 0.088,
	// wine 0.241 → 0.183, breast_cancer (5 folds) 0.475 → 0.448.
	// TestMeasureCVClassMargins' champions under the 3-SE rule did not
	// change on iris or breast_cancer; on wine two sessions of 50 moved
	// from the lasso to the ridge (0.9802 either way).
	forestScoringTrees = 100
)

func init() { register(5, RandomForest{}, unmarshalForest) }

// RandomForest is Breiman's random forest of Gini trees (Breiman 2001,
// "Random Forests", Machine Learning 45): 200 CART trees, each grown on a
// bootstrap sample (min(rows, 100 000) draws) with max(1, ⌊√d⌋)
// candidate features per node (scikit-learn's classifier default) until
// its leaves are pure or one row; Proba is the mean of the trees' leaf
// class distributions (scikit-learn's predict_proba, so with pure leaves
// the vote fractions of MODELLING §7.4).
//
// Weights (the balance weights of §7.5) multiply each row's bootstrap
// count in the Gini criterion and in the leaf distributions, as
// scikit-learn's sample_weight; the bootstrap itself stays uniform, so a
// weight counts once rather than twice. The forest has no
// hyper-parameter search and does not scale its inputs. Tree i draws
// from stats.Rand(seed, "random_forest_classification/tree<i>"), so the
// forest does not depend on how many workers grow it.
//
// With words (Data.Words) the forest splits on every word column
// natively (tree.NewSparseCARTData): no dense block of words is built,
// and d counts the dense columns and every word, so a node draws
// max(1, ⌊√(dense + words)⌋) candidates among its non-constant columns
// (the dense ones and the words present in the node), as scikit-learn's
// classifier on a sparse TF-IDF matrix (√ of every feature). The draw is
// equal in distribution to the dense fit's on the same columns, not the
// same draw, so the forest is not bit-identical to one fitted on the
// words as dense columns. The model reads rows of every column (a
// *stats.SparseMatrix or a dense matrix) and gives importance to every
// column.
type RandomForest struct{}

// Key returns "random_forest_classification".
func (RandomForest) Key() string { return forestKey }

// Name returns "Random Forest".
func (RandomForest) Name() string { return "Random Forest" }

// Scaled reports false: trees are invariant to monotone transformations.
func (RandomForest) Scaled() bool { return false }

// Fit grows the forest on d with up to opt.Workers goroutines: 200
// trees, or 100 for a fit that is only scored (opt.Scoring,
// forestScoringTrees). It returns ErrTooFewRows below 10 rows.
func (RandomForest) Fit(d Data, opt Options) (Model, error) {
	if err := forestCheck(d); err != nil {
		return nil, err
	}
	trees := forestTrees
	if opt.Scoring {
		trees = forestScoringTrees
	}
	return fitForest(d, forestParams(d), trees, opt), nil
}

// forestParams are the growth rules on d: ⌊√c⌋ candidates of its c
// columns (dense and words), a bootstrap of min(rows, 100 000) draws.
func forestParams(d Data) tree.CARTParams {
	n, c := d.rows(), d.denseCols()+d.wordCols()
	return tree.CARTParams{MTry: max(1, int(math.Sqrt(float64(c)))), MinLeaf: forestMinLeaf, Draws: min(n, forestMaxDraws)}
}

// forestCheck is treeCheck, with words checkData's checks of the two
// blocks (at least 10 rows) and treeCheck's bound on K.
func forestCheck(d Data) error {
	if d.Words == nil {
		return treeCheck(d)
	}
	if err := checkData(d, 10); err != nil {
		return err
	}
	if d.K > treeMaxClasses {
		return fmt.Errorf("classify: %d classes, want 2 to %d", d.K, treeMaxClasses)
	}
	return nil
}

// fitForest grows trees trees with parameters p, on X's columns and,
// with words, every word column after them.
func fitForest(d Data, p tree.CARTParams, trees int, opt Options) *forestModel {
	data := cartData(d)
	f := tree.GrowForest(data, p, trees, opt.Seed, forestKey, opt.Workers)
	return &forestModel{d: data.Width(), k: d.K, trees: f.Trees, ens: tree.NewEnsemble(f.Trees, data.Width()), dist: f.Dist, imp: f.Gain}
}

// cartData is d's columns for growing trees: X's, and with words the
// CSR word columns after them (X may then have none).
func cartData(d Data) *tree.CARTData {
	if d.Words == nil {
		_, c := d.X.Dims()
		return tree.NewCARTData(tree.Columns(d.X), treeLabels(d.Y), d.W, c, d.K)
	}
	var x []float64
	if d.denseCols() > 0 {
		x = tree.Columns(d.X)
	}
	return tree.NewSparseCARTData(x, d.Words, treeLabels(d.Y), d.W, d.denseCols(), d.K)
}

// forestModel is a fitted forest; it is immutable and safe for
// concurrent use.
type forestModel struct {
	d, k  int
	trees [][]tree.Node
	ens   *tree.Ensemble // trees laid out for Proba: packed at decode, else by the first large Proba
	// dist[t][i*k : (i+1)*k] is the weighted class distribution of leaf
	// i of tree t (zeros on internal nodes).
	dist [][]float64
	imp  []float64 // weighted Gini decrease per column, summed over splits and trees
}

// Key returns "random_forest_classification".
func (m *forestModel) Key() string { return forestKey }

// Classes returns K.
func (m *forestModel) Classes() int { return m.k }

// Proba writes the mean of the trees' leaf distributions; an empty dst is
// sized to rows × K.
func (m *forestModel) Proba(x mat.Matrix, dst *mat.Dense) {
	r, _ := x.Dims()
	probaDst(dst, r, m.k)
	k := m.k
	scale := 1 / float64(len(m.trees))
	last := len(m.trees) - 1
	var acc []float64
	// The trees' distributions are summed per row in tree order, as
	// before the Ensemble, so the probabilities are the same to the bit.
	m.ens.Walk(x, func(lo, t int, leaves []int32) {
		if t == 0 {
			acc = append(acc[:0], make([]float64, len(leaves)*k)...)
		}
		dist := m.dist[t]
		for i, leaf := range leaves {
			a := acc[i*k : (i+1)*k]
			for c, v := range dist[int(leaf)*k : (int(leaf)+1)*k] {
				a[c] += v
			}
		}
		if t == last {
			for i := range leaves {
				for c := range k {
					dst.Set(lo+i, c, min(1, acc[i*k+c]*scale))
				}
			}
		}
	})
}

// Importance returns the total weighted Gini decrease of the splits on
// each column, summed over trees; a copy.
func (m *forestModel) Importance() []float64 { return append([]float64(nil), m.imp...) }

// Refit grows a new forest on d: the forest has no searched
// hyper-parameters.
func (m *forestModel) Refit(d Data, opt Options) (Model, error) {
	if d.K != m.k {
		return nil, fmt.Errorf("classify: refit with %d classes, model has %d", d.K, m.k)
	}
	return RandomForest{}.Fit(d, opt)
}

// forestVersion is the first payload byte; bump it when the layout
// changes.
const forestVersion = 1

// MarshalBinary writes version, d, K, the importance, the flat trees and
// then each tree's distributions (K values a node).
func (m *forestModel) MarshalBinary() ([]byte, error) {
	w := tree.Writer{B: []byte{forestVersion}}
	w.U32(m.d)
	w.U32(m.k)
	w.F64s(m.imp)
	w.Trees(m.trees)
	for _, dist := range m.dist {
		w.F64s(dist)
	}
	return codec.Frame(forestKey, w.B), nil
}

func unmarshalForest(b []byte) (Model, error) {
	if len(b) < 1 || b[0] != forestVersion {
		return nil, fmt.Errorf("classify: random forest payload version: %w", tree.ErrBytes)
	}
	r := tree.Reader{B: b[1:]}
	d, k := r.U32(), r.U32()
	if r.Err != nil || d < 1 || d > len(r.B)/8 || k < 2 || k > treeMaxClasses {
		return nil, fmt.Errorf("classify: random forest header: %w", tree.ErrBytes)
	}
	m := &forestModel{d: d, k: k, imp: r.F64s(d), trees: r.Trees(d)}
	if r.Err != nil || len(m.trees) == 0 {
		return nil, fmt.Errorf("classify: random forest trees: %w", tree.ErrBytes)
	}
	m.ens = tree.NewEnsemble(m.trees, d).Packed()
	m.dist = make([][]float64, len(m.trees))
	for t, nodes := range m.trees {
		if len(nodes) > len(r.B)/(8*k) {
			return nil, fmt.Errorf("classify: random forest distributions: %w", tree.ErrBytes)
		}
		m.dist[t] = r.F64s(len(nodes) * k)
		for _, v := range m.dist[t] {
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("classify: random forest distribution %g: %w", v, tree.ErrBytes)
			}
		}
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("classify: random forest: %w", err)
	}
	return m, nil
}
