// The bounded dense block that k-NN, the random forest and gradient
// boosting (classification and regression alike) fitted on before they
// read words natively (issue 16): the dense columns and the MaxDenseWords
// best words of the text columns as one dense matrix, and the framing of
// a model fitted on it (the kept columns, then the family's own bytes).
// No fit makes one now; saved models of that kind still decode and
// predict through the two families' decoders, which share this one
// definition and wire.

package stats

import (
	"cmp"
	"encoding"
	"encoding/binary"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/codec"
)

// MaxDenseWords is how many words a bounded model kept at most (MODELLING
// §9's cap of 500 features, applied to the words of the families that
// then read no sparse input). Tests use it to show that every family now
// reads words past it.
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
