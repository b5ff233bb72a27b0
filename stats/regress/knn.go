package regress

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

const knnKey = "knn"

const (
	// knnChunkRows is the unit of parallel work in cross-validation; fixed so
	// that sums do not depend on the worker count.
	knnChunkRows   = 256
	knnWireVersion = 1
)

// knnKs are the neighbour counts Fit tries.
var knnKs = [...]int{3, 5, 10, 20}

// KNN is k-nearest-neighbour regression (key "knn", MODELLING §6.2): the
// prediction is the mean target of the k training rows nearest in
// Euclidean distance over z-scored columns (training mean, sample sd;
// zero-variance columns are left out), either plain (uniform) or weighted
// by 1/distance (where some neighbours are at distance 0, they alone count,
// equally, as in scikit-learn). Fit chooses k ∈ {3, 5, 10, 20} and the
// weighting by 5-fold cross-validation (folds from
// stats.Rand(seed, "knn/folds"), each fold standardised on its own training
// rows; lowest mean fold MSE, ties to the earlier candidate in the order
// k ascending, uniform before distance). Neighbours are ranked by
// (distance, training row), so ties break the same way whether the search
// is brute force (up to 20 000 training rows) or a k-d tree (above, when
// at most 8 columns vary); package stats/internal/neighbors searches.
type KNN struct{}

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

// Fit chooses k and the weighting by 5-fold cross-validation and keeps all
// of x, y as the training set. It needs two rows per fold (ErrTooFewRows
// below 10); a k larger than the smallest fold's training part is not
// tried. Validation rows are scored on up to opt.Workers goroutines; the
// result does not depend on opt.Workers.
func (KNN) Fit(d Data, opt Options) (Model, error) {
	return fitWords(d, opt, fitKNN) // bounded.go: with words, the best stats.MaxDenseWords
}

// fitKNN is Fit on dense rows.
func fitKNN(x *mat.Dense, y []float64, opt Options) (Model, error) {
	if err := fitInputCheck(x, y, 2*kfoldCount); err != nil {
		return nil, err
	}
	full, fullY := x, y
	if n, _ := x.Dims(); n > knnSearchRows {
		x, y = knnSample(x, y, knnSearchRows, opt.Seed)
	}
	n, _ := x.Dims()
	minTrain := n - (n+kfoldCount-1)/kfoldCount
	var cands []knnCandidate
	for _, k := range knnKs {
		if k <= minTrain {
			cands = append(cands, knnCandidate{k, false}, knnCandidate{k, true})
		}
	}
	fold := kfoldAssign(n, kfoldCount, stats.Rand(opt.Seed, "knn/folds"))
	meanMSE := make([]float64, len(cands))
	for f := range kfoldCount {
		for c, mse := range knnFoldMSE(x, y, fold, f, cands, opt.Workers) {
			meanMSE[c] += mse / kfoldCount
		}
	}
	best := 0
	for c := range cands {
		if meanMSE[c] < meanMSE[best] {
			best = c
		}
	}
	return fitKNNAt(full, fullY, cands[best].k, cands[best].distance)
}

// knnSearchRows bounds the rows the cross-validated choice of k and
// weights runs on: brute-force CV costs n²·d, which at 100 000 × 20 is
// minutes on two cores. Above it the choice uses a random subsample
// (stats.Rand(seed, "knn/sample")) and the model keeps every row.
const knnSearchRows = 5000

// knnSample draws m rows without replacement, kept in their order.
func knnSample(x *mat.Dense, y []float64, m int, seed uint64) (*mat.Dense, []float64) {
	n, d := x.Dims()
	rows := stats.Rand(seed, "knn/sample").Perm(n)[:m]
	slices.Sort(rows)
	xs := mat.NewDense(m, d, nil)
	ys := make([]float64, m)
	for i, r := range rows {
		xs.SetRow(i, x.RawRowView(r))
		ys[i] = y[r]
	}
	return xs, ys
}

// knnFoldMSE trains on the rows outside fold f and returns each
// candidate's mean squared error on fold f.
func knnFoldMSE(x *mat.Dense, y []float64, fold []int, f int, cands []knnCandidate, workers int) []float64 {
	xtr, ytr, xva, yva := kfoldSplit(x, y, fold, f)
	m := newKNNModel(xtr, ytr, 1, false)
	kmax := 0
	for _, c := range cands {
		kmax = max(kmax, c.k)
	}
	chunks := (len(yva) + knnChunkRows - 1) / knnChunkRows
	sse := make([][]float64, chunks)
	parallel.For(chunks, workers, func(c int) {
		s := make([]float64, len(cands))
		q := make([]float64, len(m.cols))
		var sr neighbors.Searcher
		for i := c * knnChunkRows; i < min(len(yva), (c+1)*knnChunkRows); i++ {
			m.st.Project(xva.RawRowView(i), m.cols, q)
			nb := m.index.Search(q, kmax, &sr)
			for ci, cand := range cands {
				e := yva[i] - knnAverage(nb[:min(cand.k, len(nb))], m.y, cand.distance)
				s[ci] += e * e
			}
		}
		sse[c] = s
	})
	return meanOfChunks(sse, len(cands), len(yva))
}

