package stats_test

import (
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/vaticml/vatic/stats"
	"gonum.org/v1/gonum/mathext"
)

// Reference values below were printed by testdata/reference_importance.py
// (scikit-learn 1.2.1, NumPy 1.24.2, SciPy 1.10.1); the tests never run
// Python. Data: the first 500 rows of friedman1 (testdata/friedman1_500.csv,
// no repeated values) and iris (testdata/iris.csv, many repeated values).

// readCSV returns the numeric columns of a testdata CSV file by header
// name; a column that does not parse as numbers is returned as codes of
// its distinct strings in order of first appearance.
func readCSV(tb testing.TB, name string) map[string][]float64 {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	out := make(map[string][]float64)
	for j, h := range recs[0] {
		codes := map[string]float64{}
		for _, r := range recs[1:] {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				c, ok := codes[r[j]]
				if !ok {
					c = float64(len(codes))
					codes[r[j]] = c
				}
				v = c
			}
			out[h] = append(out[h], v)
		}
	}
	return out
}

func friedman(tb testing.TB) (x [][]float64, y []float64) {
	tb.Helper()
	c := readCSV(tb, "friedman1_500.csv")
	for j := range 10 {
		x = append(x, c["x"+strconv.Itoa(j)])
	}
	return x, c["y"]
}

// tertiles returns the class (0, 1, 2) of each y by NumPy's default
// quantiles at 1/3 and 2/3, as np.digitize(y, np.quantile(y, [1/3, 2/3])).
func tertiles(y []float64) []float64 {
	s := slices.Sorted(slices.Values(y))
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		i := int(h)
		return s[i] + (h-float64(i))*(s[i+1]-s[i])
	}
	q1, q2 := q(1.0/3), q(2.0/3)
	out := make([]float64, len(y))
	for i, v := range y {
		switch {
		case v >= q2:
			out[i] = 2
		case v >= q1:
			out[i] = 1
		}
	}
	return out
}

func indicator(x []float64, t float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		if v > t {
			out[i] = 1
		}
	}
	return out
}

func TestMutualInfoFriedman(t *testing.T) {
	x, y := friedman(t)
	y3 := tertiles(y)
	// mutual_info_regression(X, y, n_neighbors=3, random_state=0): KSG.
	// Without repeated values the noise scikit-learn adds changes no count,
	// so the estimates agree to rounding: tolerance 1e-9.
	wantCC := []float64{0.1241685648594637, 0.09901554608967444, 0.02550717612493658, 0.22300517772763762, 0.0621179989093088, 0.0, 0.0, 0.04449336828268846, 0.0, 0.008099607640138728}
	// mutual_info_classif(X, tertiles of y, n_neighbors=3, random_state=0):
	// Ross. Column x1 holds points whose nearest same-class neighbours are
	// exactly equidistant; scikit-learn's noise orders them at random
	// (0.06101136653875949), our rule takes the expectation, which the
	// brute-force ross_ref of the script gives: 0.061317288594337604.
	wantCD := []float64{0.0851190235769761, 0.061317288594337604, 0.03775862193224433, 0.1741661564693675, 0.050310386383169314, 0.0, 0.0, 0.07194508000762356, 0.0, 0.0}
	for j := range x {
		if got := stats.MutualInfo(x[j], y, false, false); math.Abs(got-wantCC[j]) > 1e-9 {
			t.Errorf("MutualInfo(x%d, y, false, false) = %.15g, want %.15g", j, got, wantCC[j])
		}
		if got := stats.MutualInfo(x[j], y3, false, true); math.Abs(got-wantCD[j]) > 1e-9 {
			t.Errorf("MutualInfo(x%d, tertiles, false, true) = %.15g, want %.15g", j, got, wantCD[j])
		}
	}
	xb := indicator(x[0], 0.5)
	// mutual_info_regression(xb, y, discrete_features=True): Ross with c = y.
	if got, want := stats.MutualInfo(xb, y, true, false), 0.06713342795588528; math.Abs(got-want) > 1e-9 {
		t.Errorf("MutualInfo(x0 > 0.5, y, true, false) = %.15g, want %.15g", got, want)
	}
	// mutual_info_classif(xb, tertiles, discrete_features=True), which is
	// mutual_info_score: plug-in.
	if got, want := stats.MutualInfo(xb, y3, true, true), 0.07182362639384662; math.Abs(got-want) > 1e-12 {
		t.Errorf("MutualInfo(x0 > 0.5, tertiles, true, true) = %.15g, want %.15g", got, want)
	}
}

