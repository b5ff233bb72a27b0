package stats

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// SparseMatrix is a model session's encoded rows: the dense columns (nil when
// there are none), then the words of the text columns as a CSR block (nil
// without text). It is a mat.Matrix, so every model's Proba reads it; the
// models that know it read the words sparsely (Words), the others a row
// at a time (RowTo); an old bounded model its dense block (DenseColumns). A SparseMatrix is
// safe for concurrent reads.
type SparseMatrix struct {
	Dense *mat.Dense
	Words *CSR
}

// NewSparseMatrix joins a dense block and a words block of the same row count;
// either may be nil, not both.
func NewSparseMatrix(dense *mat.Dense, words *CSR) *SparseMatrix {
	if dense == nil && words == nil {
		panic("stats: a SparseMatrix needs a dense or a words block")
	}
	if dense != nil && words != nil {
		if r, _ := dense.Dims(); r != words.Rows {
			panic(fmt.Sprintf("stats: dense block of %d rows, words of %d", r, words.Rows))
		}
	}
	return &SparseMatrix{Dense: dense, Words: words}
}

// DenseCols is the number of dense columns, those before the words.
func (m *SparseMatrix) DenseCols() int {
	if m.Dense == nil {
		return 0
	}
	_, c := m.Dense.Dims()
	return c
}

// Dims returns the rows and the dense plus word columns.
func (m *SparseMatrix) Dims() (r, c int) {
	if m.Dense != nil {
		r, c = m.Dense.Dims()
	}
	if m.Words != nil {
		r, c = m.Words.Rows, c+m.Words.Cols
	}
	return r, c
}

// At returns the element in row i and column j.
func (m *SparseMatrix) At(i, j int) float64 {
	if d := m.DenseCols(); j < d {
		return m.Dense.At(i, j)
	} else if m.Words == nil {
		panic("stats: SparseMatrix index out of range")
	} else {
		return m.Words.At(i, j-d)
	}
}

// T returns the transpose, read through At.
func (m *SparseMatrix) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// RowTo writes row i into dst, which has one entry per column.
func (m *SparseMatrix) RowTo(i int, dst []float64) {
	d := m.DenseCols()
	if d > 0 {
		copy(dst, m.Dense.RawRowView(i))
	}
	if m.Words != nil {
		w := dst[d:]
		clear(w)
		c, v := m.Words.Row(i)
		for k, j := range c {
			w[j] = v[k]
		}
	}
}

// SelectRows returns the given rows of m, in their order.
func (m *SparseMatrix) SelectRows(rows []int) *SparseMatrix {
	out := &SparseMatrix{}
	if m.Dense != nil {
		_, c := m.Dense.Dims()
		out.Dense = mat.NewDense(max(len(rows), 1), c, nil)
		if len(rows) == 0 {
			out.Dense = &mat.Dense{}
		}
		for i, r := range rows {
			copy(out.Dense.RawRowView(i), m.Dense.RawRowView(r))
		}
	}
	if m.Words != nil {
		out.Words = m.Words.SelectRows(rows)
	}
	return out
}

// ToDense returns m as one dense matrix: the dense block itself when there
// are no words (not a copy), else a new n × (dense + words) matrix. Only
// the paths that have not learnt to read words sparsely call it.
func (m *SparseMatrix) ToDense() *mat.Dense {
	if m.Words == nil {
		return m.Dense
	}
	return m.DenseColumns(allWords(m.Words.Cols))
}

// DenseColumns returns a new dense matrix of the dense block's columns
// followed by the given word columns (indices into Words, in the given
// order): the bounded block an old bounded model reads (stats.Bounded).
func (m *SparseMatrix) DenseColumns(words []int) *mat.Dense {
	r, _ := m.Dims()
	d := m.DenseCols()
	if r == 0 || d+len(words) == 0 {
		return &mat.Dense{} // gonum has no empty Dense of a given shape
	}
	out := mat.NewDense(r, d+len(words), nil)
	var at []int // word column → output column + 1 (0: not kept)
	if m.Words != nil {
		at = make([]int, m.Words.Cols)
	}
	for k, j := range words {
		at[j] = d + k + 1
	}
	for i := range r {
		row := out.RawRowView(i)
		if d > 0 {
			copy(row, m.Dense.RawRowView(i))
		}
		if m.Words == nil {
			continue
		}
		c, v := m.Words.Row(i)
		for k, j := range c {
			if o := at[j]; o != 0 {
				row[o-1] = v[k]
			}
		}
	}
	return out
}

// allWords is 0..n-1.
func allWords(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// WordDims are the rows, dense columns and word columns of a family's
// training set: a dense block x (nil or empty when there is none) and the
// words (nil when there are none).
func WordDims(x *mat.Dense, words *CSR) (rows, dense, wordCols int) {
	if x != nil && !x.IsEmpty() {
		rows, dense = x.Dims()
	}
	if words != nil {
		rows, wordCols = words.Rows, words.Cols
	}
	return rows, dense, wordCols
}

// JoinWords is a training set's dense block x (nil or empty when there is
// none) and words as one SparseMatrix; x is not copied.
func JoinWords(x *mat.Dense, words *CSR) *SparseMatrix {
	if _, dense, _ := WordDims(x, words); dense == 0 {
		x = nil
	}
	return NewSparseMatrix(x, words)
}

// TrainingBlocks splits a family's training matrix into its dense block
// and words: a *mat.Dense is the dense block itself, a *SparseMatrix its
// two blocks, anything else a dense copy.
func TrainingBlocks(x mat.Matrix) (*mat.Dense, *CSR) {
	switch x := x.(type) {
	case *mat.Dense:
		return x, nil
	case *SparseMatrix:
		return x.Dense, x.Words
	}
	return mat.DenseCopyOf(x), nil
}
