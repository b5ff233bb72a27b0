package regress

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

const (
	gbmKey = "gbm"
	// gbmRate, gbmMinLeaf and gbmLambda are the fixed growth rules:
	// learning rate 0.1, leaves of at least 20 rows, L2 penalty 1 on leaf
	// values (XGBoost's default).
	gbmRate    = 0.1
	gbmMinLeaf = 20
	gbmLambda  = 1.0
	// gbmMaxRounds caps boosting; gbmPatience is how many rounds without a
	// better validation loss stop it.
	gbmMaxRounds = 1000
	gbmPatience  = 10
)

// gbmLeafChoices are the numbers of leaves tried on the validation slice.
// Three leaves (two splits) suit additive targets with pairwise
// interactions, 31 deeper interactions; on friedman1 adding 3 to {7, 15,
// 31} lowers the 5-fold RMSE from 1.28 to 1.24 (6 seeds) for about a
// fifth more fitting time.
var gbmLeafChoices = []int{3, 7, 15, 31}

// GradientBoosting is histogram gradient boosting of regression trees
// with squared loss (Friedman 2001, "Greedy function approximation", Ann.
// Statist. 29; histograms as in LightGBM): every column is binned once
// into at most 255 quantile bins (a word column, issue 16, into at most
// tree.WordBins = 32), trees grow best-first to a number of
// leaves with at least 20 rows each, leaf values are shrunk by the
// learning rate 0.1 and an L2 penalty. Fit holds out a 10 % validation
// slice (drawn from stats.Rand(seed, "gbm/validation")), boosts with 3, 7,
// 15 and 31 leaves until the validation loss has not improved for 10
// rounds (at most 1000), keeps the best leaves and number of rounds, and
// refits those on every row. It does not scale its inputs.
type GradientBoosting struct{}

// Key returns "gbm".
func (GradientBoosting) Key() string { return gbmKey }

// Name returns "Gradient Boosting".
func (GradientBoosting) Name() string { return "Gradient Boosting" }

// Scaled reports false: trees are invariant to monotone transformations.
func (GradientBoosting) Scaled() bool { return false }

// Fit chooses the leaves and rounds on a validation slice and fits them on
// every row, with up to opt.Workers goroutines. It returns ErrTooFewRows
// below 10 rows. With words (d.Words) every word is a column of the
// trees, binned and split on sparsely (tree.Bin): the model reads rows of
// X's columns then the words, as a *stats.SparseMatrix or dense.
func (GradientBoosting) Fit(d Data, opt Options) (Model, error) {
	if err := gbmCheck(d); err != nil {
		return nil, err
	}
	y := d.Y
	n := len(y)
	bins := tree.Bin(d.X, d.Words, tree.WordBins, stats.Rand(opt.Seed, "gbm/bins"))

	nv := max(1, n/10)
	isVal := make([]bool, n)
	for _, i := range stats.Rand(opt.Seed, "gbm/validation").Perm(n)[:nv] {
		isVal[i] = true
	}
	isTrain := make([]bool, n)
	ty := make([]float64, 0, n-nv)
	vy := make([]float64, 0, nv)
	for i := range n {
		if isTrain[i] = !isVal[i]; isTrain[i] {
			ty = append(ty, y[i])
		} else {
			vy = append(vy, y[i])
		}
	}
	tbins := bins.Subset(isTrain)
	nt := tbins.Rows()
	vx := tree.Hold(d.X, d.Words, isVal)

	// The leaf choices run side by side, each single-threaded unless
	// workers outnumber them; the most leaves (the slowest) start first.
	type trial struct {
		rounds int
		loss   float64
	}
	trials := make([]trial, len(gbmLeafChoices))
	inner := max(1, opt.Workers/len(gbmLeafChoices))
	sem := make(chan struct{}, max(1, opt.Workers/inner))
	var wg sync.WaitGroup
	for k := len(gbmLeafChoices) - 1; k >= 0; k-- {
		leaves := gbmLeafChoices[k]
		// A tree has at most nt/minLeaf leaves: a choice above that grows
		// the same trees as the next smaller one, which wins the tie.
		if k > 0 && gbmLeafChoices[k-1] >= nt/gbmMinLeaf {
			trials[k].loss = math.Inf(1)
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			g := tbins.Grower(gbmParams(leaves), inner)
			r := boost(g, bins.Cols(), ty, gbmMaxRounds, &histValidation{x: vx, y: vy}, false)
			trials[k] = trial{rounds: r.rounds, loss: r.loss}
		})
	}
	wg.Wait()
	best := 0 // ties go to fewer leaves
	for k, t := range trials {
		if t.loss < trials[best].loss {
			best = k
		}
	}
	return fitGBM(bins, y, gbmParams(gbmLeafChoices[best]), trials[best].rounds, opt.Workers), nil
}

// gbmCheck validates the rows a fit reads: treeCheckInput's checks
// without words, checkData's (at least 10 rows) with them.
func gbmCheck(d Data) error {
	if d.Words == nil {
		return treeCheckInput(d.X, d.Y)
	}
	return checkData(d, 10)
}

func gbmParams(leaves int) tree.HistParams {
	return tree.HistParams{Leaves: leaves, MinLeaf: gbmMinLeaf, Lambda: gbmLambda, Rate: gbmRate}
}

