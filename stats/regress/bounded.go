package regress

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
)

// The families without a sparse path (k-NN, the random forest and
// gradient boosting) fit on the bounded dense block of stats.Bounded: X's
// columns and the stats.MaxDenseWords best words by d.WordImportance, as
// in stats/classify (the same block, choice of words and framing, key
// stats.BoundedKey).

// denseFit is a family's fit (or refit) of dense rows.
type denseFit func(x *mat.Dense, y []float64, opt Options) (Model, error)

// fitWords fits with fit on d's rows: X itself without words, else the
// bounded dense block of X and d's stats.MaxDenseWords best words.
func fitWords(d Data, opt Options, fit denseFit) (Model, error) {
	if d.Words == nil {
		return fit(d.X, d.Y, opt)
	}
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	words, x := d.block.Get(d.sparse(), d.WordImportance)
	inner, err := fit(x, d.Y, opt)
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

// Predict writes the model's predictions of x's kept columns.
func (m *boundedModel) Predict(x mat.Matrix, dst []float64) {
	m.inner.Predict(m.shape.Project(x), dst)
}

// Importance is the model's importance on every column, 0 on the words
// it did not read; nil when the family has none.
func (m *boundedModel) Importance() []float64 { return m.shape.Spread(m.inner.Importance()) }

// Refit refits the family's hyper-parameters on d's bounded block, its
// best words chosen again by d's importance (the saved model's
// vocabulary is fitted on every row); on rows without words, on X.
func (m *boundedModel) Refit(d Data, opt Options) (Model, error) {
	return fitWords(d, opt, func(x *mat.Dense, y []float64, opt Options) (Model, error) {
		return m.inner.Refit(Data{X: x, Y: y}, opt)
	})
}

// MarshalBinary encodes the shape and the kept words, then the model's
// own bytes (stats.MarshalBounded).
func (m *boundedModel) MarshalBinary() ([]byte, error) { return stats.MarshalBounded(m.shape, m.inner) }

// unmarshalBounded decodes MarshalBinary's payload.
func unmarshalBounded(data []byte) (Model, error) {
	shape, inner, err := stats.DecodeBounded(data, errWirePayload, Unmarshal)
	if err != nil {
		return nil, err
	}
	return &boundedModel{inner: inner, shape: shape}, nil
}
