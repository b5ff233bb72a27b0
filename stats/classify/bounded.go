package classify

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// The families without a sparse path (k-NN, the random forest and
// gradient boosting) fit on the bounded dense block of stats.Bounded: X's
// columns and the stats.MaxDenseWords best words by d.WordImportance. The
// block, its choice of words and the framing of the fitted model are
// stats's, shared with stats/regress; the model's bytes are those this
// package wrote before they moved (key stats.BoundedKey, wire 1).

func init() {
	unmarshalers[stats.BoundedKey] = unmarshalBounded
}

// fitBounded fits with fit on d's non-text columns and its
// stats.MaxDenseWords best words as one dense block; d has words.
func fitBounded(d Data, opt Options, fit func(Data, Options) (Model, error)) (Model, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	words, x := d.block.Get(d.sparse(), d.WordImportance)
	inner, err := fit(Data{X: x, Y: d.Y, K: d.K, W: d.W}, opt)
	if err != nil {
		return nil, err
	}
	return &boundedModel{inner: inner, shape: stats.Bounded{Width: d.denseCols() + d.wordCols(), Dense: d.denseCols(), Words: words}}, nil
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

// Refit refits the family's hyper-parameters on d's bounded block, its
// best words chosen again by d's importance (the saved model's
// vocabulary is fitted on every row).
func (m *boundedModel) Refit(d Data, opt Options) (Model, error) {
	if d.Words == nil {
		return nil, errors.New("classify: a model fitted on words refitted on rows without them")
	}
	return fitBounded(d, opt, m.inner.Refit)
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
