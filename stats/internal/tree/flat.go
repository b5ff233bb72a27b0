package tree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Node is one node of a flattened tree. An internal node (Feat ≥ 0) sends
// a row to node Left when x[Feat] ≤ V and to node Left+1 otherwise; a leaf
// (Feat < 0) holds V (the prediction of a regression or boosted tree) and
// Left 0. Children always follow their parent (Left > own index), so a
// walk from node 0 ends.
type Node struct {
	V    float64
	Feat int32
	Left int32
}

// Find returns the index of the leaf that row x reaches in tree t.
func Find(t []Node, x []float64) int32 {
	i := int32(0)
	for {
		nd := &t[i]
		if nd.Feat < 0 {
			return i
		}
		if x[nd.Feat] <= nd.V {
			i = nd.Left
		} else {
			i = nd.Left + 1
		}
	}
}

// Leaf returns the value of the leaf that row x reaches in tree t.
func Leaf(t []Node, x []float64) float64 { return t[Find(t, x)].V }

// block is how many rows Blocks hands over at once: a large forest does
// not fit in cache, so each tree is read once per block rather than once
// per row.
const block = 256

// rowTo is a matrix that writes a whole row at once, as
// *stats.SparseMatrix does from its dense block and its words' non-zeros
// (At would search the words of a row once per column).
type rowTo interface {
	RowTo(i int, dst []float64)
}

// Blocks copies the rows of x into row-major blocks of at most 256 rows
// and calls f with the first row's index and the block (rows × d). It
// panics when x does not have d columns, a programmer error.
func Blocks(x mat.Matrix, d int, f func(lo int, rows []float64)) {
	r, c := x.Dims()
	if c != d {
		panic(fmt.Sprintf("tree: predict with %d columns, model has %d", c, d))
	}
	buf := make([]float64, min(r, block)*d)
	rt, _ := x.(rowTo)
	for lo := 0; lo < r; lo += block {
		hi := min(lo+block, r)
		rows := buf[:(hi-lo)*d]
		for i := lo; i < hi; i++ {
			row := rows[(i-lo)*d : (i-lo+1)*d]
			if raw, ok := x.(*mat.Dense); ok {
				copy(row, raw.RawRowView(i))
			} else if rt != nil {
				rt.RowTo(i, row)
			} else {
				for j := range row {
					row[j] = x.At(i, j)
				}
			}
		}
		f(lo, rows)
	}
}

// Predict writes base + scale·Σ_t tree_t(x_i) for every row of x into
// dst, summing trees in order (the order fixes the rounding, so results
// are reproducible). It panics when x does not have d columns or dst has
// the wrong length, which are programmer errors.
func Predict(trees [][]Node, d int, base, scale float64, x mat.Matrix, dst []float64) {
	if r, _ := x.Dims(); len(dst) != r {
		panic("tree: predict destination length mismatch")
	}
	var sum [block]float64
	Blocks(x, d, func(lo int, rows []float64) {
		acc := sum[:len(rows)/d]
		clear(acc)
		var at [Lanes]int32
		for _, t := range trees {
			k := 0
			for ; k+Lanes <= len(acc); k += Lanes {
				FindLanes(t, rows[k*d:(k+Lanes)*d], d, &at)
				for m, leaf := range at {
					acc[k+m] += t[leaf].V
				}
			}
			for ; k < len(acc); k++ {
				acc[k] += Leaf(t, rows[k*d:(k+1)*d])
			}
		}
		for k, v := range acc {
			dst[lo+k] = base + scale*v
		}
	})
}

// Lanes is how many rows FindLanes takes down a tree side by side (8
// measured best on BenchmarkRandomForestPredict: 4 and 16 were slower).
const Lanes = 8

// FindLanes sets at[m] to the index of the leaf that row m of rows (Lanes
// rows of d values) reaches in t, as Find does. The rows step down the
// tree together, one level per pass, so the CPU overlaps their node loads
// and one row's compare does not wait on another's branch: a deep
// forest's walk is bound by those, not by arithmetic (a 200-tree forest
// predicted 2.2× the rows a second of a walk per row).
func FindLanes(t []Node, rows []float64, d int, at *[Lanes]int32) {
	*at = [Lanes]int32{}
	for {
		moved := false
		for m := range at {
			nd := &t[at[m]]
			if nd.Feat < 0 {
				continue
			}
			moved = true
			next := nd.Left
			if !(rows[m*d+int(nd.Feat)] <= nd.V) { // NaN goes right, as in Find
				next++
			}
			at[m] = next
		}
		if !moved {
			return
		}
	}
}

