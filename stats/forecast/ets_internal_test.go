package forecast

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// etsFormOf parses a key of ets_reference.json such as "MAMd".
func etsFormOf(key string) etsForm {
	return etsForm{key[0], key[1], key[2], len(key) == 4}
}

func etsRelDiff(a, b float64) float64 {
	return math.Abs(a-b) / max(math.Abs(b), 1e-300)
}

// The starting values (initparam, initstate) and the likelihood at them
// are deterministic, so they must agree with R up to rounding: R's
// decompose, lm and mean accumulate in a different order (and mean in long
// double), hence 1e-9 relative rather than exact.
func TestETSStartMatchesR(t *testing.T) {
	ref := LoadETSReference(t)
	names := make([]string, 0, len(ref.Start))
	for name := range ref.Start {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := LoadSeries(t, name)
		for key, want := range ref.Start[name] {
			f := etsFormOf(key)
			m := 1
			if f.season != 'N' {
				m = s.Period()
			}
			p := etsInitParam(f, m)
			got := p.vector(f)
			if len(got) != len(want.Par) {
				t.Fatalf("%s %s: %d starting parameters, R has %d", name, key, len(got), len(want.Par))
			}
			for i := range got {
				if etsRelDiff(got[i], want.Par[i]) > 1e-12 {
					t.Errorf("%s %s: starting parameter %d = %v, R %v", name, key, i, got[i], want.Par[i])
				}
			}
			init, err := etsInitState(s.X, s.Period(), f.trend, f.season)
			if err != nil {
				t.Fatalf("%s %s: %v", name, key, err)
			}
			if len(init) != len(want.InitState) {
				t.Fatalf("%s %s: %d initial states, R has %d", name, key, len(init), len(want.InitState))
			}
			for i := range init {
				if math.Abs(init[i]-want.InitState[i]) > 1e-9*max(1, math.Abs(want.InitState[i])) {
					t.Errorf("%s %s: initial state %d = %.15g, R %.15g", name, key, i, init[i], want.InitState[i])
				}
			}
			tg := &etsTarget{f: f, m: m, nstate: len(init), y: s.X,
				run: etsRun{f: f, m: m, ring: make([]float64, m)}, state: make([]float64, len(init)+1)}
			if f.season == 'N' {
				tg.state = tg.state[:len(init)]
			}
			x := append(p.vector(f), init...)
			x0 := tg.fullState(x)
			lik := tg.run.lik(s.X, x0, tg.params(x))
			if etsRelDiff(lik, float64(want.Lik)) > 1e-9 {
				t.Errorf("%s %s: likelihood at the start = %.12g, R %.12g", name, key, lik, float64(want.Lik))
			}
			full := tg.run.full(s.X, x0, tg.params(x))
			if etsRelDiff(full.lik, float64(want.Lik)) > 1e-9 {
				t.Errorf("%s %s: full pass likelihood = %.12g, R %.12g", name, key, full.lik, float64(want.Lik))
			}
			for i := range 3 {
				if etsRelDiff(full.amse[i], want.AMSE[i]) > 1e-9 {
					t.Errorf("%s %s: amse[%d] = %.12g, R %.12g", name, key, i, full.amse[i], want.AMSE[i])
				}
			}
			for i, e := range want.EHead {
				if math.Abs(full.e[i]-e) > 1e-9*max(1, math.Abs(e)) {
					t.Errorf("%s %s: e[%d] = %.12g, R %.12g", name, key, i, full.e[i], e)
				}
			}
		}
	}
}

// R's admissible() on 600 random draws, 170 of them inadmissible. The
// seasonal draws without a trend have the exact root z = 1, which R's
// tolerance (max |root| ≤ 1 + 1e-10) admits and etsRootsWithin divides out.
func TestETSAdmissibleMatchesR(t *testing.T) {
	ref := LoadETSReference(t)
	var nAdm int
	for i, a := range ref.Admissible {
		got := etsAdmissible(a.Alpha, a.Beta, a.Gamma, a.Phi, a.Trend, a.Seasonal, a.M)
		if got != a.Admissible {
			t.Errorf("draw %d %+v: admissible = %v, R %v", i, a, got, a.Admissible)
		}
		if a.Admissible {
			nAdm++
		}
	}
	if nAdm < 100 || nAdm > len(ref.Admissible)-100 {
		t.Errorf("only %d of %d draws admissible: the table does not test both sides", nAdm, len(ref.Admissible))
	}
}

// etsMaxRoot is the largest root modulus of the characteristic polynomial
// of etsRootsWithin, from the eigenvalues of its companion matrix: an
// independent computation to test the Schur–Cohn shortcut against.
func etsMaxRoot(alpha, beta, gamma, phi float64, m int) float64 {
	a := make([]float64, m+2)
	a[0] = 1
	a[1] = alpha + beta - phi
	for i := 2; i < m; i++ {
		a[i] = alpha + beta - alpha*phi
	}
	a[m] = alpha + beta - alpha*phi + gamma - 1
	a[m+1] = phi * (1 - alpha - gamma)
	d := m + 1
	c := mat.NewDense(d, d, nil)
	for j := range d {
		c.Set(0, j, -a[j+1])
	}
	for i := 1; i < d; i++ {
		c.Set(i, i-1, 1)
	}
	var e mat.Eigen
	if !e.Factorize(c, mat.EigenNone) {
		return math.NaN()
	}
	var mx float64
	for _, v := range e.Values(nil) {
		mx = max(mx, cmplx.Abs(v))
	}
	return mx
}

// The Schur–Cohn test agrees with the roots themselves on random
// parameters (damped or not, with and without trend), except where the
// largest root is within 1e-7 of the circle of radius 1 + 1e-10 and the
// eigenvalues are not accurate enough to decide.
func TestETSRootsWithinMatchesEigenvalues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var checked, inside int
	for range 3000 {
		m := []int{2, 3, 4, 7, 12, 24}[r.IntN(6)]
		alpha := r.Float64()
		beta, phi := 0.0, 1.0
		if r.IntN(3) > 0 {
			beta = r.Float64() * alpha
		}
		if r.IntN(3) == 0 {
			phi = 0.8 + 0.2*r.Float64()
		}
		gamma := r.Float64() * (1 - alpha) * 1.2
		root := etsMaxRoot(alpha, beta, gamma, phi, m)
		if math.Abs(root-(1+1e-10)) < 1e-7 {
			continue
		}
		checked++
		want := root <= 1+1e-10
		if want {
			inside++
		}
		if got := etsRootsWithin(alpha, beta, gamma, phi, m); got != want {
			t.Errorf("α=%v β=%v γ=%v φ=%v m=%d: within = %v, largest root %v", alpha, beta, gamma, phi, m, got, root)
		}
	}
	if checked < 1500 || inside < 300 || checked-inside < 300 {
		t.Errorf("checked %d draws, %d inside: not a test of both sides", checked, inside)
	}
}
