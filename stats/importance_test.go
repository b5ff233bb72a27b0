package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
	"gonum.org/v1/gonum/mat"
)

// Expected values come from testdata/reference_importance.py (see
// mutualinfo_test.go): η and |r| from NumPy, mutual information from
// scikit-learn 1.2.1 on friedman1 and from the script's brute-force
// ross_ref / ksg_ref on iris; importance = max(L/max L, N/max N).

// matrix builds the n×d matrix whose columns are cols.
func matrix(cols ...[]float64) *mat.Dense {
	n, d := len(cols[0]), len(cols)
	m := mat.NewDense(n, d, nil)
	for j, c := range cols {
		m.SetCol(j, c)
	}
	return m
}

func assertClose(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
	for j := range want {
		if math.IsNaN(want[j]) != math.IsNaN(got[j]) || !math.IsNaN(want[j]) && math.Abs(got[j]-want[j]) > tol {
			t.Errorf("%s[%d] = %.15g, want %.15g", name, j, got[j], want[j])
		}
	}
}

// order returns the column indices by descending score.
func order(s []float64) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s[a] > s[b]:
			return -1
		case s[a] < s[b]:
			return 1
		}
		return 0
	})
	return idx
}

func iris(tb testing.TB) (*mat.Dense, []float64) {
	tb.Helper()
	c := readCSV(tb, "iris.csv")
	return matrix(c["sepal_length"], c["sepal_width"], c["petal_length"], c["petal_width"]), c["species"]
}

func TestFeatureImportanceIris(t *testing.T) {
	x, species := iris(t)
	discrete := make([]bool, 4)
	lin, nonlin := stats.Scores(x, species, discrete, true, 1, 1)
	// η: the script's eta() (NumPy), tolerance 1e-12.
	assertClose(t, "Scores(iris).L", lin, []float64{0.7865784962344735, 0.6330741244722723, 0.9702431236846608, 0.9637857283137229}, 1e-12)
	// Ross with the tie rule: ross_ref, tolerance 1e-9.
	assertClose(t, "Scores(iris).N", nonlin, []float64{0.4822946344450987, 0.24940720134912198, 0.9858595146131117, 0.9887833785695763}, 1e-9)

	got := stats.FeatureImportance(x, species, discrete, true, 1, 2)
	assertClose(t, "FeatureImportance(iris)", got, []float64{0.810702469343261, 0.6524901944865811, 1.0, 1.0}, 1e-9)
	// Petal length (η) and petal width (MI) lead, sepal width is last: the
	// order the former service reported (MODELLING §9).
	if o := order(got); !(o[0] >= 2 && o[1] >= 2 && o[3] == 1) {
		t.Errorf("FeatureImportance(iris) order = %v, want petal columns 2, 3 first and sepal_width (1) last", o)
	}
	// MI / ln 3 near the former service's 0.465, 0.259, 0.890, 0.893.
	for j, want := range []float64{0.465, 0.259, 0.890, 0.893} {
		if r := nonlin[j] / math.Log(3); math.Abs(r-want) > 0.04 {
			t.Errorf("Scores(iris).N[%d] / ln 3 = %.3f, want %.3f ± 0.04", j, r, want)
		}
	}
}

func TestFeatureImportanceIrisRegression(t *testing.T) {
	// petal_width as a numeric target of the other three columns: |r| and
	// KSG with ties.
	c := readCSV(t, "iris.csv")
	x := matrix(c["sepal_length"], c["sepal_width"], c["petal_length"])
	got := stats.FeatureImportance(x, c["petal_width"], make([]bool, 3), false, 1, 1)
	assertClose(t, "FeatureImportance(iris, petal_width)", got, []float64{0.8494864387019476, 0.3802462115635737, 1.0}, 1e-9)
}

