package classify

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/parallel"
)

const (
	multinomialNBKey  = "multinomial_naive_bayes"
	multinomialNBWire = 1
)

// multinomialNBAlphas is the additive smoothing grid Fit searches, in
// the order ties are broken (the first, most smoothed, wins): scikit-learn's
// default α = 1 (Laplace) and half decades down to 0.01. Smaller α trusts
// rare terms more: at α = 0.01 a term seen once (unit weight) in one class
// and never in another already moves the log-odds between them by about
// log((1 + α)/α) ≈ 4.6 per occurrence.
var multinomialNBAlphas = [...]float64{1, 0.3, 0.1, 0.03, 0.01}

// ErrNoCountColumns is returned by a multinomial naive Bayes fit when
// every input column has a negative training value, so none can be
// counts or TF-IDF weights.
var ErrNoCountColumns = errors.New("classify: multinomial_naive_bayes: no column without negative values")

// MultinomialNB is multinomial naive Bayes (key "multinomial_naive_bayes",
// MODELLING §7.6), for TF-IDF and count features: row x is a bag of
// x_j occurrences of term j, drawn within class k with term probabilities
// θ_kj, so
//
//	p_k(x) ∝ π_k · Π_j θ_kj^x_j,  θ_kj = (N_kj + α) / (N_k + α·q)
//
// with N_kj = Σ_{i ∈ k} w_i·x_ij, N_k = Σ_j N_kj, q the number of columns
// the model uses and π_k the class's share of the weight, normalised by
// log-sum-exp. That is scikit-learn's MultinomialNB(alpha, fit_prior=True)
// with sample_weight. A class with no training rows has prior 0 and
// probability 0. It works on the raw columns (no scaling: a count has no
// unit to remove).
//
// Columns. The engine passes one matrix in which TF-IDF columns sit next
// to numeric and encoded columns (MODELLING §1.2, §12). A column with a
// negative value among the training rows cannot be a count, and θ^x has no
// meaning for it, so the model ignores it: it uses exactly the columns
// whose training values are all ≥ 0 (Columns), decided on the rows of each
// fit (in the search, on all of Fit's rows, so every fold scores the
// columns the final model uses). Non-negative numeric and one-hot columns
// stay in, as scikit-learn would keep them (it refuses negative input
// instead). With no usable column the fit fails with ErrNoCountColumns. At
// prediction a used column enters linearly, x_j·log θ_kj, whatever its
// sign, as in scikit-learn.
//
// α is chosen from multinomialNBAlphas by stratified 5-fold
// cross-validation (StratifiedFolds with stats.Rand(seed, key+"/folds"))
// scored, as the logistic regressions' C, by the weighted log-loss of the
// validation rows pooled over folds, clipped at 1e-15; ties go to the
// larger α. The log-loss because α trades the sharpness of the
// probabilities against their calibration, which macro-F1 barely sees:
// many α give the same arg-max. One pass over the rows gives each fold's
// weighted counts, which every α smooths, so the search costs about one
// fit plus scoring each validation row once per α, and copies no rows.
//
// Its display name is "Multinomial Naive Bayes", the former service's name
// for the same family (MODELLING §5.4; API REFERENCE §11.3).
type MultinomialNB struct{}

func init() { registerText(3, MultinomialNB{}, unmarshalMultinomialNB) }

// Key is "multinomial_naive_bayes".
func (MultinomialNB) Key() string { return multinomialNBKey }

// Name is the former service's "Multinomial Naive Bayes".
func (MultinomialNB) Name() string { return "Multinomial Naive Bayes" }

// Scaled is false: counts are used as they are.
func (MultinomialNB) Scaled() bool { return false }

// Fit chooses α by stratified 5-fold cross-validation and fits on all of
// d. It needs two rows per fold (ErrTooFewRows below 10) and one column
// with no negative value (ErrNoCountColumns). Folds run on up to
// opt.Workers goroutines; the result does not depend on opt.Workers.
func (MultinomialNB) Fit(d Data, opt Options) (Model, error) {
	if err := checkData(d, 2*kfoldCount); err != nil {
		return nil, err
	}
	// The folds score the columns the final fit will use: those with no
	// negative value among all of d's rows.
	cols := countColumns(d)
	if len(cols) == 0 {
		return nil, ErrNoCountColumns
	}
	alphas := multinomialNBAlphas[:]
	p := d.denseCols() + d.wordCols()
	k, q := d.K, len(cols)
	fold := StratifiedFolds(d.Y, k, kfoldCount, stats.Rand(opt.Seed, multinomialNBKey+"/folds"))
	// A fold's training statistics are the sums over the other folds.
	foldWeight, foldCount := multinomialNBCounts(d, cols, fold, kfoldCount)
	w := weightsOf(d)
	loss := make([][]float64, kfoldCount) // per fold, per α: Σ w·(−log p)
	wsum := make([]float64, kfoldCount)
	parallel.For(kfoldCount, opt.Workers, func(f int) {
		loss[f] = make([]float64, len(alphas))
		classWeight, count := make([]float64, k), make([]float64, k*q)
		for g := range kfoldCount {
			if g != f {
				floats.Add(classWeight, foldWeight[g])
				floats.Add(count, foldCount[g])
			}
		}
		out, buf := make([]float64, k), make([]float64, p)
		for ai, a := range alphas {
			m := newMultinomialNBModel(a, p, cols, classWeight, count)
			for i, y := range d.Y {
				if fold[i] != f {
					continue
				}
				m.posterior(d.row(i, buf), out)
				loss[f][ai] -= w[i] * math.Log(max(out[y], logisticProbFloor))
				if ai == 0 {
					wsum[f] += w[i]
				}
			}
		}
	})
	return fitMultinomialNBAt(d, alphas[lowestCVLoss(loss, wsum)])
}

