package anomaly

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/mat"
)

const (
	forestKey = "isolation_forest_anomalies"
	// forestSample caps ψ at scikit-learn's max_samples="auto" (256) and
	// forestBudget is the number of sampled rows its default forest holds
	// (n_estimators=100 × 256), MODELLING §8.1.
	forestSample = 256
	forestBudget = 100 * forestSample
	// forestShare is the largest share of the rows one tree sees: ψ ≤
	// n/forestShare, so that small data are subsampled too (see
	// forestSize).
	forestShare = 4
	// forestMaxTrees caps the forest on very small data (below about 100
	// rows), where the budget would ask for up to 12 800 trees: a row's
	// scoring cost stays within 1 000·⌈log₂ ψ⌉ nodes, 4× the default
	// forest's at worst, where uncapped it reached 19× (5.5 k rows/s
	// against 172 k on one core for a forest fitted on 20 rows,
	// BenchmarkForestScore). The bench's tasks need at most 985 trees,
	// so their figures are unchanged.
	forestMaxTrees = 1000
	// constantSpan is scikit-learn's FEATURE_THRESHOLD: a feature whose
	// range in a node is at most this is constant there and not split.
	constantSpan = 1e-7
)

// IsolationForest is Liu, Ting and Zhou's Isolation Forest (ICDM 2008,
// "Isolation Forest"), with scikit-learn's IsolationForest semantics
// (MODELLING §8.1) except for its size on fewer than 1 024 rows
// (forestSize): each of ⌈25 600/ψ⌉ trees is grown on ψ rows drawn
// without replacement; at each node a feature is drawn uniformly among
// those not constant in the node (range > 1e-7) and a threshold uniformly
// in its range; a node is a leaf at depth ⌈log₂ ψ⌉, with one row, or when
// every feature is constant. A row's path length in a tree is the depth
// of its leaf plus c(m) for the m training rows the leaf holds, c(m) =
// 2(ln(m−1) + γ) − 2(m−1)/m (c(2) = 1, c(1) = 0), and its raw score is
// −s(x) = −2^(−E[h(x)]/c(ψ)) (scikit-learn's score_samples). Tree i draws
// from stats.Rand(seed, "isolation_forest_anomalies/tree<i>"), so the
// forest does not depend on how many workers grow it.
type IsolationForest struct{}

// Key returns "isolation_forest_anomalies".
func (IsolationForest) Key() string { return forestKey }

// Name returns "Isolation Forest Outlier Detection" (the recorded name).
func (IsolationForest) Name() string { return "Isolation Forest Outlier Detection" }

