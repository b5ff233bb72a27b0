package regress

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/spatial/kdtree"

	"github.com/vaticml/vatic/stats"
)

const knnKey = "knn"

const (
	// knnBruteMaxRows is the largest training set searched by brute force;
	// above it a k-d tree answers queries (MODELLING §16).
	knnBruteMaxRows = 20000
	// knnTreeMaxDims bounds the dimension where a k-d tree beats brute
	// force. MODELLING §16 says 20, but gonum's tree (one point per node,
	// interface calls per visit) is measured slower than brute force from
	// about 9 i.i.d. Gaussian dimensions on 100 000 rows (10: 3.1 ms vs
	// 1.4 ms per 10-NN query; 8: 0.87 vs 1.2 ms; 6: 0.17 vs 0.84 ms).
	knnTreeMaxDims = 8
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
// at most 8 columns vary).
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
func (KNN) Fit(x *mat.Dense, y []float64, opt Options) (Model, error) {
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
	parallelIndexed(chunks, workers, func(c int) {
		s := make([]float64, len(cands))
		q := make([]float64, len(m.cols))
		var sr knnSearcher
		for i := c * knnChunkRows; i < min(len(yva), (c+1)*knnChunkRows); i++ {
			m.scale(xva.RawRowView(i), q)
			nb := m.index.search(q, kmax, &sr)
			for ci, cand := range cands {
				e := yva[i] - knnAverage(nb[:min(cand.k, len(nb))], m.y, cand.distance)
				s[ci] += e * e
			}
		}
		sse[c] = s
	})
	mse := make([]float64, len(cands))
	for _, s := range sse {
		for ci, v := range s {
			mse[ci] += v
		}
	}
	for ci := range mse {
		mse[ci] /= float64(len(yva))
	}
	return mse
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
	st       standardizer // over all input columns
	cols     []int        // columns with sd > 0, the distance coordinates
	index    *knnIndex
	y        []float64
}

func newKNNModel(x *mat.Dense, y []float64, k int, distance bool) *KNNModel {
	n, _ := x.Dims()
	m := &KNNModel{k: k, distance: distance, st: newStandardizer(x), y: slices.Clone(y)}
	m.setCols()
	rows := make([]float64, n*len(m.cols))
	for i := range n {
		m.scale(x.RawRowView(i), rows[i*len(m.cols):(i+1)*len(m.cols)])
	}
	m.index = newKNNIndex(rows, n, len(m.cols))
	return m
}

func (m *KNNModel) setCols() {
	m.cols = m.cols[:0]
	for j, sd := range m.st.sd {
		if sd > 0 {
			m.cols = append(m.cols, j)
		}
	}
}

// scale writes the z-scores of row's varying columns into q.
func (m *KNNModel) scale(row, q []float64) {
	for i, j := range m.cols {
		q[i] = (row[j] - m.st.mean[j]) / m.st.sd[j]
	}
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
	var sr knnSearcher
	predictRows(x, len(m.st.mean), dst, func(i int, row []float64) {
		m.scale(row, q)
		dst[i] = knnAverage(m.index.search(q, k, &sr), m.y, m.distance)
	})
}

// Refit keeps the training rows x, y with the same k and weighting.
func (m *KNNModel) Refit(x *mat.Dense, y []float64, _ Options) (Model, error) {
	return fitKNNAt(x, y, m.k, m.distance)
}

// MarshalBinary encodes the model, training rows included, for Unmarshal.
func (m *KNNModel) MarshalBinary() ([]byte, error) {
	w := wireWriter{buf: make([]byte, 0, 64+8*(len(m.index.rows)+len(m.y)+3*len(m.st.mean)))}
	w.buf = append(w.buf, knnWireVersion)
	w.int(m.k)
	dist := 0
	if m.distance {
		dist = 1
	}
	w.int(dist)
	w.f64s(m.st.mean)
	w.f64s(m.st.sd)
	w.f64s(m.y)
	w.f64s(m.index.rows)
	return frame(knnKey, w.buf), nil
}

func unmarshalKNN(data []byte) (Model, error) {
	if len(data) < 1 || data[0] != knnWireVersion {
		return nil, fmt.Errorf("%w (knn version)", errWirePayload)
	}
	r := wireReader{buf: data[1:]}
	m := &KNNModel{k: r.int(math.MaxInt32), distance: r.int(1) == 1}
	m.st.mean, m.st.sd = r.f64s(), r.f64s()
	m.y = r.f64s()
	rows := r.f64s()
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("%w (knn)", err)
	}
	m.setCols()
	n, dim := len(m.y), len(m.cols)
	if m.k < 1 || n < 1 || len(m.st.sd) != len(m.st.mean) || len(rows) != n*dim {
		return nil, fmt.Errorf("%w (knn shape)", errWirePayload)
	}
	m.index = newKNNIndex(rows, n, dim)
	return m, nil
}

