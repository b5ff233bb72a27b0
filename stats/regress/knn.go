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
	// knnWireWords is the payload version of a model fitted with words.
	knnWireWords = 2
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
//
// With words (d.Words, issue 16) the distance runs over X's z-scored
// columns and the word columns all divided by one pooled factor,
// sqrt(mean of the varying word columns' training variances), not
// centred (distances do not change, and the words stay sparse;
// neighbors.WordIndex, always brute force); zero-variance word columns are left out. This
// departs on purpose from MODELLING §1's z-scored columns for the
// text-derived columns: per-word sds amplify rare words (tiny sd) until
// they dominate the distance, while one factor keeps the TF-IDF geometry
// of the block (rows L2-normalised: cosine-like) and still gives the block
// a total variance equal to its number of varying columns, so X and the
// words weigh against each other as under z-scores. On wordsim.Bench
// (TestKNNTextScale, 2 000 held-out rows) it moved regression RMSE 2.743 → 2.553
// from per-word z-scores, past the old bounded dense block. Each CV fold
// pools its own training rows' variances. The model keeps the scaled
// training words as a CSR, never as dense rows, and the saved per-column
// scale vector holds the pooled factor for every kept column.
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
	if d.Words == nil {
		return fitKNN(d.X, d.Y, opt)
	}
	if err := checkData(d, 2*kfoldCount); err != nil {
		return nil, err
	}
	return knnSearch(d, opt)
}

// fitKNN is Fit on dense rows.
func fitKNN(x *mat.Dense, y []float64, opt Options) (Model, error) {
	if err := fitInputCheck(x, y, 2*kfoldCount); err != nil {
		return nil, err
	}
	return knnSearch(Data{X: x, Y: y}, opt)
}

// knnSearch is Fit on checked rows, dense or with words.
func knnSearch(full Data, opt Options) (Model, error) {
	d := full
	if full.rows() > knnSearchRows {
		d = knnSample(full, knnSearchRows, opt.Seed)
	}
	n := d.rows()
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
		for c, mse := range knnFoldMSE(d, fold, f, cands, opt.Workers) {
			meanMSE[c] += mse / kfoldCount
		}
	}
	best := 0
	for c := range cands {
		if meanMSE[c] < meanMSE[best] {
			best = c
		}
	}
	return newKNNModel(full, cands[best].k, cands[best].distance), nil
}

// knnSearchRows bounds the rows the cross-validated choice of k and
// weights runs on: brute-force CV costs n²·d, which at 100 000 × 20 is
// minutes on two cores. Above it the choice uses a random subsample
// (stats.Rand(seed, "knn/sample")) and the model keeps every row.
const knnSearchRows = 5000

// knnSample draws m rows without replacement, kept in their order.
func knnSample(d Data, m int, seed uint64) Data {
	rows := stats.Rand(seed, "knn/sample").Perm(d.rows())[:m]
	slices.Sort(rows)
	return knnRows(d, rows)
}

// knnRows is the given rows of d: X's rows copied (as kfoldSplit and the
// dense sample always did) and the words' selected.
func knnRows(d Data, rows []int) Data {
	s := Data{Y: pickRows(d.Y, rows)}
	if p := d.denseCols(); p > 0 {
		s.X = mat.NewDense(len(rows), p, nil)
		for i, r := range rows {
			s.X.SetRow(i, d.X.RawRowView(r))
		}
	}
	if d.Words != nil {
		s.Words = d.Words.SelectRows(rows)
	}
	return s
}

// knnFoldMSE trains on the rows outside fold f and returns each
// candidate's mean squared error on fold f.
func knnFoldMSE(d Data, fold []int, f int, cands []knnCandidate, workers int) []float64 {
	tr, va := stats.FoldRows(fold, f)
	train, valid := knnRows(d, tr), knnRows(d, va)
	yva := valid.Y
	m := newKNNModel(train, 1, false)
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
			row, wc, wv := neighbors.RowOf(valid.X, valid.Words, i)
			nb := m.search(row, wc, wv, q, kmax, &sr)
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
	return newKNNModel(Data{X: x, Y: y}, k, distance), nil
}

