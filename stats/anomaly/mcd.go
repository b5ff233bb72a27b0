package anomaly

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/tree"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

const (
	mcdKey = "robust_mahalanobis_anomalies"
	// FastMCD's search sizes, scikit-learn 1.2's fast_mcd: 30 random
	// starts (2 C-steps each) of which the 10 best are iterated to
	// convergence (at most 30 C-steps) on small data; above 500 rows,
	// subsets of about 300 rows with 500 starts in all, 10 best per
	// subset, merged on at most 1500 rows. mcdMaxSubsets caps the subsets
	// at 5, as Rousseeuw and Van Driessen's FastMCD (scikit-learn has no
	// cap, so its merge step iterates n/30 candidates): above that the 5
	// subsets of scikit-learn's size are drawn from a random sample of
	// the rows, as FastMCD's 5 × 300 of 1500. From 1500 rows the final
	// C-steps on every row are screened (see fastMCD): the search is
	// scikit-learn's below 1500 rows.
	mcdTrials     = 30
	mcdBest       = 10
	mcdIter       = 30
	mcdSubsetRows = 300
	mcdSubsetTot  = 500
	mcdMaxSubsets = 5
	mcdMerged     = 1500
)

// RobustMahalanobis scores rows by their robust squared Mahalanobis
// distance (MODELLING §8.4): the Minimum Covariance Determinant estimate
// of location and scatter by FastMCD (Rousseeuw and Van Driessen 1999, "A
// Fast Algorithm for the Minimum Covariance Determinant Estimator",
// Technometrics 41), with scikit-learn's MinCovDet semantics: support h =
// ⌈(n + d + 1)/2⌉ rows, random starts refined by C-steps, the raw
// distances scaled by median(D²)/χ²_d(0.5) (consistency correction), then
// the reweighting step: location and covariance (divide by the count) of
// the rows whose corrected D² is below χ²_d(0.975). The raw score is −D²
// under the reweighted estimate (scikit-learn's EllipticEnvelope
// score_samples).
//
// Singular data: the fit first projects the rows onto the eigenvectors of
// their classical covariance that pass the rank tolerance of Metric
// (dropping constant columns and complete one-hot blocks), runs FastMCD in
// those r dimensions (h and χ² then use r) and maps the estimate back, so
// D² ignores directions in which the training rows never vary. With full
// rank the rows are used as they are. A support whose own covariance is
// singular ends the C-steps (as scikit-learn) and its distances use the
// pseudo-inverse. The random starts draw from stats.Rand(seed,
// "robust_mahalanobis_anomalies/starts").
type RobustMahalanobis struct{}

// Key returns "robust_mahalanobis_anomalies".
func (RobustMahalanobis) Key() string { return mcdKey }

// Name returns "Robust Mahalanobis (FastMCD)".
func (RobustMahalanobis) Name() string { return "Robust Mahalanobis (FastMCD)" }

// ErrSupport reports a robust fit whose half-sample has no spread (the
// robust detector only; the forest still fits such data).
var ErrSupport = errors.New("anomaly: more than half the rows coincide, the robust covariance is degenerate")

// Fit estimates the reweighted MCD on every row of x and sets the offset
// from −D² of the training rows (Threshold). Besides the errors of
// IsolationForest.Fit it fails when the robust half-sample has no spread
// (more than half the rows coincide in the data's span).
func (RobustMahalanobis) Fit(x *mat.Dense, opt Options) (Model, error) {
	e, err := fitMCD(x, opt)
	if err != nil {
		return nil, err
	}
	return e.model, nil
}

// mcdEstimate is a fit with the intermediate estimates the reference test
// compares (in the space FastMCD ran in: the input's when projected is
// false).
type mcdEstimate struct {
	rawLoc    []float64
	rawCov    *mat.SymDense
	loc       []float64
	cov       *mat.SymDense
	dist      []float64 // reweighted D² of the training rows
	projected bool
	model     *mcdModel
	cols      [][]float64 // the input's columns
	n         int
}

