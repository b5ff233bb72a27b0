// Package stats is Vatic's numerical core on []float64 and gonum: column
// summaries (moments, order statistics, modes, histograms), the regression
// error metrics of modelling sessions, mutual information and feature
// importance (MODELLING §9), and the seeded random sources every random
// choice draws from (MODELLING §0). The algorithm families live in
// sub-packages (stats/regress) and stats/contest ranks their candidates.
// It does no I/O, no logging and never sees Arrow.
package stats
