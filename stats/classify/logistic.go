package classify

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/vaticml/vatic/stats"
)

const (
	logisticL2Key = "logistic_regression_l2"
	logisticL1Key = "logistic_regression_l1"
)

const (
	// logisticGradTol is the gradient norm (of the objective divided by
	// C·Σw, so of order one whatever n and C) at which L-BFGS stops, and the
	// bound on the gradient mapping at which the L1 iteration stops.
	logisticGradTol = 1e-9
	// logisticMaxIter caps L-BFGS iterations per fit.
	logisticMaxIter = 2000
	// logisticL1Tol and logisticL1MaxIter stop the accelerated proximal
	// gradient: the max-norm of the gradient mapping L·(θ⁺ − y) below
	// 1e-7, or 20 000 iterations.
	logisticL1Tol     = 1e-7
	logisticL1MaxIter = 20000
	// logisticProbFloor clips probabilities in the cross-validated
	// log-loss, as scikit-learn's log_loss does, so a confident mistake
	// costs −log(1e-15) ≈ 34.5 rather than +Inf.
	logisticProbFloor = 1e-15
	logisticWire      = 1
)

// LogisticCs returns the grid of inverse penalties C both logistic
// regressions search: 13 values, half a decade apart, from 1e-3 to 1e3.
func LogisticCs() []float64 {
	const m = 13
	cs := make([]float64, m)
	for i := range cs {
		cs[i] = math.Pow(10, -3+6*float64(i)/(m-1))
	}
	return cs
}

// LogisticL2 is multinomial logistic regression with an L2 penalty (key
// "logistic_regression_l2", MODELLING §7.6). Over the z-scored columns Z
// (training mean, sample sd; zero-variance columns get β = 0) it
// minimises scikit-learn's objective
//
//	C·Σ_i w_i·(−log p_{i,y_i}) + ½·Σ_k ‖β_k‖²,  p_ik = softmax_k(b_k + z_i·β_k)
//
// with one coefficient vector per class (a K-way softmax, also for K = 2)
// and unpenalised intercepts b_k, by L-BFGS (gonum/optimize) from zero.
// The penalty is on the standardised scale, so it treats columns alike
// whatever their units; C does not scale with n (scikit-learn's
// convention), so Refit on more rows penalises relatively less.
//
// C is chosen from LogisticCs by stratified 5-fold cross-validation
// (StratifiedFolds with stats.Rand(seed, key+"/folds"), each fold
// standardised on its own training rows, C ascending with warm starts)
// scored by the weighted log-loss of the validation rows pooled over
// folds, Σ w_i·(−log max(p_{i,y_i}, 1e-15)) / Σ w_i; ties go to the
// smaller C. The log-loss, not macro-F1, because it is a proper scoring
// rule for the probabilities the service returns (MODELLING §7.4), it
// varies smoothly with C where F1 is a step function that ties across
// much of the grid on small folds, and with the balance weights (§7.5)
// it already weighs every class equally, as macro-F1 does.
type LogisticL2 struct{}

// LogisticL1 is multinomial logistic regression with an L1 penalty (key
// "logistic_regression_l1"): the objective of LogisticL2 with
// Σ_k ‖β_k‖₁ in place of ½·Σ_k ‖β_k‖², giving sparse coefficients. It is
// minimised by accelerated proximal gradient (FISTA with backtracking and
// function-value restarts; Beck & Teboulle 2009, O'Donoghue & Candès
// 2015): a gradient step on the smooth log-loss, then soft-thresholding of
// the β entries. Chosen over OWL-QN (not in gonum; a hand-written
// quasi-Newton with orthant projections is easy to get subtly wrong) and
// over coordinate descent (glmnet's multinomial solver needs a nested
// quadratic approximation per class): it reuses the L2 fit's loss and
// gradient, converges at O(1/k²) with a checkable stopping rule (the
// gradient mapping), and warm-starts well along the C path. C is chosen
// as for LogisticL2.
type LogisticL1 struct{}