func TestFeatureImportanceFriedman(t *testing.T) {
	cols, y := friedman(t)
	x := matrix(cols...)
	discrete := make([]bool, 10)
	lin, nonlin := stats.Scores(x, y, discrete, false, 1, 3)
	// |np.corrcoef|, tolerance 1e-12; mutual_info_regression, 1e-9.
	assertClose(t, "Scores(friedman1).L", lin, []float64{0.4123584333323117, 0.40131624163523333, 0.006039783748470479, 0.5817666773847476, 0.2984434496350056, 0.009282279411825457, 0.07895024955560288, 0.09022111637671625, 0.013537395809884684, 0.03491160642790203}, 1e-12)
	assertClose(t, "Scores(friedman1).N", nonlin, []float64{0.1241685648594637, 0.09901554608967444, 0.02550717612493658, 0.22300517772763762, 0.0621179989093088, 0.0, 0.0, 0.04449336828268846, 0.0, 0.008099607640138728}, 1e-9)

	got := stats.FeatureImportance(x, y, discrete, false, 1, 3)
	assertClose(t, "FeatureImportance(friedman1)", got, []float64{0.7088038029025873, 0.6898233557124576, 0.11437930000033093, 1.0, 0.5129950910502767, 0.01595533015667496, 0.1357077547145067, 0.1995171983720909, 0.02326945893625292, 0.060009635795646415}, 1e-9)
	// y = 10 sin(π x0 x1) + 20 (x2 − 0.5)² + 10 x3 + 5 x4 + noise: x3 leads,
	// x0 and x1 follow, the noise columns x5..x9 score below all of x0, x1,
	// x3, x4. (x2 enters through a symmetric square, which neither |r| nor
	// 500 rows of KSG detect well.)
	o := order(got)
	if o[0] != 3 || !(o[1] <= 1 && o[2] <= 1) {
		t.Errorf("FeatureImportance(friedman1) order = %v, want 3 first, then 0 and 1", o)
	}
	for _, noise := range []int{5, 6, 7, 8, 9} {
		for _, signal := range []int{0, 1, 3, 4} {
			if got[noise] >= got[signal] {
				t.Errorf("FeatureImportance(friedman1)[x%d] = %.3f, want below x%d's %.3f", noise, got[noise], signal, got[signal])
			}
		}
	}

	// Tertiles of y as classes: η and Ross (ross_ref), 1e-9.
	got = stats.FeatureImportance(x, tertiles(y), discrete, true, 1, 3)
	assertClose(t, "FeatureImportance(friedman1, tertiles)", got, []float64{0.7157803792938862, 0.6486475150758831, 0.2167965504761315, 1.0, 0.469426488153679, 0.053645084868136926, 0.08377201323391613, 0.4130830091567332, 0.09248237678403992, 0.1550665762447136}, 1e-9)
}

func TestFeatureImportanceDiscreteColumns(t *testing.T) {
	// A one-hot column takes Ross against a numeric target and the
	// plug-in estimate against classes, exactly as MutualInfo does.
	cols, y := friedman(t)
	xb := indicator(cols[0], 0.5)
	x := matrix(cols[3], xb)
	discrete := []bool{false, true}
	_, nonlin := stats.Scores(x, y, discrete, false, 1, 1)
	assertClose(t, "Scores(x3, x0 > 0.5; y).N", nonlin, []float64{0.22300517772763762, 0.06713342795588528}, 1e-9)
	y3 := tertiles(y)
	lin, nonlin := stats.Scores(x, y3, discrete, true, 1, 1)
	assertClose(t, "Scores(x3, x0 > 0.5; tertiles).N", nonlin, []float64{0.1741661564693675, 0.07182362639384662}, 1e-9)
	if want := stats.CorrelationRatio(xb, y3); lin[1] != want {
		t.Errorf("Scores(x3, x0 > 0.5; tertiles).L[1] = %v, want η = %v", lin[1], want)
	}
}

