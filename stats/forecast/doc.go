// Package forecast is the time-series family of forecast and impact
// sessions (MODELLING §2.7, §3.2, §4): seasonal baselines, naive2, Theta,
// ETS, auto-ARIMA(X), STL, TSLM, the ensemble, time-series outliers and
// prediction intervals. Its anchor is R's forecast package (8.20): each
// method reproduces what that package computes, and the tests hold
// reference values printed once by the R scripts in testdata/ (the tests
// never run R).
//
// Inputs are regular series with no missing values (the engine has
// bucketed and imputed them, MODELLING §2.3), oldest first. A fit returns a
// concrete model type (ETSModel, ARIMAModel, …) that implements Model;
// fits that cannot run on the data they are given (too short, constant
// where that is inadmissible, multiplicative on non-positive data) return
// a *SkipError saying why, which the contest reports.
//
// It does no I/O, takes no context and never sees Arrow or engine types.
package forecast
