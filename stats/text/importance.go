package text

import (
	"math"
	"slices"
	"sort"
)

// yBins is the number of quantile bins of a continuous target in
// Importance's mutual information: its deciles.
const yBins = 10

// Importance scores each column of x against the target y, one value per
// row of x, as MODELLING §9's feature importance does, computed sparsely:
//
//	importance_j = max(L_j / max_i L_i, N_j / max_i N_i) ∈ [0, 1]
//
// The linear score L_j is |Pearson r(x_j, y)| for a continuous target and,
// when discrete is true (y holds class labels 0, 1, …, k−1 as float64), the
// correlation ratio η_j = √(between-class SS / total SS) of x_j across the
// classes. The nonlinear score N_j is the plug-in mutual information, in
// nats, between the presence of the term (x_j > 0) and the class, or, for a
// continuous target, the decile bin of y (bins cut at the distinct deciles
// of y over the rows).
//
// Why not §9's k-NN estimators (KSG, Ross): a text column has 10⁴–10⁵ term
// columns, each almost all zeros. A k-NN estimate costs a sort and a
// neighbour search over every row for every column, O(d · n log n), and
// degenerates on columns that are 0 in nearly every row (the neighbours are
// ties); presence against the class counts a 2 × k table per column, and all
// the tables, like the sums of L_j, fill in one pass over the non-zeros:
// O(nnz + d · k) time, O(d · k) memory, no dense matrix.
//
// Rows whose y is NaN or ±Inf are ignored. A column constant over the other
// rows (never present, or present everywhere with one value) scores 0; a
// maximum of 0 contributes 0, so every column scores 0 when y is constant.
// It panics when len(y) differs from x.Rows, or, when discrete is true, on
// a label that is not an integer in [0, 2^20).
func Importance(x *CSR, y []float64, discrete bool) []float64 {
	if len(y) != x.Rows {
		panic("text: Importance length mismatch")
	}
	d := x.Cols
	out := make([]float64, d)
	labels, k := importanceLabels(y, discrete)
	n := 0
	var classN []float64
	if k > 0 {
		classN = make([]float64, k)
	}
	ySum := 0.0
	for i, c := range labels {
		if c >= 0 {
			n++
			classN[c]++
			ySum += y[i]
		}
	}
	if n < 2 || k < 2 {
		return out
	}
	yMean := ySum / float64(n)

	// One pass over the non-zeros of the usable rows.
	var (
		sum     = make([]float64, d)   // Σ x
		sumSq   = make([]float64, d)   // Σ x²
		sumXY   []float64              // Σ x (y − ȳ), continuous y
		sumCls  []float64              // Σ x per class, d × k, discrete y
		present = make([]float64, d*k) // rows with x > 0, per bin or class
		nnz     = make([]int, d)
		lo      = make([]float64, d) // least and greatest stored value
		hi      = make([]float64, d)
	)
	if discrete {
		sumCls = make([]float64, d*k)
	} else {
		sumXY = make([]float64, d)
	}
	for i, c := range labels {
		if c < 0 {
			continue
		}
		yc := y[i] - yMean
		for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
			j, v := int(x.Indices[p]), x.Data[p]
			if nnz[j] == 0 || v < lo[j] {
				lo[j] = v
			}
			if nnz[j] == 0 || v > hi[j] {
				hi[j] = v
			}
			nnz[j]++
			sum[j] += v
			sumSq[j] += v * v
			if discrete {
				sumCls[j*k+c] += v
			} else {
				sumXY[j] += v * yc
			}
			if v > 0 {
				present[j*k+c]++
			}
		}
	}

	syy := 0.0
	if !discrete {
		for i, c := range labels {
			if c >= 0 {
				syy += (y[i] - yMean) * (y[i] - yMean)
			}
		}
	}
	hy := entropy(classN, float64(n))
	fn := float64(n)
	lin := make([]float64, d)
	nonlin := make([]float64, d)
	for j := range d {
		constant := nnz[j] == 0 || (nnz[j] == n && lo[j] == hi[j]) ||
			(nnz[j] < n && lo[j] == 0 && hi[j] == 0)
		if constant {
			continue
		}
		sst := sumSq[j] - sum[j]*sum[j]/fn // total SS of x_j
		if sst <= 0 {
			continue
		}
		if discrete {
			ssb := -sum[j] * sum[j] / fn
			for c := range k {
				if classN[c] > 0 {
					s := sumCls[j*k+c]
					ssb += s * s / classN[c]
				}
			}
			lin[j] = math.Sqrt(min(max(ssb/sst, 0), 1))
		} else if syy > 0 {
			lin[j] = min(math.Abs(sumXY[j])/math.Sqrt(sst*syy), 1)
		}
		nonlin[j] = presenceMI(present[j*k:(j+1)*k], classN, fn, hy)
	}
	maxL, maxN := 0.0, 0.0
	for j := range d {
		maxL, maxN = max(maxL, lin[j]), max(maxN, nonlin[j])
	}
	for j := range d {
		var l, nl float64
		if maxL > 0 {
			l = lin[j] / maxL
		}
		if maxN > 0 {
			nl = nonlin[j] / maxN
		}
		out[j] = max(l, nl)
	}
	return out
}

// maxLabels bounds the class labels Importance accepts, so that a stray
// value cannot make it allocate columns × label tables.
const maxLabels = 1 << 20

// importanceLabels returns the class (discrete) or decile bin (continuous)
// of each row, −1 for a row whose y is not finite, and the number of
// classes or bins.
func importanceLabels(y []float64, discrete bool) ([]int, int) {
	labels := make([]int, len(y))
	if discrete {
		k := 0
		for i, v := range y {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				labels[i] = -1
			case v < 0 || v >= maxLabels || v != math.Trunc(v):
				panic("text: Importance class label not an integer in [0, 2^20)")
			default:
				labels[i] = int(v)
				k = max(k, int(v)+1)
			}
		}
		return labels, k
	}
	var finite []float64
	for _, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		for i := range labels {
			labels[i] = -1
		}
		return labels, 0
	}
	slices.Sort(finite)
	// Cut points: the distinct deciles (the lower order statistic at
	// q·(n−1)), so a bin holds the values in (cut[b−1], cut[b]].
	var cuts []float64
	for q := 1; q < yBins; q++ {
		c := finite[q*(len(finite)-1)/yBins]
		if len(cuts) == 0 || c > cuts[len(cuts)-1] {
			cuts = append(cuts, c)
		}
	}
	if cuts[len(cuts)-1] == finite[len(finite)-1] {
		cuts = cuts[:len(cuts)-1] // no empty top bin
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			labels[i] = -1
			continue
		}
		labels[i] = sort.SearchFloat64s(cuts, v)
	}
	return labels, len(cuts) + 1
}

// entropy returns the entropy in nats of the counts, which sum to n.
func entropy(counts []float64, n float64) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			h -= c / n * math.Log(c/n)
		}
	}
	return h
}

// presenceMI returns the plug-in mutual information between a binary
// presence and the class, from the rows present per class, the rows per
// class, their total n and the class entropy hy: I = H(Y) − H(Y | presence).
func presenceMI(present, classN []float64, n, hy float64) float64 {
	np := 0.0
	for _, a := range present {
		np += a
	}
	if np == 0 || np == n {
		return 0
	}
	hc := 0.0 // n · H(Y | presence)
	for c, a := range present {
		if a > 0 {
			hc -= a * math.Log(a/np)
		}
		if b := classN[c] - a; b > 0 {
			hc -= b * math.Log(b/(n-np))
		}
	}
	return max(hy-hc/n, 0)
}
