package regress

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/parallel"
	"github.com/vaticml/vatic/stats/internal/scale"
)

const lassoKey = "lasso"

const (
	lassoPathLen   = 100  // α values on the path, as scikit-learn's LassoCV
	lassoPathRatio = 1e-3 // smallest α / α_max
	// lassoTol is the duality gap, relative to ‖y − ȳ‖², at which a
	// coordinate-descent run stops; with lassoMaxSweeps it is
	// scikit-learn's default (tol=1e-4, max_iter=1000). Since
	// P(β) − P(β*) ≥ ½‖Z(β − β*)‖² in the unnormalised objective, it bounds
	// the RMS distance of the predictions from the exact solution's by
	// √(2·1e-4)·sd(y) ≈ 0.014·sd(y). A gap of 1e-6 took 24 times more
	// sweeps, 1e-8 over 35 times (hitting the sweep cap), on 200 columns
	// correlated at ρ ≈ 0.99.
	lassoTol       = 1e-4
	lassoMaxSweeps = 1000 // coordinate-descent sweeps per α
)

// Lasso is L1-penalised least squares on standardised columns (key
// "lasso", MODELLING §6.2). It minimises scikit-learn's objective
//
//	(1/2n)·‖y − b − Zβ‖² + α·‖β‖₁
//
// over z-scored columns Z (training mean, sample sd; zero-variance columns
// get β = 0), the intercept b unpenalised. Fit walks a warm-started path
// of 100 α values log-spaced from α_max = max_j |Z_jᵀ(y − ȳ)|/n (the
// smallest α with β = 0) down to α_max/1000 by cyclic coordinate descent
// on the Gram matrix (Friedman, Hastie & Tibshirani 2010, "Regularization
// paths for GLMs via coordinate descent"), stopping each α when the
// duality gap falls below 1e-4·‖y − ȳ‖² (scikit-learn's test) or after
// 1000 sweeps. It scores the path by 5-fold cross-validation (folds from
// stats.Rand(seed, "lasso/folds"), each fold standardised on its own
// training rows, the α grid from all rows) and refits on all rows at the α
// with the lowest mean fold MSE (the largest α on ties). Refit keeps α.
//
// With words (Data.Words) the Gram comes from the dense and CSR blocks
// (linear_sparse.go's stdGram: glmnet's "covariance updates", which read
// no row once it is formed) and each fold scores its held-out rows
// through their non-zeros: no dense words anywhere.
type Lasso struct{}

// Key is "lasso".
func (Lasso) Key() string { return lassoKey }

// Name is "Lasso Regression".
func (Lasso) Name() string { return "Lasso Regression" }

// Scaled is true: the penalty acts on standardised columns.
func (Lasso) Scaled() bool { return true }

// Fit chooses α by 5-fold cross-validation and fits on all of d. It
// needs two rows per fold (ErrTooFewRows below 10). The folds run on up to
// opt.Workers goroutines; the result does not depend on opt.Workers.
func (Lasso) Fit(d Data, opt Options) (Model, error) {
	if err := checkData(d, 2*kfoldCount); err != nil {
		return nil, err
	}
	n := d.rows()
	var alphas []float64
	var foldMSE func(fold []int, f int) []float64
	if d.Words == nil {
		x, y := d.X, d.Y
		st := scale.New(x)
		_, yc := linearCenterY(y)
		alphas = lassoPath(newLassoGram(st.Transform(x), yc).alphaMax())
		foldMSE = func(fold []int, f int) []float64 { return lassoFoldMSE(x, y, fold, f, alphas) }
	} else {
		alphas = lassoPath(newStdGram(d).lasso().alphaMax())
		foldMSE = func(fold []int, f int) []float64 { return lassoFoldMSEWords(d, fold, f, alphas) }
	}

	fold := kfoldAssign(n, kfoldCount, stats.Rand(opt.Seed, "lasso/folds"))
	mse := make([][]float64, kfoldCount)
	parallel.For(kfoldCount, opt.Workers, func(f int) {
		mse[f] = foldMSE(fold, f)
	})
	best, bestMSE := 0, math.Inf(1)
	for a := range alphas {
		var sum float64
		for f := range mse {
			sum += mse[f][a]
		}
		if m := sum / kfoldCount; m < bestMSE {
			best, bestMSE = a, m
		}
	}
	return fitLassoAt(d, alphas[best])
}

