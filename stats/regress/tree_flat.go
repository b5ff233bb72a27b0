package regress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// treeNode is one node of a flattened regression tree. An internal node
// (feat ≥ 0) sends a row to node left when x[feat] ≤ v and to node left+1
// otherwise; a leaf (feat < 0) predicts v. Children always follow their
// parent (left > own index), so a walk from node 0 ends.
type treeNode struct {
	v    float64
	feat int32
	left int32
}

// treeLeaf returns the value of the leaf that row x reaches in tree t.
func treeLeaf(t []treeNode, x []float64) float64 {
	i := int32(0)
	for {
		nd := &t[i]
		if nd.feat < 0 {
			return nd.v
		}
		if x[nd.feat] <= nd.v {
			i = nd.left
		} else {
			i = nd.left + 1
		}
	}
}

// treeBlock is how many rows treePredict walks through one tree before
// the next: a large forest does not fit in cache, so each tree is read
// once per block rather than once per row.
const treeBlock = 256

// treePredict writes base + scale·Σ_t tree_t(x_i) for every row of x into
// dst, summing trees in order (the order fixes the rounding, so results
// are reproducible). It panics when x does not have d columns or dst has
// the wrong length, which are programmer errors.
func treePredict(trees [][]treeNode, d int, base, scale float64, x mat.Matrix, dst []float64) {
	r, c := x.Dims()
	if c != d {
		panic(fmt.Sprintf("regress: predict with %d columns, model has %d", c, d))
	}
	if len(dst) != r {
		panic("regress: predict destination length mismatch")
	}
	rows := make([]float64, min(r, treeBlock)*d)
	var sum [treeBlock]float64
	for lo := 0; lo < r; lo += treeBlock {
		hi := min(lo+treeBlock, r)
		for i := lo; i < hi; i++ {
			row := rows[(i-lo)*d : (i-lo+1)*d]
			if raw, ok := x.(*mat.Dense); ok {
				copy(row, raw.RawRowView(i))
			} else {
				for j := range row {
					row[j] = x.At(i, j)
				}
			}
		}
		acc := sum[:hi-lo]
		clear(acc)
		for _, t := range trees {
			for k := range acc {
				acc[k] += treeLeaf(t, rows[k*d:(k+1)*d])
			}
		}
		for k, v := range acc {
			dst[lo+k] = base + scale*v
		}
	}
}

// treeColumns copies x into a column-major slice: column j is
// out[j*n : (j+1)*n].
func treeColumns(x *mat.Dense) []float64 {
	n, d := x.Dims()
	out := make([]float64, n*d)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			out[j*n+i] = v
		}
	}
	return out
}

// treeCheckInput validates the shapes Fit receives.
func treeCheckInput(x *mat.Dense, y []float64) error {
	n, d := x.Dims()
	if n != len(y) {
		return fmt.Errorf("regress: %d rows in x, %d targets", n, len(y))
	}
	if d < 1 {
		return errors.New("regress: no input columns")
	}
	if n < 10 {
		return ErrTooFewRows
	}
	return nil
}

// treeWriter appends little-endian fields to a payload.
type treeWriter struct{ b []byte }

func (w *treeWriter) u32(v int) { w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v)) }

func (w *treeWriter) f64(v float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}

func (w *treeWriter) f64s(v []float64) {
	for _, x := range v {
		w.f64(x)
	}
}

// trees writes the number of trees, then each tree's node count and nodes
// (feature int32, left int32, value float64: 16 bytes a node).
func (w *treeWriter) trees(ts [][]treeNode) {
	w.u32(len(ts))
	for _, t := range ts {
		w.u32(len(t))
		for _, nd := range t {
			w.b = binary.LittleEndian.AppendUint32(w.b, uint32(nd.feat))
			w.b = binary.LittleEndian.AppendUint32(w.b, uint32(nd.left))
			w.f64(nd.v)
		}
	}
}

// errTreeBytes reports a malformed tree-model payload.
var errTreeBytes = errors.New("regress: malformed tree model bytes")

// treeReader consumes what treeWriter wrote; the first failure sticks in
// err and later reads return zeros, so decoders check err once.
type treeReader struct {
	b   []byte
	err error
}

func (r *treeReader) u32() int {
	if r.err != nil || len(r.b) < 4 {
		r.err = errTreeBytes
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return int(v)
}

func (r *treeReader) f64() float64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errTreeBytes
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *treeReader) f64s(n int) []float64 {
	if r.err != nil || n < 0 || len(r.b) < 8*n {
		r.err = errTreeBytes
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.f64()
	}
	return out
}

// trees reads what treeWriter.trees wrote and checks that every tree can
// be walked for rows of d columns: features in [0, d), children after
// their parent and inside the tree.
func (r *treeReader) trees(d int) [][]treeNode {
	nt := r.u32()
	if r.err != nil || nt > len(r.b)/4 {
		r.err = errTreeBytes
		return nil
	}
	ts := make([][]treeNode, nt)
	for k := range ts {
		nn := r.u32()
		if r.err != nil || nn < 1 || nn > len(r.b)/16 {
			r.err = errTreeBytes
			return nil
		}
		t := make([]treeNode, nn)
		for i := range t {
			feat := int32(binary.LittleEndian.Uint32(r.b))
			left := int32(binary.LittleEndian.Uint32(r.b[4:]))
			v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[8:]))
			r.b = r.b[16:]
			if feat >= 0 && (int(feat) >= d || left <= int32(i) || int(left)+1 >= nn) {
				r.err = errTreeBytes
				return nil
			}
			if feat < 0 {
				feat, left = -1, 0
			}
			t[i] = treeNode{v: v, feat: feat, left: left}
		}
		ts[k] = t
	}
	return ts
}

// done reports the first error, or trailing bytes.
func (r *treeReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errTreeBytes
	}
	return r.err
}
