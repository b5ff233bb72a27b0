package regress

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Helpers shared by the linear family (ols, ridge, lasso) and k-NN: fold
// assignment, input checks, row access for Predict and the payload error.
// The standardiser, the parallel loop and the payload codec are shared
// with stats/classify (packages stats/internal/scale, parallel, codec).

// kfoldCount is the number of cross-validation folds (MODELLING §5.2).
const kfoldCount = 5

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

// errWirePayload reports a model payload that is truncated, too long or
// inconsistent.
var errWirePayload = errors.New("regress: malformed model payload")