// knnNeighbor is one search result: squared distance and training row.
type knnNeighbor struct {
	d2  float64
	idx int
}

// knnAverage is the prediction from neighbours sorted by distance.
func knnAverage(nb []knnNeighbor, y []float64, distance bool) float64 {
	if distance {
		var zs float64
		zeros := 0
		for _, v := range nb {
			if v.d2 != 0 {
				break // sorted: the exact matches come first
			}
			zs += y[v.idx]
			zeros++
		}
		if zeros > 0 {
			return zs / float64(zeros)
		}
		var sw, swy float64
		for _, v := range nb {
			w := 1 / math.Sqrt(v.d2)
			sw += w
			swy += w * y[v.idx]
		}
		return swy / sw
	}
	var s float64
	for _, v := range nb {
		s += y[v.idx]
	}
	return s / float64(len(nb))
}

// knnDist2 is the squared Euclidean distance; brute force and the k-d tree
// both call it, with the query first, so they compute identical values.
func knnDist2(q, r []float64) float64 {
	r = r[:len(q)]
	var s float64
	for j, v := range q {
		d := v - r[j]
		s += d * d
	}
	return s
}

// knnIndex answers k-nearest queries over n standardised rows of dim
// coordinates, by brute force or with a k-d tree.
type knnIndex struct {
	rows   []float64 // n×dim, row-major
	n, dim int
	tree   *kdtree.Tree
}

func newKNNIndex(rows []float64, n, dim int) *knnIndex {
	ix := &knnIndex{rows: rows, n: n, dim: dim}
	if n > knnBruteMaxRows && dim >= 1 && dim <= knnTreeMaxDims {
		ix.buildTree()
	}
	return ix
}

// buildTree indexes the rows in a k-d tree whose pivots are chosen
// deterministically (gonum's default pivot samples a global random
// source), so a model answers the same after Unmarshal.
func (ix *knnIndex) buildTree() {
	pts := make(knnPoints, ix.n)
	for i := range pts {
		pts[i] = &knnPoint{x: ix.rows[i*ix.dim : (i+1)*ix.dim], idx: i}
	}
	ix.tree = kdtree.New(pts, false)
	// Lay the points and their coordinates out in the tree's pre-order so a
	// search, which walks down and then back up subtrees, reads nearby
	// memory rather than rows scattered by the build's sorting.
	coords := make([]float64, 0, len(ix.rows))
	slab := make([]knnPoint, 0, ix.n)
	var walk func(nd *kdtree.Node)
	walk = func(nd *kdtree.Node) {
		for ; nd != nil; nd = nd.Right {
			p := nd.Point.(*knnPoint)
			coords = append(coords, p.x...)
			slab = append(slab, knnPoint{x: coords[len(coords)-ix.dim : len(coords) : len(coords)], idx: p.idx})
			nd.Point = &slab[len(slab)-1]
			walk(nd.Left)
		}
	}
	walk(ix.tree.Root)
}

// knnSearcher holds one goroutine's scratch space for searches.
type knnSearcher struct {
	out    []knnNeighbor
	keeper knnKeeper
	query  knnPoint
}

// search returns the k nearest rows to q ordered by (distance, row). The
// slice is reused by the next search with the same searcher.
func (ix *knnIndex) search(q []float64, k int, sr *knnSearcher) []knnNeighbor {
	k = min(k, ix.n)
	out := sr.out[:0]
	if ix.tree != nil {
		sr.keeper.reset(k)
		sr.query = knnPoint{x: q, idx: -1}
		ix.tree.NearestSet(&sr.keeper, &sr.query)
		for _, c := range sr.keeper.h {
			out = append(out, knnNeighbor{d2: c.Dist, idx: c.Comparable.(*knnPoint).idx})
		}
		sr.out = out
		return out
	}
	dim := ix.dim
	for i := range ix.n {
		d2 := knnDist2(q, ix.rows[i*dim:(i+1)*dim])
		if len(out) == k {
			// Rows come in index order, so an equal distance loses.
			if d2 >= out[k-1].d2 {
				continue
			}
			out = out[:k-1]
		}
		pos := len(out)
		for pos > 0 && out[pos-1].d2 > d2 {
			pos--
		}
		out = slices.Insert(out, pos, knnNeighbor{d2, i})
	}
	sr.out = out
	return out
}

