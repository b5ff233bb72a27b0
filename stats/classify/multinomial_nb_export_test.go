package classify

// FitMultinomialNBAt fits multinomial naive Bayes at smoothing alpha
// without cross-validation (a test hook, as FitLogisticAt).
func FitMultinomialNBAt(d Data, alpha float64) (*MultinomialNBModel, error) {
	return fitMultinomialNBAt(d, alpha)
}
