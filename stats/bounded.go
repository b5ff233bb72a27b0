// The bounded dense block of the families that read no sparse input
// (k-NN, the random forest and gradient boosting, in classification and
// regression alike): the dense columns and the MaxDenseWords best words of
// the text columns as one dense matrix, and the framing of a model fitted
// on it (the kept columns, then the family's own bytes). It sits in stats
// so that stats/classify and stats/regress, which may not import each
// other (STYLE §2, TestLayering), share one definition and one wire.

package stats

import (
	"cmp"
	"encoding"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/codec"
)

// MaxDenseWords is how many words of a session's text columns the
// families without a sparse path (k-NN, the random forest and gradient
// boosting) read, as dense columns: MODELLING §9's cap of 500 features,
// applied to the words those families see. A 100 000-row session thus
// builds one n × (non-text + 500) block for them instead of an
// n × (non-text + 1 000 per text column) matrix, and the families that
// read the CSR block (logistic regression and the two naive Bayes in
// classification, the linear models in regression) keep every word: the
// cap applied to them too cost the fortunes benchmark about 0.02 macro-F1
// (stop 27), where the L1 logistic is the usual champion. Trees that split
// on sparse columns natively would drop the bound; they are a later step.
const MaxDenseWords = 500

// BoundedKey frames a bounded model's bytes (the key both families
// register their decoder of a bounded model under).
const BoundedKey = "bounded_words"

// boundedWire is the payload version of a bounded model.
const boundedWire = 1

// BoundedWords are the word columns, out of n, a bounded fit keeps: the
// MaxDenseWords best by importance (ties, and a nil importance, to the
// earlier column; NaN last), in increasing column order.
func BoundedWords(n int, importance []float64) []int {
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	if n <= MaxDenseWords {
		return order
	}
	if imp := importance; imp != nil {
		key := func(j int) float64 {
			if imp[j] != imp[j] {
				return -1
			}
			return imp[j]
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(b), key(a)) })
	}
	order = order[:MaxDenseWords]
	slices.Sort(order)
	return order
}

// WordBlock is a training set's bounded dense block, built once for all
// the fits of the same rows: a session's contestants fit side by side on
// them. The zero WordBlock is ready; it is safe for concurrent use.
type WordBlock struct {
	once  sync.Once
	words []int
	x     *mat.Dense
}

// Get returns the kept words (BoundedWords of m's words by importance)
// and m's dense columns followed by them as one dense matrix. A nil b
// builds them afresh; otherwise the first call builds them and every
// call returns the same ones, which the callers only read.
func (b *WordBlock) Get(m *SparseMatrix, importance []float64) ([]int, *mat.Dense) {
	build := func() ([]int, *mat.Dense) {
		words := BoundedWords(m.Words.Cols, importance)
		return words, m.DenseColumns(words)
	}
	if b == nil {
		return build()
	}
	b.once.Do(func() { b.words, b.x = build() })
	return b.words, b.x
}

// Bounded is the shape of a model fitted on a bounded dense block: the
// rows it reads have Width columns, the Dense non-text ones (all kept,
// first) and the words, of which it keeps Words (indices among the words,
// increasing).
type Bounded struct {
	Width, Dense int
	Words        []int
}

// Project is the bounded dense block of x's rows (a *SparseMatrix or a
// dense matrix of all Width columns). It panics when x has the wrong
// column count (a programmer error, as in gonum).
func (b Bounded) Project(x mat.Matrix) mat.Matrix {
	r, c := x.Dims()
	if c != b.Width {
		panic(fmt.Sprintf("stats: a bounded model read rows of %d columns, it was fitted on %d", c, b.Width))
	}
	if s, ok := x.(*SparseMatrix); ok {
		return s.DenseColumns(b.Words)
	}
	if r == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(r, b.Dense+len(b.Words), nil)
	for i := range r {
		row := out.RawRowView(i)
		for j := range b.Dense {
			row[j] = x.At(i, j)
		}
		for k, j := range b.Words {
			row[b.Dense+k] = x.At(i, b.Dense+j)
		}
	}
	return out
}

// Spread is the importance imp of the bounded block's columns on every
// one of the Width columns, 0 on the words not kept; nil for a nil imp.
func (b Bounded) Spread(imp []float64) []float64 {
	if imp == nil {
		return nil
	}
	out := make([]float64, b.Width)
	copy(out, imp[:b.Dense])
	for k, j := range b.Words {
		out[b.Dense+j] = imp[b.Dense+k]
	}
	return out
}

// MarshalBounded is the bytes of inner, a model fitted on the bounded
// block of shape b: b.Marshal of inner's own.
func MarshalBounded(b Bounded, inner encoding.BinaryMarshaler) ([]byte, error) {
	raw, err := inner.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return b.Marshal(raw), nil
}

// DecodeBounded decodes MarshalBounded's payload (after the key): the
// shape (UnmarshalBounded) and the inner model by decode, the family's
// Unmarshal.
func DecodeBounded[M any](data []byte, malformed error, decode func([]byte) (M, error)) (Bounded, M, error) {
	var inner M
	b, rest, err := UnmarshalBounded(data, malformed)
	if err != nil {
		return b, inner, err
	}
	inner, err = decode(rest)
	return b, inner, err
}

// Marshal frames the shape and the kept words, then inner, the fitted
// model's own bytes, under BoundedKey.
func (b Bounded) Marshal(inner []byte) []byte {
	w := codec.Writer{B: make([]byte, 0, 32+8*len(b.Words)+len(inner))}
	w.B = append(w.B, boundedWire)
	w.Int(b.Width)
	w.Int(b.Dense)
	w.Ints(b.Words)
	return codec.Frame(BoundedKey, append(w.B, inner...))
}

// UnmarshalBounded decodes Marshal's payload (after the key): version,
// width, dense, the kept words (a count, then each), and returns the
// shape and the inner model's bytes. A malformed payload gives an error
// wrapping malformed, the family's sentinel.
func UnmarshalBounded(data []byte, malformed error) (Bounded, []byte, error) {
	const fixed = 1 + 8*3
	if len(data) < fixed || data[0] != boundedWire {
		return Bounded{}, nil, fmt.Errorf("%w (bounded version)", malformed)
	}
	count := binary.LittleEndian.Uint64(data[17:fixed])
	if count > uint64(len(data)-fixed)/8 {
		return Bounded{}, nil, fmt.Errorf("%w (bounded shape)", malformed)
	}
	head := fixed + 8*int(count)
	r := codec.NewReader(data[1:head], malformed)
	b := Bounded{Width: r.Int(1 << 30)}
	b.Dense = r.Int(b.Width)
	b.Words = r.Ints(max(b.Width-b.Dense-1, 0))
	if err := r.Done(); err != nil {
		return Bounded{}, nil, err
	}
	if !slices.IsSorted(b.Words) || len(slices.Compact(slices.Clone(b.Words))) != len(b.Words) {
		return Bounded{}, nil, fmt.Errorf("%w (bounded words)", malformed)
	}
	return b, data[head:], nil
}
