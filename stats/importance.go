package stats

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// importanceSampleRows bounds the rows the mutual-information estimates
// of FeatureImportance see (MODELLING §9).
const importanceSampleRows = 20_000

// FeatureImportance scores each column of x (n rows) against the target y
// as MODELLING §9 defines:
//
//	importance_j = max(L_j / max_i L_i, N_j / max_i N_i) ∈ [0, 1]
//
// where the linear score L_j is |Pearson r(x_j, y)| for a numeric target
// and, when targetDiscrete says y holds class codes (classification), the
// correlation ratio η_j = √(between-class SS / total SS) of x_j across the
// classes; and the nonlinear score N_j is the mutual information I(x_j; y)
// of MutualInfo (k = 3): KSG for a continuous column and numeric target,
// Ross when exactly one side is discrete, plug-in counts when both are.
// discrete[j] says column j is discrete (one-hot 0/1, logical). A maximum
// of 0 contributes 0 (every column independent of y scores 0, not NaN).
// Unlike scikit-learn's mutual_info_regression and mutual_info_classif,
// which MutualInfo otherwise follows, no noise is added to break ties.
//
// L_j uses every row; when more than 20 000 rows have a finite target, N_j
// uses 20 000 of them drawn without replacement from Rand(seed,
// "importance/sample"), so the result depends only on the arguments.
// Rows with a non-finite y are ignored, and for column j so are rows with
// a non-finite x_j.
//
// A column whose score cannot be computed gets NaN, which the caller omits
// (§0): constant on its usable rows, fewer than 4 of them, or a constant
// numeric target on them. Every column
// is NaN when y is constant or fewer than 4 rows have a finite target. A
// column that is valid but constant (or nearly empty) within the sample
// gets N_j = 0.
//
// workers bounds the goroutines scoring columns (values below 1 mean 1).
// It panics when len(y) differs from the rows of x or len(discrete) from
// its columns.
func FeatureImportance(x *mat.Dense, y []float64, discrete []bool, targetDiscrete bool, seed uint64, workers int) []float64 {
	lin, nonlin := scores(x, y, discrete, targetDiscrete, seed, workers)
	out := make([]float64, len(lin))
	maxL, maxN := 0.0, 0.0
	for j := range lin {
		if !math.IsNaN(lin[j]) {
			maxL = max(maxL, lin[j])
			maxN = max(maxN, nonlin[j])
		}
	}
	for j := range lin {
		out[j] = math.NaN()
		if !math.IsNaN(lin[j]) {
			out[j] = max(ratio(lin[j], maxL), ratio(nonlin[j], maxN))
		}
	}
	return out
}

// scores returns L_j and N_j of FeatureImportance, both NaN for a column
// that cannot be scored.
func scores(x *mat.Dense, y []float64, discrete []bool, targetDiscrete bool, seed uint64, workers int) (lin, nonlin []float64) {

	n, d := x.Dims()
	if len(y) != n || len(discrete) != d {
		panic("stats: FeatureImportance dimension mismatch")
	}
	lin = make([]float64, d)
	nonlin = make([]float64, d)
	for j := range d {
		lin[j], nonlin[j] = math.NaN(), math.NaN()
	}
	if n == 0 || d == 0 {
		return lin, nonlin
	}
	rows := make([]int, 0, n)
	for i, v := range y {
		if finite(v) {
			rows = append(rows, i)
		}
	}
	if len(rows) <= miNeighbors || constantAt(y, rows) {
		return lin, nonlin
	}
	sample := rows
	if len(rows) > importanceSampleRows {
		sample = slices.Clone(rows)
		rng := Rand(seed, "importance/sample")
		for i := range importanceSampleRows { // partial Fisher–Yates
			j := i + rng.IntN(len(sample)-i)
			sample[i], sample[j] = sample[j], sample[i]
		}
		sample = sample[:importanceSampleRows]
		slices.Sort(sample)
	}
	s := &scorer{
		x:        x.RawMatrix(),
		y:        y,
		rows:     rows,
		sample:   sample,
		discrete: discrete,
		ydisc:    targetDiscrete,
		psi:      digammaTable(len(sample)),
	}
	if targetDiscrete {
		yv := make([]float64, len(rows))
		for k, i := range rows {
			yv[k] = y[i]
		}
		codes, m := classCodes(yv)
		s.ylab = make([]int, n)
		for k, i := range rows {
			s.ylab[i] = codes[k]
		}
		s.nlab = m
	}

	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, d)) {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= d {
					return
				}
				lin[j], nonlin[j] = s.column(j)
			}
		})
	}
	wg.Wait()
	return lin, nonlin
}

