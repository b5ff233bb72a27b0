package classify_test

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/internal/statstest"
	"gonum.org/v1/gonum/mat"
)

// loadCSV reads testdata/<name>.csv (iris, wine, breast_cancer: UCI
// Machine Learning Repository, CC BY 4.0, as bundled with scikit-learn;
// copies of /work/shared/data): every column but the last is an input,
// the last the class, classes ordered numerically when every label parses
// as a number, else as strings (MODELLING §7.1), as reference_trees.py.
func loadCSV(tb testing.TB, name string) classify.Data {
	tb.Helper()
	_, recs := statstest.ReadCSV(tb, "testdata/"+name+".csv")
	c := len(recs[0]) - 1
	x := mat.NewDense(len(recs), c, nil)
	labels := make([]string, len(recs))
	numeric := true
	for i, rec := range recs {
		for j, s := range rec[:c] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatalf("%s.csv row %d: %v", name, i+2, err)
			}
			x.Set(i, j, v)
		}
		labels[i] = rec[c]
		if _, err := strconv.ParseFloat(rec[c], 64); err != nil {
			numeric = false
		}
	}
	classes := slices.Compact(slices.Sorted(slices.Values(labels)))
	if numeric {
		num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		slices.SortFunc(classes, func(a, b string) int { return int(math.Copysign(1, num(a)-num(b))) })
	}
	y := make([]int, len(labels))
	for i, l := range labels {
		y[i] = slices.Index(classes, l)
	}
	return classify.Data{X: x, Y: y, K: len(classes)}
}

// subset returns the rows of d listed in rows.
func subset(d classify.Data, rows []int) classify.Data {
	_, c := d.X.Dims()
	out := classify.Data{X: mat.NewDense(len(rows), c, nil), Y: make([]int, len(rows)), K: d.K}
	for k, i := range rows {
		out.X.SetRow(k, d.X.RawRowView(i))
		out.Y[k] = d.Y[i]
		if d.W != nil {
			out.W = append(out.W, d.W[i])
		}
	}
	return out
}

// complement returns the rows 0…n−1 not in test.
func complement(n int, test []int) []int {
	in := make([]bool, n)
	for _, i := range test {
		in[i] = true
	}
	var out []int
	for i := range n {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

// macroF1 is the mean over classes of per-class F1 (MODELLING §7.2).
func macroF1(y, pred []int, k int) float64 {
	tp, fp, fn := make([]float64, k), make([]float64, k), make([]float64, k)
	for i, c := range y {
		if pred[i] == c {
			tp[c]++
		} else {
			fp[pred[i]]++
			fn[c]++
		}
	}
	var s float64
	for c := range k {
		if d := 2*tp[c] + fp[c] + fn[c]; d > 0 {
			s += 2 * tp[c] / d
		}
	}
	return s / float64(k)
}

// cvMacroF1 is the mean macro-F1 of a over the given test folds of d.
func cvMacroF1(tb testing.TB, a classify.Algorithm, d classify.Data, folds [][]int, seed uint64) (float64, []float64) {
	tb.Helper()
	n, _ := d.X.Dims()
	var sum float64
	var per []float64
	for _, test := range folds {
		m, err := a.Fit(subset(d, complement(n, test)), classify.Options{Seed: seed, Workers: 2})
		if err != nil {
			tb.Fatalf("%s.Fit(fold) error %v", a.Key(), err)
		}
		te := subset(d, test)
		var p mat.Dense
		m.Proba(te.X, &p)
		f := macroF1(te.Y, classify.Predict(&p), d.K)
		per = append(per, f)
		sum += f
	}
	return sum / float64(len(folds)), per
}

// balanced returns the balance weights of MODELLING §7.5, n / (K·n_k).
func balanced(y []int, k int) []float64 {
	cnt := make([]float64, k)
	for _, c := range y {
		cnt[c]++
	}
	w := make([]float64, len(y))
	for i, c := range y {
		w[i] = float64(len(y)) / (float64(k) * cnt[c])
	}
	return w
}

// splitmix returns n uniforms in [0, 1) from SplitMix64 seeded 42, as
// reference_trees.py's splitmix, so both sides see the same data.
func splitmix(n int) []float64 {
	out := make([]float64, n)
	s := uint64(42)
	for i := range out {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		out[i] = float64(z>>11) * 0x1p-53
	}
	return out
}

// synthetic returns the first n rows of the three-class set of
// reference_trees.py: d uniform inputs, s = sin(3x0) + x1·x2 +
// 4(x3 − ½)² − x4 + noise, classes cut at s = 0.3 and 0.8.
func synthetic(n, d int) classify.Data {
	u := splitmix(n * (d + 1))
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := range n {
		r := u[i*(d+1) : (i+1)*(d+1)]
		x.SetRow(i, r[:d])
		s := math.Sin(3*r[0]) + r[1]*r[2] + 4*(r[3]-0.5)*(r[3]-0.5) - r[4] + 0.5*(r[d]-0.5)
		if s > 0.3 {
			y[i]++
		}
		if s > 0.8 {
			y[i]++
		}
	}
	return classify.Data{X: x, Y: y, K: 3}
}
