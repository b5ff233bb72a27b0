package stats

// Internals exposed to the external tests of package stats_test.

// Scores is scores: the linear and nonlinear scores L_j and N_j that
// FeatureImportance normalises.
var Scores = scores

// DigammaAt is ψ(v) for v ≥ 1 (no table).
func DigammaAt(v float64) float64 { return digammaAt(nil, v) }

// CorrelationRatio is η of x across the classes given by the values of
// classes.
func CorrelationRatio(x, classes []float64) float64 {
	lab, m := classCodes(classes)
	return correlationRatio(x, lab, m)
}

// DigammaTable is digammaTable.
var DigammaTable = digammaTable