// ratio is a/m, or 0 when m is 0.
func ratio(a, m float64) float64 {
	if m == 0 {
		return 0
	}
	return a / m
}

// scorer holds what the columns of one FeatureImportance call share; it
// is read-only while the workers run.
type scorer struct {
	x        blas64.General
	y        []float64
	rows     []int // rows with a finite target
	sample   []int // the rows the mutual information sees
	discrete []bool
	ydisc    bool
	ylab     []int // class codes of y by row (discrete target)
	nlab     int
	psi      []float64
}

// column returns L_j and N_j, or NaN and NaN when column j cannot be
// scored.
func (s *scorer) column(j int) (lin, nonlin float64) {
	xv, yv, lab := s.gather(j, s.rows)
	if len(xv) <= miNeighbors || constant(xv) {
		return math.NaN(), math.NaN()
	}
	if s.ydisc {
		lin = correlationRatio(xv, lab, s.nlab)
	} else {
		lin = math.Abs(stat.Correlation(xv, yv, nil))
	}
	lin = min(lin, 1)
	if len(s.sample) != len(s.rows) {
		xv, yv, lab = s.gather(j, s.sample)
	}
	if len(xv) <= miNeighbors || constant(xv) {
		return lin, 0
	}
	return lin, mutualInfo(xv, yv, lab, s.nlab, s.discrete[j], s.ydisc, s.psi)
}

// gather returns x_j, y and the class codes of y (discrete target) over
// the given rows where x_j is finite.
func (s *scorer) gather(j int, rows []int) (xv, yv []float64, lab []int) {
	xv = make([]float64, 0, len(rows))
	yv = make([]float64, 0, len(rows))
	if s.ydisc {
		lab = make([]int, 0, len(rows))
	}
	for _, i := range rows {
		v := s.x.Data[i*s.x.Stride+j]
		if !finite(v) {
			continue
		}
		xv = append(xv, v)
		yv = append(yv, s.y[i])
		if s.ydisc {
			lab = append(lab, s.ylab[i])
		}
	}
	return xv, yv, lab
}

// correlationRatio is η = √(Σ_c n_c (x̄_c − x̄)² / Σ (x − x̄)²) of x across
// the classes lab in [0, nlab); it equals |point-biserial r| for two
// classes and is NaN for a constant x.
func correlationRatio(x []float64, lab []int, nlab int) float64 {
	sum := make([]float64, nlab)
	cnt := make([]float64, nlab)
	var mean float64
	for i, v := range x {
		sum[lab[i]] += v
		cnt[lab[i]]++
		mean += v
	}
	mean /= float64(len(x))
	var sst float64
	for _, v := range x {
		sst += (v - mean) * (v - mean)
	}
	var ssb float64
	for c := range nlab {
		if cnt[c] > 0 {
			dm := sum[c]/cnt[c] - mean
			ssb += cnt[c] * dm * dm
		}
	}
	return math.Sqrt(ssb / sst)
}

// constantAt reports whether v is the same at all the given rows.
func constantAt(v []float64, rows []int) bool {
	for _, i := range rows[1:] {
		if v[i] != v[rows[0]] {
			return false
		}
	}
	return true
}