func TestCorrelationRatio(t *testing.T) {
	// Hand-worked: classes {1, 2, 3} and {7, 9}: mean 4.4, class means 2
	// and 8; SSB = 3·2.4² + 2·3.6² = 43.2, SST = 47.2.
	x := []float64{1, 2, 3, 7, 9}
	cl := []float64{0, 0, 0, 1, 1}
	if got, want := stats.CorrelationRatio(x, cl), math.Sqrt(43.2/47.2); math.Abs(got-want) > 1e-15 {
		t.Errorf("CorrelationRatio(%v, %v) = %v, want %v", x, cl, got, want)
	}
	// For two classes η is |point-biserial r| = |Pearson r(x, class)|.
	lin, _ := stats.Scores(matrix(x), cl, []bool{false}, false, 1, 1)
	if got := stats.CorrelationRatio(x, cl); math.Abs(got-lin[0]) > 1e-15 {
		t.Errorf("CorrelationRatio(%v, %v) = %v, want |r| = %v", x, cl, got, lin[0])
	}
}

func TestFeatureImportanceEdgeCases(t *testing.T) {
	nan := math.NaN()
	isNaN := func(v []float64) bool {
		for _, a := range v {
			if !math.IsNaN(a) {
				return false
			}
		}
		return true
	}
	cols, y := friedman(t)
	konst := make([]float64, len(y))
	for i := range konst {
		konst[i] = 4.2
	}

	// A constant column is NaN; the others are unaffected.
	got := stats.FeatureImportance(matrix(cols[3], konst, cols[0]), y, make([]bool, 3), false, 1, 2)
	want := stats.FeatureImportance(matrix(cols[3], cols[0]), y, make([]bool, 2), false, 1, 2)
	assertClose(t, "FeatureImportance(x3, constant, x0)", got, []float64{want[0], nan, want[1]}, 0)

	// All columns constant, a constant target, or fewer than 4 rows: all NaN.
	if got := stats.FeatureImportance(matrix(konst, konst), y, make([]bool, 2), false, 1, 1); !isNaN(got) || len(got) != 2 {
		t.Errorf("FeatureImportance(all constant) = %v, want [NaN NaN]", got)
	}
	if got := stats.FeatureImportance(matrix(cols[0], cols[1]), konst, make([]bool, 2), true, 1, 1); !isNaN(got) {
		t.Errorf("FeatureImportance(constant target) = %v, want all NaN", got)
	}
	for n := 1; n < 4; n++ {
		x := matrix(cols[0][:n], cols[1][:n])
		for _, disc := range []bool{false, true} {
			if got := stats.FeatureImportance(x, y[:n], []bool{disc, disc}, disc, 1, 1); !isNaN(got) {
				t.Errorf("FeatureImportance(%d rows, discrete %v) = %v, want all NaN", n, disc, got)
			}
		}
	}
	if got := stats.FeatureImportance(&mat.Dense{}, nil, nil, false, 1, 1); len(got) != 0 {
		t.Errorf("FeatureImportance(empty) = %v, want []", got)
	}

	// Missing values: rows with a NaN target are ignored, and so are rows
	// with a NaN in the column being scored; an all-NaN column is NaN.
	xn := slices.Clone(cols[0])
	yn := slices.Clone(y)
	allNaN := make([]float64, len(y))
	for i := range allNaN {
		allNaN[i] = nan
	}
	xn[10], yn[20] = nan, nan
	got = stats.FeatureImportance(matrix(xn, cols[3], allNaN), yn, make([]bool, 3), false, 1, 1)
	var xc, x3c, yc []float64
	for i := range y {
		if i != 20 {
			xc, x3c, yc = append(xc, cols[0][i]), append(x3c, cols[3][i]), append(yc, y[i])
		}
	}
	xc[10] = nan // row 10 precedes the dropped row 20
	want = stats.FeatureImportance(matrix(xc, x3c), yc, make([]bool, 2), false, 1, 1)
	assertClose(t, "FeatureImportance(with NaN)", got, []float64{want[0], want[1], nan}, 0)

	// Every column independent of y scores 0, not NaN: a zero maximum
	// contributes 0.
	x := matrix([]float64{0, 1, 0, 1, 0, 1, 0, 1}, []float64{0, 0, 1, 1, 0, 0, 1, 1})
	yy := []float64{0, 0, 0, 0, 1, 1, 1, 1}
	if got := stats.FeatureImportance(x, yy, []bool{true, true}, true, 1, 1); got[0] != 0 || got[1] != 0 {
		t.Errorf("FeatureImportance(independent) = %v, want [0 0]", got)
	}

	defer func() {
		if recover() == nil {
			t.Errorf("FeatureImportance(len(discrete) 1 for 2 columns) did not panic")
		}
	}()
	stats.FeatureImportance(matrix(cols[0], cols[1]), y, []bool{false}, false, 1, 1)
}

