package anomaly

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The D² kernel (MODELLING §8.3) works on columnar data, one []float64 per
// column, as the engine gets them from Arrow float64 buffers. Rows are
// processed in blocks of kernelBlock: the block's columns are centred
// into a small buffer that stays in cache, and every output of the
// whitening transform is built by a few vectorised axpy calls over it
// (gonum's assembly kernels), so no row is ever gathered value by value.
// Blocks are spread over workers in chunks of chunkRows.
const (
	kernelBlock = 256
	chunkRows   = 1 << 14
)

// Covariance returns the column means and the sample covariance (divide by
// N − 1) of N rows given as columns (cols[j][i] is row i of column j, all
// the same length), MODELLING §8.3. It is two-pass, hence numerically
// stable for data far from the origin: means first, then the cross
// products of centred blocks through BLAS Dsyrk. Partial sums are formed
// per chunk of 16 384 rows and added in chunk order, so the result does
// not depend on workers. It returns ErrNoColumns without columns,
// ErrTooFewRows below two rows and an error for ragged columns.
func Covariance(cols [][]float64, workers int) ([]float64, *mat.SymDense, error) {
	n, err := columnRows(cols)
	if err != nil {
		return nil, nil, err
	}
	if n < 2 {
		return nil, nil, ErrTooFewRows
	}
	d := len(cols)
	chunks := (n + chunkRows - 1) / chunkRows
	sums := make([]float64, chunks*d)
	parallel(n, chunkRows, workers, func(c, lo, hi int) {
		for j, col := range cols {
			sums[c*d+j] = floats.Sum(col[lo:hi])
		}
	})
	mu := make([]float64, d)
	for c := range chunks {
		floats.Add(mu, sums[c*d:(c+1)*d])
	}
	floats.Scale(1/float64(n), mu)

	parts := make([]float64, chunks*d*d)
	parallel(n, chunkRows, workers, func(c, lo, hi int) {
		buf := make([]float64, d*kernelBlock)
		acc := blas64.General{Rows: d, Cols: d, Stride: d, Data: parts[c*d*d : (c+1)*d*d]}
		for b := lo; b < hi; b += kernelBlock {
			m := min(kernelBlock, hi-b)
			for j, col := range cols {
				row := buf[j*m : (j+1)*m]
				for i, v := range col[b : b+m] {
					row[i] = v - mu[j]
				}
			}
			a := blas64.General{Rows: d, Cols: m, Stride: m, Data: buf[:d*m]}
			blas64.Syrk(blas.NoTrans, 1, a, 1, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: acc.Data})
		}
	})
	cov := mat.NewSymDense(d, nil)
	s := 1 / float64(n-1)
	for i := range d {
		for j := i; j < d; j++ {
			var v float64
			for c := range chunks {
				v += parts[c*d*d+i*d+j]
			}
			cov.SetSym(i, j, v*s)
		}
	}
	return mu, cov, nil
}

// columnRows returns the common length of cols.
func columnRows(cols [][]float64) (int, error) {
	if len(cols) == 0 {
		return 0, ErrNoColumns
	}
	n := len(cols[0])
	for j, c := range cols {
		if len(c) != n {
			return 0, fmt.Errorf("anomaly: column %d has %d rows, column 0 has %d", j, len(c), n)
		}
	}
	return n, nil
}

// Metric is a prepared Mahalanobis metric: D²(x) = (x − μ)ᵀ Σ⁺ (x − μ),
// computed as ‖W(x − μ)‖² with Σ⁺ = WᵀW. It is immutable and safe for
// concurrent use.
//
// For a full-rank Σ, W = L⁻¹ from the Cholesky factor Σ = LLᵀ (lower
// triangular, so row k of W has k + 1 entries: the triangular solve of
// §8.3). Otherwise W holds the rows v_kᵀ/√λ_k of the eigenvectors kept by
// the pseudo-inverse. Σ counts as full rank when its smallest eigenvalue
// exceeds the rank tolerance max(N, d)·ε·λ_max (ε = 2⁻⁵², N the rows Σ
// came from), the tolerance of §8.3 and of NumPy's matrix_rank: below it
// an eigenvalue is indistinguishable from rounding in a Σ formed from N
// rows, and a Cholesky factor of such a Σ would amplify that rounding
// into arbitrary distances. Eigenvalues at or below the tolerance are
// dropped: distances ignore directions in which the data do not vary
// (constant columns, complete one-hot blocks, more columns than rows). A
// zero Σ (all rows identical) keeps none, and every D² is 0.
type Metric struct {
	mu   []float64
	w    [][]float64 // rank rows; row k has k+1 (Cholesky) or d (eigen) entries
	chol bool
}

