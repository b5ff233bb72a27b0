package classify

import "github.com/vaticml/vatic/stats/internal/scale"

// Test hooks for logistic regression and k-NN (black-box tests in
// classify_test reach fixed-hyper-parameter fits through these).

// FitLogisticAt fits logistic regression (key logistic_regression_l2 or
// _l1) at inverse penalty c without cross-validation.
func FitLogisticAt(key string, d Data, c float64) (*LogisticModel, error) {
	return fitLogisticAt(key, d, c, false, nil)
}

// FitKNNAt builds a k-NN model with fixed k and weighting.
func FitKNNAt(d Data, k int, distance bool) (*KNNModel, error) {
	return fitKNNAt(d, k, distance)
}

// ForceLogisticPath makes logistic regression evaluate its loss on
// standardised dense rows ("dense"), on raw sparse rows ("sparse") or as
// the density decides (""), and returns a function restoring the previous
// choice. Tests using it must not run in parallel.
func ForceLogisticPath(path string) (restore func()) {
	old := logisticPath
	switch path {
	case "dense":
		logisticPath = pathDense
	case "sparse":
		logisticPath = pathSparse
	case "":
		logisticPath = pathAuto
	default:
		panic("classify: unknown logistic path " + path)
	}
	return func() { logisticPath = old }
}

// LogisticLoss returns logistic regression's smooth loss (divided by
// C·Σw) on d standardised on itself, through the path ForceLogisticPath
// chose when it is called: f(θ, grad) returns the loss at θ and writes
// its gradient into grad when grad is not nil.
func LogisticLoss(d Data) func(theta, grad []float64) float64 {
	return newLogisticLoss(d.X, scale.New(d.X), d.Y, d.K, weightsOf(d)).eval
}

// LogisticBinaryLoss is LogisticLoss's binary form on dense rows (K = 2):
// θ holds class 1's block (b, δ) alone, class 0's being zero.
func LogisticBinaryLoss(d Data) func(theta, grad []float64) float64 {
	return newLogisticLoss(d.X, scale.New(d.X), d.Y, d.K, weightsOf(d)).evalBinary
}