// fitMultinomialNBAt fits at a fixed α on all of d.
func fitMultinomialNBAt(d Data, alpha float64) (*MultinomialNBModel, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("classify: %s: α = %v", multinomialNBKey, alpha)
	}
	cols := countColumns(d)
	if len(cols) == 0 {
		return nil, ErrNoCountColumns
	}
	classWeight, count := multinomialNBCounts(d, cols, nil, 1)
	p := d.denseCols() + d.wordCols()
	return newMultinomialNBModel(alpha, p, cols, classWeight[0], count[0]), nil
}

// countColumns returns the columns of d with no negative value,
// ascending: among X's by reading them, and every word (TF-IDF values are
// never negative).
func countColumns(d Data) []int {
	p := d.denseCols()
	neg := make([]bool, p)
	for i := range d.rows() {
		if p == 0 {
			break
		}
		for j, v := range d.X.RawRowView(i) {
			if v < 0 {
				neg[j] = true
			}
		}
	}
	var cols []int
	for j, bad := range neg {
		if !bad {
			cols = append(cols, j)
		}
	}
	for j := range d.wordCols() {
		cols = append(cols, p+j)
	}
	return cols
}

// multinomialNBCounts returns, for each of the groups of d's rows (row i
// in group[i], or every row in group 0 when group is nil), each class's
// weight Σ_{i ∈ k} w_i (K) and the weighted counts N_kj = Σ_{i ∈ k} w_i·x_ij
// over the columns cols (K × len(cols)).
func multinomialNBCounts(d Data, cols, group []int, groups int) (classWeight, count [][]float64) {
	q := len(cols)
	w := weightsOf(d)
	p := d.denseCols()
	dense := q - d.wordCols() // cols[:dense] are X's
	classWeight, count = make([][]float64, groups), make([][]float64, groups)
	for g := range groups {
		classWeight[g], count[g] = make([]float64, d.K), make([]float64, d.K*q)
	}
	for i, c := range d.Y {
		g := 0
		if group != nil {
			g = group[i]
		}
		classWeight[g][c] += w[i]
		nc := count[g][c*q : (c+1)*q]
		if p > 0 {
			row := d.X.RawRowView(i)
			for u, j := range cols[:dense] {
				nc[u] += w[i] * row[j]
			}
		}
		if d.Words != nil {
			// The words are the last columns of cols, all of them.
			wc, wv := d.Words.Row(i)
			for k, j := range wc {
				nc[dense+int(j)] += w[i] * wv[k]
			}
		}
	}
	return classWeight, count
}

// MultinomialNBModel is a fitted multinomial naive Bayes classifier: α,
// the columns it uses, and the class weights and weighted term counts it
// was estimated from. It is immutable and safe for concurrent use.
type MultinomialNBModel struct {
	alpha       float64
	k, p        int       // classes, input columns
	cols        []int     // the input columns used, ascending
	classWeight []float64 // K: Σ_{i ∈ k} w_i
	count       []float64 // K × len(cols): N_kj
	// logPrior (K) and logTheta (K × len(cols)) are precomputed from the
	// above by newMultinomialNBModel.
	logPrior, logTheta []float64
}

// newMultinomialNBModel builds the model from its sufficient statistics,
// which it keeps (not copies).
func newMultinomialNBModel(alpha float64, p int, cols []int, classWeight, count []float64) *MultinomialNBModel {
	k, q := len(classWeight), len(cols)
	m := &MultinomialNBModel{alpha: alpha, k: k, p: p, cols: cols, classWeight: classWeight, count: count,
		logPrior: make([]float64, k), logTheta: make([]float64, k*q)}
	logTotal := math.Log(floats.Sum(classWeight))
	for c := range k {
		m.logPrior[c] = math.Log(classWeight[c]) - logTotal // −Inf for an empty class
		nc := count[c*q : (c+1)*q]
		logDenom := math.Log(floats.Sum(nc) + alpha*float64(q))
		for u, v := range nc {
			m.logTheta[c*q+u] = math.Log(v+alpha) - logDenom
		}
	}
	return m
}

