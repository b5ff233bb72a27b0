package regress

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// The tree ensembles' machinery (CART and histogram growers, flat nodes,
// their serialisation) lives in stats/internal/tree, shared with the
// classification family; this file keeps what is regression's own.

// treeCheckInput validates the shapes Fit receives.
func treeCheckInput(x *mat.Dense, y []float64) error {
	n, d := x.Dims()
	if n != len(y) {
		return fmt.Errorf("regress: %d rows in x, %d targets", n, len(y))
	}
	if d < 1 {
		return errors.New("regress: no input columns")
	}
	if n < 10 {
		return ErrTooFewRows
	}
	return nil
}