func init() {
	register(1, LogisticL2{}, unmarshalLogistic(logisticL2Key))
	register(2, LogisticL1{}, unmarshalLogistic(logisticL1Key))
}

// Key is "logistic_regression_l2".
func (LogisticL2) Key() string { return logisticL2Key }

// Name is the former service's "Logistic Regression with Ridge regularization".
func (LogisticL2) Name() string { return "Logistic Regression with Ridge regularization" }

// Scaled is true: the penalty acts on standardised columns.
func (LogisticL2) Scaled() bool { return true }

// Fit chooses C by stratified 5-fold cross-validation and fits on all of
// d. It needs two rows per fold (ErrTooFewRows below 10). Folds run on up
// to opt.Workers goroutines; the result does not depend on opt.Workers.
func (LogisticL2) Fit(d Data, opt Options) (Model, error) {
	return fitLogisticCV(logisticL2Key, d, opt)
}

// Key is "logistic_regression_l1".
func (LogisticL1) Key() string { return logisticL1Key }

// Name is the former service's "Logistic Regression with Lasso regularization".
func (LogisticL1) Name() string { return "Logistic Regression with Lasso regularization" }

// Scaled is true: the penalty acts on standardised columns.
func (LogisticL1) Scaled() bool { return true }

// Fit chooses C by stratified 5-fold cross-validation and fits on all of
// d, as LogisticL2.Fit.
func (LogisticL1) Fit(d Data, opt Options) (Model, error) {
	return fitLogisticCV(logisticL1Key, d, opt)
}

func fitLogisticCV(key string, d Data, opt Options) (Model, error) {
	if err := checkData(d, 2*kfoldCount); err != nil {
		return nil, err
	}
	cs := LogisticCs()
	fold := StratifiedFolds(d.Y, d.K, kfoldCount, stats.Rand(opt.Seed, key+"/folds"))
	loss := make([][]float64, kfoldCount) // per fold, per C: Σ w·(−log p)
	wsum := make([]float64, kfoldCount)
	runIndexed(kfoldCount, opt.Workers, func(f int) {
		train, valid := foldSplit(d, fold, f)
		loss[f] = make([]float64, len(cs))
		if len(valid.Y) == 0 {
			return
		}
		vw := weightsOf(valid)
		wsum[f] = floats.Sum(vw)
		st := newStandardizer(train.X)
		z := st.transform(train.X)
		var theta []float64 // warm start along C ascending
		for ci, c := range cs {
			theta = logisticSolve(key, z, train.Y, d.K, weightsOf(train), c, theta)
			m := newLogisticModel(key, c, d.K, st, theta)
			p := mat.NewDense(len(valid.Y), d.K, nil)
			m.Proba(valid.X, p)
			for i, y := range valid.Y {
				loss[f][ci] -= vw[i] * math.Log(max(p.At(i, y), logisticProbFloor))
			}
		}
	})
	best, bestLoss := 0, math.Inf(1)
	total := floats.Sum(wsum)
	for ci := range cs {
		var s float64
		for f := range loss {
			s += loss[f][ci]
		}
		if s /= total; s < bestLoss {
			best, bestLoss = ci, s
		}
	}
	return fitLogisticAt(key, d, cs[best])
}

// fitLogisticAt fits at a fixed C on all of d, from zero.
func fitLogisticAt(key string, d Data, c float64) (*LogisticModel, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("classify: %s: C = %v", key, c)
	}
	st := newStandardizer(d.X)
	theta := logisticSolve(key, st.transform(d.X), d.Y, d.K, weightsOf(d), c, nil)
	return newLogisticModel(key, c, d.K, st, theta), nil
}

