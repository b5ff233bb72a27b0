package forecast

// ArimaFixedLik exposes to the tests stats::arima at fixed coefficients
// (no optimisation, transform.pars = FALSE, a mean when there is no
// differencing): the log-likelihood, the innovation variance estimate
// (R's sigma2, the sum of squares over the observations used) and the
// standardized residuals.
func ArimaFixedLik(x []float64, order, seasonal [3]int, period int, fixed []float64) (loglik, sigma2 float64, resid []float64, err error) {
	a := arimaArma{p: order[0], d: order[1], q: order[2], sp: seasonal[0], sd: seasonal[1], sq: seasonal[2], period: period}
	fit, err := arimaStats(x, a, nil, nil, a.d+a.sd == 0, fixed, ARIMAMethodCSSML)
	if err != nil {
		return 0, 0, nil, err
	}
	return fit.loglik, fit.sigma2, fit.resid, nil
}

// ArimaQ0 exposes the initial state covariance: Gardner's method (R's
// getQ0) when gardner is set, else the direct solution.
func ArimaQ0(phi, theta []float64, gardner bool) []float64 {
	if gardner {
		var w arimaQ0Work
		return arimaQ0Gardner(phi, theta, &w)
	}
	return arimaQ0Direct(phi, theta)
}

// ArimaExpand expands the coefficients of a seasonal ARMA model into the
// full AR and MA polynomials, as R's ARIMA_transPars.
func ArimaExpand(ar, ma, sar, sma []float64, period int) (phi, theta []float64) {
	a := arimaArma{p: len(ar), q: len(ma), sp: len(sar), sq: len(sma), period: period}
	coef := append(append(append(append([]float64(nil), ar...), ma...), sar...), sma...)
	phi = make([]float64, a.fullP())
	theta = make([]float64, a.fullQ())
	arimaTransPars(coef, a, false, phi, theta)
	return phi, theta
}
