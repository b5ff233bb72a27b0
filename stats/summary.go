package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Summary describes a sample of finite numbers.
type Summary struct {
	N        int
	Min, Max float64
	Mean     float64
	// Median is the middle value; for an even count the mean of the two
	// middle values (MODELLING §11, verified against the former service).
	Median float64
	// Variance is the sample variance (divisor n−1) and StdDev its square
	// root; both are NaN for fewer than two values.
	Variance, StdDev float64
	// Mode is the most frequent value; ties go to the smallest.
	Mode     float64
	Distinct int
	Buckets  []Bucket
}

// Bucket is one equal-width histogram bin [Min, Max) (the last one closed).
type Bucket struct {
	Min, Max float64
	Count    int
}

// Describe summarises x with nbuckets equal-width buckets over [min, max].
// It sorts x in place (that one sort yields the median, the mode and the
// distinct count). x must hold finite values only; an empty x gives the
// zero Summary.
func Describe(x []float64, nbuckets int) Summary {
	s := Summary{N: len(x)}
	if len(x) == 0 {
		return s
	}
	slices.Sort(x)
	s.Min, s.Max = x[0], x[len(x)-1]
	s.Mean, s.Variance = stat.MeanVariance(x, nil)
	if len(x) < 2 {
		s.Variance = math.NaN()
	}
	s.StdDev = math.Sqrt(s.Variance)
	if n := len(x); n%2 == 1 {
		s.Median = x[n/2]
	} else {
		s.Median = (x[n/2-1] + x[n/2]) / 2
	}
	best, run := 0, 0
	for i := range x {
		if i == 0 || x[i] != x[i-1] {
			s.Distinct++
			run = 0
		}
		run++
		if run > best {
			best, s.Mode = run, x[i]
		}
	}
	s.Buckets = histogram(x, nbuckets)
	return s
}

// histogram counts sorted x into n equal-width buckets over [x0, xn].
func histogram(x []float64, n int) []Bucket {
	if n <= 0 || len(x) == 0 {
		return nil
	}
	lo, hi := x[0], x[len(x)-1]
	if lo == hi {
		return []Bucket{{Min: lo, Max: hi, Count: len(x)}}
	}
	edges := Edges(lo, hi, n)
	out := make([]Bucket, n)
	i := 0
	for b := range out {
		out[b].Min, out[b].Max = edges[b], edges[b+1]
		for i < len(x) && (x[i] < edges[b+1] || b == n-1) {
			out[b].Count++
			i++
		}
	}
	return out
}

// Edges returns the n+1 edges of n equal-width buckets over [lo, hi]
// (lo + i·(hi−lo)/n, as gonum's floats.Span spaces them). A value v falls
// in the first bucket i with v < edges[i+1], or in the last.
func Edges(lo, hi float64, n int) []float64 {
	edges := make([]float64, n+1)
	floats.Span(edges, lo, hi)
	return edges
}

// Count is a value and how often it occurs.
type Count struct {
	Value string
	N     int
}

// TopCounts returns the k most frequent values of counts (all when k ≤ 0),
// by descending count and then ascending value, so the first is the mode
// with ties broken by ordinal order (MODELLING §12.2).
func TopCounts(counts map[string]int, k int) []Count {
	out := make([]Count, 0, len(counts))
	for v, n := range counts {
		out = append(out, Count{Value: v, N: n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Value, b.Value)
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

// Round rounds v to places decimals (half away from zero); non-finite
// values pass through.
func Round(v float64, places int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(places))
	r := math.Round(v*p) / p
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	return r
}