// logisticLoss holds a training set on the standardised scale and
// evaluates the smooth part of the objective, divided by C·Σw:
//
//	g(θ) = (1/Σw)·Σ_i w_i·(logΣ_k exp η_ik − η_{i,y_i}),  η_ik = b_k + z_i·β_k
//
// θ holds K blocks of p+1 values, [b_k, β_k1 … β_kp].
type logisticLoss struct {
	z     *mat.Dense
	y     []int
	w     []float64 // w_i / Σw
	k, p  int
	eta   *mat.Dense // n×K scratch
	beta  *mat.Dense // K×p scratch
	gbeta *mat.Dense // K×p scratch
}

func newLogisticLoss(z *mat.Dense, y []int, k int, w []float64) *logisticLoss {
	n, p := z.Dims()
	sw := floats.Sum(w)
	l := &logisticLoss{z: z, y: y, k: k, p: p, w: make([]float64, n),
		eta: mat.NewDense(n, k, nil)}
	if p > 0 {
		l.beta, l.gbeta = mat.NewDense(k, p, nil), mat.NewDense(k, p, nil)
	}
	for i, v := range w {
		l.w[i] = v / sw
	}
	return l
}

// eval returns g(θ) and, when grad is not nil, writes ∇g into it.
func (l *logisticLoss) eval(theta, grad []float64) float64 {
	n := len(l.y)
	q := l.p + 1
	if l.p > 0 {
		for c := range l.k {
			copy(l.beta.RawRowView(c), theta[c*q+1:(c+1)*q])
		}
		l.eta.Mul(l.z, l.beta.T())
	} else {
		l.eta.Zero()
	}
	var f float64
	for i := range n {
		row := l.eta.RawRowView(i)
		for c := range l.k {
			row[c] += theta[c*q]
		}
		m := floats.Max(row)
		var s float64
		for _, v := range row {
			s += math.Exp(v - m)
		}
		lse := m + math.Log(s)
		f += l.w[i] * (lse - row[l.y[i]])
		if grad != nil {
			// Reuse the row for the scaled residual w_i·(p_ik − 1[y_i = k]).
			for c, v := range row {
				row[c] = l.w[i] * math.Exp(v-lse)
			}
			row[l.y[i]] -= l.w[i]
		}
	}
	if grad == nil {
		return f
	}
	for c := range l.k {
		grad[c*q] = 0
	}
	for i := range n {
		for c, r := range l.eta.RawRowView(i) {
			grad[c*q] += r
		}
	}
	if l.p > 0 {
		l.gbeta.Mul(l.eta.T(), l.z)
		for c := range l.k {
			copy(grad[c*q+1:(c+1)*q], l.gbeta.RawRowView(c))
		}
	}
	return f
}

// logisticSolve minimises the key's objective at C over standardised z
// from theta0 (nil: zeros) and returns θ.
func logisticSolve(key string, z *mat.Dense, y []int, k int, w []float64, c float64, theta0 []float64) []float64 {
	_, p := z.Dims()
	l := newLogisticLoss(z, y, k, w)
	theta := make([]float64, k*(p+1))
	if theta0 != nil {
		copy(theta, theta0)
	}
	lambda := 1 / (c * floats.Sum(w)) // penalty weight after dividing by C·Σw
	if key == logisticL1Key {
		return logisticFISTA(l, lambda, theta)
	}
	return logisticLBFGS(l, lambda, theta)
}

// logisticLBFGS minimises g(θ) + (λ/2)·Σ‖β_k‖² by L-BFGS.
func logisticLBFGS(l *logisticLoss, lambda float64, theta []float64) []float64 {
	q := l.p + 1
	penalty := func(x, grad []float64) float64 {
		var s float64
		for i, v := range x {
			if i%q == 0 {
				continue // intercept
			}
			s += v * v
			if grad != nil {
				grad[i] += lambda * v
			}
		}
		return lambda / 2 * s
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return l.eval(x, nil) + penalty(x, nil) },
		Grad: func(grad, x []float64) {
			l.eval(x, grad)
			penalty(x, grad)
		},
	}
	settings := &optimize.Settings{GradientThreshold: logisticGradTol, MajorIterations: logisticMaxIter}
	res, _ := optimize.Minimize(prob, theta, settings, &optimize.LBFGS{})
	// A stop at the iteration cap or a line search that can make no more
	// progress (at rounding level near the optimum) still leaves the best
	// point found; keep it when finite.
	if res != nil && finite(res.X) && finite([]float64{res.F}) {
		return res.X
	}
	return theta
}

