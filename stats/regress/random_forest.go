package regress

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/vaticml/vatic/stats"
	"gonum.org/v1/gonum/mat"
)

const (
	randomForestKey = "random_forest"
	// rfTrees, rfMinLeaf and rfMaxDraws are the forest of MODELLING §6.2
	// and §16: 200 trees, leaves of at least 5 distinct rows, and at most
	// 100 000 bootstrap draws per tree so cost stops growing with rows.
	rfTrees    = 200
	rfMinLeaf  = 5
	rfMaxDraws = 100_000
)

// RandomForest is Breiman's random forest for regression (Breiman 2001,
// "Random Forests", Machine Learning 45): 200 CART trees, each grown on a
// bootstrap sample (min(rows, 100 000) draws) with max(1, d/3) candidate
// features per node and leaves of at least 5 distinct rows; the prediction
// is the mean of the trees'. It has no hyper-parameter search and does not
// scale its inputs. Tree i draws from stats.Rand(seed,
// "random_forest/tree<i>"), so the forest does not depend on how many
// workers grow it.
type RandomForest struct{}

// Key returns "random_forest".
func (RandomForest) Key() string { return randomForestKey }

// Name returns "Random Forest".
func (RandomForest) Name() string { return "Random Forest" }

// Scaled reports false: trees are invariant to monotone transformations.
func (RandomForest) Scaled() bool { return false }

// Fit grows the forest on x, y with up to opt.Workers goroutines. It
// returns ErrTooFewRows below 10 rows.
func (RandomForest) Fit(x *mat.Dense, y []float64, opt Options) (Model, error) {
	if err := treeCheckInput(x, y); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	p := cartParams{mtry: max(1, d/3), minLeaf: rfMinLeaf, draws: min(n, rfMaxDraws)}
	return fitForest(x, y, p, rfTrees, opt), nil
}

// fitForest grows trees trees with parameters p; tree i draws from
// stats.Rand(opt.Seed, "random_forest/tree<i>"). Workers take tree indices
// in turn and each tree lands in its own slot, so the result is the same
// for any number of workers.
func fitForest(x *mat.Dense, y []float64, p cartParams, trees int, opt Options) *rfModel {
	_, d := x.Dims()
	data := newCARTData(treeColumns(x), y, d)
	m := &rfModel{d: d, trees: make([][]treeNode, trees), imp: make([]float64, d)}
	gains := make([][]float64, trees)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(opt.Workers, trees)) {
		wg.Go(func() {
			b := newCARTBuilder(data, p)
			for {
				i := int(next.Add(1) - 1)
				if i >= trees {
					return
				}
				rng := stats.Rand(opt.Seed, fmt.Sprintf("random_forest/tree%d", i))
				gains[i] = make([]float64, d)
				m.trees[i] = b.grow(rng, gains[i])
			}
		})
	}
	wg.Wait()
	for _, g := range gains {
		for j, v := range g {
			m.imp[j] += v
		}
	}
	return m
}

// rfModel is a fitted forest; it is immutable and safe for concurrent use.
type rfModel struct {
	d     int
	trees [][]treeNode
	imp   []float64 // SSE reduction per column, summed over splits and trees
}

// Key returns "random_forest".
func (m *rfModel) Key() string { return randomForestKey }

// Predict writes the mean of the trees' predictions.
func (m *rfModel) Predict(x mat.Matrix, dst []float64) {
	treePredict(m.trees, m.d, 0, 1/float64(len(m.trees)), x, dst)
}

// Importance returns the total (bootstrap-weighted) SSE reduction of the
// splits on each column, summed over trees; a copy.
func (m *rfModel) Importance() []float64 { return append([]float64(nil), m.imp...) }

// Refit grows a new forest on x, y: the forest has no searched
// hyper-parameters.
func (m *rfModel) Refit(x *mat.Dense, y []float64, opt Options) (Model, error) {
	return RandomForest{}.Fit(x, y, opt)
}

// rfVersion is the first payload byte; bump it when the layout changes.
const rfVersion = 1

// MarshalBinary writes version, d, the importance and the flat trees.
func (m *rfModel) MarshalBinary() ([]byte, error) {
	w := treeWriter{b: []byte{rfVersion}}
	w.u32(m.d)
	w.f64s(m.imp)
	w.trees(m.trees)
	return frame(randomForestKey, w.b), nil
}

func unmarshalRandomForest(b []byte) (Model, error) {
	if len(b) < 1 || b[0] != rfVersion {
		return nil, fmt.Errorf("regress: random forest payload version: %w", errTreeBytes)
	}
	r := treeReader{b: b[1:]}
	m := &rfModel{d: r.u32()}
	if m.d < 1 || m.d > len(r.b)/8 {
		return nil, errTreeBytes
	}
	m.imp = r.f64s(m.d)
	m.trees = r.trees(m.d)
	if err := r.done(); err != nil {
		return nil, err
	}
	if len(m.trees) == 0 {
		return nil, errTreeBytes
	}
	return m, nil
}
