package anomaly

import "gonum.org/v1/gonum/mat"

// MCDEstimate exposes a robust fit's estimates to the reference test:
// raw and reweighted location and covariance (the input's space unless
// Projected) and the reweighted D² of the training rows.
type MCDEstimate struct {
	RawLoc, Loc []float64
	RawCov, Cov *mat.SymDense
	Dist        []float64
	Projected   bool
}

// FitMCD runs the robust fit and returns its estimates.
func FitMCD(x *mat.Dense, opt Options) (MCDEstimate, error) {
	e, err := fitMCD(x, opt)
	if err != nil {
		return MCDEstimate{}, err
	}
	return MCDEstimate{RawLoc: e.rawLoc, RawCov: e.rawCov, Loc: e.loc, Cov: e.cov, Dist: e.dist, Projected: e.projected}, nil
}
