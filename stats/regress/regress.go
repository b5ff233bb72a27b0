// Package regress holds the regression family of modelling sessions
// (MODELLING §6.2): one algorithm per file, each fitting a Model that
// predicts, reports its intrinsic feature importance, refits itself with the
// hyper-parameters it chose, and serialises to bytes the engine stores.
//
// Inputs are float64 matrices with no missing values: the engine has
// imputed and encoded them (MODELLING §1.2, §12), the words of text
// columns (MODELLING §10) as a CSR block beside the dense one (Data).
// Algorithms that are
// sensitive to scale standardise internally with the training mean and
// sample standard deviation (Scaled reports it, so the contestant lists
// "Scaled" among its dataSourceProperties) and keep the scaler in the model.
package regress

import (
	"encoding"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
)

// Data is a training set: X has len(Y) rows. Fits do not modify or
// retain X, Words or Y.
//
// A session with text columns passes their words (MODELLING §10) as the
// CSR block Words, whose columns come after X's (X is nil when there are
// no other features), so no n × words dense matrix exists (issue 16); the
// same model then reads rows as a *stats.SparseMatrix of both blocks in
// Predict. OLS, ridge and lasso read every word sparsely (their Gram
// matrix, linear_sparse.go), the tree ensembles split word columns
// natively (stats/internal/tree) and k-NN searches through an inverted
// index of the words (stats/internal/neighbors), as in stats/classify.
type Data struct {
	X     *mat.Dense
	Words *stats.CSR
	Y     []float64
}

// rows is the number of rows of d.
func (d Data) rows() int { r, _, _ := stats.WordDims(d.X, d.Words); return r }

// denseCols is the number of X's columns.
func (d Data) denseCols() int { _, c, _ := stats.WordDims(d.X, d.Words); return c }

// wordCols is the number of word columns.
func (d Data) wordCols() int { _, _, w := stats.WordDims(d.X, d.Words); return w }

// sparse is d's rows as a stats.SparseMatrix.
func (d Data) sparse() *stats.SparseMatrix { return stats.JoinWords(d.X, d.Words) }

// AsMatrix is d's rows as one matrix (X and Words), for row selection
// and Predict; X itself is its dense block, not a copy.
func AsMatrix(d Data) *stats.SparseMatrix { return d.sparse() }

// AsData is the training set of x's rows: its dense block as X and its
// words, if any, as Words.
func AsData(x mat.Matrix, y []float64) Data {
	d := Data{Y: y}
	d.X, d.Words = stats.TrainingBlocks(x)
	return d
}

// checkData validates the arguments of a Fit or Refit: one target per
// row and at least minRows rows (ErrTooFewRows otherwise).
func checkData(d Data, minRows int) error {
	n := d.rows()
	if n == 0 {
		if minRows > 0 {
			return ErrTooFewRows
		}
		return nil
	}
	if d.Words != nil && d.denseCols() > 0 {
		if r, _ := d.X.Dims(); r != n {
			return fmt.Errorf("regress: x has %d rows, words %d", r, n)
		}
	}
	if n != len(d.Y) {
		return fmt.Errorf("regress: x has %d rows, y has %d values", n, len(d.Y))
	}
	if n < minRows {
		return ErrTooFewRows
	}
	return nil
}

// Options are what a fit may use besides the data.
type Options struct {
	// Seed is the session seed (stats.SeedOf); every random choice draws
	// from stats.Rand(Seed, "<key>/<consumer>").
	Seed uint64
	// Workers bounds the goroutines one fit may run (≥ 1).
	Workers int
}

// Algorithm is one contestant family with its own hyper-parameter search
// (internal cross-validation on the rows it is given).
type Algorithm interface {
	Key() string  // stable key, e.g. "ridge"
	Name() string // display name, e.g. "Ridge Regression"
	// Scaled reports whether the algorithm standardises its inputs.
	Scaled() bool
	// Fit searches the hyper-parameters and fits on all of d.
	Fit(d Data, opt Options) (Model, error)
}

// Model is a fitted regression model; it is safe for concurrent Predict.
type Model interface {
	// Key is the Algorithm's key.
	Key() string
	// Predict writes one prediction per row of x into dst (len = rows).
	// x has the fit's columns: a *stats.SparseMatrix when it had words
	// (a dense matrix of the same columns works too, slower).
	Predict(x mat.Matrix, dst []float64)
	// Importance is the model's intrinsic importance per input column
	// (|standardised coefficient|, tree gain, …), not normalised; nil when
	// the family has none (k-NN).
	Importance() []float64
	// Refit fits the same hyper-parameters on new rows (the saved model is
	// the champion refitted on every row, MODELLING §5.2). d may have more
	// or fewer columns than the fit saw: the preparation refitted on every
	// row one-hot encodes the levels the training rows lacked, and keeps
	// the words of its own vocabulary.
	Refit(d Data, opt Options) (Model, error)
	encoding.BinaryMarshaler
}

// ErrTooFewRows is returned when a fit cannot run on so few rows.
var ErrTooFewRows = errors.New("regress: too few rows")

// unmarshalers maps a model key to its decoder.
var unmarshalers = map[string]func([]byte) (Model, error){
	olsKey:          unmarshalOLS,
	ridgeKey:        unmarshalRidge,
	lassoKey:        unmarshalLasso,
	knnKey:          unmarshalKNN,
	randomForestKey: unmarshalRandomForest,
	gbmKey:          unmarshalGBM,
}

func init() {
	// Registered here: unmarshalBounded decodes its inner model through
	// unmarshalers, which an initialiser may not refer back to.
	unmarshalers[stats.BoundedKey] = unmarshalBounded
}

// Unmarshal decodes bytes written by a Model's MarshalBinary: the key
// framed by codec.Frame, then the algorithm's payload.
func Unmarshal(data []byte) (Model, error) {
	return codec.Decode(data, unmarshalers, "regress")
}

// Algorithms is the regression line-up of MODELLING §6.2, in its order
// (simpler models first, so they win ties in the contest).
func Algorithms() []Algorithm {
	return []Algorithm{OLS{}, Ridge{}, Lasso{}, KNN{}, RandomForest{}, GradientBoosting{}}
}
