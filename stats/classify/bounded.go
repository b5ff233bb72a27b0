package classify

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
)

// maxDenseWords is how many words of a session's text columns the
// families without a sparse path (k-NN, the random forest and gradient
// boosting) read, as dense columns: MODELLING §9's
// cap of 500 features, applied to the words those families see. A
// 100 000-row session thus builds one n × (non-text + 500) block for them
// instead of an n × (non-text + 1 000 per text column) matrix, and
// logistic regression and the two naive Bayes, which read the CSR block,
// keep every word: the cap applied to them too cost the fortunes
// benchmark about 0.02 macro-F1 (stop 27), where the L1 logistic is the
// usual champion. Trees that split on sparse columns natively would drop
// the bound; they are a later step.
const maxDenseWords = 500

// boundedKey frames a boundedModel's bytes.
const boundedKey = "bounded_words"

// boundedWire is the payload version of a boundedModel.
const boundedWire = 1

func init() {
	unmarshalers[boundedKey] = unmarshalBounded
}

// fitBounded fits with fit on d's non-text columns and its maxDenseWords
// best words as one dense block; d has words.
func fitBounded(d Data, opt Options, fit func(Data, Options) (Model, error)) (Model, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	words, x := d.boundedBlock()
	inner, err := fit(Data{X: x, Y: d.Y, K: d.K, W: d.W}, opt)
	if err != nil {
		return nil, err
	}
	return &boundedModel{inner: inner, width: d.denseCols() + d.wordCols(), dense: d.denseCols(), words: words}, nil
}

// boundedBlock is d's rows as the bounded dense block: X's columns, then
// the boundedWords, which it returns too. A Data from AsData builds it
// once for every fit; the fits only read it.
func (d Data) boundedBlock() ([]int, *mat.Dense) {
	if d.block == nil {
		words := boundedWords(d)
		return words, d.sparse().DenseColumns(words)
	}
	d.block.once.Do(func() {
		d.block.words = boundedWords(d)
		d.block.x = d.sparse().DenseColumns(d.block.words)
	})
	return d.block.words, d.block.x
}

// boundedBlock is a Data's shared bounded dense block.
type boundedBlock struct {
	once  sync.Once
	words []int
	x     *mat.Dense
}

// boundedWords are the word columns a bounded fit keeps: the
// maxDenseWords best by d.WordImportance (ties, and a nil importance, to
// the earlier column; NaN last), in increasing column order.
func boundedWords(d Data) []int {
	n := d.wordCols()
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	if n <= maxDenseWords {
		return order
	}
	if imp := d.WordImportance; imp != nil {
		key := func(j int) float64 {
			if imp[j] != imp[j] {
				return -1
			}
			return imp[j]
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(b), key(a)) })
	}
	order = order[:maxDenseWords]
	slices.Sort(order)
	return order
}

// boundedModel is a model fitted on the bounded dense block of rows with
// words; it reads rows of every column (a *stats.SparseMatrix or a dense
// matrix of the same columns) and passes its model the kept ones.
type boundedModel struct {
	inner Model
	width int   // columns of the rows it reads
	dense int   // the non-text columns, all kept, first
	words []int // the kept word columns (indices among the words)
}

// Key is the fitted family's key.
func (m *boundedModel) Key() string { return m.inner.Key() }

// Classes returns K.
func (m *boundedModel) Classes() int { return m.inner.Classes() }

// Proba gives the model's probabilities of x's kept columns.
func (m *boundedModel) Proba(x mat.Matrix, dst *mat.Dense) {
	m.inner.Proba(m.project(x), dst)
}

// project is the bounded dense block of x's rows. It panics when x has
// the wrong column count (a programmer error, as in gonum).
func (m *boundedModel) project(x mat.Matrix) mat.Matrix {
	r, c := x.Dims()
	if c != m.width {
		panic(fmt.Sprintf("classify: Proba with %d columns, model has %d", c, m.width))
	}
	if s, ok := x.(*stats.SparseMatrix); ok {
		return s.DenseColumns(m.words)
	}
	if r == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(r, m.dense+len(m.words), nil)
	for i := range r {
		row := out.RawRowView(i)
		for j := range m.dense {
			row[j] = x.At(i, j)
		}
		for k, j := range m.words {
			row[m.dense+k] = x.At(i, m.dense+j)
		}
	}
	return out
}

// Importance is the model's importance on every column, 0 on the words
// it did not read; nil when the family has none.
func (m *boundedModel) Importance() []float64 {
	imp := m.inner.Importance()
	if imp == nil {
		return nil
	}
	out := make([]float64, m.width)
	copy(out, imp[:m.dense])
	for k, j := range m.words {
		out[m.dense+j] = imp[m.dense+k]
	}
	return out
}

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
// own bytes.
func (m *boundedModel) MarshalBinary() ([]byte, error) {
	inner, err := m.inner.MarshalBinary()
	if err != nil {
		return nil, err
	}
	w := codec.Writer{B: make([]byte, 0, 32+8*len(m.words)+len(inner))}
	w.B = append(w.B, boundedWire)
	w.Int(m.width)
	w.Int(m.dense)
	w.Ints(m.words)
	return codec.Frame(boundedKey, append(w.B, inner...)), nil
}

// unmarshalBounded decodes MarshalBinary's payload: version, width,
// dense, the kept words (a count, then each), the model's bytes.
func unmarshalBounded(data []byte) (Model, error) {
	const fixed = 1 + 8*3
	if len(data) < fixed || data[0] != boundedWire {
		return nil, fmt.Errorf("%w (bounded version)", errPayload)
	}
	count := binary.LittleEndian.Uint64(data[17:fixed])
	if count > uint64(len(data)-fixed)/8 {
		return nil, fmt.Errorf("%w (bounded shape)", errPayload)
	}
	head := fixed + 8*int(count)
	r := codec.NewReader(data[1:head], errPayload)
	m := &boundedModel{width: r.Int(1 << 30)}
	m.dense = r.Int(m.width)
	m.words = r.Ints(max(m.width-m.dense-1, 0))
	if err := r.Done(); err != nil {
		return nil, err
	}
	if !slices.IsSorted(m.words) || len(slices.Compact(slices.Clone(m.words))) != len(m.words) {
		return nil, fmt.Errorf("%w (bounded words)", errPayload)
	}
	inner, err := Unmarshal(data[head:])
	if err != nil {
		return nil, err
	}
	m.inner = inner
	return m, nil
}
