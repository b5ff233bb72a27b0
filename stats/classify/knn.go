package classify

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/neighbors"
	"github.com/vaticml/vatic/stats/internal/parallel"
	"github.com/vaticml/vatic/stats/internal/scale"
)

const (
	knnKey = "knn"
	// knnSearchRows bounds the rows the cross-validated choice of k and
	// weighting runs on (brute-force CV costs n²·d); above it the choice
	// uses a random subsample (stats.Rand(seed, "knn/sample")) and the model
	// keeps every row, as in stats/regress.
	knnSearchRows = 5000
	// knnChunkRows is the unit of parallel work in cross-validation.
	knnChunkRows = 256
	knnWire      = 1
)

// knnKs are the neighbour counts Fit tries (as regression, MODELLING §6.2).
var knnKs = [...]int{3, 5, 10, 20}

// KNN is the k-nearest-neighbour classifier (key "knn", MODELLING §7.6):
// the class probabilities of a row are the vote fractions of its k
// nearest training rows in Euclidean distance over z-scored columns
// (training mean, sample sd; zero-variance columns left out), each vote
// weighted by the row's balance weight (MODELLING §7.5) and, with distance
// weighting, by 1/distance (where some neighbours are at distance 0, they
// alone vote, as in scikit-learn):
//
//	p_c(x) = Σ_{i ∈ N_k(x), y_i = c} w_i·v_i / Σ_{i ∈ N_k(x)} w_i·v_i,  v_i = 1 or 1/‖x − x_i‖
//
// With unit weights this is scikit-learn's KNeighborsClassifier
// predict_proba. Fit chooses k ∈ {3, 5, 10, 20} and the weighting by
// stratified 5-fold cross-validation (StratifiedFolds with
// stats.Rand(seed, "knn/folds"), each fold standardised on its own
// training rows) scored by the macro-F1 (the contest's metric, §5.3) of
// the out-of-fold predictions pooled over the folds; ties go to the
// earlier candidate (k ascending, uniform before distance). Log-loss is no
// use here: vote fractions are 0 for most classes. Neighbours are ranked
// by (distance, training row) by package stats/internal/neighbors, which
// k-NN regression shares.
type KNN struct{}

func init() { register(4, KNN{}, unmarshalKNN) }

// Key is "knn".
func (KNN) Key() string { return knnKey }

// Name is "K-Nearest Neighbors".
func (KNN) Name() string { return "K-Nearest Neighbors" }

// Scaled is true: distances are taken over standardised columns.
func (KNN) Scaled() bool { return true }

// knnCandidate is one hyper-parameter setting.
type knnCandidate struct {
	k        int
	distance bool
}

// Fit chooses k and the weighting by stratified 5-fold cross-validation
// and keeps all of d as the training set. It needs two rows per fold
// (ErrTooFewRows below 10); a k larger than the smallest fold's training
// part is not tried. Validation rows are scored on up to opt.Workers
// goroutines; the result does not depend on opt.Workers.
func (KNN) Fit(d Data, opt Options) (Model, error) {
	if d.Words != nil {
		return fitBounded(d, opt, KNN{}.Fit) // bounded.go: the best stats.MaxDenseWords words
	}
	if err := checkData(d, 2*kfoldCount); err != nil {
		return nil, err
	}
	full := d
	if n, _ := d.X.Dims(); n > knnSearchRows {
		d = knnSample(d, knnSearchRows, opt.Seed)
	}
	n := len(d.Y)
	fold := StratifiedFolds(d.Y, d.K, kfoldCount, stats.Rand(opt.Seed, "knn/folds"))
	size := make([]int, kfoldCount)
	for _, f := range fold {
		size[f]++
	}
	minTrain := n - slices.Max(size)
	var cands []knnCandidate
	for _, k := range knnKs {
		if k <= minTrain {
			cands = append(cands, knnCandidate{k, false}, knnCandidate{k, true})
		}
	}
	if len(cands) == 0 {
		return nil, ErrTooFewRows
	}
	pred := make([][]int, len(cands)) // out-of-fold predicted class per candidate
	for c := range pred {
		pred[c] = make([]int, n)
	}
	for f := range kfoldCount {
		knnFoldPredict(d, fold, f, cands, opt.Workers, pred)
	}
	best, bestF1 := 0, math.Inf(-1)
	for c := range cands {
		if f1 := stats.ClassificationMetrics(d.Y, pred[c], d.K, nil)[stats.MacroAverageF1Score]; f1 > bestF1 {
			best, bestF1 = c, f1
		}
	}
	return fitKNNAt(full, cands[best].k, cands[best].distance)
}

// knnSample draws m rows without replacement, kept in their order.
func knnSample(d Data, m int, seed uint64) Data {
	n, _ := d.X.Dims()
	rows := stats.Rand(seed, "knn/sample").Perm(n)[:m]
	slices.Sort(rows)
	return selectRows(d, rows)
}

// knnFoldPredict trains on the rows outside fold f and writes each
// candidate's predicted class of every row in fold f into pred[c][row].
func knnFoldPredict(d Data, fold []int, f int, cands []knnCandidate, workers int, pred [][]int) {
	train, _ := foldSplit(d, fold, f)
	m := newKNNModel(train, 1, false)
	var rows []int
	for i, g := range fold {
		if g == f {
			rows = append(rows, i)
		}
	}
	kmax := 0
	for _, c := range cands {
		kmax = max(kmax, c.k)
	}
	chunks := (len(rows) + knnChunkRows - 1) / knnChunkRows
	parallel.For(chunks, workers, func(ch int) {
		q := make([]float64, len(m.cols))
		votes := make([]float64, d.K)
		var sr neighbors.Searcher
		for _, i := range rows[ch*knnChunkRows : min(len(rows), (ch+1)*knnChunkRows)] {
			m.st.Project(d.X.RawRowView(i), m.cols, q)
			nb := m.index.Search(q, kmax, &sr)
			for ci, cand := range cands {
				m.vote(nb[:min(cand.k, len(nb))], cand.distance, votes)
				pred[ci][i] = argMax(votes)
			}
		}
	})
}

