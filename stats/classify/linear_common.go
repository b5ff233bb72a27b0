package classify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Helpers shared by logistic regression, naive Bayes and k-NN: input
// checks, the standardiser, fold splits, a bounded parallel loop, row
// access for Proba and the binary codec of model payloads. (The tree
// ensembles keep their own; names here avoid theirs.)

// kfoldCount is the number of cross-validation folds (MODELLING §5.2).
const kfoldCount = 5

// checkData validates a training set: a non-empty X with len(Y) rows and
// at least minRows of them (ErrTooFewRows otherwise), K ≥ 2, labels in
// [0, K), and W nil or one positive finite weight per row. Degenerate data
// is an error, never a panic.
func checkData(d Data, minRows int) error {
	if d.X == nil || d.X.IsEmpty() {
		return ErrTooFewRows
	}
	n, _ := d.X.Dims()
	if n != len(d.Y) {
		return fmt.Errorf("classify: X has %d rows, Y has %d labels", n, len(d.Y))
	}
	if n < minRows {
		return ErrTooFewRows
	}
	if d.K < 2 {
		return fmt.Errorf("classify: %d classes, need at least 2", d.K)
	}
	for i, c := range d.Y {
		if c < 0 || c >= d.K {
			return fmt.Errorf("classify: label %d of row %d outside [0, %d)", c, i, d.K)
		}
	}
	if d.W != nil {
		if len(d.W) != n {
			return fmt.Errorf("classify: %d weights for %d rows", len(d.W), n)
		}
		for i, w := range d.W {
			if !(w > 0) || math.IsInf(w, 0) {
				return fmt.Errorf("classify: weight %v of row %d is not positive and finite", w, i)
			}
		}
	}
	return nil
}

// weightsOf returns d.W, or unit weights when it is nil.
func weightsOf(d Data) []float64 {
	if d.W != nil {
		return d.W
	}
	w := make([]float64, len(d.Y))
	for i := range w {
		w[i] = 1
	}
	return w
}

// standardizer z-scores columns with the training mean and the sample
// standard deviation (divisor n−1, MODELLING §1.2), unweighted like the
// engine's scaling. A column whose deviation is zero, or negligible next
// to its mean, has sd 0 and scales to 0: linear models give it
// coefficient 0 and k-NN leaves it out of distances.
type standardizer struct {
	mean []float64
	sd   []float64
}

// newStandardizer measures the columns of x. With fewer than two rows
// every column has sd 0.
func newStandardizer(x *mat.Dense) standardizer {
	n, p := x.Dims()
	s := standardizer{mean: make([]float64, p), sd: make([]float64, p)}
	if n == 0 {
		return s
	}
	for i := range n {
		for j, v := range x.RawRowView(i) {
			s.mean[j] += v
		}
	}
	for j := range s.mean {
		s.mean[j] /= float64(n)
	}
	if n < 2 {
		return s
	}
	ss := make([]float64, p)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			d := v - s.mean[j]
			ss[j] += d * d
		}
	}
	for j := range ss {
		sd := math.Sqrt(ss[j] / float64(n-1))
		// A constant column's mean can be off by a few ulps, leaving an sd
		// of order 1e-16·|mean|; such a column carries no information.
		if !(sd > 1e-12*math.Abs(s.mean[j])) {
			sd = 0
		}
		s.sd[j] = sd
	}
	return s
}

// transform returns the z-scores of x (a new matrix); zero-variance
// columns become 0.
func (s standardizer) transform(x *mat.Dense) *mat.Dense {
	n, p := x.Dims()
	z := mat.NewDense(n, p, nil)
	for i := range n {
		src, dst := x.RawRowView(i), z.RawRowView(i)
		for j, v := range src {
			if s.sd[j] > 0 {
				dst[j] = (v - s.mean[j]) / s.sd[j]
			}
		}
	}
	return z
}

// foldSplit returns the rows of d outside fold f (training) and in it
// (validation); weights follow their rows.
func foldSplit(d Data, fold []int, f int) (train, valid Data) {
	n, p := d.X.Dims()
	nva := 0
	for _, g := range fold {
		if g == f {
			nva++
		}
	}
	newX := func(rows int) *mat.Dense {
		if rows == 0 {
			return &mat.Dense{} // gonum has no 0-row Dense; an empty one has Dims 0, 0
		}
		return mat.NewDense(rows, p, nil)
	}
	train = Data{X: newX(n - nva), K: d.K}
	valid = Data{X: newX(nva), K: d.K}
	if d.W != nil {
		train.W, valid.W = make([]float64, 0, n-nva), make([]float64, 0, nva)
	}
	for i := range n {
		dst := &train
		if fold[i] == f {
			dst = &valid
		}
		copy(dst.X.RawRowView(len(dst.Y)), d.X.RawRowView(i))
		dst.Y = append(dst.Y, d.Y[i])
		if d.W != nil {
			dst.W = append(dst.W, d.W[i])
		}
	}
	return train, valid
}

