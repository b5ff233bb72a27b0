// Package regress holds the regression family of modelling sessions
// (MODELLING §6.2): one algorithm per file, each fitting a Model that
// predicts, reports its intrinsic feature importance, refits itself with the
// hyper-parameters it chose, and serialises to bytes the engine stores.
//
// Inputs are dense float64 matrices with no missing values: the engine has
// imputed and encoded them (MODELLING §1.2, §12). Algorithms that are
// sensitive to scale standardise internally with the training mean and
// sample standard deviation (Scaled reports it, so the contestant lists
// "Scaled" among its dataSourceProperties) and keep the scaler in the model.
package regress

import (
	"encoding"
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/codec"
)

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
	// Fit searches the hyper-parameters and fits on all of x, y.
	// x has len(y) rows; it is not modified and not retained.
	Fit(x *mat.Dense, y []float64, opt Options) (Model, error)
}

// Model is a fitted regression model; it is safe for concurrent Predict.
type Model interface {
	// Key is the Algorithm's key.
	Key() string
	// Predict writes one prediction per row of x into dst (len = rows).
	Predict(x mat.Matrix, dst []float64)
	// Importance is the model's intrinsic importance per input column
	// (|standardised coefficient|, tree gain, …), not normalised; nil when
	// the family has none (k-NN).
	Importance() []float64
	// Refit fits the same hyper-parameters on new rows (the saved model is
	// the champion refitted on every row, MODELLING §5.2). x may have more
	// or fewer columns than the fit saw: the preparation refitted on every
	// row one-hot encodes the levels the training rows lacked.
	Refit(x *mat.Dense, y []float64, opt Options) (Model, error)
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