// synthetic returns n rows of d uniform columns and y = sin(2π x0) +
// 2 x1 + (x2 > 0.5) + noise; column 3 is a one-hot of x1 > 0.5 and the
// columns from 4 on are noise, every other one rounded to 1/10 (ties).
func synthetic(n, d int, seed uint64) (*mat.Dense, []float64, []bool) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	discrete := make([]bool, d)
	discrete[3] = true
	for i := range n {
		for j := range d {
			v := rng.Float64()
			if j >= 4 && j%2 == 0 {
				v = math.Round(v*10) / 10
			}
			x.Set(i, j, v)
		}
		x.Set(i, 3, 0)
		if x.At(i, 1) > 0.5 {
			x.Set(i, 3, 1)
		}
		step := 0.0
		if x.At(i, 2) > 0.5 {
			step = 1
		}
		y[i] = math.Sin(2*math.Pi*x.At(i, 0)) + 2*x.At(i, 1) + step + 0.3*rng.NormFloat64()
	}
	return x, y, discrete
}

func TestFeatureImportanceSampleAndWorkers(t *testing.T) {
	// More than 20 000 rows: the mutual information sees a sample drawn
	// from the seed, the result depends only on the arguments.
	x, y, discrete := synthetic(21_000, 6, 1)
	a := stats.FeatureImportance(x, y, discrete, false, 7, 1)
	if b := stats.FeatureImportance(x, y, discrete, false, 7, 4); !slices.Equal(a, b) {
		t.Errorf("FeatureImportance(workers 4) = %v, want %v (workers 1)", b, a)
	}
	// L uses every row, N the sample.
	la, na := stats.Scores(x, y, discrete, false, 7, 2)
	lc, nc := stats.Scores(x, y, discrete, false, 8, 2)
	if !slices.Equal(la, lc) || slices.Equal(na, nc) {
		t.Errorf("Scores(seed 8) = %v, %v, want the L of seed 7 (%v) and another N than %v", lc, nc, la, na)
	}
	// x0 acts through a sine: the largest MI, little correlation; x1
	// linearly: the largest |r|. Both score 1 (the two normalised
	// measures of §9); x2 and the one-hot x3 follow; noise stays low.
	if a[0] != 1 || a[1] != 1 {
		t.Errorf("FeatureImportance(synthetic)[:2] = %.3f, want [1 1]", a[:2])
	}
	for j := 4; j < 6; j++ {
		if a[j] > 0.05 || a[j] >= a[2] || a[j] >= a[3] {
			t.Errorf("FeatureImportance(synthetic)[%d] = %.3f, want a noise score below 0.05 and below x2, x3 (%.3f, %.3f)", j, a[j], a[2], a[3])
		}
	}
}

func BenchmarkFeatureImportance(b *testing.B) {
	const n, d = 20_000, 50
	for _, bc := range []struct {
		name     string
		classify bool
	}{
		{"regression", false},
		{"classification", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			x, y, discrete := synthetic(n, d, 1)
			if bc.classify {
				for i, v := range y {
					y[i] = math.Floor(v) // about five classes
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				stats.FeatureImportance(x, y, discrete, bc.classify, 1, 2)
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