// KNNModel is a fitted k-NN regressor: the standardised training rows and
// targets, k and the weighting. It is immutable and safe for concurrent
// Predict.
type KNNModel struct {
	k        int
	distance bool
	st       scale.Standardizer   // over X's columns (all input columns without words)
	cols     []int                // columns with sd > 0, the dense distance coordinates
	index    *neighbors.Index     // without words
	words    *neighbors.WordIndex // with words (index is nil)
	y        []float64
}

func newKNNModel(d Data, k int, distance bool) *KNNModel {
	m := &KNNModel{k: k, distance: distance, y: slices.Clone(d.Y)}
	var rows []float64
	m.st, m.cols, rows = scale.Points(d.X)
	if d.Words == nil {
		m.index = neighbors.New(rows, d.rows(), len(m.cols))
	} else {
		m.words = neighbors.NewWordIndex(rows, d.rows(), len(m.cols), d.Words)
	}
	return m
}

// search returns the k training rows nearest to the row of dense columns
// row and words wc, wv (ignored without words), q being scratch space of
// len(m.cols).
func (m *KNNModel) search(row []float64, wc []int32, wv []float64, q []float64, k int, sr *neighbors.Searcher) []neighbors.Neighbor {
	m.st.Project(row, m.cols, q)
	if m.words != nil {
		return m.words.Search(q, wc, wv, k, sr)
	}
	return m.index.Search(q, k, sr)
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
	if m.words == nil {
		predictRows(x, len(m.st.Mean), dst, func(i int, row []float64) {
			m.st.Project(row, m.cols, q)
			dst[i] = knnAverage(m.index.Search(q, k, &sr), m.y, m.distance)
		})
		return
	}
	n, p := x.Dims()
	if n != len(dst) {
		panic(fmt.Sprintf("regress: Predict with %d rows into %d values", n, len(dst)))
	}
	if want := len(m.st.Mean) + m.words.Words().Cols; n > 0 && p != want {
		panic(fmt.Sprintf("regress: Predict with %d columns, model has %d", p, want))
	}
	neighbors.SplitRows(x, len(m.st.Mean), func(i int, row []float64, wc []int32, wv []float64) {
		dst[i] = knnAverage(m.search(row, wc, wv, q, k, &sr), m.y, m.distance)
	})
}

// Refit keeps the training rows of d with the same k and weighting.
func (m *KNNModel) Refit(d Data, _ Options) (Model, error) {
	if d.Words == nil {
		return fitKNNAt(d.X, d.Y, m.k, m.distance)
	}
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	return newKNNModel(d, m.k, m.distance), nil
}

// MarshalBinary encodes the model, training rows included, for Unmarshal:
// wire 1 without words; wire 2 with words, whose scaled training words
// (neighbors.WordIndex.AppendBinary: the words' per-column scales and
// CSR) come right after the version byte, before wire 1's fields.
func (m *KNNModel) MarshalBinary() ([]byte, error) {
	var rows []float64
	if m.words != nil {
		rows = m.words.Dense()
	} else {
		rows = m.index.Rows()
	}
	w := codec.Writer{B: make([]byte, 0, 64+8*(len(rows)+len(m.y)+3*len(m.st.Mean)))}
	if m.words == nil {
		w.B = append(w.B, knnWireVersion)
	} else {
		w.B = m.words.AppendBinary(append(w.B, knnWireWords))
	}
	w.Int(m.k)
	dist := 0
	if m.distance {
		dist = 1
	}
	w.Int(dist)
	w.F64s(m.st.Mean)
	w.F64s(m.st.SD)
	w.F64s(m.y)
	w.F64s(rows)
	return codec.Frame(knnKey, w.B), nil
}

func unmarshalKNN(data []byte) (Model, error) {
	saved, rest, err := neighbors.ReadPayload(data, knnWireVersion, knnWireWords) // saved: nil without words
	if err != nil {
		return nil, fmt.Errorf("%w (knn: %v)", errWirePayload, err)
	}
	r := codec.NewReader(rest, errWirePayload)
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
	if m.index, m.words, err = saved.Build(rows, n, dim); err != nil {
		return nil, fmt.Errorf("%w (knn words: %v)", errWirePayload, err)
	}
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
