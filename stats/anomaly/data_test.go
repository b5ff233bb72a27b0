package anomaly_test

import (
	"encoding/csv"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// loadCSV reads ../classify/testdata/<name>.csv (wine, breast_cancer: UCI
// Machine Learning Repository, CC BY 4.0, as bundled with scikit-learn):
// every column but the last as x, the last as labels.
func loadCSV(tb testing.TB, name string) (*mat.Dense, []string) {
	tb.Helper()
	f, err := os.Open("../classify/testdata/" + name + ".csv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	recs = recs[1:]
	c := len(recs[0]) - 1
	x := mat.NewDense(len(recs), c, nil)
	labels := make([]string, len(recs))
	for i, rec := range recs {
		for j, s := range rec[:c] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatal(err)
			}
			x.Set(i, j, v)
		}
		labels[i] = rec[c]
	}
	return x, labels
}

// rows returns the rows idx of x.
func rows(x *mat.Dense, idx []int) *mat.Dense {
	_, c := x.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for i, r := range idx {
		out.SetRow(i, x.RawRowView(r))
	}
	return out
}

// task builds a labelled anomaly task as testdata/reference.py does:
// every row whose label is in normal, plus the rows picked (file
// indices), in file order; y is 1 on the picked rows.
func task(tb testing.TB, name string, normal []string, picked []int) (*mat.Dense, []int) {
	tb.Helper()
	x, lab := loadCSV(tb, name)
	var idx, y []int
	for i, l := range lab {
		switch {
		case slices.Contains(picked, i):
			idx, y = append(idx, i), append(y, 1)
		case slices.Contains(normal, l):
			idx, y = append(idx, i), append(y, 0)
		}
	}
	return rows(x, idx), y
}

// aucOf is the ROC-AUC of score (higher = more anomalous) for labels y,
// ties counted one half (Mann–Whitney).
func aucOf(y []int, score []float64) float64 {
	r := ranks(score)
	var sum float64
	pos := 0
	for i, v := range y {
		if v == 1 {
			sum += r[i]
			pos++
		}
	}
	neg := len(y) - pos
	return (sum - float64(pos*(pos+1))/2) / float64(pos*neg)
}

// ranks returns 1-based ranks with ties averaged.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

// spearman is the rank correlation of a and b.
func spearman(a, b []float64) float64 {
	return stat.Correlation(ranks(a), ranks(b), nil)
}

func negate(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300)
}