func TestMutualInfoTies(t *testing.T) {
	c := readCSV(t, "iris.csv")
	names := []string{"sepal_length", "sepal_width", "petal_length", "petal_width"}
	species := c["species"]
	// Brute-force NumPy versions of the documented tie rule (ross_ref,
	// ksg_ref in the script): tolerance 1e-9. For orientation, scikit-
	// learn's noisy estimates over random_state 0..99 average 0.4926,
	// 0.2588, 0.9894, 0.9877 (Ross) and 0.6085, 0.4100, 1.1962 (KSG).
	wantRoss := []float64{0.4822946344450987, 0.24940720134912198, 0.9858595146131117, 0.9887833785695763}
	wantKSG := []float64{0.5880296627320964, 0.39075884832079133, 1.184612140824603}
	for j, name := range names {
		if got := stats.MutualInfo(c[name], species, false, true); math.Abs(got-wantRoss[j]) > 1e-9 {
			t.Errorf("MutualInfo(%s, species, false, true) = %.15g, want %.15g", name, got, wantRoss[j])
		}
		if j < 3 {
			if got := stats.MutualInfo(c[name], c["petal_width"], false, false); math.Abs(got-wantKSG[j]) > 1e-9 {
				t.Errorf("MutualInfo(%s, petal_width, false, false) = %.15g, want %.15g", name, got, wantKSG[j])
			}
		}
	}
	round := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = math.RoundToEven(x)
		}
		return out
	}
	sl, pl := round(c["sepal_length"]), round(c["petal_length"])
	for _, tc := range []struct {
		name   string
		got    float64
		want   float64
		source string
	}{
		{"MutualInfo(round(sepal_length), species, false, true)", stats.MutualInfo(sl, species, false, true), 0.438136740243781, "ross_ref"},
		{"MutualInfo(round(sepal_length), species, true, true)", stats.MutualInfo(sl, species, true, true), 0.439861624916174, "mutual_info_score"},
		{"MutualInfo(round(sepal_length), round(petal_length), false, false)", stats.MutualInfo(sl, pl, false, false), 0.6247596819740773, "ksg_ref"},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %.15g, want %.15g (%s)", tc.name, tc.got, tc.want, tc.source)
		}
	}
}

// bruteKSG is the documented KSG rule by brute force (the script's
// ksg_ref in Go), to check the k-d tree on larger, tie-heavy samples.
func bruteKSG(x, y []float64) float64 {
	std := func(v []float64) float64 {
		var m, ss float64
		for _, a := range v {
			m += a
		}
		m /= float64(len(v))
		for _, a := range v {
			ss += (a - m) * (a - m)
		}
		return math.Sqrt(ss / float64(len(v)))
	}
	n := len(x)
	sx, sy := std(x), std(y)
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range x {
		xs[i], ys[i] = x[i]/sx, y[i]/sy
	}
	const k = 3
	var total float64
	for i := range n {
		d := make([]float64, 0, n-1)
		for j := range n {
			if j != i {
				d = append(d, max(math.Abs(xs[i]-xs[j]), math.Abs(ys[i]-ys[j])))
			}
		}
		rho := slices.Sorted(slices.Values(d))[k-1]
		if rho == 0 {
			t, tx, ty := 1, 1, 1
			for j := range n {
				if j != i {
					if xs[j] == xs[i] && ys[j] == ys[i] {
						t++
					}
					if xs[j] == xs[i] {
						tx++
					}
					if ys[j] == ys[i] {
						ty++
					}
				}
			}
			total += mathext.Digamma(float64(t)) - mathext.Digamma(float64(tx)) - mathext.Digamma(float64(ty))
			continue
		}
		var a, b, inX, inY, outX, outY, ltX, ltY float64
		for j := range n {
			if j == i {
				continue
			}
			dx, dy := math.Abs(xs[i]-xs[j]), math.Abs(ys[i]-ys[j])
			dj := max(dx, dy)
			switch {
			case dj < rho:
				a++
			case dj == rho:
				b++
			}
			if dx < rho {
				ltX++
			}
			if dy < rho {
				ltY++
			}
			if dx == rho {
				if dj == rho {
					inX++
				} else {
					outX++
				}
			}
			if dy == rho {
				if dj == rho {
					inY++
				} else {
					outY++
				}
			}
		}
		q := k - a
		nx := ltX + (q-1)*inX/b + q*outX/(b+1)
		ny := ltY + (q-1)*inY/b + q*outY/(b+1)
		total += mathext.Digamma(k) - mathext.Digamma(nx+1) - mathext.Digamma(ny+1)
	}
	return max(0, mathext.Digamma(float64(n))+total/float64(n))
}

func TestMutualInfoTreeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name   string
		n      int
		stepX  float64 // grid the values are rounded to; 0: none
		stepY  float64
		levels int // x drawn from this many levels; 0: continuous
	}{
		{"continuous", 400, 0, 0, 0},
		{"fine grid", 400, 0.1, 0.1, 0},
		{"coarse grid", 400, 0.5, 0.5, 0},
		{"very coarse", 400, 2, 1, 0},
		{"binary x", 300, 0, 0, 2},
		{"few levels both", 300, 0, 1, 4},
		{"x grid only", 400, 0.25, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := make([]float64, tc.n), make([]float64, tc.n)
			for i := range x {
				a := rng.NormFloat64()
				if tc.levels > 0 {
					a = float64(rng.IntN(tc.levels))
				}
				x[i] = a
				y[i] = 0.7*a + 0.5*rng.NormFloat64()
				if tc.stepX > 0 {
					x[i] = math.Round(x[i]/tc.stepX) * tc.stepX
				}
				if tc.stepY > 0 {
					y[i] = math.Round(y[i]/tc.stepY) * tc.stepY
				}
			}
			// mathext.Digamma is accurate to about 1e-10 at small integers.
			got, want := stats.MutualInfo(x, y, false, false), bruteKSG(x, y)
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("MutualInfo(%s) = %.15g, want %.15g (brute force)", tc.name, got, want)
			}
		})
	}
}

func TestMutualInfoEdgeCases(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		x, y   []float64
		xd, yd bool
		want   float64 // NaN: want NaN
	}{
		{"empty", nil, nil, false, false, nan},
		{"three pairs", []float64{1, 2, 3}, []float64{1, 2, 3}, false, false, nan},
		{"four pairs but one NaN", []float64{1, 2, 3, nan}, []float64{1, 2, 3, 4}, false, false, nan},
		{"constant x", []float64{1, 1, 1, 1, 1}, []float64{1, 2, 3, 4, 5}, false, false, 0},
		{"constant y, discrete", []float64{1, 2, 3, 4, 5}, []float64{0, 0, 0, 0, 0}, false, true, 0},
		{"all duplicates", []float64{2, 2, 2, 2, 3, 3, 3, 3}, []float64{5, 5, 5, 5, 6, 6, 6, 6}, false, false, 1.0/4 + 1.0/5 + 1.0/6 + 1.0/7}, // ψ(8) − ψ(4)
		{"singleton classes only", []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3}, false, true, 0},
	} {
		got := stats.MutualInfo(tc.x, tc.y, tc.xd, tc.yd)
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("MutualInfo(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Dropping non-finite pairs is the same as leaving them out.
	x, y := friedman(t)
	xn, yn := slices.Clone(x[0][:100]), slices.Clone(y[:100])
	xn[3], yn[7], xn[50] = math.NaN(), math.Inf(1), math.Inf(-1)
	var xc, yc []float64
	for i := range xn {
		if i != 3 && i != 7 && i != 50 {
			xc, yc = append(xc, xn[i]), append(yc, yn[i])
		}
	}
	if got, want := stats.MutualInfo(xn, yn, false, false), stats.MutualInfo(xc, yc, false, false); got != want {
		t.Errorf("MutualInfo(with NaN, ±Inf) = %v, want %v (pairs dropped)", got, want)
	}
	// KSG and the plug-in estimate are symmetric.
	if a, b := stats.MutualInfo(x[3], y, false, false), stats.MutualInfo(y, x[3], false, false); math.Abs(a-b) > 1e-12 {
		t.Errorf("MutualInfo(y, x3) = %v, want MutualInfo(x3, y) = %v", b, a)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MutualInfo(len 2, len 3) did not panic")
		}
	}()
	stats.MutualInfo([]float64{1, 2}, []float64{1, 2, 3}, false, false)
}

func TestDigamma(t *testing.T) {
	// scipy.special.digamma (printed by the script); tolerance 1e-14.
	at := []float64{1, 2.5, 7.25, 11.999, 12, 13.7, 1000.5}
	want := []float64{-0.5772156649015329, 0.7031566406452432, 1.9104535268837362, 2.442574774329119, 2.4426616799758123, 2.580455723899653, 6.907755320648796}
	for i, v := range at {
		if got := stats.DigammaAt(v); math.Abs(got-want[i]) > 1e-14 {
			t.Errorf("DigammaAt(%v) = %.17g, want %.17g", v, got, want[i])
		}
	}
	tab := stats.DigammaTable(20000)
	for _, n := range []int{1, 2, 12, 13, 500, 19999, 20000} {
		if got, want := tab[n], stats.DigammaAt(float64(n)); math.Abs(got-want) > 1e-14 {
			t.Errorf("DigammaTable(20000)[%d] = %.17g, want %.17g", n, got, want)
		}
	}
}

func TestMutualInfoDiscreteManyLevels(t *testing.T) {
	// The sparse joint table gives what the dense one does: x a copy of y
	// over 400 levels, I = H(y) = ln 400 (up to rounding).
	n := 4000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i % 400)
		y[i] = x[i]
	}
	if got, want := stats.MutualInfo(x, y, true, true), math.Log(400); math.Abs(got-want) > 1e-12 {
		t.Errorf("MutualInfo(400 levels, same, true, true) = %.15g, want ln 400 = %.15g", got, want)
	}
}
