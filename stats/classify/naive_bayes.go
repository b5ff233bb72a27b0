package classify

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/codec"
)

const (
	naiveBayesKey = "naive_bayes"
	// naiveBayesVarSmoothing is scikit-learn's var_smoothing default: every
	// class variance is increased by this fraction of the largest column
	// variance, so a column constant within a class does not give zero
	// variance.
	naiveBayesVarSmoothing = 1e-9
	naiveBayesWire         = 1
)

// NaiveBayes is Gaussian naive Bayes (key "naive_bayes", MODELLING §7.6):
// each column is, within class k, normal with the class's weighted mean
// μ_kj and weighted (divisor Σw, not Σw − 1) variance σ²_kj + ε, the
// columns independent, and the prior π_k the class's share of the weight.
// ε = 1e-9 × the largest unweighted population variance of any column
// over all rows, as scikit-learn's GaussianNB(var_smoothing=1e-9) does
// (also with sample weights); when every column is constant ε = 1e-9, so
// the likelihoods are equal and finite and the priors decide. The class
// probabilities are
//
//	p_k(x) ∝ π_k · Π_j N(x_j; μ_kj, σ²_kj + ε)
//
// normalised by log-sum-exp. A class with no training rows has prior 0
// and probability 0. It has no hyper-parameters: Fit and Refit are one
// pass over the data. It works on the raw columns (no scaling).
type NaiveBayes struct{}

func init() { register(3, NaiveBayes{}, unmarshalNaiveBayes) }

// Key is "naive_bayes".
func (NaiveBayes) Key() string { return naiveBayesKey }

// Name is the former service's "Naive Bayes Classifier".
func (NaiveBayes) Name() string { return "Naive Bayes Classifier" }

// Scaled is false: the model is invariant to scaling a column.
func (NaiveBayes) Scaled() bool { return false }

// Fit estimates priors, means and variances from every row of d. It needs
// one row. opt is unused.
func (NaiveBayes) Fit(d Data, _ Options) (Model, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	if d.Words != nil {
		return fitNaiveBayesWords(d), nil
	}
	n, p := d.X.Dims()
	k := d.K
	w := weightsOf(d)
	m := &NaiveBayesModel{k: k, p: p, prior: make([]float64, k),
		mean: make([]float64, k*p), variance: make([]float64, k*p)}
	// ε from the unweighted variance of each column over all rows.
	maxVar := maxColumnVariance(d.X, n, p)
	eps := naiveBayesVarSmoothing * maxVar
	if !(eps > 0) {
		eps = naiveBayesVarSmoothing
	}
	var total float64
	for i, c := range d.Y {
		m.prior[c] += w[i]
		total += w[i]
		row, mu := d.X.RawRowView(i), m.mean[c*p:(c+1)*p]
		for j, v := range row {
			mu[j] += w[i] * v
		}
	}
	for c := range k {
		if m.prior[c] > 0 {
			for j := range p {
				m.mean[c*p+j] /= m.prior[c]
			}
		}
	}
	for i, c := range d.Y {
		row, mu, va := d.X.RawRowView(i), m.mean[c*p:(c+1)*p], m.variance[c*p:(c+1)*p]
		for j, v := range row {
			e := v - mu[j]
			va[j] += w[i] * e * e
		}
	}
	m.finish(eps, total)
	return m, nil
}

// finish turns the weighted sums of squared deviations into smoothed
// variances and the class weights into priors, then prepares the model.
func (m *NaiveBayesModel) finish(eps, total float64) {
	p := m.p
	for c := range m.k {
		for j := range p {
			if m.prior[c] > 0 {
				m.variance[c*p+j] /= m.prior[c]
			}
			m.variance[c*p+j] += eps
		}
		m.prior[c] /= total
	}
	m.prepare()
}

// maxColumnVariance is the largest population variance of the first cols
// columns of x's n rows (0 when cols is 0).
func maxColumnVariance(x mat.Matrix, n, cols int) float64 {
	var maxVar float64
	for j := range cols {
		var s float64
		for i := range n {
			s += x.At(i, j)
		}
		mu := s / float64(n)
		var ss float64
		for i := range n {
			e := x.At(i, j) - mu
			ss += e * e
		}
		maxVar = max(maxVar, ss/float64(n))
	}
	return maxVar
}