func fitMCD(x *mat.Dense, opt Options) (*mcdEstimate, error) {
	if err := checkFit(x); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	workers := opt.workers()
	cols := columns(x)
	mu0, cov0, err := Covariance(cols, workers)
	if err != nil {
		return nil, err
	}
	full, err := NewMetric(mu0, cov0, n)
	if err != nil {
		return nil, err
	}
	// Project onto the span of the data when Σ is singular.
	var proj [][]float64 // r rows of d: unit eigenvectors
	z := cols
	if full.Pseudo() {
		r := full.Rank()
		if r == 0 {
			return nil, ErrIdentical
		}
		var eig mat.EigenSym
		if !eig.Factorize(cov0, true) {
			return nil, errors.New("anomaly: covariance eigen-decomposition did not converge")
		}
		var v mat.Dense
		eig.VectorsTo(&v)
		z = make([][]float64, r)
		for k := range r {
			p := make([]float64, d)
			mat.Col(p, d-1-k, &v) // largest eigenvalues first
			proj = append(proj, p)
			zk := make([]float64, n)
			for j, c := range cols {
				if p[j] != 0 {
					for i, xv := range c {
						zk[i] += p[j] * (xv - mu0[j])
					}
				}
			}
			z[k] = zk
		}
	}
	r := len(z)
	h := int(math.Ceil(0.5 * float64(n+r+1)))
	f := &mcdFitter{x: z, n: n, workers: workers, rng: stats.Rand(opt.Seed, mcdKey+"/starts")}
	var raw cstep
	switch {
	case h >= n:
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		raw.loc, raw.cov = f.estimate(all)
		raw.dist = f.distances(raw.loc, raw.cov)
	case r == 1:
		raw = f.univariate(h)
	default:
		raw, err = f.fastMCD(h)
		if err != nil {
			return nil, err
		}
	}
	// Consistency correction, then reweighting (scikit-learn 1.2's
	// correct_covariance and reweight_covariance).
	chi := distuv.ChiSquared{K: float64(r)}
	corr := median(raw.dist) / chi.Quantile(0.5)
	if !(corr > 0) || math.IsInf(corr, 0) {
		return nil, ErrSupport
	}
	cut := chi.Quantile(0.975)
	var keep []int
	for i, v := range raw.dist {
		if v/corr < cut {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2 {
		return nil, ErrSupport
	}
	e := &mcdEstimate{rawLoc: raw.loc, rawCov: raw.cov, projected: proj != nil, cols: cols, n: n}
	e.loc, e.cov = f.estimate(keep)
	met, err := NewMetric(e.loc, e.cov, len(keep))
	if err != nil {
		return nil, err
	}
	if met.Rank() == 0 {
		return nil, ErrSupport
	}
	e.dist = make([]float64, n)
	met.D2(z, e.dist, workers)
	if proj != nil {
		met = met.unproject(mu0, proj)
	}
	m := &mcdModel{d: d, metric: met}
	raws := make([]float64, n)
	for i, v := range e.dist {
		raws[i] = -v
	}
	m.offset = Threshold(raws, opt.Clean)
	for i := range raws {
		raws[i] -= m.offset
	}
	m.flagged = Flagged(raws)
	e.model = m
	return e, nil
}

// unproject maps a metric on z = Pᵀ(x − μ0) (P's columns the rows of
// proj) to the same metric on x: location μ0 + Pμ_z and rows w_k Pᵀ.
func (m *Metric) unproject(mu0 []float64, proj [][]float64) *Metric {
	d := len(mu0)
	out := &Metric{mu: slices.Clone(mu0)}
	for k, p := range proj {
		floats.AddScaled(out.mu, m.mu[k], p)
	}
	for _, w := range m.w {
		row := make([]float64, d)
		for k, wk := range w {
			floats.AddScaled(row, wk, proj[k])
		}
		out.w = append(out.w, row)
	}
	return out
}

// median of v (the mean of the middle two for even lengths, as NumPy's).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return 0.5 * (s[n/2-1] + s[n/2])
}

// mcdFitter runs FastMCD on columnar rows x (n rows); it is used by one
// goroutine at a time.
type mcdFitter struct {
	x       [][]float64
	n       int
	workers int
	rng     *rand.Rand
	// gather holds estimate's copy of the support's rows. Every C-step
	// estimates on h of the n rows; one buffer for all of them halves
	// what a fit allocates (BenchmarkFit, 100 000 rows × 20: 879 MB to
	// 425 MB per fit, 8 MB per C-step on every row).
	gather []float64
}

// cstep is a candidate: location, covariance (divide by the count), its
// log-determinant, support and distances.
type cstep struct {
	loc     []float64
	cov     *mat.SymDense
	det     float64
	support []int
	dist    []float64
}

// estimate returns the mean and the covariance dividing by the count
// (scikit-learn's empirical_covariance) of rows rows of f.x.
func (f *mcdFitter) estimate(rows []int) ([]float64, *mat.SymDense) {
	k := len(rows)
	if len(f.gather) < len(f.x)*k {
		f.gather = make([]float64, len(f.x)*k)
	}
	sub := make([][]float64, len(f.x))
	for j, c := range f.x {
		s := f.gather[j*k : (j+1)*k : (j+1)*k]
		for i, r := range rows {
			s[i] = c[r]
		}
		sub[j] = s
	}
	mu, cov, err := Covariance(sub, f.workers)
	if err != nil { // unreachable: callers pass at least two rows
		panic(err)
	}
	cov.ScaleSym(float64(len(rows)-1)/float64(len(rows)), cov)
	return mu, cov
}

// distances returns D² of every row of f.x under (loc, cov) with the
// pseudo-inverse (scikit-learn's pinvh).
func (f *mcdFitter) distances(loc []float64, cov *mat.SymDense) []float64 {
	m, err := NewMetric(loc, cov, f.n)
	if err != nil {
		return nanDist(f.n)
	}
	dist := make([]float64, f.n)
	m.D2(f.x, dist, f.workers)
	return dist
}

func nanDist(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// logDet is scikit-learn's fast_logdet: log det, −Inf when not positive
// definite.
func logDet(cov *mat.SymDense) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return math.Inf(-1)
	}
	return ch.LogDet()
}

