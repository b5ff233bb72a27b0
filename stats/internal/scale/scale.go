// Package scale standardises the input columns of the scale-sensitive
// models of stats/regress and stats/classify (linear and logistic models,
// k-NN): z-scores with the training mean and sample standard deviation
// (MODELLING §1.2), kept in the fitted model. It imports gonum only.
package scale

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Standardizer z-scores columns with the training mean and the sample
// standard deviation (divisor n−1, MODELLING §1.2), unweighted like the
// engine's scaling. A column whose deviation is zero, or negligible next
// to its mean (a constant column whose mean picked up rounding error), has
// SD 0 and scales to 0: linear models give it coefficient 0 and k-NN
// leaves it out of distances. Mean and SD have one entry per column and
// are what the families serialise.
type Standardizer struct {
	Mean []float64
	SD   []float64
}

// New measures the columns of x. With fewer than two rows every column
// has SD 0.
func New(x *mat.Dense) Standardizer {
	n, p := x.Dims()
	s := Standardizer{Mean: make([]float64, p), SD: make([]float64, p)}
	if n == 0 {
		return s
	}
	for i := range n {
		for j, v := range x.RawRowView(i) {
			s.Mean[j] += v
		}
	}
	for j := range s.Mean {
		s.Mean[j] /= float64(n)
	}
	if n < 2 {
		return s
	}
	ss := make([]float64, p)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			d := v - s.Mean[j]
			ss[j] += d * d
		}
	}
	for j := range ss {
		sd := math.Sqrt(ss[j] / float64(n-1))
		// A constant column's mean can be off by a few ulps, leaving an sd
		// of order 1e-16·|mean|; such a column carries no information.
		if !(sd > 1e-12*math.Abs(s.Mean[j])) {
			sd = 0
		}
		s.SD[j] = sd
	}
	return s
}

// Transform returns the z-scores of x (a new matrix); zero-variance
// columns become 0.
func (s Standardizer) Transform(x *mat.Dense) *mat.Dense {
	n, p := x.Dims()
	z := mat.NewDense(n, p, nil)
	for i := range n {
		src, dst := x.RawRowView(i), z.RawRowView(i)
		for j, v := range src {
			if s.SD[j] > 0 {
				dst[j] = (v - s.Mean[j]) / s.SD[j]
			}
		}
	}
	return z
}

// Varying returns the columns with SD > 0 in increasing order (nil when
// none varies): the coordinates k-NN measures distances in.
func (s Standardizer) Varying() []int {
	var cols []int
	for j, sd := range s.SD {
		if sd > 0 {
			cols = append(cols, j)
		}
	}
	return cols
}

// Project writes the z-scores of row's columns cols (from Varying) into
// q, which has len(cols) entries.
func (s Standardizer) Project(row []float64, cols []int, q []float64) {
	for i, j := range cols {
		q[i] = (row[j] - s.Mean[j]) / s.SD[j]
	}
}

// ProjectRows returns the z-scores of every row of x over columns cols,
// row-major (rows × len(cols)): the points a k-NN model indexes.
func (s Standardizer) ProjectRows(x *mat.Dense, cols []int) []float64 {
	n, _ := x.Dims()
	out := make([]float64, n*len(cols))
	for i := range n {
		s.Project(x.RawRowView(i), cols, out[i*len(cols):(i+1)*len(cols)])
	}
	return out
}

// Points measures x's columns and returns the standardiser, its varying
// columns (Varying) and the z-scores of every row over them (ProjectRows):
// the points a k-NN model searches. A nil or empty x (no dense columns)
// gives zero values.
func Points(x *mat.Dense) (s Standardizer, cols []int, rows []float64) {
	if x == nil || x.IsEmpty() {
		return s, nil, nil
	}
	s = New(x)
	cols = s.Varying()
	return s, cols, s.ProjectRows(x, cols)
}
