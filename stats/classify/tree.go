package classify

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The tree ensembles (forest.go, gbm.go) grow their trees with
// stats/internal/tree, which regression shares; this file holds what the
// two classification ensembles share beyond it.

// treeMaxClasses bounds K in the tree models' bytes, so a decoder never
// allocates for an absurd class count.
const treeMaxClasses = 1 << 16

// treeCheck validates the data a tree ensemble fits: shapes, class
// indices in [0, K), positive finite weights, and at least 10 rows
// (ErrTooFewRows below).
func treeCheck(d Data) error {
	if d.X == nil {
		return errors.New("classify: no rows")
	}
	n, c := d.X.Dims()
	switch {
	case n != len(d.Y):
		return fmt.Errorf("classify: %d rows in x, %d classes", n, len(d.Y))
	case c < 1:
		return errors.New("classify: no input columns")
	case d.K < 2 || d.K > treeMaxClasses:
		return fmt.Errorf("classify: %d classes, want 2 to %d", d.K, treeMaxClasses)
	case d.W != nil && len(d.W) != n:
		return fmt.Errorf("classify: %d rows, %d weights", n, len(d.W))
	case n < 10:
		return ErrTooFewRows
	}
	for i, y := range d.Y {
		if y < 0 || y >= d.K {
			return fmt.Errorf("classify: row %d has class %d, want 0 to %d", i, y, d.K-1)
		}
	}
	for i, w := range d.W {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("classify: row %d has weight %g, want positive and finite", i, w)
		}
	}
	return nil
}

// treeLabels returns the class indices as the float64 targets the tree
// growers take.
func treeLabels(y []int) []float64 {
	out := make([]float64, len(y))
	for i, c := range y {
		out[i] = float64(c)
	}
	return out
}

// probaDst readies dst for Proba of r rows and k classes: an empty dst
// is sized, any other must be r × k (a programmer error otherwise).
func probaDst(dst *mat.Dense, r, k int) {
	if dst.IsEmpty() {
		dst.ReuseAs(r, k)
		return
	}
	if dr, dc := dst.Dims(); dr != r || dc != k {
		panic(fmt.Sprintf("classify: proba destination is %d × %d, want %d × %d", dr, dc, r, k))
	}
}