// fitGBM boosts rounds trees on binned rows without validation.
func fitGBM(bins *tree.Binned, y []float64, p tree.HistParams, rounds, workers int) *gbmModel {
	g := bins.Grower(p, workers)
	r := boost(g, bins.Cols(), y, rounds, nil, true)
	return &gbmModel{d: bins.Cols(), leaves: p.Leaves, base: r.base, trees: r.trees, ens: tree.NewEnsemble(r.trees, bins.Cols()), imp: r.imp}
}

// histValidation is the held-out slice of early stopping: rows x, targets
// y.
type histValidation struct {
	x *tree.Held
	y []float64
}

// histBoosted is what boost returns.
type histBoosted struct {
	base   float64
	trees  [][]tree.Node // when kept
	imp    []float64
	rounds int     // rounds kept: all, or the best on the validation slice
	loss   float64 // validation mean squared error after rounds
}

// boost fits y from its mean with up to rounds trees of g (over d
// columns), with squared loss: gradients prediction − target, unit
// Hessians. With val it stops
// once the validation loss has not improved for gbmPatience rounds and
// reports the best round; keep keeps the trees (the search does not).
func boost(g *tree.Grower, d int, y []float64, rounds int, val *histValidation, keep bool) histBoosted {
	out := histBoosted{base: gbmMean(y), imp: make([]float64, d)}
	pred := make([]float64, len(y))
	for i := range pred {
		pred[i] = out.base
	}
	grad := make([]float64, len(y))
	var vpred []float64
	if val != nil {
		vpred = make([]float64, len(val.y))
		for i := range vpred {
			vpred[i] = out.base
		}
		out.loss = gbmMSE(vpred, val.y)
	}
	var nodes []tree.Node
	for r := 1; r <= rounds; r++ {
		for i, v := range y {
			grad[i] = pred[i] - v
		}
		nodes = g.Grow(grad, nil, pred, out.imp, nodes)
		if keep {
			out.trees = append(out.trees, slices.Clone(nodes))
		}
		if val == nil {
			out.rounds = r
			continue
		}
		for i := range vpred {
			vpred[i] += val.x.Leaf(nodes, i)
		}
		// An improvement must beat rounding noise (1e-12 relative).
		if loss := gbmMSE(vpred, val.y); loss < out.loss*(1-1e-12) {
			out.loss, out.rounds = loss, r
		} else if r-out.rounds >= gbmPatience {
			break
		}
	}
	return out
}

// gbmMean is the mean of y, exactly y[0] when y is constant (so constant
// targets give zero gradients and no splits).
func gbmMean(y []float64) float64 {
	var s float64
	same := true
	for _, v := range y {
		s += v
		same = same && v == y[0]
	}
	if same {
		return y[0]
	}
	return s / float64(len(y))
}

func gbmMSE(p, y []float64) float64 {
	var s float64
	for i, v := range y {
		s += (p[i] - v) * (p[i] - v)
	}
	return s / float64(len(y))
}

// gbmModel is a fitted boosted ensemble; it is immutable and safe for
// concurrent use.
type gbmModel struct {
	d      int
	leaves int
	base   float64
	trees  [][]tree.Node
	ens    *tree.Ensemble // trees laid out for Predict: packed at decode, else by the first large Predict
	imp    []float64      // split gain per column, summed over trees
}

// Key returns "gbm".
func (m *gbmModel) Key() string { return gbmKey }

// Predict writes the mean of the training targets plus the trees'
// (shrunk) leaf values.
func (m *gbmModel) Predict(x mat.Matrix, dst []float64) {
	m.ens.Predict(m.base, 1, x, dst)
}

// Importance returns the total split gain (reduction of the penalised
// squared loss) per column; a copy.
func (m *gbmModel) Importance() []float64 { return append([]float64(nil), m.imp...) }

// Refit boosts the same number of leaves and rounds on d's rows (with
// its words, if any), binning them anew, without a validation slice.
func (m *gbmModel) Refit(d Data, opt Options) (Model, error) {
	if err := gbmCheck(d); err != nil {
		return nil, err
	}
	bins := tree.Bin(d.X, d.Words, tree.WordBins, stats.Rand(opt.Seed, "gbm/bins"))
	return fitGBM(bins, d.Y, gbmParams(m.leaves), len(m.trees), opt.Workers), nil
}

// gbmVersion is the first payload byte; bump it when the layout changes.
const gbmVersion = 1

// MarshalBinary writes version, d, leaves, base, the importance and the
// flat trees (raw thresholds, so Predict needs no bin edges).
func (m *gbmModel) MarshalBinary() ([]byte, error) {
	w := tree.Writer{B: []byte{gbmVersion}}
	w.U32(m.d)
	w.U32(m.leaves)
	w.F64(m.base)
	w.F64s(m.imp)
	w.Trees(m.trees)
	return codec.Frame(gbmKey, w.B), nil
}

func unmarshalGBM(b []byte) (Model, error) {
	if len(b) < 1 || b[0] != gbmVersion {
		return nil, fmt.Errorf("regress: gbm payload version: %w", tree.ErrBytes)
	}
	r := tree.Reader{B: b[1:]}
	d, leaves, base := r.U32(), r.U32(), r.F64()
	if r.Err != nil || d < 1 || d > len(r.B)/8 || leaves < 2 {
		return nil, fmt.Errorf("regress: gbm header: %w", tree.ErrBytes)
	}
	m := &gbmModel{d: d, leaves: leaves, base: base}
	m.imp = r.F64s(m.d)
	m.trees = r.Trees(m.d)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("regress: gbm: %w", err)
	}
	m.ens = tree.NewEnsemble(m.trees, m.d).Packed()
	return m, nil
}
