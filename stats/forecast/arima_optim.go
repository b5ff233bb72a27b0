package forecast

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"sync"
)

// R estimates ARIMA models with optim(method = "BFGS"): Nash's
// variable-metric method (vmmin in R's src/appl/optim.c) on parameters
// divided by parscale, with central-difference gradients of step ndeps =
// 1e-3 in those scaled units, stopping when an accepted step changes the
// objective by less than reltol = sqrt(machine epsilon) relatively, or
// after maxit = 100 gradients. The Hessian comes from optimhess: central
// differences of those numerical gradients.
//
// This file reproduces that optimiser step for step rather than using
// gonum/optimize.BFGS: gonum's BFGS (More–Thuente line search, gradient
// convergence test) converges to the true optimum, while R stops where its
// relative-change test fires, and on the flat likelihood surfaces of ARMA
// models the two points differ in the third or fourth significant digit of
// the coefficients — enough to change which model auto.arima's search
// keeps. Landing where R lands requires R's own iteration.

const (
	arimaReltol   = 1.4901161193847656e-08 // sqrt(.Machine$double.eps)
	arimaNdeps    = 1e-3
	arimaMaxit    = 100
	vmminStepredn = 0.2
	vmminAcctol   = 0.0001
	vmminReltest  = 10.0
)

// errArimaOptim marks a failure R's optim raises as an error (a non-finite
// initial value or finite-difference gradient).
var errArimaOptim = errors.New("optim failed")

// arimaOptim minimises an objective the way R's optim(par, fn, method =
// "BFGS", control = list(parscale = parscale)) does. newFn returns
// instances of the objective with their own scratch space: the 2k
// function values of a numerical gradient, and the 4k² of the Hessian,
// are computed concurrently on up to GOMAXPROCS instances. Each value is
// the same as a sequential evaluation's, so the result does not depend on
// the number of goroutines.
type arimaOptim struct {
	newFn    func() func([]float64) float64
	parscale []float64
	fns      []func([]float64) float64
	x        []float64 // scratch, unscaled
}

// arimaMaxWorkers bounds the goroutines one optimisation uses.
const arimaMaxWorkers = 8

func (o *arimaOptim) setup(n int) {
	o.x = make([]float64, n)
	if o.fns == nil {
		w := max(1, min(runtime.GOMAXPROCS(0), arimaMaxWorkers, 2*n))
		o.fns = make([]func([]float64) float64, w)
		for i := range o.fns {
			o.fns[i] = o.newFn()
		}
	}
}

func (o *arimaOptim) f(b []float64) (float64, error) {
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, errArimaOptim
		}
		o.x[i] = v * o.parscale[i]
	}
	return o.fns[0](o.x), nil
}

