package text

import (
	"cmp"
	"math"
	"slices"

	"github.com/vaticml/vatic/stats"
)

// CSR is the compressed sparse row matrix of package sparse, where it
// moved so that the model families can read the words without importing
// the tokeniser.
type CSR = stats.CSR

// entry is one non-zero of a row being built.
type entry struct {
	col int32
	v   float64
}

// tfidfRows builds a CSR row by row from raw term counts.
type tfidfRows struct {
	m    *CSR
	cols []int32
	vals []float64
}

// newTFIDFRows returns an empty builder of a matrix of cols columns.
func newTFIDFRows(rows, cols, nnz int) *tfidfRows {
	return &tfidfRows{m: stats.NewCSR(rows, cols, nnz)}
}

// append appends one row from the raw term counts of a document
// (entry.v holds the count of column entry.col, each column once, in any
// order): tf × idf, L2-normalised as scikit-learn's normalize(norm="l2")
// does. A row without entries stays empty. It sorts row in place.
func (b *tfidfRows) append(row []entry, idf []float64) {
	slices.SortFunc(row, func(a, b entry) int { return cmp.Compare(a.col, b.col) })
	ss := 0.0
	for k := range row {
		v := row[k].v * idf[row[k].col]
		row[k].v = v
		ss += v * v
	}
	norm := math.Sqrt(ss)
	b.cols, b.vals = b.cols[:0], b.vals[:0]
	for _, e := range row {
		b.cols = append(b.cols, e.col)
		b.vals = append(b.vals, e.v/norm)
	}
	b.m.AppendRow(b.cols, b.vals)
}