// smallest returns, in increasing order, the indices of the h smallest
// distances, ties at the h-th value to the lower indices and NaN counted
// as +Inf. It selects the h-th value in a copy (linear time on average)
// rather than sorting indices, and the support comes out in row order,
// which the gathers of estimate then read sequentially.
func smallest(dist []float64, h int) []int {
	s := make([]float64, len(dist))
	for i, v := range dist {
		if math.IsNaN(v) {
			v = math.Inf(1)
		}
		s[i] = v
	}
	t := kth(s, h-1)
	below := 0
	for _, v := range s {
		if v < t {
			below++
		}
	}
	ties := h - below // how many values equal to t to take
	out := make([]int, 0, h)
	for i, v := range dist {
		if math.IsNaN(v) {
			v = math.Inf(1)
		}
		if v < t || (v == t && ties > 0) {
			if v == t {
				ties--
			}
			out = append(out, i)
		}
	}
	return out
}

// kth returns the k-th smallest (0-based) of s, reordering s: Hoare's
// selection with a median-of-three pivot and a three-way partition, so
// runs of equal values cost one pass.
func kth(s []float64, k int) float64 {
	lo, hi := 0, len(s)
	for hi-lo > 1 {
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi-1]
		p := max(min(a, b), min(max(a, b), c)) // median of three
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := s[i]; {
			case v < p:
				s[lt], s[i] = s[i], s[lt]
				lt++
				i++
			case v > p:
				gt--
				s[i], s[gt] = s[gt], s[i]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return p
		}
	}
	return s[lo]
}

// subset is f restricted to rows rows.
func (f *mcdFitter) subset(rows []int) *mcdFitter {
	sub := make([][]float64, len(f.x))
	for j, c := range f.x {
		s := make([]float64, len(rows))
		for i, r := range rows {
			s[i] = c[r]
		}
		sub[j] = s
	}
	return &mcdFitter{x: sub, n: len(rows), workers: f.workers, rng: f.rng}
}