// stratifiedSample draws about m of d's rows without replacement, kept
// in their order: from each class of n_c rows, ⌈m·n_c/n⌉ rows but at
// least min(n_c, kfoldCount), so a rare class stays present in every
// fold of a search on the sample.
func stratifiedSample(d Data, m int, rng *rand.Rand) Data {
	n := len(d.Y)
	byClass := make([][]int, d.K)
	for i, c := range d.Y {
		byClass[c] = append(byClass[c], i)
	}
	var rows []int
	for _, rs := range byClass {
		take := min(len(rs), max((m*len(rs)+n-1)/n, kfoldCount))
		rng.Shuffle(len(rs), func(a, b int) { rs[a], rs[b] = rs[b], rs[a] })
		rows = append(rows, rs[:take]...)
	}
	slices.Sort(rows)
	return selectRows(d, rows)
}

// selectRows returns the given rows of d (weights follow).
func selectRows(d Data, rows []int) Data {
	_, p := d.X.Dims()
	s := Data{X: mat.NewDense(len(rows), p, nil), Y: make([]int, len(rows)), K: d.K}
	if d.W != nil {
		s.W = make([]float64, len(rows))
	}
	for i, r := range rows {
		s.X.SetRow(i, d.X.RawRowView(r))
		s.Y[i] = d.Y[r]
		if d.W != nil {
			s.W[i] = d.W[r]
		}
	}
	return s
}

// runIndexed calls fn(i) for every i in [0, n) on at most workers
// goroutines (at least one) and returns when all calls have. Callers write
// results to index i so the outcome does not depend on scheduling.
func runIndexed(n, workers int, fn func(i int)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// probaRows calls fn with each row of x and the row of dst to fill. A
// row-major matrix (*mat.Dense and its views) is read in place; any other
// Matrix is copied row by row into a scratch slice, which fn must not
// retain. It panics when x has the wrong column count or dst is not
// rows × k (programmer errors, as in gonum).
func probaRows(x mat.Matrix, cols, k int, dst *mat.Dense, fn func(row, out []float64)) {
	n, p := x.Dims()
	if n == 0 {
		return // an empty matrix has no columns to check
	}
	if r, c := dst.Dims(); r != n || c != k {
		panic(fmt.Sprintf("classify: Proba of %d rows into %d×%d, want %d×%d", n, r, c, n, k))
	}
	if p != cols {
		panic(fmt.Sprintf("classify: Proba with %d columns, model has %d", p, cols))
	}
	if rm, ok := x.(mat.RawMatrixer); ok {
		g := rm.RawMatrix()
		for i := range n {
			fn(g.Data[i*g.Stride:i*g.Stride+p], dst.RawRowView(i))
		}
		return
	}
	row := make([]float64, p)
	for i := range n {
		for j := range row {
			row[j] = x.At(i, j)
		}
		fn(row, dst.RawRowView(i))
	}
}

// softmaxInPlace turns logits into probabilities by log-sum-exp: each
// entry exp(z_k − max z) / Σ exp(z_j − max z), so no overflow, every
// entry in [0, 1] and the row summing to 1 within rounding. A logit of
// −Inf gives probability 0; at least one must be finite.
func softmaxInPlace(z []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	var s float64
	for k, v := range z {
		z[k] = math.Exp(v - m)
		s += z[k]
	}
	for k := range z {
		z[k] /= s
	}
}

// payloadWriter appends model fields to a payload: unsigned integers and
// float64 bits little-endian, slices prefixed by their length, so decoding
// restores every value bit for bit.
type payloadWriter struct{ buf []byte }

func (w *payloadWriter) u64(v uint64)  { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }
func (w *payloadWriter) int(v int)     { w.u64(uint64(v)) }
func (w *payloadWriter) f64(v float64) { w.u64(math.Float64bits(v)) }
func (w *payloadWriter) f64s(v []float64) {
	w.int(len(v))
	for _, x := range v {
		w.f64(x)
	}
}
func (w *payloadWriter) ints(v []int) {
	w.int(len(v))
	for _, x := range v {
		w.int(x)
	}
}

// errPayload reports a model payload that is truncated, too long or
// inconsistent.
var errPayload = errors.New("classify: malformed model payload")

// payloadReader reads what payloadWriter wrote. The first failure sticks:
// later reads return zero values and done reports it. Lengths are checked
// against the bytes left before anything is allocated.
type payloadReader struct {
	buf []byte
	err error
}

func (r *payloadReader) u64() uint64 {
	if r.err != nil || len(r.buf) < 8 {
		r.err = errPayload
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf)
	r.buf = r.buf[8:]
	return v
}

// int reads a non-negative int no larger than limit.
func (r *payloadReader) int(limit int) int {
	v := r.u64()
	if v > uint64(limit) {
		r.err = errPayload
		return 0
	}
	return int(v)
}

func (r *payloadReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *payloadReader) f64s() []float64 {
	n := r.int(len(r.buf) / 8)
	if r.err != nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = r.f64()
	}
	return v
}

// ints reads a slice of ints each no larger than limit.
func (r *payloadReader) ints(limit int) []int {
	n := r.int(len(r.buf) / 8)
	if r.err != nil {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = r.int(limit)
	}
	return v
}

// done reports the first error, or an error when bytes are left over.
func (r *payloadReader) done() error {
	if r.err == nil && len(r.buf) != 0 {
		r.err = errPayload
	}
	return r.err
}

// finite reports whether every value is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
