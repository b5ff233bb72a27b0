package anomaly_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

var primes = []float64{2, 3, 5, 7, 11, 13, 17, 19}

// weyl builds testdata/reference_mahalanobis.py's base columns bit for
// bit: column j is frac((i+1)·frac(√p_j)).
func weyl(n, d int) [][]float64 {
	cols := make([][]float64, d)
	for j := range cols {
		a := math.Sqrt(primes[j])
		a -= math.Floor(a)
		cols[j] = make([]float64, n)
		for i := range n {
			v := float64(i+1) * a
			cols[j][i] = v - math.Floor(v)
		}
	}
	return cols
}

// wellCols and oneHotCols are the script's "well" and "onehot" data.
func wellCols() [][]float64 {
	cols := weyl(1000, 6)
	for j := 1; j < 6; j++ {
		floats.AddScaled(cols[j], 0.5, cols[j-1])
	}
	floats.Scale(1000, cols[5])
	floats.AddConst(100, cols[0])
	return cols
}

func oneHotCols() [][]float64 {
	cols := weyl(400, 3)
	for k := range 4 {
		c := make([]float64, 400)
		for i := range c {
			if i%4 == k {
				c[i] = 1
			}
		}
		cols = append(cols, c)
	}
	return cols
}

// TestMahalanobisReference compares D² with NumPy's
// (x−μ) pinv(Σ) (x−μ)ᵀ printed by testdata/reference_mahalanobis.py:
// within 1e-9 relative on the well-conditioned data (condition number
// 3e6, so Cholesky and pinv agree to about 1e-10), and within 1e-9 on the
// rank-deficient one-hot data too, where both drop the one eigenvalue at
// rounding level (−2e-17). The sum of D² over the rows is (N − 1)·rank
// for any data, a check independent of NumPy.
func TestMahalanobisReference(t *testing.T) {
	rowsAt := []int{0, 1, 2, 99, 398, 399}
	for _, c := range []struct {
		name   string
		cols   [][]float64
		pseudo bool
		rank   int
		want   []float64
		tol    float64
	}{
		{"well", wellCols(), false, 6, []float64{2.398143792593271, 3.2217257271435855, 8.146463031015687, 1.656061170810128, 4.504310627070103, 3.506541770653379}, 1e-9},
		{"onehot", oneHotCols(), true, 6, []float64{4.485555640809433, 4.269020754621335, 5.40130825489797, 4.381977740735222, 6.728262188313996, 4.637281147330871}, 1e-9},
	} {
		n := len(c.cols[0])
		mu, cov, err := anomaly.Covariance(c.cols, 2)
		if err != nil {
			t.Fatalf("Covariance(%s) error %v", c.name, err)
		}
		m, err := anomaly.NewMetric(mu, cov, n)
		if err != nil {
			t.Fatalf("NewMetric(%s) error %v", c.name, err)
		}
		if m.Pseudo() != c.pseudo || m.Rank() != c.rank {
			t.Errorf("NewMetric(%s): Pseudo %v, Rank %d, want %v, %d", c.name, m.Pseudo(), m.Rank(), c.pseudo, c.rank)
		}
		dst := make([]float64, n)
		if err := anomaly.MahalanobisD2(c.cols, mu, cov, dst, 2); err != nil {
			t.Fatalf("MahalanobisD2(%s) error %v", c.name, err)
		}
		for k, i := range rowsAt {
			if d := relDiff(dst[i], c.want[k]); d > c.tol {
				t.Errorf("MahalanobisD2(%s)[%d] = %.17g, want %.17g (rel diff %.2g > %g)", c.name, i, dst[i], c.want[k], d, c.tol)
			}
		}
		if s, want := floats.Sum(dst), float64((n-1)*c.rank); relDiff(s, want) > 1e-10 {
			t.Errorf("sum of MahalanobisD2(%s) = %.17g, want (N−1)·rank = %g", c.name, s, want)
		}
	}
}

