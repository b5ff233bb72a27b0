package text

import (
	"cmp"
	"math"
	"slices"
)

// CSR is a compressed sparse row matrix: the non-zeros of row i are
// Data[Indptr[i]:Indptr[i+1]], in the columns Indices[Indptr[i]:Indptr[i+1]],
// which are increasing within a row. Indptr has Rows+1 entries and starts at
// 0. The matrices of this package never store zeros. A CSR is safe for
// concurrent reads.
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int32
	Data       []float64
}

// newCSR returns an empty matrix of cols columns ready for appendRow.
func newCSR(rows, cols, nnz int) *CSR {
	m := &CSR{
		Cols:    cols,
		Indptr:  make([]int, 1, rows+1),
		Indices: make([]int32, 0, nnz),
		Data:    make([]float64, 0, nnz),
	}
	return m
}

// NNZ returns the number of stored non-zeros.
func (m *CSR) NNZ() int { return len(m.Data) }

// At returns the element in row i and column j. It panics when i or j is
// out of range.
func (m *CSR) At(i, j int) float64 {
	if i < 0 || i >= m.Rows || j < 0 || j >= m.Cols {
		panic("text: CSR index out of range")
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	if k, ok := slices.BinarySearch(m.Indices[lo:hi], int32(j)); ok {
		return m.Data[lo+k]
	}
	return 0
}

// Select returns a new matrix holding the given columns of m in the given
// order: column j of the result is column cols[j] of m. Rows are not
// normalised again. It panics when a column is out of range or repeated.
func (m *CSR) Select(cols []int) *CSR {
	to := make([]int32, m.Cols) // old column → new column + 1 (0: dropped)
	for j, c := range cols {
		if c < 0 || c >= m.Cols || to[c] != 0 {
			panic("text: CSR.Select column out of range or repeated")
		}
		to[c] = int32(j) + 1
	}
	increasing := slices.IsSorted(cols)
	out := newCSR(m.Rows, len(cols), 0)
	var row []entry
	for i := range m.Rows {
		row = row[:0]
		for k := m.Indptr[i]; k < m.Indptr[i+1]; k++ {
			if c := to[m.Indices[k]]; c != 0 {
				row = append(row, entry{col: c - 1, v: m.Data[k]})
			}
		}
		if !increasing {
			slices.SortFunc(row, func(a, b entry) int { return cmp.Compare(a.col, b.col) })
		}
		for _, e := range row {
			out.Indices = append(out.Indices, e.col)
			out.Data = append(out.Data, e.v)
		}
		out.Indptr = append(out.Indptr, len(out.Data))
	}
	out.Rows = m.Rows
	return out
}

// entry is one non-zero of a row being built.
type entry struct {
	col int32
	v   float64
}

// appendTFIDF appends one row to m from the raw term counts of a document
// (entry.v holds the count of column entry.col, each column once, in any
// order): tf × idf, L2-normalised as scikit-learn's normalize(norm="l2")
// does. A row without entries stays empty. It sorts row in place.
func (m *CSR) appendTFIDF(row []entry, idf []float64) {
	slices.SortFunc(row, func(a, b entry) int { return cmp.Compare(a.col, b.col) })
	ss := 0.0
	for k := range row {
		v := row[k].v * idf[row[k].col]
		row[k].v = v
		ss += v * v
	}
	norm := math.Sqrt(ss)
	for _, e := range row {
		m.Indices = append(m.Indices, e.col)
		m.Data = append(m.Data, e.v/norm)
	}
	m.Indptr = append(m.Indptr, len(m.Data))
	m.Rows++
}
