package regress

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/scale"
)

// LinearModel is a fitted linear model ŷ = b + Σ_j β_j·x_j, the Model of
// the ols, ridge and lasso keys. Coefficients are on the scale of the
// input columns (a scaled fit folds its standardiser into them), so
// prediction is one dot product per row. It is immutable and safe for
// concurrent use.
type LinearModel struct {
	key        string
	alpha      float64   // penalty the fit used (0 for ols)
	coef       []float64 // β on the input scale, one per column
	intercept  float64
	importance []float64 // |β_j·sd_j|, 0 for zero-variance columns
}

// linearWireVersion is the first byte of a LinearModel payload.
const linearWireVersion = 1

// linearFromStd builds a model from coefficients βz on the standardised
// scale: β_j = βz_j / sd_j (0 where sd_j is 0).
func linearFromStd(key string, alpha float64, st scale.Standardizer, ymean float64, betaZ []float64) *LinearModel {
	coef := make([]float64, len(betaZ))
	for j, bz := range betaZ {
		if st.SD[j] > 0 {
			coef[j] = bz / st.SD[j]
		}
	}
	return linearFromRaw(key, alpha, st, ymean, coef)
}

// linearFromRaw builds a model from coefficients on the input scale, with
// intercept b = ȳ − Σ_j β_j·mean_j and importance |β_j·sd_j|. Coefficients
// of zero-variance columns are set to 0.
func linearFromRaw(key string, alpha float64, st scale.Standardizer, ymean float64, coef []float64) *LinearModel {
	m := &LinearModel{
		key:        key,
		alpha:      alpha,
		coef:       coef,
		importance: make([]float64, len(coef)),
		intercept:  ymean,
	}
	for j, c := range coef {
		if st.SD[j] == 0 {
			coef[j] = 0
			continue
		}
		m.importance[j] = math.Abs(c * st.SD[j])
		m.intercept -= c * st.Mean[j]
	}
	return m
}

// Key is "ols", "ridge" or "lasso".
func (m *LinearModel) Key() string { return m.key }

// Alpha is the penalty the fit used, on the scale of the algorithm's
// objective: α of Ridge's ‖y − b − Zβ‖² + n·α‖β‖² or of Lasso's
// (1/2n)‖y − b − Zβ‖² + α‖β‖₁ over standardised columns Z; 0 for OLS.
func (m *LinearModel) Alpha() float64 { return m.alpha }

// Coefficients returns a copy of β, one per input column, on the input
// scale.
func (m *LinearModel) Coefficients() []float64 { return append([]float64(nil), m.coef...) }

// Intercept is b, the prediction for a row of zeros.
func (m *LinearModel) Intercept() float64 { return m.intercept }

// Importance returns a copy of |β_j·sd_j|, the absolute standardised
// coefficient of each input column (0 for a zero-variance column).
func (m *LinearModel) Importance() []float64 { return append([]float64(nil), m.importance...) }

// Predict writes b + x_i·β into dst[i] for every row i of x (a
// *stats.SparseMatrix is read through its non-zero words). It panics when
// len(dst) differs from x's row count or x has the wrong column count.
func (m *LinearModel) Predict(x mat.Matrix, dst []float64) {
	coef, b := m.coef, m.intercept
	if s, ok := x.(*stats.SparseMatrix); ok {
		sparseDot(s, coef, b, dst)
		return
	}
	if d, ok := x.(*mat.Dense); ok && !d.IsEmpty() {
		// The hot path: one tight dot product per row read in place.
		n, p := d.Dims()
		if n == len(dst) && p == len(coef) {
			g := d.RawMatrix()
			for i := range dst {
				row := g.Data[i*g.Stride : i*g.Stride+p]
				s := b
				for j, c := range coef {
					s += c * row[j]
				}
				dst[i] = s
			}
			return
		}
	}
	predictRows(x, len(coef), dst, func(i int, row []float64) {
		s := b
		for j, c := range coef {
			s += c * row[j]
		}
		dst[i] = s
	})
}

// Refit fits the same algorithm with the same penalty on d.
func (m *LinearModel) Refit(d Data, _ Options) (Model, error) {
	switch m.key {
	case olsKey:
		return fitOLS(d)
	case ridgeKey:
		return fitRidgeAt(d, m.alpha)
	case lassoKey:
		return fitLassoAt(d, m.alpha)
	}
	return nil, fmt.Errorf("regress: refit of unknown linear key %q", m.key)
}

// MarshalBinary encodes the model for Unmarshal.
func (m *LinearModel) MarshalBinary() ([]byte, error) {
	w := codec.Writer{B: []byte{linearWireVersion}}
	w.F64(m.alpha)
	w.F64(m.intercept)
	w.F64s(m.coef)
	w.F64s(m.importance)
	return codec.Frame(m.key, w.B), nil
}

// unmarshalLinear decodes a LinearModel payload written for key.
func unmarshalLinear(key string, data []byte) (Model, error) {
	if len(data) < 1 || data[0] != linearWireVersion {
		return nil, fmt.Errorf("%w (%s version)", errWirePayload, key)
	}
	r := codec.NewReader(data[1:], errWirePayload)
	m := &LinearModel{key: key, alpha: r.F64(), intercept: r.F64(), coef: r.F64s(), importance: r.F64s()}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, key)
	}
	if len(m.importance) != len(m.coef) {
		return nil, fmt.Errorf("%w (%s importance length)", errWirePayload, key)
	}
	return m, nil
}