// evalMany sets out[i] to the objective at the unscaled point pts[i],
// spreading the points over the objective instances.
func (o *arimaOptim) evalMany(pts [][]float64, out []float64) {
	w := min(len(o.fns), len(pts))
	if w <= 1 {
		for i, p := range pts {
			out[i] = o.fns[0](p)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func(fn func([]float64) float64) {
			defer wg.Done()
			for i := k; i < len(pts); i += w {
				out[i] = fn(pts[i])
			}
		}(o.fns[k])
	}
	wg.Wait()
}

// gradPoints appends to pts the 2n points of R's fmingr at the scaled b:
// for each i, b with b[i] ± ndeps, unscaled.
func (o *arimaOptim) gradPoints(b []float64, pts [][]float64) [][]float64 {
	n := len(b)
	for i := range n {
		for _, sgn := range [2]float64{1, -1} {
			x := make([]float64, n)
			for k := range n {
				x[k] = b[k] * o.parscale[k]
			}
			x[i] = (b[i] + sgn*arimaNdeps) * o.parscale[i]
			pts = append(pts, x)
		}
	}
	return pts
}

// grad is R's fmingr with numerical derivatives and no bounds.
func (o *arimaOptim) grad(b, df []float64) error {
	pts := o.gradPoints(b, nil)
	vals := make([]float64, len(pts))
	o.evalMany(pts, vals)
	for i := range b {
		df[i] = (vals[2*i] - vals[2*i+1]) / (2 * arimaNdeps)
		if math.IsNaN(df[i]) || math.IsInf(df[i], 0) {
			return errArimaOptim
		}
	}
	return nil
}

// minimize runs vmmin from par with at most maxit iterations.
func (o *arimaOptim) minimize(par []float64, maxit int) (out []float64, fmin float64, code int, err error) {
	n := len(par)
	o.setup(n)
	b := make([]float64, n)
	for i := range n {
		b[i] = par[i] / o.parscale[i]
	}
	unscale := func() []float64 {
		res := make([]float64, n)
		for i := range n {
			res[i] = b[i] * o.parscale[i]
		}
		return res
	}
	if maxit <= 0 {
		f, err := o.f(b)
		return unscale(), f, 0, err
	}
	g := make([]float64, n)
	t := make([]float64, n)
	X := make([]float64, n)
	c := make([]float64, n)
	B := make([][]float64, n)
	for i := range B {
		B[i] = make([]float64, i+1)
	}
	f, err := o.f(b)
	if err != nil {
		return nil, 0, 0, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, 0, 0, errArimaOptim
	}
	fmin = f
	funcount, gradcount := 1, 1
	if err := o.grad(b, g); err != nil {
		return nil, 0, 0, err
	}
	iter := 1
	ilast := gradcount
	count := 0
	for {
		if ilast == gradcount {
			for i := range n {
				for j := range i {
					B[i][j] = 0
				}
				B[i][i] = 1
			}
		}
		copy(X, b)
		copy(c, g)
		gradproj := 0.0
		for i := range n {
			s := 0.0
			for j := 0; j <= i; j++ {
				s -= B[i][j] * g[j]
			}
			for j := i + 1; j < n; j++ {
				s -= B[j][i] * g[j]
			}
			t[i] = s
			gradproj += s * g[i]
		}
		if gradproj < 0 { // downhill
			steplength := 1.0
			accpoint := false
			for {
				count = 0
				for i := range n {
					b[i] = X[i] + steplength*t[i]
					if vmminReltest+X[i] == vmminReltest+b[i] {
						count++
					}
				}
				if count < n {
					f, err = o.f(b)
					if err != nil {
						return nil, 0, 0, err
					}
					funcount++
					accpoint = !math.IsNaN(f) && !math.IsInf(f, 0) &&
						f <= fmin+gradproj*steplength*vmminAcctol
					if !accpoint {
						steplength *= vmminStepredn
					}
				}
				if count == n || accpoint {
					break
				}
			}
			// abstol is -Inf: f > abstol holds for every finite f (and for
			// a NaN f the comparison is false, as in C).
			enough := f > math.Inf(-1) && math.Abs(f-fmin) > arimaReltol*(math.Abs(fmin)+arimaReltol)
			if !enough {
				count = n
				fmin = f
			}
			if count < n { // making progress
				fmin = f
				if err := o.grad(b, g); err != nil {
					return nil, 0, 0, err
				}
				gradcount++
				iter++
				D1 := 0.0
				for i := range n {
					t[i] = steplength * t[i]
					c[i] = g[i] - c[i]
					D1 += t[i] * c[i]
				}
				if D1 > 0 {
					D2 := 0.0
					for i := range n {
						s := 0.0
						for j := 0; j <= i; j++ {
							s += B[i][j] * c[j]
						}
						for j := i + 1; j < n; j++ {
							s += B[j][i] * c[j]
						}
						X[i] = s
						D2 += s * c[i]
					}
					D2 = 1 + D2/D1
					for i := range n {
						for j := 0; j <= i; j++ {
							B[i][j] += (D2*t[i]*t[j] - X[i]*t[j] - t[i]*X[j]) / D1
						}
					}
				} else {
					ilast = gradcount
				}
			} else if ilast < gradcount { // no progress
				count = 0
				ilast = gradcount
			}
		} else { // uphill search
			count = 0
			if ilast == gradcount {
				count = n
			} else {
				ilast = gradcount
			}
		}
		if iter >= maxit {
			break
		}
		if gradcount-ilast > 2*n {
			ilast = gradcount // periodic restart
		}
		if count == n && ilast == gradcount {
			break
		}
	}
	_ = funcount
	if iter >= maxit {
		code = 1
	}
	return unscale(), fmin, code, nil
}

// hessian is R's optimhess at par (unscaled): central differences, of
// step ndeps/parscale in scaled units, of the numerical gradient, then
// symmetrised. Row-major n×n. Its 4n² function values include repeats
// (with parscale 1, the points of entries (i, j) and (j, i) coincide);
// each distinct point is evaluated once.
func (o *arimaOptim) hessian(par []float64) ([]float64, error) {
	n := len(par)
	o.setup(n)
	dpar := make([]float64, n)
	for i := range n {
		dpar[i] = par[i] / o.parscale[i]
	}
	var pts [][]float64
	for i := range n {
		eps := arimaNdeps / o.parscale[i]
		dpar[i] += eps
		pts = o.gradPoints(dpar, pts)
		dpar[i] -= 2 * eps
		pts = o.gradPoints(dpar, pts)
		dpar[i] += eps
	}
	// Evaluate each distinct point once.
	key := func(x []float64) string {
		b := make([]byte, 0, 8*len(x))
		for _, v := range x {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return string(b)
	}
	index := make(map[string]int, len(pts))
	var uniq [][]float64
	which := make([]int, len(pts))
	for i, x := range pts {
		k := key(x)
		u, ok := index[k]
		if !ok {
			u = len(uniq)
			index[k] = u
			uniq = append(uniq, x)
		}
		which[i] = u
	}
	uvals := make([]float64, len(uniq))
	o.evalMany(uniq, uvals)
	val := func(i int) float64 { return uvals[which[i]] }
	H := make([]float64, n*n)
	df1 := make([]float64, n)
	df2 := make([]float64, n)
	for i := range n {
		eps := arimaNdeps / o.parscale[i]
		base := i * 4 * n
		for j := range n {
			df1[j] = (val(base+2*j) - val(base+2*j+1)) / (2 * arimaNdeps)
			df2[j] = (val(base+2*n+2*j) - val(base+2*n+2*j+1)) / (2 * arimaNdeps)
			if math.IsNaN(df1[j]) || math.IsInf(df1[j], 0) || math.IsNaN(df2[j]) || math.IsInf(df2[j], 0) {
				return nil, errArimaOptim
			}
		}
		for j := range n {
			H[i*n+j] = (df1[j] - df2[j]) / (2 * eps * o.parscale[i] * o.parscale[j])
		}
	}
	for i := range n {
		for j := range i {
			tmp := 0.5 * (H[i*n+j] + H[j*n+i])
			H[i*n+j], H[j*n+i] = tmp, tmp
		}
	}
	return H, nil
}