// Columns copies x into a column-major slice: column j is
// out[j*n : (j+1)*n].
func Columns(x *mat.Dense) []float64 {
	n, d := x.Dims()
	out := make([]float64, n*d)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			out[j*n+i] = v
		}
	}
	return out
}

// Writer appends little-endian fields to a model payload.
type Writer struct{ B []byte }

// U32 appends v as a uint32.
func (w *Writer) U32(v int) { w.B = binary.LittleEndian.AppendUint32(w.B, uint32(v)) }

// F64 appends v's IEEE bits.
func (w *Writer) F64(v float64) {
	w.B = binary.LittleEndian.AppendUint64(w.B, math.Float64bits(v))
}

// F64s appends the values of v (not its length).
func (w *Writer) F64s(v []float64) {
	for _, x := range v {
		w.F64(x)
	}
}

// Trees writes the number of trees, then each tree's node count and nodes
// (feature int32, left int32, value float64: 16 bytes a node).
func (w *Writer) Trees(ts [][]Node) {
	w.U32(len(ts))
	for _, t := range ts {
		w.U32(len(t))
		for _, nd := range t {
			w.B = binary.LittleEndian.AppendUint32(w.B, uint32(nd.Feat))
			w.B = binary.LittleEndian.AppendUint32(w.B, uint32(nd.Left))
			w.F64(nd.V)
		}
	}
}

// ErrBytes reports a malformed tree-model payload.
var ErrBytes = errors.New("tree: malformed model bytes")

// Reader consumes what Writer wrote; the first failure sticks in Err and
// later reads return zeros, so decoders check Err once (or call Done).
type Reader struct {
	B   []byte
	Err error
}

// U32 reads a uint32.
func (r *Reader) U32() int {
	if r.Err != nil || len(r.B) < 4 {
		r.Err = ErrBytes
		return 0
	}
	v := binary.LittleEndian.Uint32(r.B)
	r.B = r.B[4:]
	return int(v)
}

// F64 reads a float64.
func (r *Reader) F64() float64 {
	if r.Err != nil || len(r.B) < 8 {
		r.Err = ErrBytes
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.B))
	r.B = r.B[8:]
	return v
}

// F64s reads n float64 values.
func (r *Reader) F64s(n int) []float64 {
	if r.Err != nil || n < 0 || len(r.B) < 8*n {
		r.Err = ErrBytes
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.F64()
	}
	return out
}

// Dim reads a count d ≥ 1 that at least per·d float64 values must still
// follow: a model's column count before its per-column importance (per
// 1), say. A count out of range sets Err and returns 0.
func (r *Reader) Dim(per int) int {
	v := r.U32()
	if r.Err == nil && (v < 1 || v > len(r.B)/(8*per)) {
		r.Err = ErrBytes
	}
	if r.Err != nil {
		return 0
	}
	return v
}

// Trees reads what Writer.Trees wrote and checks that every tree can be
// walked for rows of d columns: features in [0, d), children after their
// parent and inside the tree.
func (r *Reader) Trees(d int) [][]Node {
	nt := r.U32()
	if r.Err != nil || nt > len(r.B)/4 {
		r.Err = ErrBytes
		return nil
	}
	ts := make([][]Node, nt)
	for k := range ts {
		nn := r.U32()
		if r.Err != nil || nn < 1 || nn > len(r.B)/16 {
			r.Err = ErrBytes
			return nil
		}
		t := make([]Node, nn)
		for i := range t {
			feat := int32(binary.LittleEndian.Uint32(r.B))
			left := int32(binary.LittleEndian.Uint32(r.B[4:]))
			v := math.Float64frombits(binary.LittleEndian.Uint64(r.B[8:]))
			r.B = r.B[16:]
			if feat >= 0 && (int(feat) >= d || left <= int32(i) || int(left)+1 >= nn) {
				r.Err = ErrBytes
				return nil
			}
			if feat < 0 {
				feat, left = -1, 0
			}
			t[i] = Node{V: v, Feat: feat, Left: left}
		}
		ts[k] = t
	}
	return ts
}

// Done reports the first error, or trailing bytes.
func (r *Reader) Done() error {
	if r.Err == nil && len(r.B) != 0 {
		r.Err = ErrBytes
	}
	return r.Err
}