// fitNaiveBayesWords is Fit on rows with words: X's columns as Fit reads
// them, the words' sums over their non-zeros, each word's zeros counted
// implicitly (a zero at distance μ from the mean adds μ²), so no dense
// copy is made. It equals Fit on the dense rows up to rounding.
func fitNaiveBayesWords(d Data) *NaiveBayesModel {
	n, dense, words := d.rows(), d.denseCols(), d.Words.Cols
	p, k := dense+words, d.K
	w := weightsOf(d)
	m := &NaiveBayesModel{k: k, p: p, prior: make([]float64, k),
		mean: make([]float64, k*p), variance: make([]float64, k*p)}
	// ε from the population variance of each column over all rows, as Fit.
	maxVar := maxColumnVariance(d.X, n, dense)
	sum, ss, nz := make([]float64, words), make([]float64, words), make([]int, words)
	for u, j := range d.Words.Indices {
		sum[j] += d.Words.Data[u]
		nz[j]++
	}
	for u, j := range d.Words.Indices {
		e := d.Words.Data[u] - sum[j]/float64(n)
		ss[j] += e * e
	}
	for j := range words {
		mu := sum[j] / float64(n)
		maxVar = max(maxVar, (ss[j]+float64(n-nz[j])*mu*mu)/float64(n))
	}
	eps := naiveBayesVarSmoothing * maxVar
	if !(eps > 0) {
		eps = naiveBayesVarSmoothing
	}
	nzWeight := make([]float64, k*words) // Σ w_i over the class's non-zeros
	var total float64
	for i, c := range d.Y {
		m.prior[c] += w[i]
		total += w[i]
		mu := m.mean[c*p : (c+1)*p]
		if dense > 0 {
			for j, v := range d.X.RawRowView(i) {
				mu[j] += w[i] * v
			}
		}
		cols, vals := d.Words.Row(i)
		for u, j := range cols {
			mu[dense+int(j)] += w[i] * vals[u]
			nzWeight[c*words+int(j)] += w[i]
		}
	}
	for c := range k {
		if m.prior[c] > 0 {
			for j := range p {
				m.mean[c*p+j] /= m.prior[c]
			}
		}
	}
	for i, c := range d.Y {
		mu, va := m.mean[c*p:(c+1)*p], m.variance[c*p:(c+1)*p]
		if dense > 0 {
			for j, v := range d.X.RawRowView(i) {
				e := v - mu[j]
				va[j] += w[i] * e * e
			}
		}
		cols, vals := d.Words.Row(i)
		for u, j := range cols {
			e := vals[u] - mu[dense+int(j)]
			va[dense+int(j)] += w[i] * e * e
		}
	}
	for c := range k {
		for j := range words {
			mu := m.mean[c*p+dense+j]
			m.variance[c*p+dense+j] += (m.prior[c] - nzWeight[c*words+j]) * mu * mu
		}
	}
	m.finish(eps, total)
	return m
}

// NaiveBayesModel is a fitted Gaussian naive Bayes classifier: the class
// priors and the per-class means and smoothed variances of every column.
// It is immutable and safe for concurrent use.
type NaiveBayesModel struct {
	k, p           int
	prior          []float64 // K
	mean, variance []float64 // K×p
	// logConst_k = log π_k − ½·Σ_j log(2π·σ²_kj), precomputed by prepare.
	logConst []float64
}

func (m *NaiveBayesModel) prepare() {
	m.logConst = make([]float64, m.k)
	for c := range m.k {
		lc := math.Log(m.prior[c]) // −Inf for an empty class
		for _, v := range m.variance[c*m.p : (c+1)*m.p] {
			lc -= 0.5 * math.Log(2*math.Pi*v)
		}
		m.logConst[c] = lc
	}
}

// Key is "naive_bayes".
func (m *NaiveBayesModel) Key() string { return naiveBayesKey }

// Classes is K.
func (m *NaiveBayesModel) Classes() int { return m.k }

// Priors returns a copy of the class priors π_k.
func (m *NaiveBayesModel) Priors() []float64 { return append([]float64(nil), m.prior...) }

// Importance is nil: naive Bayes has no intrinsic importance.
func (m *NaiveBayesModel) Importance() []float64 { return nil }

// Proba writes the posterior class probabilities of every row of x into
// dst (rows × K). It panics when x has the wrong column count or dst the
// wrong shape.
func (m *NaiveBayesModel) Proba(x mat.Matrix, dst *mat.Dense) {
	probaRows(x, m.p, m.k, dst, func(row, out []float64) {
		for c := range m.k {
			mu, va := m.mean[c*m.p:(c+1)*m.p], m.variance[c*m.p:(c+1)*m.p]
			var q float64
			for j, v := range row {
				e := v - mu[j]
				q += e * e / va[j]
			}
			out[c] = m.logConst[c] - 0.5*q
		}
		softmaxInPlace(out)
	})
}

// Refit estimates the model again from new rows (there is nothing to
// keep).
func (m *NaiveBayesModel) Refit(d Data, opt Options) (Model, error) {
	if d.K != m.k {
		return nil, fmt.Errorf("classify: naive_bayes: refit with %d classes, model has %d", d.K, m.k)
	}
	return NaiveBayes{}.Fit(d, opt)
}

// MarshalBinary encodes the model for Unmarshal.
func (m *NaiveBayesModel) MarshalBinary() ([]byte, error) {
	w := codec.Writer{B: make([]byte, 0, 64+8*(m.k+2*len(m.mean)))}
	w.B = append(w.B, naiveBayesWire)
	w.Int(m.p)
	w.F64s(m.prior)
	w.F64s(m.mean)
	w.F64s(m.variance)
	return codec.Frame(naiveBayesKey, w.B), nil
}

func unmarshalNaiveBayes(data []byte) (Model, error) {
	if len(data) < 1 || data[0] != naiveBayesWire {
		return nil, fmt.Errorf("%w (naive_bayes version)", errPayload)
	}
	r := codec.NewReader(data[1:], errPayload)
	m := &NaiveBayesModel{p: r.Int(1 << 30)}
	m.prior, m.mean, m.variance = r.F64s(), r.F64s(), r.F64s()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w (naive_bayes)", err)
	}
	m.k = len(m.prior)
	if m.k < 2 || len(m.mean) != m.k*m.p || len(m.variance) != m.k*m.p {
		return nil, fmt.Errorf("%w (naive_bayes shape)", errPayload)
	}
	m.prepare()
	return m, nil
}
