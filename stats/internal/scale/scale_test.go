package scale_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/scale"
)

func TestStandardizer(t *testing.T) {
	// Column 0: mean 2, sample sd 1; column 1 constant (0.1 sums to a mean
	// a few ulps off, so the raw sd is tiny but not 0); column 2: mean 0,
	// sd 2.
	x := mat.NewDense(3, 3, []float64{
		1, 0.1, -2,
		2, 0.1, 0,
		3, 0.1, 2,
	})
	s := scale.New(x)
	if !slices.Equal(s.SD, []float64{1, 0, 2}) || math.Abs(s.Mean[0]-2) > 1e-15 || s.Mean[2] != 0 {
		t.Fatalf("New = %+v, want mean [2 0.1 0], sd [1 0 2]", s)
	}
	z := s.Transform(x)
	if got := z.RawRowView(0); !slices.Equal(got, []float64{-1, 0, -1}) {
		t.Errorf("Transform row 0 = %v, want [-1 0 -1]", got)
	}
	cols := s.Varying()
	if !slices.Equal(cols, []int{0, 2}) {
		t.Fatalf("Varying() = %v, want [0 2]", cols)
	}
	q := make([]float64, len(cols))
	s.Project([]float64{4, 9, 1}, cols, q)
	if !slices.Equal(q, []float64{2, 0.5}) {
		t.Errorf("Project = %v, want [2 0.5]", q)
	}
}

func TestStandardizerDegenerate(t *testing.T) {
	s := scale.New(mat.NewDense(1, 2, []float64{3, -1}))
	if !slices.Equal(s.Mean, []float64{3, -1}) || !slices.Equal(s.SD, []float64{0, 0}) {
		t.Errorf("New(one row) = %+v, want mean [3 -1], sd [0 0]", s)
	}
	if cols := s.Varying(); cols != nil {
		t.Errorf("Varying() = %v, want nil", cols)
	}
	if z := s.Transform(mat.NewDense(1, 2, []float64{5, 5})); !slices.Equal(z.RawRowView(0), []float64{0, 0}) {
		t.Errorf("Transform = %v, want [0 0]", z.RawRowView(0))
	}
	empty := scale.New(&mat.Dense{})
	if len(empty.Mean) != 0 || len(empty.SD) != 0 {
		t.Errorf("New(empty) = %+v, want no columns", empty)
	}
}

func TestProjectRows(t *testing.T) {
	s := scale.Standardizer{Mean: []float64{1, 5, 0}, SD: []float64{2, 0, 4}}
	x := mat.NewDense(2, 3, []float64{3, 5, 8, -1, 5, -4})
	if got := s.ProjectRows(x, s.Varying()); !slices.Equal(got, []float64{1, 2, -1, -1}) {
		t.Errorf("ProjectRows = %v, want [1 2 -1 -1]", got)
	}
}
