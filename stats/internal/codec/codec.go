// Package codec is the binary layout of the models the regression and
// classification families store (stats/regress, stats/classify): a frame
// that names the model's key, and a payload of little-endian fields
// written by Writer and read back by Reader bit for bit. The tree
// ensembles add their node layout on top of it in stats/internal/tree.
//
// The layout is a storage format: models saved by earlier builds must stay
// decodable, so a change here is a change of every family's wire version.
// It imports nothing of the module.
package codec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Frame prefixes a model's payload with its key (one byte of length, then
// the key's bytes), so Decode can dispatch. Keys are at most 255 bytes.
func Frame(key string, payload []byte) []byte {
	out := make([]byte, 0, 1+len(key)+len(payload))
	out = append(out, byte(len(key)))
	out = append(out, key...)
	return append(out, payload...)
}

// Decode reads the key Frame wrote and passes the payload after it to the
// decoder registered for that key in decoders. family prefixes its own
// errors ("regress", "classify"); a decoder's errors are returned as they
// are.
func Decode[M any](data []byte, decoders map[string]func([]byte) (M, error), family string) (M, error) {
	var zero M
	if len(data) < 1 || len(data) < 1+int(data[0]) {
		return zero, fmt.Errorf("%s: model bytes too short", family)
	}
	key := string(data[1 : 1+int(data[0])])
	f, ok := decoders[key]
	if !ok {
		return zero, fmt.Errorf("%s: unknown model key %q", family, key)
	}
	return f(data[1+int(data[0]):])
}

// Writer appends model fields to a payload: unsigned integers and float64
// bits little-endian (8 bytes each), slices prefixed by their length, so
// decoding restores every value bit for bit. The zero Writer is ready;
// B may be given a capacity first.
type Writer struct{ B []byte }

// U64 appends v.
func (w *Writer) U64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// Int appends a non-negative v as a U64.
func (w *Writer) Int(v int) { w.U64(uint64(v)) }

// F64 appends v's IEEE bits.
func (w *Writer) F64(v float64) { w.U64(math.Float64bits(v)) }

// F64s appends len(v) and then the values.
func (w *Writer) F64s(v []float64) {
	w.Int(len(v))
	for _, x := range v {
		w.F64(x)
	}
}

// Ints appends len(v) and then the values (each non-negative).
func (w *Writer) Ints(v []int) {
	w.Int(len(v))
	for _, x := range v {
		w.Int(x)
	}
}

// Reader reads what Writer wrote. The first failure sticks: later reads
// return zero values and Done reports it. Lengths are checked against the
// bytes left before anything is allocated, so a hostile payload cannot
// make a decoder allocate more than its own size.
type Reader struct {
	b   []byte
	bad error // what a malformed payload reports
	err error
}

// NewReader reads payload b; a truncated, over-long or out-of-range
// payload makes Done return malformed (the family's sentinel, so its
// message names the family).
func NewReader(b []byte, malformed error) *Reader {
	return &Reader{b: b, bad: malformed}
}

// U64 reads a uint64.
func (r *Reader) U64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = r.bad
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// Int reads a non-negative int no larger than limit.
func (r *Reader) Int(limit int) int {
	v := r.U64()
	if v > uint64(limit) {
		r.err = r.bad
		return 0
	}
	return int(v)
}

// F64 reads a float64.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// F64s reads a slice written by Writer.F64s.
func (r *Reader) F64s() []float64 {
	n := r.Int(len(r.b) / 8)
	if r.err != nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = r.F64()
	}
	return v
}

// Ints reads a slice written by Writer.Ints, each value no larger than
// limit.
func (r *Reader) Ints(limit int) []int {
	n := r.Int(len(r.b) / 8)
	if r.err != nil {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = r.Int(limit)
	}
	return v
}

// Done reports the first error, or the malformed error when bytes are
// left over.
func (r *Reader) Done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = r.bad
	}
	return r.err
}