// logisticFISTA minimises g(θ) + λ·Σ‖β_k‖₁ by accelerated proximal
// gradient with backtracking on the step 1/L and a restart of the momentum
// whenever the objective increases.
func logisticFISTA(l *logisticLoss, lambda float64, theta []float64) []float64 {
	q := l.p + 1
	dim := len(theta)
	prox := func(dst, v []float64, step float64) {
		t := lambda * step
		for i, x := range v {
			switch {
			case i%q == 0:
				dst[i] = x // intercepts are not penalised
			case x > t:
				dst[i] = x - t
			case x < -t:
				dst[i] = x + t
			default:
				dst[i] = 0
			}
		}
	}
	l1 := func(x []float64) float64 {
		var s float64
		for i, v := range x {
			if i%q != 0 {
				s += math.Abs(v)
			}
		}
		return lambda * s
	}
	x := theta
	yv := append([]float64(nil), x...)
	xn := make([]float64, dim)
	gy := make([]float64, dim)
	step := make([]float64, dim)
	lip := 1.0
	tk := 1.0
	fx := l.eval(x, nil) + l1(x)
	for range logisticL1MaxIter {
		fy := l.eval(yv, gy)
		var diffMax, gn float64
		for {
			for i := range step {
				step[i] = yv[i] - gy[i]/lip
			}
			prox(xn, step, 1/lip)
			// Sufficient decrease: g(x⁺) ≤ g(y) + ∇g(y)·(x⁺−y) + (L/2)‖x⁺−y‖².
			var lin, sq float64
			diffMax = 0
			for i := range xn {
				dv := xn[i] - yv[i]
				lin += gy[i] * dv
				sq += dv * dv
				diffMax = max(diffMax, math.Abs(dv))
			}
			gn = l.eval(xn, nil)
			if gn <= fy+lin+lip/2*sq+1e-12*math.Abs(fy) || lip > 1e12 {
				break
			}
			lip *= 2
		}
		fn := gn + l1(xn)
		if diffMax*lip < logisticL1Tol {
			copy(x, xn)
			break
		}
		if fn > fx {
			// Restart: drop the momentum and step again from x.
			tk = 1
			copy(yv, x)
			continue
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		beta := (tk - 1) / tn
		for i := range yv {
			yv[i] = xn[i] + beta*(xn[i]-x[i])
		}
		copy(x, xn)
		fx, tk = fn, tn
	}
	return x
}

// LogisticModel is a fitted multinomial logistic regression, the Model of
// both logistic keys. It keeps the coefficients on the standardised scale
// (for Importance and inspection) and folds the scaler into
// input-scale coefficients for Proba. It is immutable and safe for
// concurrent use.
type LogisticModel struct {
	key  string
	c    float64
	k, p int
	st   standardizer
	// theta is K blocks [b_k, β_k1 … β_kp] on the standardised scale.
	theta []float64
	// coef (K×p) and intercept (K) are on the input scale:
	// coef_kj = β_kj/sd_j (0 where sd_j = 0), intercept_k = b_k − Σ_j coef_kj·mean_j.
	coef, intercept []float64
}

func newLogisticModel(key string, c float64, k int, st standardizer, theta []float64) *LogisticModel {
	p := len(st.mean)
	m := &LogisticModel{key: key, c: c, k: k, p: p, st: st, theta: theta,
		coef: make([]float64, k*p), intercept: make([]float64, k)}
	q := p + 1
	for cl := range k {
		m.intercept[cl] = theta[cl*q]
		for j := range p {
			if st.sd[j] > 0 {
				cf := theta[cl*q+1+j] / st.sd[j]
				m.coef[cl*p+j] = cf
				m.intercept[cl] -= cf * st.mean[j]
			}
		}
	}
	return m
}

// Key is "logistic_regression_l2" or "logistic_regression_l1".
func (m *LogisticModel) Key() string { return m.key }

// Classes is K.
func (m *LogisticModel) Classes() int { return m.k }

// C is the inverse penalty the fit used.
func (m *LogisticModel) C() float64 { return m.c }

// StdCoefficients returns a copy of β on the standardised scale, K rows of
// one value per input column (0 for zero-variance columns).
func (m *LogisticModel) StdCoefficients() *mat.Dense {
	out := mat.NewDense(m.k, max(1, m.p), nil)
	q := m.p + 1
	for c := range m.k {
		copy(out.RawRowView(c), m.theta[c*q+1:(c+1)*q])
	}
	return out
}

// StdIntercepts returns a copy of the intercepts b_k of the standardised
// fit (identified only up to a common shift; the fit from zero keeps
// Σ_k b_k = 0, as every gradient step does).
func (m *LogisticModel) StdIntercepts() []float64 {
	out := make([]float64, m.k)
	for c := range out {
		out[c] = m.theta[c*(m.p+1)]
	}
	return out
}

// Importance is Σ_k |β_kj|, the absolute standardised coefficients of
// each input column summed over classes (0 for zero-variance columns).
func (m *LogisticModel) Importance() []float64 {
	imp := make([]float64, m.p)
	q := m.p + 1
	for c := range m.k {
		for j := range m.p {
			imp[j] += math.Abs(m.theta[c*q+1+j])
		}
	}
	return imp
}

// Proba writes softmax_k(intercept_k + x_i·coef_k) for every row of x
// into dst (rows × K), by log-sum-exp. It panics when x has the wrong
// column count or dst the wrong shape.
func (m *LogisticModel) Proba(x mat.Matrix, dst *mat.Dense) {
	probaRows(x, m.p, m.k, dst, func(row, out []float64) {
		for c := range m.k {
			out[c] = m.intercept[c] + floats.Dot(m.coef[c*m.p:(c+1)*m.p], row)
		}
		softmaxInPlace(out)
	})
}

// Refit fits the same C on new rows.
func (m *LogisticModel) Refit(d Data, _ Options) (Model, error) {
	if d.K != m.k {
		return nil, fmt.Errorf("classify: %s: refit with %d classes, model has %d", m.key, d.K, m.k)
	}
	return fitLogisticAt(m.key, d, m.c)
}

// MarshalBinary encodes the model for Unmarshal.
func (m *LogisticModel) MarshalBinary() ([]byte, error) {
	w := payloadWriter{buf: make([]byte, 0, 64+8*(len(m.theta)+2*m.p))}
	w.buf = append(w.buf, logisticWire)
	w.f64(m.c)
	w.int(m.k)
	w.f64s(m.st.mean)
	w.f64s(m.st.sd)
	w.f64s(m.theta)
	return frame(m.key, w.buf), nil
}

func unmarshalLogistic(key string) func([]byte) (Model, error) {
	return func(data []byte) (Model, error) {
		if len(data) < 1 || data[0] != logisticWire {
			return nil, fmt.Errorf("%w (%s version)", errPayload, key)
		}
		r := payloadReader{buf: data[1:]}
		c := r.f64()
		k := r.int(1 << 20)
		var st standardizer
		st.mean, st.sd = r.f64s(), r.f64s()
		theta := r.f64s()
		if err := r.done(); err != nil {
			return nil, fmt.Errorf("%w (%s)", err, key)
		}
		p := len(st.mean)
		if k < 2 || len(st.sd) != p || len(theta) != k*(p+1) || !(c > 0) {
			return nil, fmt.Errorf("%w (%s shape)", errPayload, key)
		}
		return newLogisticModel(key, c, k, st, theta), nil
	}
}
