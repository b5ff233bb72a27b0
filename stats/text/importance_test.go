package text

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
)

// denseCSR builds a CSR from dense rows.
func denseCSR(rows [][]float64) *CSR {
	m := stats.NewCSR(len(rows), len(rows[0]), 0)
	for _, r := range rows {
		for j, v := range r {
			if v != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, v)
			}
		}
		m.Indptr = append(m.Indptr, len(m.Data))
		m.Rows++
	}
	return m
}

func TestImportanceSeparates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 400
	docs := make([]string, n)
	y := make([]float64, n)
	for i := range docs {
		c := i % 2
		y[i] = float64(c)
		doc := "filler words here"
		if c == 1 {
			doc += " refund"
		}
		if rng.IntN(2) == 0 {
			doc += " random"
		}
		if rng.IntN(3) == 0 {
			doc += " occasional"
		}
		docs[i] = doc
	}
	voc, m := Fit(docs)
	imp := Importance(m, y, true)
	terms := termsByText(voc)
	if got := imp[terms["refund"].Rank]; got != 1 {
		t.Errorf(`Importance("refund") = %v, want 1`, got)
	}
	for _, w := range []string{"random", "occasional"} {
		if got := imp[terms[w].Rank]; got > 0.2 {
			t.Errorf("Importance(%q) = %v, want < 0.2", w, got)
		}
	}
	for j, v := range imp {
		if v < 0 || v > 1 || math.IsNaN(v) {
			t.Errorf("Importance[%d] (%q) = %v, outside [0, 1]", j, voc.Terms[j].Text, v)
		}
	}
}

func TestImportanceDegenerate(t *testing.T) {
	x := denseCSR([][]float64{
		{0, 1, 0.5, 0},
		{0, 1, 0, 0},
		{0, 1, 0.25, 0},
		{0, 1, 0, 0.5},
	})
	// Columns 0 (never present) and 1 (present everywhere, one value) are
	// constant and score 0.
	for _, c := range []struct {
		y        []float64
		discrete bool
	}{
		{[]float64{0, 1, 0, 1}, true},
		{[]float64{3, 1, 2, 8}, false},
	} {
		imp := Importance(x, c.y, c.discrete)
		if imp[0] != 0 || imp[1] != 0 || imp[2] <= 0 || imp[3] <= 0 || max(imp[2], imp[3]) != 1 {
			t.Errorf("Importance(y=%v, discrete %v) = %v", c.y, c.discrete, imp)
		}
	}
	// A constant target, non-finite targets, no rows: zeros.
	for _, y := range [][]float64{{1, 1, 1, 1}, {math.NaN(), math.Inf(1), 2, math.NaN()}} {
		for _, discrete := range []bool{false, true} {
			if imp := Importance(x, y, discrete); slices.ContainsFunc(imp, func(v float64) bool { return v != 0 }) {
				t.Errorf("Importance(y=%v, discrete %v) = %v, want zeros", y, discrete, imp)
			}
		}
	}
	if imp := Importance(&CSR{Cols: 2, Indptr: []int{0}}, nil, false); !slices.Equal(imp, []float64{0, 0}) {
		t.Errorf("Importance(no rows) = %v", imp)
	}
	for _, bad := range [][]float64{{0, 1, 0.5, 1}, {0, 1, -1, 1}, {1, 2, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Importance(y=%v, discrete) did not panic", bad)
				}
			}()
			Importance(x, bad, true)
		}()
	}
}

// TestImportanceDense checks the sparse pass against the definitions
// computed densely, column by column, with textbook two-pass formulas.
func TestImportanceDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 300, 12
	rows := make([][]float64, n)
	ycls := make([]float64, n)
	ycont := make([]float64, n)
	for i := range rows {
		ycls[i] = float64(rng.IntN(3))
		ycont[i] = math.Round(rng.NormFloat64()*3) + ycls[i] // ties on purpose
		rows[i] = make([]float64, d)
		for j := range d {
			if rng.Float64() < 0.05+0.1*float64(j%4)+0.1*ycls[i]*float64(j%3) {
				rows[i][j] = rng.Float64()
			}
		}
	}
	ycont[7] = math.NaN() // ignored
	x := denseCSR(rows)
	for _, discrete := range []bool{true, false} {
		y := ycont
		if discrete {
			y = ycls
		}
		want := denseImportance(rows, y, discrete)
		got := Importance(x, y, discrete)
		for j := range d {
			if math.Abs(got[j]-want[j]) > 1e-12 {
				t.Errorf("discrete %v: Importance[%d] = %v, dense %v", discrete, j, got[j], want[j])
			}
		}
	}
}

// denseImportance is Importance's definition on dense columns.
func denseImportance(rows [][]float64, y []float64, discrete bool) []float64 {
	var keep []int
	for i, v := range y {
		if !math.IsNaN(v) {
			keep = append(keep, i)
		}
	}
	yv := make([]float64, len(keep))
	for k, i := range keep {
		yv[k] = y[i]
	}
	// Labels: classes, or decile bins (lower order statistic cut points).
	lab := make([]int, len(yv))
	if discrete {
		for k, v := range yv {
			lab[k] = int(v)
		}
	} else {
		s := slices.Sorted(slices.Values(yv))
		var cuts []float64
		for q := 1; q < 10; q++ {
			c := s[q*(len(s)-1)/10]
			if !slices.Contains(cuts, c) && c < s[len(s)-1] {
				cuts = append(cuts, c)
			}
		}
		for k, v := range yv {
			for _, c := range cuts {
				if v > c {
					lab[k]++
				}
			}
		}
	}
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	d := len(rows[0])
	lin, nonlin := make([]float64, d), make([]float64, d)
	for j := range d {
		x := make([]float64, len(keep))
		for k, i := range keep {
			x[k] = rows[i][j]
		}
		mx, my := mean(x), mean(yv)
		var sxx, sxy, syy float64
		for k := range x {
			sxx += (x[k] - mx) * (x[k] - mx)
			sxy += (x[k] - mx) * (yv[k] - my)
			syy += (yv[k] - my) * (yv[k] - my)
		}
		if discrete {
			ssb := 0.0
			for c := range 3 {
				var xc []float64
				for k := range x {
					if lab[k] == c {
						xc = append(xc, x[k])
					}
				}
				ssb += float64(len(xc)) * (mean(xc) - mx) * (mean(xc) - mx)
			}
			lin[j] = math.Sqrt(ssb / sxx)
		} else {
			lin[j] = math.Abs(sxy) / math.Sqrt(sxx*syy)
		}
		// Plug-in I(presence; label) = Σ p(a, c) ln(p(a, c) / (p(a) p(c))).
		joint := map[[2]int]float64{}
		pa, pc := map[int]float64{}, map[int]float64{}
		nf := float64(len(x))
		for k := range x {
			a := 0
			if x[k] > 0 {
				a = 1
			}
			joint[[2]int{a, lab[k]}] += 1 / nf
			pa[a] += 1 / nf
			pc[lab[k]] += 1 / nf
		}
		for key, p := range joint {
			nonlin[j] += p * math.Log(p/(pa[key[0]]*pc[key[1]]))
		}
	}
	maxL, maxN := slices.Max(lin), slices.Max(nonlin)
	out := make([]float64, d)
	for j := range d {
		out[j] = max(lin[j]/maxL, nonlin[j]/maxN)
	}
	return out
}