// lassoFoldMSE fits the path on the rows outside fold f and returns the
// mean squared error on fold f for each α.
func lassoFoldMSE(x *mat.Dense, y []float64, fold []int, f int, alphas []float64) []float64 {
	xtr, ytr, xva, yva := kfoldSplit(x, y, fold, f)
	st := scale.New(xtr)
	ymean, yc := linearCenterY(ytr)
	zva := st.Transform(xva)
	cd := newLassoCD(newLassoGram(st.Transform(xtr), yc), lassoTol)
	mse := make([]float64, len(alphas))
	for a, alpha := range alphas {
		cd.solve(alpha)
		var sse float64
		for i, yi := range yva {
			pred := ymean
			row := zva.RawRowView(i)
			for j, b := range cd.beta {
				if b != 0 {
					pred += b * row[j]
				}
			}
			e := yi - pred
			sse += e * e
		}
		mse[a] = sse / float64(len(yva))
	}
	return mse
}

// lassoFoldMSEWords is lassoFoldMSE on rows with words: the fold's
// training rows give the Gram, its held-out rows are predicted through
// their non-zeros.
func lassoFoldMSEWords(d Data, fold []int, f int, alphas []float64) []float64 {
	tr, va := stats.FoldRows(fold, f)
	all := d.sparse()
	xtr, xva := all.SelectRows(tr), all.SelectRows(va)
	gr := newStdGram(Data{X: xtr.Dense, Words: xtr.Words, Y: pickRows(d.Y, tr)})
	yva := pickRows(d.Y, va)
	cd := newLassoCD(gr.lasso(), lassoTol)
	mse := make([]float64, len(alphas))
	coef, pred := make([]float64, gr.p), make([]float64, len(va))
	for a, alpha := range alphas {
		cd.solve(alpha)
		b := gr.ymean
		for j, bz := range cd.beta {
			coef[j] = 0
			if sd := gr.st.SD[j]; sd > 0 && bz != 0 {
				coef[j] = bz / sd
				b -= coef[j] * gr.st.Mean[j]
			}
		}
		sparseDot(xva, coef, b, pred)
		var sse float64
		for i, yi := range yva {
			e := yi - pred[i]
			sse += e * e
		}
		mse[a] = sse / float64(len(yva))
	}
	return mse
}

// pickRows returns v's values at rows.
func pickRows(v []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = v[r]
	}
	return out
}

// fitLassoAt fits Lasso at a given α, warm-starting along the path of the
// data's own α_max down to α so that Fit and Refit on the same rows give
// the same coefficients.
func fitLassoAt(d Data, alpha float64) (Model, error) {
	return fitLassoAtTol(d, alpha, lassoTol)
}

// fitLassoAtTol is fitLassoAt with a given duality-gap tolerance.
func fitLassoAtTol(d Data, alpha, tol float64) (Model, error) {
	if err := checkData(d, 1); err != nil {
		return nil, err
	}
	var st scale.Standardizer
	var ymean float64
	var gram *lassoGram
	if d.Words == nil {
		x := d.X
		var yc []float64
		st = scale.New(x)
		ymean, yc = linearCenterY(d.Y)
		gram = newLassoGram(st.Transform(x), yc)
	} else {
		gr := newStdGram(d)
		st, ymean, gram = gr.st, gr.ymean, gr.lasso()
	}
	cd := newLassoCD(gram, tol)
	for _, a := range lassoPath(gram.alphaMax()) {
		if a <= alpha {
			break
		}
		cd.solve(a)
	}
	cd.solve(alpha)
	return linearFromStd(lassoKey, alpha, st, ymean, cd.beta), nil
}

// lassoPath returns lassoPathLen values log-spaced from alphaMax down to
// alphaMax·lassoPathRatio. A zero alphaMax (constant y or constant
// columns, where every α gives β = 0) is replaced by 1.
func lassoPath(alphaMax float64) []float64 {
	if !(alphaMax > 0) {
		alphaMax = 1
	}
	a := make([]float64, lassoPathLen)
	for i := range a {
		a[i] = alphaMax * math.Pow(lassoPathRatio, float64(i)/(lassoPathLen-1))
	}
	return a
}