// Fit grows the forest on every row of x with up to opt.Workers
// goroutines and sets the offset from the training scores (Threshold).
// It returns ErrTooFewRows below two rows, ErrIdentical when every row is
// the same (or no tree could split: no column spans more than 1e-7) and
// ErrNotFinite on NaN or infinite values.
func (f IsolationForest) Fit(x *mat.Dense, opt Options) (Model, error) {
	m, _, err := f.fit(x, opt)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// fit is Fit, also returning the training rows' anomaly scores: the
// offset is chosen on them, so they come with the fit. x is a *mat.Dense
// or a *stats.SparseMatrix (a session's rows with text columns' words as
// CSR, issue 16): each tree copies just its ψ sampled rows into a dense
// column-major block, and scoring densifies scoreChunk rows at a time, so
// the words of 10^5 rows are never one dense matrix; the forest and the
// scores are those of the same rows given densely, bit for bit.
func (IsolationForest) fit(x mat.Matrix, opt Options) (*forestModel, []float64, error) {
	if err := checkFit(x); err != nil {
		return nil, nil, err
	}
	n, d := x.Dims()
	psi, trees := forestSize(n)
	m := &forestModel{d: d, psi: psi, trees: make([][]tree.Node, trees)}
	parallel(trees, 1, opt.workers(), func(t, _, _ int) {
		rng := stats.Rand(opt.Seed, forestKey+"/tree"+strconv.Itoa(t))
		picked := sample(rng, n, psi)
		// The sample's rows, column-major; the tree's rows index it.
		cols := make([]float64, psi*d)
		row := make([]float64, d)
		rows := make([]int, psi)
		for k, r := range picked {
			rowTo(x, r, row)
			for j, v := range row {
				cols[j*psi+k] = v
			}
			rows[k] = k
		}
		g := grower{cols: cols, n: psi, d: d, rng: rng, maxDepth: int(math.Ceil(math.Log2(float64(psi))))}
		g.nodes = []tree.Node{{}}
		g.grow(0, rows, 0)
		m.trees[t] = g.nodes
	})
	if !slices.ContainsFunc(m.trees, func(t []tree.Node) bool { return len(t) > 1 }) {
		return nil, nil, ErrIdentical // no column spans more than 1e-7 in any sample
	}
	raw := make([]float64, n)
	m.raw(x, raw, opt.workers())
	m.offset = Threshold(raw, opt.Clean)
	for i := range raw {
		raw[i] -= m.offset
	}
	m.flagged = Flagged(raw)
	return m, raw, nil
}

// forestSize returns ψ, the rows each tree is grown on, and the number
// of trees for n ≥ 2 training rows: ψ = min(256, max(2, ⌊n/4⌋)) and
// ⌈25 600/ψ⌉ trees, the fewest that sample as many rows as scikit-learn's
// default forest (100 trees × 256). From 1 024 rows on this is
// scikit-learn's default. On fewer rows scikit-learn keeps ψ = min(256,
// n): up to 256 rows every tree is grown on the same rows, so the trees
// differ only by their random splits, and a cluster of anomalies masks
// itself in all of them (Liu, Ting and Zhou's masking effect, which
// subsampling is there to reduce). A quarter of the rows per tree keeps
// subsampling at work on small data; the larger forest keeps the averaged
// path length as steady as the default forest's. In the bench's anomalies
// workload (15 sessions over 5 seeds per task) the mean ROC-AUC went from
// 0.95–0.96 to 0.98 on wine, where the default forest had lost to
// EllipticEnvelope (0.979), from 0.96 to 0.98 on iris and stayed at
// 0.95–0.96 on breast cancer; rotating the input (PCA, MCD), rank transforms,
// random hyperplane splits, or more trees alone, did worse in prototypes.
// The price is scoring cost on small data: a row walks up to
// ⌈25 600/ψ⌉·⌈log₂ ψ⌉ nodes, 800 for the default forest, 15 360 for
// ψ = 5 (20 rows; BenchmarkForestScore) had the forest not been capped
// at forestMaxTrees.
func forestSize(n int) (psi, trees int) {
	psi = min(forestSample, max(2, n/forestShare))
	return psi, min(forestMaxTrees, (forestBudget+psi-1)/psi)
}

// sample draws k of 0..n−1 without replacement (Floyd's algorithm, so the
// cost follows k, not n).
func sample(rng *rand.Rand, n, k int) []int {
	seen := make(map[int]struct{}, k)
	out := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := rng.IntN(j + 1)
		if _, ok := seen[t]; ok {
			t = j
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}

// grower builds one isolation tree into nodes, children right after one
// another (tree.Node's layout).
type grower struct {
	cols     []float64 // column-major training rows
	n, d     int
	rng      *rand.Rand
	maxDepth int
	nodes    []tree.Node
	feats    []int
}

// grow builds the subtree of rows at depth into node slot; its
// children are appended as a pair after every existing node.
func (g *grower) grow(slot int32, rows []int, depth int) {
	g.nodes[slot] = tree.Node{Feat: -1, V: float64(depth) + pathC(len(rows))}
	if len(rows) < 2 || depth >= g.maxDepth {
		return
	}
	// Draw features without replacement until one varies in the node, as
	// scikit-learn's random splitter does.
	if g.feats == nil {
		g.feats = make([]int, g.d)
	}
	for j := range g.feats {
		g.feats[j] = j
	}
	for left := g.d; left > 0; left-- {
		k := g.rng.IntN(left)
		f := g.feats[k]
		g.feats[k], g.feats[left-1] = g.feats[left-1], f
		col := g.cols[f*g.n : (f+1)*g.n]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rows {
			lo, hi = min(lo, col[r]), max(hi, col[r])
		}
		if hi <= lo+constantSpan {
			continue
		}
		thr := lo + g.rng.Float64()*(hi-lo)
		if thr >= hi {
			thr = lo
		}
		// Partition rows in place: x ≤ thr to the left.
		i := 0
		for j, r := range rows {
			if col[r] <= thr {
				rows[i], rows[j] = rows[j], rows[i]
				i++
			}
		}
		l := int32(len(g.nodes))
		g.nodes = append(g.nodes, tree.Node{}, tree.Node{})
		g.nodes[slot] = tree.Node{Feat: int32(f), V: thr, Left: l}
		g.grow(l, rows[:i], depth+1)
		g.grow(l+1, rows[i:], depth+1)
		return
	}
}

// pathC is c(m), the average path length of an unsuccessful search in a
// binary search tree of m keys, with the harmonic number approximated by
// ln + γ exactly as scikit-learn's _average_path_length.
func pathC(m int) float64 {
	switch {
	case m <= 1:
		return 0
	case m == 2:
		return 1
	}
	f := float64(m)
	return 2*(math.Log(f-1)+0.5772156649015329) - 2*(f-1)/f
}

// forestModel is a fitted isolation forest; immutable, safe for
// concurrent use.
type forestModel struct {
	d, psi  int
	trees   [][]tree.Node
	offset  float64
	flagged float64
}

func (m *forestModel) Key() string               { return forestKey }
func (m *forestModel) Columns() int              { return m.d }
func (m *forestModel) Offset() float64           { return m.offset }
func (m *forestModel) PercentAnomalies() float64 { return m.flagged }

// Score writes −s(x) − offset for each row of x.
func (m *forestModel) Score(x mat.Matrix, dst []float64) {
	r := checkScore(x, m.d, dst)
	m.raw(x, dst[:r], 1)
	for i := range r {
		dst[i] -= m.offset
	}
}

// raw writes −s(x) for each row of x with up to workers goroutines.
func (m *forestModel) raw(x mat.Matrix, dst []float64, workers int) {
	r, _ := x.Dims()
	norm := 1 / (pathC(m.psi) * float64(len(m.trees)))
	parallel(r, scoreChunk, workers, func(_, lo, hi int) {
		// The path lengths' sums, tree-outer within blocks of rows and
		// eight rows down each tree at once (tree.Predict), then scored.
		h := dst[lo:hi]
		tree.Predict(m.trees, m.d, 0, 1, rowBlock(x, lo, hi, m.d), h)
		for i, v := range h {
			h[i] = -math.Exp2(-v * norm)
		}
	})
}

// scoreChunk is how many rows one scoring task reads.
const scoreChunk = 4096

// rowBlock is rows [lo, hi) of x and its first d columns as a matrix
// tree.Predict reads fast: a view of a *mat.Dense, a row view of a
// *stats.SparseMatrix (a dense copy of its rows when d is fewer than its
// columns), a row view of anything else.
func rowBlock(x mat.Matrix, lo, hi, d int) mat.Matrix {
	switch x := x.(type) {
	case *mat.Dense:
		return x.Slice(lo, hi, 0, d)
	case *stats.SparseMatrix:
		_, c := x.Dims()
		if c == d {
			// tree.Predict copies 256 rows at a time through RowTo.
			return sparseRows{rowsView{x, lo, hi}, x}
		}
		b := mat.NewDense(hi-lo, c, nil)
		for i := lo; i < hi; i++ {
			x.RowTo(i, b.RawRowView(i-lo))
		}
		return b.Slice(0, hi-lo, 0, d)
	}
	return rowsView{x, lo, hi}
}

// rowTo writes row i of x into dst (one entry per column).
func rowTo(x mat.Matrix, i int, dst []float64) {
	switch x := x.(type) {
	case *mat.Dense:
		copy(dst, x.RawRowView(i))
	case *stats.SparseMatrix:
		x.RowTo(i, dst)
	default:
		for j := range dst {
			dst[j] = x.At(i, j)
		}
	}
}

// rowOf is row i of x: a view of a *mat.Dense's row, else buf filled
// by rowTo.
func rowOf(x mat.Matrix, i int, buf []float64) []float64 {
	if d, ok := x.(*mat.Dense); ok {
		return d.RawRowView(i)
	}
	rowTo(x, i, buf)
	return buf
}

// rowsView is rows [lo, hi) of a matrix that is not a *mat.Dense.
type rowsView struct {
	x      mat.Matrix
	lo, hi int
}

func (v rowsView) Dims() (int, int)    { _, c := v.x.Dims(); return v.hi - v.lo, c }
func (v rowsView) At(i, j int) float64 { return v.x.At(v.lo+i, j) }
func (v rowsView) T() mat.Matrix       { return mat.Transpose{Matrix: v} }

// sparseRows is rows [lo, hi) of a *stats.SparseMatrix, which writes a
// row from its non-zeros (RowTo) for tree.Blocks: scoring then makes 256
// rows dense at a time instead of a whole chunk (32 MB per 4 096 rows at
// 1 000 words, 765 MB of garbage over a 100 000-row session).
type sparseRows struct {
	rowsView
	sm *stats.SparseMatrix
}

func (v sparseRows) RowTo(i int, dst []float64) { v.sm.RowTo(v.lo+i, dst) }
func (v sparseRows) T() mat.Matrix              { return mat.Transpose{Matrix: v} }

// forestVersion is the first payload byte; bump it when the layout
// changes.
const forestVersion = 1

// MarshalBinary writes version, d, ψ, offset, the flagged share and the
// flat trees (a leaf's value is its depth plus c(m)).
func (m *forestModel) MarshalBinary() ([]byte, error) {
	w := tree.Writer{B: []byte{forestVersion}}
	w.U32(m.d)
	w.U32(m.psi)
	w.F64(m.offset)
	w.F64(m.flagged)
	w.Trees(m.trees)
	return codec.Frame(forestKey, w.B), nil
}

func unmarshalForest(b []byte) (Model, error) {
	if len(b) < 1 || b[0] != forestVersion {
		return nil, fmt.Errorf("anomaly: isolation forest payload version: %w", tree.ErrBytes)
	}
	r := tree.Reader{B: b[1:]}
	m := &forestModel{d: r.U32(), psi: r.U32(), offset: r.F64(), flagged: r.F64()}
	if r.Err != nil || m.d < 1 || m.d > 1<<20 || m.psi < 2 || m.psi > forestSample ||
		math.IsNaN(m.offset) || math.IsInf(m.offset, 0) || !(m.flagged >= 0 && m.flagged <= 1) {
		return nil, fmt.Errorf("anomaly: isolation forest header: %w", tree.ErrBytes)
	}
	m.trees = r.Trees(m.d)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("anomaly: isolation forest: %w", err)
	}
	if len(m.trees) == 0 {
		return nil, fmt.Errorf("anomaly: isolation forest without trees: %w", tree.ErrBytes)
	}
	for _, t := range m.trees {
		for _, nd := range t {
			if math.IsNaN(nd.V) || math.IsInf(nd.V, 0) {
				return nil, fmt.Errorf("anomaly: isolation forest node value: %w", tree.ErrBytes)
			}
		}
	}
	return m, nil
}