// knnPoint is a training row in the k-d tree, carrying its index for tie
// breaks.
type knnPoint struct {
	x   []float64
	idx int
}

// Compare is p.x[d] − c.x[d].
func (p *knnPoint) Compare(c kdtree.Comparable, d kdtree.Dim) float64 {
	return p.x[d] - c.(*knnPoint).x[d]
}

// Dims is the number of coordinates.
func (p *knnPoint) Dims() int { return len(p.x) }

// Distance is the squared Euclidean distance to c.
func (p *knnPoint) Distance(c kdtree.Comparable) float64 { return knnDist2(p.x, c.(*knnPoint).x) }

// knnPoints is the kdtree.Interface over training rows: Index, Len, Slice
// and Pivot.
type knnPoints []*knnPoint

func (p knnPoints) Index(i int) kdtree.Comparable         { return p[i] }
func (p knnPoints) Len() int                              { return len(p) }
func (p knnPoints) Slice(start, end int) kdtree.Interface { return p[start:end] }

// Pivot sorts by coordinate d, then row index, and returns the middle:
// deterministic, at O(m log m) per node.
func (p knnPoints) Pivot(d kdtree.Dim) int {
	slices.SortFunc(p, func(a, b *knnPoint) int {
		if c := cmp.Compare(a.x[d], b.x[d]); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	return len(p) / 2
}

// knnKeeper is a kdtree.Keeper retaining the k best points by (distance,
// row index), the order brute force uses. Its heap is a max-heap with a
// nil sentinel at infinite distance until k points are kept.
type knnKeeper struct {
	h []kdtree.ComparableDist
}

func (kp *knnKeeper) reset(k int) {
	if cap(kp.h) != k {
		kp.h = make([]kdtree.ComparableDist, 1, k)
	}
	kp.h = kp.h[:1]
	kp.h[0] = kdtree.ComparableDist{Dist: math.Inf(1)}
}

// worse reports whether a ranks after b.
func knnWorse(a, b kdtree.ComparableDist) bool {
	if a.Comparable == nil || b.Comparable == nil {
		return a.Comparable == nil && b.Comparable != nil
	}
	if a.Dist != b.Dist {
		return a.Dist > b.Dist
	}
	return a.Comparable.(*knnPoint).idx > b.Comparable.(*knnPoint).idx
}

// Keep adds c when it ranks before the worst kept point.
func (kp *knnKeeper) Keep(c kdtree.ComparableDist) {
	if !knnWorse(kp.h[0], c) {
		return
	}
	if len(kp.h) == cap(kp.h) {
		kp.h[0] = c
		heap.Fix(kp, 0)
		return
	}
	// heap.Push without boxing c into an interface (an allocation per
	// kept point): append and sift up.
	kp.h = append(kp.h, c)
	for i := len(kp.h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !kp.Less(i, parent) {
			break
		}
		kp.Swap(i, parent)
		i = parent
	}
}

// Max is the worst kept point (or the sentinel).
func (kp *knnKeeper) Max() kdtree.ComparableDist { return kp.h[0] }

// Len, Less, Swap, Push and Pop implement heap.Interface (a max-heap).
func (kp *knnKeeper) Len() int           { return len(kp.h) }
func (kp *knnKeeper) Less(i, j int) bool { return knnWorse(kp.h[i], kp.h[j]) }
func (kp *knnKeeper) Swap(i, j int)      { kp.h[i], kp.h[j] = kp.h[j], kp.h[i] }

// Push appends x.
func (kp *knnKeeper) Push(x any) { kp.h = append(kp.h, x.(kdtree.ComparableDist)) }

// Pop removes the last element.
func (kp *knnKeeper) Pop() any {
	x := kp.h[len(kp.h)-1]
	kp.h = kp.h[:len(kp.h)-1]
	return x
}
