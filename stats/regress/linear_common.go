package regress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Helpers shared by the linear family (ols, ridge, lasso) and k-NN: the
// standardiser, fold assignment, a bounded parallel loop, row access for
// Predict and the binary codec of model payloads.

// kfoldCount is the number of cross-validation folds (MODELLING §5.2).
const kfoldCount = 5

// standardizer z-scores columns with the training mean and the sample
// standard deviation (divisor n−1, MODELLING §1.2). A column whose
// deviation is zero, or negligible next to its mean (a constant column
// whose mean picked up rounding error), has sd 0 and scales to 0: models
// give it coefficient 0, and k-NN leaves it out of distances.
type standardizer struct {
	mean []float64
	sd   []float64
}

// newStandardizer measures the columns of x. With fewer than two rows every
// column has sd 0.
func newStandardizer(x *mat.Dense) standardizer {
	n, p := x.Dims()
	s := standardizer{mean: make([]float64, p), sd: make([]float64, p)}
	if n == 0 {
		return s
	}
	for i := range n {
		row := x.RawRowView(i)
		for j, v := range row {
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
		row := x.RawRowView(i)
		for j, v := range row {
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

// transform returns the z-scores of x (a new matrix); zero-variance columns
// become 0.
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

// kfoldAssign gives each of n rows a fold in [0, k): a random permutation
// from rng dealt round-robin, so fold sizes differ by at most one.
func kfoldAssign(n, k int, rng *rand.Rand) []int {
	fold := make([]int, n)
	for pos, row := range rng.Perm(n) {
		fold[row] = pos % k
	}
	return fold
}

// kfoldSplit returns the rows of x and y in fold f (held out) and the rest.
func kfoldSplit(x *mat.Dense, y []float64, fold []int, f int) (xtr *mat.Dense, ytr []float64, xva *mat.Dense, yva []float64) {
	n, p := x.Dims()
	nva := 0
	for _, g := range fold {
		if g == f {
			nva++
		}
	}
	xtr, xva = mat.NewDense(n-nva, p, nil), mat.NewDense(nva, p, nil)
	ytr, yva = make([]float64, 0, n-nva), make([]float64, 0, nva)
	for i := range n {
		if fold[i] == f {
			copy(xva.RawRowView(len(yva)), x.RawRowView(i))
			yva = append(yva, y[i])
		} else {
			copy(xtr.RawRowView(len(ytr)), x.RawRowView(i))
			ytr = append(ytr, y[i])
		}
	}
	return xtr, ytr, xva, yva
}

// parallelIndexed calls fn(i) for every i in [0, n) on at most workers
// goroutines (at least one) and returns when all calls have. Callers write
// results to index i so the outcome does not depend on scheduling.
func parallelIndexed(n, workers int, fn func(i int)) {
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

// fitInputCheck validates the arguments of a Fit or Refit: matching
// lengths and at least minRows rows (ErrTooFewRows otherwise).
func fitInputCheck(x *mat.Dense, y []float64, minRows int) error {
	if x == nil || x.IsEmpty() {
		if minRows > 0 {
			return ErrTooFewRows
		}
		return nil
	}
	n, _ := x.Dims()
	if n != len(y) {
		return fmt.Errorf("regress: x has %d rows, y has %d values", n, len(y))
	}
	if n < minRows {
		return ErrTooFewRows
	}
	return nil
}

// predictRows calls fn with each row of x in order. A row-major matrix
// (*mat.Dense and its views) is read in place; any other Matrix is copied
// row by row into a scratch slice, which fn must not retain. It panics
// when dst's length or x's column count does not match (programmer
// errors, as in gonum).
func predictRows(x mat.Matrix, cols int, dst []float64, fn func(i int, row []float64)) {
	n, p := x.Dims()
	if n == 0 && len(dst) == 0 {
		return // an empty matrix has no columns to check
	}
	if n != len(dst) {
		panic(fmt.Sprintf("regress: Predict with %d rows into %d values", n, len(dst)))
	}
	if p != cols {
		panic(fmt.Sprintf("regress: Predict with %d columns, model has %d", p, cols))
	}
	if rm, ok := x.(mat.RawMatrixer); ok {
		g := rm.RawMatrix()
		for i := range n {
			fn(i, g.Data[i*g.Stride:i*g.Stride+p])
		}
		return
	}
	row := make([]float64, p)
	for i := range n {
		for j := range row {
			row[j] = x.At(i, j)
		}
		fn(i, row)
	}
}

// wireWriter appends model fields to a payload: unsigned integers and
// float64 bits little-endian, slices prefixed by their length, so decoding
// restores every value bit for bit.
type wireWriter struct{ buf []byte }

func (w *wireWriter) u64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }
func (w *wireWriter) int(v int)    { w.u64(uint64(v)) }
func (w *wireWriter) f64(v float64) {
	w.u64(math.Float64bits(v))
}
func (w *wireWriter) f64s(v []float64) {
	w.int(len(v))
	for _, x := range v {
		w.f64(x)
	}
}

// errWirePayload reports a model payload that is truncated, too long or
// inconsistent.
var errWirePayload = errors.New("regress: malformed model payload")

// wireReader reads what wireWriter wrote. The first failure sticks: later
// reads return zero values and err reports it. Lengths are checked against
// the bytes left before anything is allocated.
type wireReader struct {
	buf []byte
	err error
}

func (r *wireReader) u64() uint64 {
	if r.err != nil || len(r.buf) < 8 {
		r.err = errWirePayload
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf)
	r.buf = r.buf[8:]
	return v
}

// int reads a non-negative int no larger than limit.
func (r *wireReader) int(limit int) int {
	v := r.u64()
	if v > uint64(limit) {
		r.err = errWirePayload
		return 0
	}
	return int(v)
}

func (r *wireReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *wireReader) f64s() []float64 {
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

// done reports the first error, or an error when bytes are left over.
func (r *wireReader) done() error {
	if r.err == nil && len(r.buf) != 0 {
		r.err = errWirePayload
	}
	return r.err
}
