package stats

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fromDense builds a CSR of the non-zeros of x.
func fromDense(x *mat.Dense) *CSR {
	r, c := x.Dims()
	m := NewCSR(r, c, 0)
	for i := range r {
		var cols []int32
		var vals []float64
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				cols, vals = append(cols, int32(j)), append(vals, v)
			}
		}
		m.AppendRow(cols, vals)
	}
	return m
}

func TestMatrixReadsAsItsDenseEquivalent(t *testing.T) {
	dense := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	wordsDense := mat.NewDense(4, 3, []float64{0, 0.5, 0, 0, 0, 0, 0.25, 0, 0.75, 0, 0, 1})
	m := NewSparseMatrix(dense, fromDense(wordsDense))
	want := mat.NewDense(4, 5, nil)
	want.Augment(dense, wordsDense)
	if r, c := m.Dims(); r != 4 || c != 5 {
		t.Fatalf("Dims = %d, %d; want 4, 5", r, c)
	}
	if !mat.Equal(m, want) {
		t.Fatalf("At differs from the joined matrix:\n%v", mat.Formatted(m))
	}
	if !mat.Equal(m.ToDense(), want) {
		t.Fatalf("ToDense = %v", mat.Formatted(m.ToDense()))
	}
	row := make([]float64, 5)
	for i := range 4 {
		row[3] = 99 // RowTo clears the word part
		m.RowTo(i, row)
		if !mat.Equal(mat.NewVecDense(5, row), want.RowView(i)) {
			t.Fatalf("RowTo(%d) = %v", i, row)
		}
	}
	sel := m.SelectRows([]int{3, 1, 3})
	for k, r := range []int{3, 1, 3} {
		for j := range 5 {
			if sel.At(k, j) != want.At(r, j) {
				t.Fatalf("SelectRows row %d col %d = %v, want %v", k, j, sel.At(k, j), want.At(r, j))
			}
		}
	}
	b := m.DenseColumns([]int{2, 0})
	for i := range 4 {
		got := b.RawRowView(i)
		exp := []float64{want.At(i, 0), want.At(i, 1), want.At(i, 4), want.At(i, 2)}
		for j := range exp {
			if got[j] != exp[j] {
				t.Fatalf("DenseColumns row %d = %v, want %v", i, got, exp)
			}
		}
	}
}

func TestMatrixWithoutWordsIsItsDenseBlock(t *testing.T) {
	dense := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if m := NewSparseMatrix(dense, nil); m.ToDense() != dense {
		t.Fatal("ToDense copied a matrix without words")
	}
	words := fromDense(mat.NewDense(2, 2, []float64{0, 1, 2, 0}))
	m := NewSparseMatrix(nil, words)
	if r, c := m.Dims(); r != 2 || c != 2 || m.At(1, 0) != 2 || m.DenseCols() != 0 {
		t.Fatalf("words-only matrix reads wrong: %v", mat.Formatted(m))
	}
}

func TestHStack(t *testing.T) {
	a := fromDense(mat.NewDense(2, 2, []float64{1, 0, 0, 2}))
	b := fromDense(mat.NewDense(2, 1, []float64{0, 3}))
	s := HStack(2, a, b)
	want := []float64{1, 0, 0, 0, 2, 3}
	for i := range 2 {
		for j := range 3 {
			if s.At(i, j) != want[i*3+j] {
				t.Fatalf("HStack(%d, %d) = %v, want %v", i, j, s.At(i, j), want[i*3+j])
			}
		}
	}
}
