// The compressed sparse row matrix of the text features (MODELLING §10)
// and the mixed matrix the model sessions pass around: a dense block of
// the non-text features with the words of the text columns after it as a
// CSR block, so that a 100 000-row text column never becomes an n × words
// dense matrix (issue 16). They sit in stats so that stats/text, which
// builds the words, and the model families, which read them, share them.

package stats

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

// NewCSR returns an empty matrix of cols columns with room for rows rows and
// nnz non-zeros, to be filled row by row with AppendRow.
func NewCSR(rows, cols, nnz int) *CSR {
	return &CSR{
		Cols:    cols,
		Indptr:  make([]int, 1, rows+1),
		Indices: make([]int32, 0, nnz),
		Data:    make([]float64, 0, nnz),
	}
}

// AppendRow appends one row from its non-zeros: cols increasing, vals
// non-zero, of equal lengths.
func (m *CSR) AppendRow(cols []int32, vals []float64) {
	m.Indices = append(m.Indices, cols...)
	m.Data = append(m.Data, vals...)
	m.Indptr = append(m.Indptr, len(m.Data))
	m.Rows++
}

// NNZ returns the number of stored non-zeros.
func (m *CSR) NNZ() int { return len(m.Data) }

// Row returns the columns and values of row i's non-zeros; the caller
// must not modify them.
func (m *CSR) Row(i int) ([]int32, []float64) {
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi], m.Data[lo:hi]
}

// At returns the element in row i and column j. It panics when i or j is
// out of range.
func (m *CSR) At(i, j int) float64 {
	if i < 0 || i >= m.Rows || j < 0 || j >= m.Cols {
		panic("stats: CSR index out of range")
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	if k, ok := slices.BinarySearch(m.Indices[lo:hi], int32(j)); ok {
		return m.Data[lo+k]
	}
	return 0
}

// SelectRows returns a new matrix holding the given rows of m in the
// given order (repeats allowed): the folds and splits of a session.
func (m *CSR) SelectRows(rows []int) *CSR {
	nnz := 0
	for _, r := range rows {
		nnz += m.Indptr[r+1] - m.Indptr[r]
	}
	out := NewCSR(len(rows), m.Cols, nnz)
	for _, r := range rows {
		out.AppendRow(m.Row(r))
	}
	return out
}

// Select returns a new matrix holding the given columns of m in the given
// order: column j of the result is column cols[j] of m. Rows are not
// normalised again. It panics when a column is out of range or repeated.
func (m *CSR) Select(cols []int) *CSR {
	to := make([]int32, m.Cols) // old column → new column + 1 (0: dropped)
	for j, c := range cols {
		if c < 0 || c >= m.Cols || to[c] != 0 {
			panic("stats: CSR.Select column out of range or repeated")
		}
		to[c] = int32(j) + 1
	}
	increasing := slices.IsSorted(cols)
	out := NewCSR(m.Rows, len(cols), 0)
	type entry struct {
		col int32
		v   float64
	}
	var row []entry
	var rc []int32
	var rv []float64
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
		rc, rv = rc[:0], rv[:0]
		for _, e := range row {
			rc, rv = append(rc, e.col), append(rv, e.v)
		}
		out.AppendRow(rc, rv)
	}
	return out
}

// HStack returns the matrices side by side (equal row counts): the
// columns of ms[0], then of ms[1], and so on.
func HStack(rows int, ms ...*CSR) *CSR {
	cols, nnz := 0, 0
	for _, m := range ms {
		if m.Rows != rows {
			panic("stats: HStack of matrices with different row counts")
		}
		cols += m.Cols
		nnz += m.NNZ()
	}
	if len(ms) == 1 {
		return ms[0]
	}
	out := NewCSR(rows, cols, nnz)
	for i := range rows {
		off := 0
		for _, m := range ms {
			c, v := m.Row(i)
			for _, j := range c {
				out.Indices = append(out.Indices, j+int32(off))
			}
			out.Data = append(out.Data, v...)
			off += m.Cols
		}
		out.Indptr = append(out.Indptr, len(out.Data))
	}
	out.Rows = rows
	return out
}

// ColumnMeanSD returns each column's mean and sample standard deviation
// over the Rows rows, counting the implicit zeros (equal to those of the
// dense matrix up to rounding), without a dense copy. A standard
// deviation of at most 1e-12·|mean| (rounding of a constant column) and
// any with fewer than two rows is 0, as the families' standardiser
// (stats/internal/scale) has it.
func (m *CSR) ColumnMeanSD() (mean, sd []float64) {
	n := m.Rows
	mean, sd = make([]float64, m.Cols), make([]float64, m.Cols)
	nz := make([]int, m.Cols)
	for k, j := range m.Indices {
		mean[j] += m.Data[k]
		nz[j]++
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for k, j := range m.Indices {
		e := m.Data[k] - mean[j]
		sd[j] += e * e
	}
	for j := range sd {
		s := 0.0
		if n >= 2 {
			s = math.Sqrt((sd[j] + float64(n-nz[j])*mean[j]*mean[j]) / float64(n-1))
		}
		if !(s > 1e-12*math.Abs(mean[j])) {
			s = 0
		}
		sd[j] = s
	}
	return mean, sd
}
