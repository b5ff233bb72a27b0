package stats_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats"
)

// Expected values were computed with NumPy 1.24 (np.var(ddof=1),
// np.median) and scipy.stats.mode; tolerance 1e-9.
func TestDescribe(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	s := stats.Describe(x, 4)
	want := stats.Summary{N: 8, Min: 1, Max: 9, Mean: 3.875, Median: 3.5, Variance: 7.553571428571429, Mode: 1, Distinct: 7}
	want.StdDev = math.Sqrt(want.Variance)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"N", float64(s.N), float64(want.N)}, {"Min", s.Min, want.Min}, {"Max", s.Max, want.Max},
		{"Mean", s.Mean, want.Mean}, {"Median", s.Median, want.Median}, {"Variance", s.Variance, want.Variance},
		{"StdDev", s.StdDev, want.StdDev}, {"Mode", s.Mode, want.Mode}, {"Distinct", float64(s.Distinct), float64(want.Distinct)},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("Describe(%v).%s = %v, want %v", x, c.name, c.got, c.want)
		}
	}
	total := 0
	for _, b := range s.Buckets {
		total += b.Count
	}
	if len(s.Buckets) != 4 || total != 8 || s.Buckets[0].Min != 1 || s.Buckets[3].Max != 9 {
		t.Errorf("Describe buckets = %+v, want 4 buckets over [1, 9] counting 8", s.Buckets)
	}
	// [1,3) holds 1,1,2; [3,5) 3,4; [5,7) 5,6; [7,9] 9.
	for i, n := range []int{3, 2, 2, 1} {
		if s.Buckets[i].Count != n {
			t.Errorf("bucket %d count = %d, want %d", i, s.Buckets[i].Count, n)
		}
	}
}

func TestDescribeEdgeCases(t *testing.T) {
	if s := stats.Describe(nil, 5); s.N != 0 || s.Buckets != nil {
		t.Errorf("Describe(nil) = %+v, want zero", s)
	}
	s := stats.Describe([]float64{7}, 5)
	if s.Median != 7 || !math.IsNaN(s.Variance) || len(s.Buckets) != 1 || s.Buckets[0].Count != 1 {
		t.Errorf("Describe([7]) = %+v", s)
	}
	// The 50-startups profit median recorded by the former service is the
	// mean of the middle pair (MODELLING §11).
	s = stats.Describe([]float64{122616.84, 122782.75, 1, 999999}, 5)
	if s.Median != 122699.795 {
		t.Errorf("median = %v, want 122699.795", s.Median)
	}
	// Ties in the mode go to the smallest value.
	if s := stats.Describe([]float64{5, 5, 2, 2, 9}, 0); s.Mode != 2 {
		t.Errorf("mode = %v, want 2", s.Mode)
	}
}

func TestTopCounts(t *testing.T) {
	got := stats.TopCounts(map[string]int{"NY": 17, "CA": 17, "FL": 16}, 2)
	if len(got) != 2 || got[0] != (stats.Count{Value: "CA", N: 17}) || got[1] != (stats.Count{Value: "NY", N: 17}) {
		t.Errorf("TopCounts = %v, want [CA 17, NY 17]", got)
	}
}

func TestRound(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{1624588173.4123456, 1624588173.412346}, {-0.0000004, -0}, {2.5e-7, 0}, {40306.181818181818, 40306.181818},
	} {
		if got := stats.Round(c.in, 6); got != c.want {
			t.Errorf("Round(%v, 6) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(stats.Round(math.NaN(), 6)) {
		t.Errorf("Round(NaN) is not NaN")
	}
}

func BenchmarkDescribe(b *testing.B) {
	const n = 2_000_000
	src := make([]float64, n)
	for i := range src {
		src[i] = math.Mod(float64(i)*7919.123, 100000)
	}
	x := make([]float64, n)
	b.ReportAllocs()
	for b.Loop() {
		copy(x, src)
		stats.Describe(x, 5)
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "values/s")
}