// meanOfChunks sums the per-chunk squared-error sums of m candidates
// and divides them by the n rows: each candidate's mean squared error.
func meanOfChunks(chunks [][]float64, m, n int) []float64 {
	out := make([]float64, m)
	for _, s := range chunks {
		for j, v := range s {
			out[j] += v
		}
	}
	for j := range out {
		out[j] /= float64(n)
	}
	return out
}

// fitKNNAt builds the model for fixed k and weighting.
func fitKNNAt(x *mat.Dense, y []float64, k int, distance bool) (Model, error) {
	if err := fitInputCheck(x, y, 1); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("regress: knn: k = %d", k)
	}
	return newKNNModel(x, y, k, distance), nil
}

// KNNModel is a fitted k-NN regressor: the standardised training rows and
// targets, k and the weighting. It is immutable and safe for concurrent
// Predict.
type KNNModel struct {
	k        int
	distance bool
	st       scale.Standardizer // over all input columns
	cols     []int              // columns with sd > 0, the distance coordinates
	index    *neighbors.Index
	y        []float64
}

func newKNNModel(x *mat.Dense, y []float64, k int, distance bool) *KNNModel {
	n, _ := x.Dims()
	m := &KNNModel{k: k, distance: distance, st: scale.New(x), y: slices.Clone(y)}
	m.cols = m.st.Varying()
	m.index = neighbors.New(m.st.ProjectRows(x, m.cols), n, len(m.cols))
	return m
}

// Key is "knn".
func (m *KNNModel) Key() string { return knnKey }

// K is the number of neighbours averaged (at most the training rows).
func (m *KNNModel) K() int { return m.k }

// DistanceWeighted reports whether neighbours are weighted by 1/distance.
func (m *KNNModel) DistanceWeighted() bool { return m.distance }

// Importance is nil: k-NN has no intrinsic importance (MODELLING §5.3).
func (m *KNNModel) Importance() []float64 { return nil }

// Predict writes the neighbour average of each row of x into dst. It
// panics when len(dst) differs from x's row count or x has the wrong
// column count.
func (m *KNNModel) Predict(x mat.Matrix, dst []float64) {
	q := make([]float64, len(m.cols))
	k := min(m.k, len(m.y))
	var sr neighbors.Searcher
	predictRows(x, len(m.st.Mean), dst, func(i int, row []float64) {
		m.st.Project(row, m.cols, q)
		dst[i] = knnAverage(m.index.Search(q, k, &sr), m.y, m.distance)
	})
}

// Refit keeps the training rows of d with the same k and weighting.
func (m *KNNModel) Refit(d Data, opt Options) (Model, error) {
	return fitWords(d, opt, func(x *mat.Dense, y []float64, _ Options) (Model, error) {
		return fitKNNAt(x, y, m.k, m.distance)
	})
}

// MarshalBinary encodes the model, training rows included, for Unmarshal.
func (m *KNNModel) MarshalBinary() ([]byte, error) {
	w := codec.Writer{B: make([]byte, 0, 64+8*(len(m.index.Rows())+len(m.y)+3*len(m.st.Mean)))}
	w.B = append(w.B, knnWireVersion)
	w.Int(m.k)
	dist := 0
	if m.distance {
		dist = 1
	}
	w.Int(dist)
	w.F64s(m.st.Mean)
	w.F64s(m.st.SD)
	w.F64s(m.y)
	w.F64s(m.index.Rows())
	return codec.Frame(knnKey, w.B), nil
}

func unmarshalKNN(data []byte) (Model, error) {
	if len(data) < 1 || data[0] != knnWireVersion {
		return nil, fmt.Errorf("%w (knn version)", errWirePayload)
	}
	r := codec.NewReader(data[1:], errWirePayload)
	m := &KNNModel{k: r.Int(math.MaxInt32), distance: r.Int(1) == 1}
	m.st.Mean, m.st.SD = r.F64s(), r.F64s()
	m.y = r.F64s()
	rows := r.F64s()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w (knn)", err)
	}
	m.cols = m.st.Varying()
	n, dim := len(m.y), len(m.cols)
	if m.k < 1 || n < 1 || len(m.st.SD) != len(m.st.Mean) || len(rows) != n*dim {
		return nil, fmt.Errorf("%w (knn shape)", errWirePayload)
	}
	m.index = neighbors.New(rows, n, dim)
	return m, nil
}

// knnAverage is the prediction from neighbours sorted by distance.
func knnAverage(nb []neighbors.Neighbor, y []float64, distance bool) float64 {
	if distance {
		var zs float64
		zeros := 0
		for _, v := range nb {
			if v.D2 != 0 {
				break // sorted: the exact matches come first
			}
			zs += y[v.Row]
			zeros++
		}
		if zeros > 0 {
			return zs / float64(zeros)
		}
		var sw, swy float64
		for _, v := range nb {
			w := 1 / math.Sqrt(v.D2)
			sw += w
			swy += w * y[v.Row]
		}
		return swy / sw
	}
	var s float64
	for _, v := range nb {
		s += y[v.Row]
	}
	return s / float64(len(nb))
}
