package regress

// FitKNNWords builds a k-NN model with fixed k and weighting on d's rows,
// words included (Refit's path).
func FitKNNWords(d Data, k int, distance bool) (Model, error) {
	return (&KNNModel{k: k, distance: distance}).Refit(d, Options{})
}