// argMax is the index of the largest value, the first on ties (Predict's
// rule).
func argMax(v []float64) int {
	best := 0
	for j := 1; j < len(v); j++ {
		if v[j] > v[best] {
			best = j
		}
	}
	return best
}

// fitKNNAt builds the model for fixed k and weighting.
func fitKNNAt(d Data, k int, distance bool) (*KNNModel, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("classify: knn: k = %d", k)
	}
	return newKNNModel(d, k, distance), nil
}

// KNNModel is a fitted k-NN classifier: the standardised training rows
// with their classes and weights, k and the weighting. It is immutable
// and safe for concurrent Proba.
type KNNModel struct {
	k        int
	distance bool
	classes  int
	st       scale.Standardizer // over all input columns
	cols     []int              // columns with sd > 0, the distance coordinates
	index    *neighbors.Index
	y        []int
	w        []float64 // balance weights of the training rows
}

func newKNNModel(d Data, k int, distance bool) *KNNModel {
	n, _ := d.X.Dims()
	m := &KNNModel{k: k, distance: distance, classes: d.K, st: scale.New(d.X),
		y: slices.Clone(d.Y), w: slices.Clone(weightsOf(d))}
	m.cols = m.st.Varying()
	m.index = neighbors.New(m.st.ProjectRows(d.X, m.cols), n, len(m.cols))
	return m
}

// vote writes the normalised weighted votes of the neighbours nb (sorted
// by distance) into out (K). Votes are added in neighbour order and the
// total is summed in class order, as scikit-learn does, so unit-weight
// probabilities agree with it bit for bit.
func (m *KNNModel) vote(nb []neighbors.Neighbor, distance bool, out []float64) {
	clear(out)
	exact := distance && len(nb) > 0 && nb[0].D2 == 0
	for _, v := range nb {
		switch {
		case exact:
			if v.D2 != 0 {
				continue // only the exact matches vote
			}
			out[m.y[v.Row]] += m.w[v.Row]
		case distance:
			out[m.y[v.Row]] += m.w[v.Row] / math.Sqrt(v.D2)
		default:
			out[m.y[v.Row]] += m.w[v.Row]
		}
	}
	var s float64
	for _, v := range out {
		s += v
	}
	for c := range out {
		out[c] /= s
	}
}

// Key is "knn".
func (m *KNNModel) Key() string { return knnKey }

// Classes is K.
func (m *KNNModel) Classes() int { return m.classes }

// K is the number of neighbours that vote (at most the training rows).
func (m *KNNModel) K() int { return m.k }

// DistanceWeighted reports whether votes are weighted by 1/distance.
func (m *KNNModel) DistanceWeighted() bool { return m.distance }

// Importance is nil: k-NN has no intrinsic importance (MODELLING §5.3).
func (m *KNNModel) Importance() []float64 { return nil }

// Proba writes the weighted vote fractions of every row of x into dst
// (rows × K). It panics when x has the wrong column count or dst the
// wrong shape.
func (m *KNNModel) Proba(x mat.Matrix, dst *mat.Dense) {
	q := make([]float64, len(m.cols))
	var sr neighbors.Searcher
	probaRows(x, len(m.st.Mean), m.classes, dst, func(row, out []float64) {
		m.st.Project(row, m.cols, q)
		m.vote(m.index.Search(q, m.k, &sr), m.distance, out)
	})
}

// Refit keeps the rows of d with the same k and weighting.
func (m *KNNModel) Refit(d Data, _ Options) (Model, error) {
	if d.K != m.classes {
		return nil, fmt.Errorf("classify: knn: refit with %d classes, model has %d", d.K, m.classes)
	}
	return fitKNNAt(d, m.k, m.distance)
}

// MarshalBinary encodes the model, training rows included, for Unmarshal.
func (m *KNNModel) MarshalBinary() ([]byte, error) {
	rows := m.index.Rows()
	w := codec.Writer{B: make([]byte, 0, 64+8*(len(rows)+2*len(m.y)+2*len(m.st.Mean)))}
	w.B = append(w.B, knnWire)
	w.Int(m.k)
	dist := 0
	if m.distance {
		dist = 1
	}
	w.Int(dist)
	w.Int(m.classes)
	w.F64s(m.st.Mean)
	w.F64s(m.st.SD)
	w.Ints(m.y)
	w.F64s(m.w)
	w.F64s(rows)
	return codec.Frame(knnKey, w.B), nil
}

func unmarshalKNN(data []byte) (Model, error) {
	if len(data) < 1 || data[0] != knnWire {
		return nil, fmt.Errorf("%w (knn version)", errPayload)
	}
	r := codec.NewReader(data[1:], errPayload)
	m := &KNNModel{k: r.Int(math.MaxInt32), distance: r.Int(1) == 1, classes: r.Int(1 << 20)}
	m.st.Mean, m.st.SD = r.F64s(), r.F64s()
	m.y = r.Ints(max(0, m.classes-1))
	m.w = r.F64s()
	rows := r.F64s()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w (knn)", err)
	}
	m.cols = m.st.Varying()
	n, dim := len(m.y), len(m.cols)
	if m.k < 1 || m.classes < 2 || n < 1 || len(m.w) != n || len(m.st.SD) != len(m.st.Mean) || len(rows) != n*dim {
		return nil, fmt.Errorf("%w (knn shape)", errPayload)
	}
	m.index = neighbors.New(rows, n, dim)
	return m, nil
}