// cStep is scikit-learn's _c_step: from a random h-subset (init nil) or
// from the h rows closest under init, iterate "estimate on the support,
// keep the h closest rows" while the log-determinant decreases, at most
// iters times.
func (f *mcdFitter) cStep(h, iters int, init *cstep) cstep {
	var support []int
	if init == nil {
		support = f.rng.Perm(f.n)[:h]
		slices.Sort(support)
	} else {
		support = smallest(f.distances(init.loc, init.cov), h)
	}
	cur := cstep{support: support}
	cur.loc, cur.cov = f.estimate(support)
	cur.det = logDet(cur.cov)
	var prec *Metric // the precision of the last estimate the loop used
	if math.IsInf(cur.det, -1) {
		prec, _ = NewMetric(cur.loc, cur.cov, h)
	}
	prev := cstep{det: math.Inf(1)}
	for cur.det < prev.det && iters > 0 && !math.IsInf(cur.det, -1) {
		prev = cur
		m, err := NewMetric(cur.loc, cur.cov, h)
		if err != nil {
			break
		}
		prec = m
		prev.dist = make([]float64, f.n)
		m.D2(f.x, prev.dist, f.workers)
		cur = cstep{support: smallest(prev.dist, h)}
		cur.loc, cur.cov = f.estimate(cur.support)
		cur.det = logDet(cur.cov)
		iters--
	}
	// scikit-learn measures the returned distances from the new location
	// with the previous precision; they coincide at convergence.
	cur.dist = nanDist(f.n)
	if prec != nil {
		p := &Metric{mu: cur.loc, w: prec.w, chol: prec.chol}
		p.D2(f.x, cur.dist, f.workers)
	}
	switch {
	case iters == 0, math.IsInf(cur.det, -1):
		return cur
	case math.Abs(cur.det-prev.det) <= 1e-8+1e-5*math.Abs(prev.det): // np.allclose
		return cur
	case cur.det > prev.det:
		return prev
	}
	return cur
}

// selectBest runs a C-step from each start (count random ones when
// inits is nil) and returns the best k by log-determinant.
func (f *mcdFitter) selectBest(h, iters, count int, inits []cstep, k int) []cstep {
	var all []cstep
	if inits == nil {
		for range count {
			all = append(all, f.cStep(h, iters, nil))
		}
	} else {
		for i := range inits {
			all = append(all, f.cStep(h, iters, &inits[i]))
		}
	}
	slices.SortStableFunc(all, func(a, b cstep) int { return cmp.Compare(a.det, b.det) })
	return all[:min(k, len(all))]
}

// fastMCD is scikit-learn 1.2's fast_mcd for more than one column (with
// at most mcdMaxSubsets subsets).
func (f *mcdFitter) fastMCD(h int) (cstep, error) {
	n := f.n
	if n <= 500 {
		best := f.selectBest(h, 2, mcdTrials, nil, mcdBest)
		return f.selectBest(h, mcdIter, 0, best, 1)[0], nil
	}
	// scikit-learn's subset size: n split into ⌊n/300⌋ subsets, 300 to
	// 599 rows each. Only the first mcdMaxSubsets of them are searched,
	// so a start costs the same on any n; had the capped subsets shared
	// out all n rows instead, each start would iterate on n/5 of them
	// (BenchmarkFit, 100 000 rows: 8.3–8.7 s per fit against 2.8–3.5 s
	// with these subsets, same run, loaded machine).
	subsets := n / mcdSubsetRows
	per := n / subsets
	subsets = min(subsets, mcdMaxSubsets)
	shuffle := f.rng.Perm(n)
	hSub := int(math.Ceil(float64(per) * float64(h) / float64(n)))
	trials := max(10, mcdSubsetTot/subsets)
	var cands []cstep
	for i := range subsets {
		sub := f.subset(shuffle[i*per : (i+1)*per])
		cands = append(cands, sub.selectBest(hSub, 2, trials, nil, mcdBest)...)
	}
	merged := min(mcdMerged, n)
	hMerged := int(math.Ceil(float64(merged) * float64(h) / float64(n)))
	keep := 1
	if n > mcdMerged {
		keep = mcdBest
	}
	sel := f.rng.Perm(n)[:merged]
	best := f.subset(sel).selectBest(hMerged, mcdIter, 0, cands, keep)
	if n < mcdMerged {
		// scikit-learn keeps the merged estimate; its distances cover the
		// merged rows only, so measure every row under it.
		b := best[0]
		b.dist = f.distances(b.loc, b.cov)
		return b, nil
	}
	// On every row, scikit-learn iterates all 10 merged candidates to
	// convergence; each C-step now costs a pass over n rows, so we give
	// them 2 C-steps each and iterate only the best one to convergence,
	// the screening FastMCD applies at its earlier stages.
	best = f.selectBest(h, 2, 0, best, 1)
	return f.selectBest(h, mcdIter, 0, best, 1)[0], nil
}