// lassoGram holds the sufficient statistics of the standardised problem:
// G = ZᵀZ, c = Zᵀy and yy = ‖y‖² for a centred y.
type lassoGram struct {
	n, p int
	g    []float64 // p×p, row-major
	c    []float64
	yy   float64
}

func newLassoGram(z *mat.Dense, yc []float64) *lassoGram {
	n, p := z.Dims()
	gr := &lassoGram{n: n, p: p, g: make([]float64, p*p), c: make([]float64, p)}
	mat.NewDense(p, p, gr.g).Mul(z.T(), z)
	mat.NewVecDense(p, gr.c).MulVec(z.T(), mat.NewVecDense(n, yc))
	for _, v := range yc {
		gr.yy += v * v
	}
	return gr
}

// lasso is gr's Gram as a lassoGram (shared, not copied).
func (gr *stdGram) lasso() *lassoGram {
	return &lassoGram{n: gr.n, p: gr.p, g: gr.g, c: gr.c, yy: gr.yy}
}

// alphaMax is the smallest α whose solution is β = 0.
func (gr *lassoGram) alphaMax() float64 {
	var m float64
	for _, v := range gr.c {
		m = max(m, math.Abs(v))
	}
	return m / float64(gr.n)
}

// lassoCD is coordinate descent on a lassoGram, keeping β and q = Gβ
// between calls so a path warm-starts.
type lassoCD struct {
	gr      *lassoGram
	tol     float64 // duality gap / yy at convergence
	beta, q []float64
}

func newLassoCD(gr *lassoGram, tol float64) *lassoCD {
	return &lassoCD{gr: gr, tol: tol, beta: make([]float64, gr.p), q: make([]float64, gr.p)}
}

// solve runs cyclic sweeps at α until the duality gap is below tol·yy or
// lassoMaxSweeps have run. In the unnormalised form
// ½‖r‖² + a‖β‖₁ with a = n·α, coordinate j moves to
// S(c_j − q_j + G_jj·β_j, a)/G_jj with S the soft threshold.
func (cd *lassoCD) solve(alpha float64) {
	gr := cd.gr
	p, g, c := gr.p, gr.g, gr.c
	a := alpha * float64(gr.n)
	for range lassoMaxSweeps {
		for j := range p {
			gjj := g[j*p+j]
			if gjj == 0 {
				continue // zero-variance column
			}
			bj := cd.beta[j]
			rho := c[j] - cd.q[j] + gjj*bj
			var nb float64
			switch {
			case rho > a:
				nb = (rho - a) / gjj
			case rho < -a:
				nb = (rho + a) / gjj
			}
			if nb == bj {
				continue
			}
			d := nb - bj
			cd.beta[j] = nb
			// G is symmetric, so row j is column j.
			for k, gk := range g[j*p : (j+1)*p] {
				cd.q[k] += d * gk
			}
		}
		if cd.gap(a) <= cd.tol*gr.yy {
			return
		}
	}
}

// gap is the duality gap of ½‖r‖² + a‖β‖₁ at the current β, with the dual
// point r scaled into the feasible set ‖Zᵀθ‖∞ ≤ a (as scikit-learn's
// enet_coordinate_descent_gram).
func (cd *lassoCD) gap(a float64) float64 {
	gr := cd.gr
	var btc, btq, l1, dual float64
	for j, b := range cd.beta {
		btc += b * gr.c[j]
		btq += b * cd.q[j]
		l1 += math.Abs(b)
		dual = max(dual, math.Abs(gr.c[j]-cd.q[j]))
	}
	rr := max(0, gr.yy-2*btc+btq) // ‖r‖²
	rty := gr.yy - btc            // rᵀy
	scale, gap := 1.0, rr
	if dual > a {
		scale = a / dual
		gap = 0.5 * (rr + rr*scale*scale)
	}
	return gap + a*l1 - scale*rty
}

func unmarshalLasso(data []byte) (Model, error) { return unmarshalLinear(lassoKey, data) }