// Key is "multinomial_naive_bayes".
func (m *MultinomialNBModel) Key() string { return multinomialNBKey }

// Classes is K.
func (m *MultinomialNBModel) Classes() int { return m.k }

// Alpha is the smoothing the fit used.
func (m *MultinomialNBModel) Alpha() float64 { return m.alpha }

// Columns returns a copy of the input columns the model uses (those with
// no negative training value), ascending.
func (m *MultinomialNBModel) Columns() []int { return append([]int(nil), m.cols...) }

// Importance is nil: naive Bayes has no intrinsic importance (as the
// Gaussian one); a term's log-odds between classes would say how strongly
// one occurrence votes, not how much the column matters to the fit.
func (m *MultinomialNBModel) Importance() []float64 { return nil }

// Proba writes the posterior class probabilities of every row of x into
// dst (rows × K): log π_k + Σ_j x_j·log θ_kj over the used columns, by
// log-sum-exp. It panics when x has the wrong column count or dst the
// wrong shape.
func (m *MultinomialNBModel) Proba(x mat.Matrix, dst *mat.Dense) {
	probaRows(x, m.p, m.k, dst, m.posterior)
}

// posterior writes the class probabilities of one input row into out (K).
func (m *MultinomialNBModel) posterior(row, out []float64) {
	q := len(m.cols)
	for c := range m.k {
		s := m.logPrior[c]
		for u, j := range m.cols {
			s += row[j] * m.logTheta[c*q+u]
		}
		out[c] = s
	}
	softmaxInPlace(out)
}

// Refit fits the same α on new rows; the columns used are those of the
// new rows with no negative value.
func (m *MultinomialNBModel) Refit(d Data, _ Options) (Model, error) {
	if d.K != m.k {
		return nil, fmt.Errorf("classify: %s: refit with %d classes, model has %d", multinomialNBKey, d.K, m.k)
	}
	return fitMultinomialNBAt(d, m.alpha)
}

// MarshalBinary encodes the model for Unmarshal.
func (m *MultinomialNBModel) MarshalBinary() ([]byte, error) {
	w := codec.Writer{B: make([]byte, 0, 64+8*(len(m.cols)+m.k+len(m.count)))}
	w.B = append(w.B, multinomialNBWire)
	w.F64(m.alpha)
	w.Int(m.p)
	w.Ints(m.cols)
	w.F64s(m.classWeight)
	w.F64s(m.count)
	return codec.Frame(multinomialNBKey, w.B), nil
}

func unmarshalMultinomialNB(data []byte) (Model, error) {
	if len(data) < 1 || data[0] != multinomialNBWire {
		return nil, fmt.Errorf("%w (%s version)", errPayload, multinomialNBKey)
	}
	r := codec.NewReader(data[1:], errPayload)
	alpha := r.F64()
	p := r.Int(1 << 30)
	cols := r.Ints(1 << 30)
	classWeight, count := r.F64s(), r.F64s()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, multinomialNBKey)
	}
	if !validMultinomialNB(alpha, p, cols, classWeight, count) {
		return nil, fmt.Errorf("%w (%s shape)", errPayload, multinomialNBKey)
	}
	return newMultinomialNBModel(alpha, p, cols, classWeight, count), nil
}

// validMultinomialNB reports whether decoded statistics make a model whose
// logarithms are all finite (but an empty class's prior): α > 0, at least
// two classes and one column, columns ascending below p, weights and
// counts non-negative, and every sum finite with a positive total weight.
func validMultinomialNB(alpha float64, p int, cols []int, classWeight, count []float64) bool {
	k, q := len(classWeight), len(cols)
	if !(alpha > 0) || math.IsInf(alpha, 0) || k < 2 || q == 0 || len(count) != k*q {
		return false
	}
	for u, j := range cols {
		if j >= p || (u > 0 && j <= cols[u-1]) {
			return false
		}
	}
	nonNegative := func(v []float64) bool {
		for _, x := range v {
			if !(x >= 0) {
				return false
			}
		}
		return true
	}
	if !nonNegative(classWeight) || !nonNegative(count) {
		return false
	}
	if s := floats.Sum(classWeight); !(s > 0) || math.IsInf(s, 1) {
		return false
	}
	for c := range k {
		if math.IsInf(floats.Sum(count[c*q:(c+1)*q])+alpha*float64(q), 1) {
			return false
		}
	}
	return true
}