// univariate is scikit-learn's exact one-column MCD: the shortest window
// of h sorted values gives the location (mean of the midpoints of the
// shortest windows), the h values closest to it the variance.
func (f *mcdFitter) univariate(h int) cstep {
	x := f.x[0]
	n := f.n
	s := slices.Clone(x)
	slices.Sort(s)
	minDiff := math.Inf(1)
	for i := 0; i < n-h; i++ {
		minDiff = min(minDiff, s[i+h]-s[i])
	}
	var loc float64
	k := 0
	for i := 0; i < n-h; i++ {
		if s[i+h]-s[i] == minDiff {
			loc += 0.5 * (s[i+h] + s[i])
			k++
		}
	}
	loc /= float64(k)
	absd := make([]float64, n)
	for i, v := range x {
		absd[i] = math.Abs(v - loc)
	}
	support := smallest(absd, h)
	_, cov := f.estimate(support)
	c := cstep{loc: []float64{loc}, cov: cov, support: support, dist: make([]float64, n)}
	v := cov.At(0, 0)
	for i, xv := range x {
		if v > 0 {
			c.dist[i] = (xv - loc) * (xv - loc) / v
		}
	}
	return c
}

// mcdModel is a fitted robust Mahalanobis detector; immutable, safe for
// concurrent use.
type mcdModel struct {
	d       int
	metric  *Metric
	offset  float64
	flagged float64
}

func (m *mcdModel) Key() string               { return mcdKey }
func (m *mcdModel) Columns() int              { return m.d }
func (m *mcdModel) Offset() float64           { return m.offset }
func (m *mcdModel) PercentAnomalies() float64 { return m.flagged }

// Score writes −D²(x) − offset for each row of x (one goroutine).
func (m *mcdModel) Score(x mat.Matrix, dst []float64) {
	r := checkScore(x, m.d, dst)
	dst = dst[:r]
	m.metric.D2(columns(x), dst, 1)
	for i, v := range dst {
		dst[i] = -v - m.offset
	}
}

// mcdVersion is the first payload byte; bump it when the layout changes.
const mcdVersion = 1

// MarshalBinary writes version, d, offset, flagged share, μ, the number
// of metric rows and each row's length and values.
func (m *mcdModel) MarshalBinary() ([]byte, error) {
	w := tree.Writer{B: []byte{mcdVersion}}
	w.U32(m.d)
	w.F64(m.offset)
	w.F64(m.flagged)
	w.F64s(m.metric.mu)
	w.U32(len(m.metric.w))
	for _, row := range m.metric.w {
		w.U32(len(row))
		w.F64s(row)
	}
	return codec.Frame(mcdKey, w.B), nil
}

func unmarshalMCD(b []byte) (Model, error) {
	if len(b) < 1 || b[0] != mcdVersion {
		return nil, fmt.Errorf("anomaly: robust Mahalanobis payload version: %w", tree.ErrBytes)
	}
	r := tree.Reader{B: b[1:]}
	m := &mcdModel{d: r.U32(), offset: r.F64(), flagged: r.F64()}
	if r.Err != nil || m.d < 1 || m.d > len(r.B)/8 || !finite(m.offset) || !(m.flagged >= 0 && m.flagged <= 1) {
		return nil, fmt.Errorf("anomaly: robust Mahalanobis header: %w", tree.ErrBytes)
	}
	met := &Metric{mu: r.F64s(m.d)}
	k := r.U32()
	if r.Err != nil || k > m.d {
		return nil, fmt.Errorf("anomaly: robust Mahalanobis rank: %w", tree.ErrBytes)
	}
	for range k {
		l := r.U32()
		if r.Err != nil || l < 1 || l > m.d {
			return nil, fmt.Errorf("anomaly: robust Mahalanobis row: %w", tree.ErrBytes)
		}
		met.w = append(met.w, r.F64s(l))
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("anomaly: robust Mahalanobis: %w", err)
	}
	if !finite(met.mu...) {
		return nil, fmt.Errorf("anomaly: robust Mahalanobis location: %w", tree.ErrBytes)
	}
	for _, row := range met.w {
		if !finite(row...) {
			return nil, fmt.Errorf("anomaly: robust Mahalanobis metric: %w", tree.ErrBytes)
		}
	}
	m.metric = met
	return m, nil
}

// finite reports whether every value is neither NaN nor infinite.
func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
