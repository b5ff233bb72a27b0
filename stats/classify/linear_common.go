package classify

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// Helpers shared by logistic regression, naive Bayes and k-NN: input
// checks, fold splits, row access for Proba and the payload error. The
// standardiser, the parallel loop and the payload codec are shared with
// stats/regress (packages stats/internal/scale, parallel, codec).

// kfoldCount is the number of cross-validation folds (MODELLING §5.2).
const kfoldCount = 5

// checkData validates a training set: a non-empty X with len(Y) rows and
// at least minRows of them (ErrTooFewRows otherwise), K ≥ 2, labels in
// [0, K), and W nil or one positive finite weight per row. Degenerate data
// is an error, never a panic.
func checkData(d Data, minRows int) error {
	n := d.rows()
	if n == 0 {
		return ErrTooFewRows
	}
	if d.Words != nil && d.denseCols() > 0 {
		if r, _ := d.X.Dims(); r != n {
			return fmt.Errorf("classify: X has %d rows, Words %d", r, n)
		}
	}
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

// foldSplit returns the rows of d outside fold f (training) and in it
// (validation); weights follow their rows.
func foldSplit(d Data, fold []int, f int) (train, valid Data) {
	tr, va := stats.FoldRows(fold, f)
	return selectRows(d, tr), selectRows(d, va)
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

// selectRows returns the given rows of d (weights follow); no rows give
// an empty X (gonum has no 0-row Dense; an empty one has Dims 0, 0).
func selectRows(d Data, rows []int) Data {
	s := Data{Y: make([]int, len(rows)), K: d.K}
	if d.W != nil {
		s.W = make([]float64, len(rows))
	}
	if p := d.denseCols(); p > 0 && len(rows) > 0 {
		s.X = mat.NewDense(len(rows), p, nil)
	} else {
		s.X = &mat.Dense{}
	}
	if d.Words != nil {
		s.Words = d.Words.SelectRows(rows)
	}
	for i, r := range rows {
		if !s.X.IsEmpty() {
			copy(s.X.RawRowView(i), d.X.RawRowView(r))
		}
		s.Y[i] = d.Y[r]
		if d.W != nil {
			s.W[i] = d.W[r]
		}
	}
	return s
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
	if rr, ok := x.(*stats.SparseMatrix); ok {
		for i := range n {
			rr.RowTo(i, row)
			fn(row, dst.RawRowView(i))
		}
		return
	}
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

// errPayload reports a model payload that is truncated, too long or
// inconsistent.
var errPayload = errors.New("classify: malformed model payload")

// finite reports whether every value is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
