package classify

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// Before issue 16's sparse trees and k-NN, k-NN, the random forest and
// gradient boosting fitted on a bounded dense block (stats.Bounded): X's
// columns and the stats.MaxDenseWords best words. No fit makes such a
// model now; saved ones still decode and predict (key stats.BoundedKey,
// wire 1, the bytes this package wrote).

func init() {
	unmarshalers[stats.BoundedKey] = unmarshalBounded
}

// boundedModel is a model fitted on the bounded dense block of rows with
// words; it reads rows of every column (a *stats.SparseMatrix or a dense
// matrix of the same columns) and passes its model the kept ones.
type boundedModel struct {
	inner Model
	shape stats.Bounded
}

// Key is the fitted family's key.
func (m *boundedModel) Key() string { return m.inner.Key() }

// Classes returns K.
func (m *boundedModel) Classes() int { return m.inner.Classes() }

// Proba gives the model's probabilities of x's kept columns.
func (m *boundedModel) Proba(x mat.Matrix, dst *mat.Dense) {
	m.inner.Proba(m.shape.Project(x), dst)
}

// Importance is the model's importance on every column, 0 on the words
// it did not read; nil when the family has none.
func (m *boundedModel) Importance() []float64 { return m.shape.Spread(m.inner.Importance()) }

// Refit fits the family again on d, as it fits now: on every word,
// natively.
func (m *boundedModel) Refit(d Data, opt Options) (Model, error) {
	return m.inner.Refit(d, opt)
}

// MarshalBinary encodes the shape and the kept words, then the model's
// own bytes (stats.MarshalBounded).
func (m *boundedModel) MarshalBinary() ([]byte, error) { return stats.MarshalBounded(m.shape, m.inner) }

// unmarshalBounded decodes MarshalBinary's payload.
func unmarshalBounded(data []byte) (Model, error) {
	shape, inner, err := stats.DecodeBounded(data, errPayload, Unmarshal)
	if err != nil {
		return nil, err
	}
	return &boundedModel{inner: inner, shape: shape}, nil
}