// NewMetric prepares the metric of location mu and covariance cov
// estimated from rows rows (for the rank tolerance). It fails when the
// sizes differ, or on a NaN or infinite entry.
func NewMetric(mu []float64, cov *mat.SymDense, rows int) (*Metric, error) {
	if cov == nil || cov.SymmetricDim() != len(mu) || len(mu) == 0 {
		return nil, errors.New("anomaly: metric location and covariance sizes differ")
	}
	d := len(mu)
	for i := range d {
		if math.IsNaN(mu[i]) || math.IsInf(mu[i], 0) {
			return nil, ErrNotFinite
		}
		for j := i; j < d; j++ {
			if v := cov.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, ErrNotFinite
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return nil, errors.New("anomaly: covariance eigen-decomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	lmax := vals[d-1]
	tol := float64(max(rows, d)) * 0x1p-52 * lmax
	m := &Metric{mu: append([]float64(nil), mu...)}
	if lmax > 0 && vals[0] > tol {
		var ch mat.Cholesky
		if ch.Factorize(cov) {
			var l, li mat.TriDense
			ch.LTo(&l)
			if err := li.InverseTri(&l); err == nil {
				m.chol = true
				m.w = make([][]float64, d)
				for k := range d {
					m.w[k] = make([]float64, k+1)
					for j := range k + 1 {
						m.w[k][j] = li.At(k, j)
					}
				}
				return m, nil
			}
		}
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	for k := d - 1; k >= 0; k-- {
		if lmax <= 0 || vals[k] <= tol {
			break
		}
		row := make([]float64, d)
		s := 1 / math.Sqrt(vals[k])
		for j := range d {
			row[j] = v.At(j, k) * s
		}
		m.w = append(m.w, row)
	}
	return m, nil
}

// Rank is the rank of Σ the metric uses (d for the Cholesky path).
func (m *Metric) Rank() int { return len(m.w) }

// Pseudo reports whether the metric uses the eigen pseudo-inverse (Σ
// singular within the rank tolerance) rather than Cholesky.
func (m *Metric) Pseudo() bool { return !m.chol }

// Location returns μ (a copy).
func (m *Metric) Location() []float64 { return append([]float64(nil), m.mu...) }

// D2 writes the squared distance of each row of cols (one slice per
// column, len(mu) columns, all len(dst) long) into dst, using up to
// workers goroutines over chunks of rows; the values do not depend on
// workers. A row with a NaN gets NaN. It panics on mismatched sizes, a
// programmer error.
func (m *Metric) D2(cols [][]float64, dst []float64, workers int) {
	if len(cols) != len(m.mu) {
		panic(fmt.Sprintf("anomaly: D2 of %d columns, metric has %d", len(cols), len(m.mu)))
	}
	for _, c := range cols {
		if len(c) != len(dst) {
			panic("anomaly: D2 column and destination lengths differ")
		}
	}
	d, n := len(m.mu), len(dst)
	parallel(n, chunkRows, workers, func(_, lo, hi int) {
		xc := make([]float64, d*kernelBlock)
		y := make([]float64, kernelBlock)
		for b := lo; b < hi; b += kernelBlock {
			nb := min(kernelBlock, hi-b)
			for j, col := range cols {
				floats.AddConst(-m.mu[j], floats.ScaleTo(xc[j*nb:(j+1)*nb], 1, col[b:b+nb]))
			}
			out := dst[b : b+nb]
			clear(out)
			for _, w := range m.w {
				y := y[:nb]
				clear(y)
				for j, wj := range w {
					if wj != 0 {
						floats.AddScaled(y, wj, xc[j*nb:(j+1)*nb])
					}
				}
				for i, v := range y {
					out[i] += v * v
				}
			}
		}
	})
}

// MahalanobisD2 writes into dst the squared Mahalanobis distance
// (x − μ)ᵀ Σ⁺ (x − μ) of every row of cols (one slice per column, all
// len(dst) long) for location mu and covariance cov estimated from those
// same rows, with up to workers goroutines: NewMetric(mu, cov,
// len(dst)).D2. See Metric for the Cholesky and pseudo-inverse paths.
func MahalanobisD2(cols [][]float64, mu []float64, cov *mat.SymDense, dst []float64, workers int) error {
	n, err := columnRows(cols)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("anomaly: %d rows into %d distances", n, len(dst))
	}
	m, err := NewMetric(mu, cov, n)
	if err != nil {
		return err
	}
	if len(cols) != len(mu) {
		return fmt.Errorf("anomaly: %d columns, location has %d", len(cols), len(mu))
	}
	m.D2(cols, dst, workers)
	return nil
}