// TestCovariance compares with gonum's stat.CovarianceMatrix on a
// row-major copy and checks that workers do not change a bit.
func TestCovariance(t *testing.T) {
	cols := wellCols()
	n, d := len(cols[0]), len(cols)
	x := mat.NewDense(n, d, nil)
	for j, c := range cols {
		x.SetCol(j, c)
	}
	var want mat.SymDense
	stat.CovarianceMatrix(&want, x, nil)
	mu, cov, err := anomaly.Covariance(cols, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d {
		if m := stat.Mean(cols[i], nil); relDiff(mu[i], m) > 1e-14 {
			t.Errorf("Covariance mean[%d] = %g, want %g", i, mu[i], m)
		}
		for j := range d {
			if relDiff(cov.At(i, j), want.At(i, j)) > 1e-12 {
				t.Errorf("Covariance[%d,%d] = %.17g, want %.17g", i, j, cov.At(i, j), want.At(i, j))
			}
		}
	}
	// Many chunks, odd workers: identical bits.
	big := benchCols(100_003, 7)
	mu1, c1, _ := anomaly.Covariance(big, 1)
	mu3, c3, _ := anomaly.Covariance(big, 3)
	if !slices.Equal(mu1, mu3) || !mat.Equal(c1, c3) {
		t.Errorf("Covariance with 1 and 3 workers differ")
	}
	m, _ := anomaly.NewMetric(mu1, c1, 100_003)
	a, b := make([]float64, 100_003), make([]float64, 100_003)
	m.D2(big, a, 1)
	m.D2(big, b, 3)
	if !slices.Equal(a, b) {
		t.Errorf("Metric.D2 with 1 and 3 workers differ")
	}
}

// TestMahalanobisEdgeCases: each degenerate input gives an error or a
// documented, finite output, never a panic.
func TestMahalanobisEdgeCases(t *testing.T) {
	d2 := func(t *testing.T, cols [][]float64) ([]float64, *anomaly.Metric) {
		t.Helper()
		mu, cov, err := anomaly.Covariance(cols, 2)
		if err != nil {
			t.Fatalf("Covariance error %v", err)
		}
		m, err := anomaly.NewMetric(mu, cov, len(cols[0]))
		if err != nil {
			t.Fatalf("NewMetric error %v", err)
		}
		dst := make([]float64, len(cols[0]))
		m.D2(cols, dst, 2)
		for i, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("D2[%d] = %g, want finite ≥ 0", i, v)
			}
		}
		return dst, m
	}
	t.Run("single row", func(t *testing.T) {
		if _, _, err := anomaly.Covariance([][]float64{{1}, {2}}, 1); !errors.Is(err, anomaly.ErrTooFewRows) {
			t.Errorf("Covariance(1 row) error %v, want ErrTooFewRows", err)
		}
	})
	t.Run("no columns", func(t *testing.T) {
		if _, _, err := anomaly.Covariance(nil, 1); !errors.Is(err, anomaly.ErrNoColumns) {
			t.Errorf("Covariance(no columns) error %v, want ErrNoColumns", err)
		}
	})
	t.Run("ragged", func(t *testing.T) {
		if _, _, err := anomaly.Covariance([][]float64{{1, 2, 3}, {1, 2}}, 1); err == nil {
			t.Errorf("Covariance(ragged) error nil, want an error")
		}
		mu, cov, _ := anomaly.Covariance([][]float64{{1, 2, 3}, {1, 2, 4}}, 1)
		if err := anomaly.MahalanobisD2([][]float64{{1, 2, 3}, {1, 2, 4}}, mu, cov, make([]float64, 2), 1); err == nil {
			t.Errorf("MahalanobisD2(short dst) error nil, want an error")
		}
		if err := anomaly.MahalanobisD2([][]float64{{1, 2, 3}}, mu, cov, make([]float64, 3), 1); err == nil {
			t.Errorf("MahalanobisD2(fewer columns than μ) error nil, want an error")
		}
	})
	t.Run("identical rows", func(t *testing.T) {
		dst, m := d2(t, [][]float64{{3, 3, 3, 3}, {-1, -1, -1, -1}})
		if m.Rank() != 0 || floats.Max(dst) != 0 {
			t.Errorf("identical rows: rank %d, D² %v, want rank 0 and zeros", m.Rank(), dst)
		}
	})
	t.Run("more columns than rows", func(t *testing.T) {
		cols := benchCols(5, 10)
		dst, m := d2(t, cols)
		if !m.Pseudo() || m.Rank() != 4 {
			t.Errorf("5 rows × 10 columns: Pseudo %v, rank %d, want true, 4", m.Pseudo(), m.Rank())
		}
		// With rank N−1 every row sits at D² = (N−1)²/N.
		for i, v := range dst {
			if math.Abs(v-16.0/5) > 1e-9 {
				t.Errorf("5 rows × 10 columns: D²[%d] = %.17g, want 3.2", i, v)
			}
		}
	})
	t.Run("constant column", func(t *testing.T) {
		cols := wellCols()
		c := make([]float64, len(cols[0]))
		floats.AddConst(7, c)
		withConst := append([][]float64{c}, cols...)
		got, m := d2(t, withConst)
		want, _ := d2(t, cols)
		if !m.Pseudo() || m.Rank() != 6 {
			t.Errorf("constant column: Pseudo %v, rank %d, want true, 6", m.Pseudo(), m.Rank())
		}
		for i := range got {
			if relDiff(got[i], want[i]) > 1e-8 {
				t.Fatalf("constant column: D²[%d] = %.17g, want %.17g as without it", i, got[i], want[i])
			}
		}
	})
	t.Run("NaN value", func(t *testing.T) {
		cols := wellCols()
		mu, cov, _ := anomaly.Covariance(cols, 1)
		cols[2] = slices.Clone(cols[2])
		cols[2][10] = math.NaN()
		dst := make([]float64, len(cols[0]))
		if err := anomaly.MahalanobisD2(cols, mu, cov, dst, 1); err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(dst[10]) || math.IsNaN(dst[9]) || math.IsNaN(dst[11]) {
			t.Errorf("NaN in row 10: D² rows 9..11 = %v, want only row 10 NaN", dst[9:12])
		}
		cov.SetSym(0, 0, math.NaN())
		if _, err := anomaly.NewMetric(mu, cov, 10); !errors.Is(err, anomaly.ErrNotFinite) {
			t.Errorf("NewMetric(NaN covariance) error %v, want ErrNotFinite", err)
		}
	})
}
