// Package stats is Vatic's numerical core on []float64 and gonum: column
// summaries (moments, order statistics, modes, histograms) now, and the
// error metrics, Mahalanobis distances and algorithm families of modelling
// sessions as they arrive. It does no I/O, no logging and never sees Arrow.
package stats
