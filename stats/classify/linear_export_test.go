package classify

// Test hooks for logistic regression and k-NN (black-box tests in
// classify_test reach fixed-hyper-parameter fits through these).

// FitLogisticAt fits logistic regression (key logistic_regression_l2 or
// _l1) at inverse penalty c without cross-validation.
func FitLogisticAt(key string, d Data, c float64) (*LogisticModel, error) {
	return fitLogisticAt(key, d, c)
}

// FitKNNAt builds a k-NN model with fixed k and weighting.
func FitKNNAt(d Data, k int, distance bool) (*KNNModel, error) {
	return fitKNNAt(d, k, distance)
}
