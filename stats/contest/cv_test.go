package contest_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/contest"
)

// checkPartition fails unless every fold splits 0..n-1 into ascending,
// disjoint Train and Test, and each repetition's k test sets cover every
// position exactly once with sizes that differ by at most one.
func checkPartition(t *testing.T, folds []contest.Fold, n, k, repeats int) {
	t.Helper()
	if len(folds) != k*repeats {
		t.Fatalf("%d folds, want %d", len(folds), k*repeats)
	}
	for r := range repeats {
		seen := make([]int, n)
		lo, hi := n, 0
		for _, f := range folds[r*k : (r+1)*k] {
			if len(f.Train)+len(f.Test) != n || !slices.IsSorted(f.Train) || !slices.IsSorted(f.Test) {
				t.Fatalf("fold %+v is not an ascending partition of %d positions", f, n)
			}
			in := make([]bool, n)
			for _, p := range f.Test {
				seen[p]++
				in[p] = true
			}
			for _, p := range f.Train {
				if in[p] {
					t.Fatalf("position %d is in both Train and Test", p)
				}
			}
			lo, hi = min(lo, len(f.Test)), max(hi, len(f.Test))
		}
		for p, c := range seen {
			if c != 1 {
				t.Fatalf("repetition %d tests position %d %d times, want once", r, p, c)
			}
		}
		if hi-lo > 1 {
			t.Errorf("repetition %d test sizes range %d..%d, want within one", r, lo, hi)
		}
	}
}

func TestRepeatedKFold(t *testing.T) {
	for _, c := range []struct{ n, k, repeats int }{{10, 5, 3}, {7, 2, 5}, {2, 2, 1}, {103, 5, 3}} {
		folds, err := contest.RepeatedKFold(c.n, c.k, c.repeats, stats.Rand(1, "cv"))
		if err != nil {
			t.Fatalf("RepeatedKFold(%d, %d, %d) error = %v", c.n, c.k, c.repeats, err)
		}
		checkPartition(t, folds, c.n, c.k, c.repeats)
		again, _ := contest.RepeatedKFold(c.n, c.k, c.repeats, stats.Rand(1, "cv"))
		if !equalFolds(folds, again) {
			t.Errorf("RepeatedKFold(%d, %d, %d) differs between two sources with the same seed", c.n, c.k, c.repeats)
		}
	}
	folds, _ := contest.RepeatedKFold(20, 5, 2, stats.Rand(1, "cv"))
	if slices.Equal(folds[0].Test, folds[5].Test) && slices.Equal(folds[1].Test, folds[6].Test) {
		t.Errorf("RepeatedKFold repeats the same shuffle: %v", folds[:2])
	}
	for _, c := range []struct{ n, k, repeats int }{{4, 5, 1}, {10, 1, 1}, {10, 5, 0}, {0, 2, 1}} {
		if _, err := contest.RepeatedKFold(c.n, c.k, c.repeats, stats.Rand(1, "cv")); err == nil {
			t.Errorf("RepeatedKFold(%d, %d, %d) error = nil, want an error", c.n, c.k, c.repeats)
		}
	}
}

func TestRepeatedStratifiedKFold(t *testing.T) {
	// 12 of class 0, 6 of class 1, 2 of class 2.
	var y []int
	for i := range 20 {
		y = append(y, map[bool]int{true: 0, false: 1}[i < 12])
	}
	y[18], y[19] = 2, 2
	folds, err := contest.RepeatedStratifiedKFold(y, 3, 3, 2, stats.Rand(7, "cv"))
	if err != nil {
		t.Fatalf("RepeatedStratifiedKFold() error = %v", err)
	}
	checkPartition(t, folds, len(y), 3, 2)
	for _, f := range folds {
		count := make([]int, 3)
		for _, p := range f.Test {
			count[y[p]]++
		}
		if count[0] != 4 || count[1] != 2 || count[2] > 1 {
			t.Errorf("test fold class counts = %v, want [4 2 0..1]", count)
		}
	}
	if _, err := contest.RepeatedStratifiedKFold([]int{0, 1, 3}, 2, 2, 1, stats.Rand(7, "cv")); err == nil {
		t.Errorf("RepeatedStratifiedKFold(class out of range) error = nil, want an error")
	}
	if _, err := contest.RepeatedStratifiedKFold([]int{0}, 1, 2, 1, stats.Rand(7, "cv")); err == nil {
		t.Errorf("RepeatedStratifiedKFold(1 row, 2 folds) error = nil, want an error")
	}
}

func equalFolds(a, b []contest.Fold) bool {
	return slices.EqualFunc(a, b, func(x, y contest.Fold) bool {
		return slices.Equal(x.Train, y.Train) && slices.Equal(x.Test, y.Test)
	})
}

// constant scores each fold with vals[fold], where the fold is recognised
// by its first test position.
func constant(key string, folds []contest.Fold, vals ...float64) contest.CVCandidate {
	return contest.CVFunc{K: key, F: func(_, test []int) (float64, error) {
		for j, f := range folds {
			if f.Test[0] == test[0] {
				return vals[j], nil
			}
		}
		return 0, errors.New("unknown fold")
	}}
}

func TestRankCV(t *testing.T) {
	folds, err := contest.RepeatedKFold(8, 4, 1, stats.Rand(3, "cv"))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	cands := []contest.CVCandidate{
		constant("a", folds, 1, 2, 3, 4),
		contest.CVFunc{K: "fails", F: func(_, test []int) (float64, error) {
			if test[0] == folds[2].Test[0] {
				return 0, errors.New("singular")
			}
			return 1, nil
		}},
		contest.CVFunc{K: "panics", F: func(_, _ []int) (float64, error) { panic("boom") }},
		contest.CVFunc{K: "nan", F: func(_, _ []int) (float64, error) { return math.NaN(), nil }},
		constant("b", folds, 2, 2, 2, 2),
	}
	var last int
	got, err := contest.RankCV(t.Context(), folds, cands, contest.CVOptions{Workers: 3, Progress: func(done, total int) {
		calls.Add(1)
		if done <= last || total != 20 {
			t.Errorf("Progress(%d, %d) after %d, want rising to 20", done, total, last)
		}
		last = done
	}})
	if err != nil {
		t.Fatalf("RankCV() error = %v", err)
	}
	if calls.Load() != 20 {
		t.Errorf("Progress called %d times, want 20", calls.Load())
	}
	// a: mean 2.5, sample sd √(5/3), SE = sd/2.
	if a := got[0]; a.Key != "a" || a.Mean != 2.5 || math.Abs(a.SE-math.Sqrt(5.0/3)/2) > 1e-12 || !slices.Equal(a.Folds, []float64{1, 2, 3, 4}) {
		t.Errorf("RankCV()[a] = %+v, want mean 2.5, SE %v, folds [1 2 3 4]", a, math.Sqrt(5.0/3)/2)
	}
	if b := got[4]; b.Mean != 2 || b.SE != 0 || b.Err != nil {
		t.Errorf("RankCV()[b] = %+v, want mean 2, SE 0", b)
	}
	if f := got[1]; f.Err == nil || f.Folds != nil || !math.IsNaN(f.Mean) {
		t.Errorf("RankCV()[fails] = %+v, want the fold's error and no mean", f)
	}
	var pe *contest.PanicError
	if !errors.As(got[2].Err, &pe) || pe.Key != "panics" {
		t.Errorf("RankCV()[panics].Err = %v, want a PanicError", got[2].Err)
	}
	if got[3].Err == nil {
		t.Errorf("RankCV()[nan].Err = nil, want an error for a NaN metric")
	}
	if _, err := contest.RankCV(t.Context(), nil, cands, contest.CVOptions{}); err == nil {
		t.Errorf("RankCV(no folds) error = nil, want an error")
	}
}

// The same folds and candidates give the same scores whatever the number
// of workers.
func TestRankCVDeterministic(t *testing.T) {
	folds, _ := contest.RepeatedKFold(30, 5, 3, stats.Rand(11, "cv"))
	sum := contest.CVFunc{K: "sum", F: func(train, test []int) (float64, error) {
		s := 0.0
		for _, p := range test {
			s += float64(p * p)
		}
		return s / float64(len(train)), nil
	}}
	one, err := contest.RankCV(t.Context(), folds, []contest.CVCandidate{sum, sum}, contest.CVOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	four, err := contest.RankCV(t.Context(), folds, []contest.CVCandidate{sum, sum}, contest.CVOptions{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if one[i].Mean != four[i].Mean || one[i].SE != four[i].SE || !slices.Equal(one[i].Folds, four[i].Folds) {
			t.Errorf("RankCV(workers 1)[%d] = %+v, RankCV(workers 4) = %+v, want equal", i, one[i], four[i])
		}
	}
}

func TestRankCVStopsOnCancel(t *testing.T) {
	folds, _ := contest.RepeatedKFold(10, 5, 1, stats.Rand(1, "cv"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := 0
	c := contest.CVFunc{K: "x", F: func(_, _ []int) (float64, error) {
		started++
		cancel()
		return 1, nil
	}}
	_, err := contest.RankCV(ctx, folds, []contest.CVCandidate{c, c}, contest.CVOptions{Workers: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RankCV(canceled) error = %v, want context.Canceled", err)
	}
	if started != 1 {
		t.Errorf("RankCV(canceled) ran %d fits, want 1", started)
	}
}

func TestChampionCV(t *testing.T) {
	s := func(key string, mean, se float64) contest.CVScore {
		return contest.CVScore{Key: key, Mean: mean, SE: se}
	}
	failed := contest.CVScore{Key: "failed", Mean: math.NaN(), SE: math.NaN(), Err: errors.New("no fit")}
	f := func(scores []contest.CVScore, higher bool, want int) {
		t.Helper()
		if got := contest.ChampionCV(scores, higher); got != want {
			t.Errorf("ChampionCV(%v, higher %v) = %d, want %d", scores, higher, got, want)
		}
	}
	// The best (gbm, 1.0 ± 0.1) keeps ridge (1.08) within one SE; ols
	// (1.2) is outside: ridge, the simpler, wins.
	f([]contest.CVScore{s("ols", 1.2, 0.1), s("ridge", 1.08, 0.05), s("rf", 1.05, 0.1), s("gbm", 1.0, 0.1)}, false, 1)
	// Exactly one SE away still counts as within.
	f([]contest.CVScore{s("ols", 1.1, 0.3), s("gbm", 1.0, 0.1)}, false, 0)
	// Nobody close: the best wins.
	f([]contest.CVScore{s("ols", 2, 0.1), s("gbm", 1, 0.1)}, false, 1)
	// A failed simpler candidate is skipped, not chosen.
	f([]contest.CVScore{failed, s("ridge", 1.05, 0.01), s("gbm", 1.0, 0.1)}, false, 1)
	// Higher is better (F1): 0.90 ± 0.02 keeps 0.885.
	f([]contest.CVScore{s("nb", 0.80, 0.01), s("logistic", 0.885, 0.01), s("gbm", 0.90, 0.02)}, true, 1)
	// Ties go to the earlier; zero SE needs an exact tie.
	f([]contest.CVScore{s("a", 1, 0), s("b", 1, 0)}, false, 0)
	f([]contest.CVScore{s("a", 1.0000001, 0), s("b", 1, 0)}, false, 1)
	// A NaN SE counts as zero.
	f([]contest.CVScore{s("a", 1.5, 0), s("b", 1, math.NaN())}, false, 1)
	f([]contest.CVScore{failed, failed}, false, -1)
	f(nil, true, -1)
}

// The ranking on real folds: a constant-prediction candidate loses to a
// mean-of-training candidate that tracks a shifting target.
func TestRankCVChoosesOnFolds(t *testing.T) {
	y := make([]float64, 40)
	for i := range y {
		y[i] = float64(i % 4)
	}
	rmse := func(pred func(train []int) float64) func(train, test []int) (float64, error) {
		return func(train, test []int) (float64, error) {
			p := pred(train)
			var ss float64
			for _, i := range test {
				ss += (y[i] - p) * (y[i] - p)
			}
			return math.Sqrt(ss / float64(len(test))), nil
		}
	}
	cands := []contest.CVCandidate{
		contest.CVFunc{K: "zero", F: rmse(func([]int) float64 { return 0 })},
		contest.CVFunc{K: "mean", F: rmse(func(train []int) float64 {
			s := 0.0
			for _, i := range train {
				s += y[i]
			}
			return s / float64(len(train))
		})},
	}
	folds, _ := contest.RepeatedKFold(len(y), 5, 3, stats.Rand(5, "cv"))
	scores, err := contest.RankCV(t.Context(), folds, cands, contest.CVOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := contest.ChampionCV(scores, false); got != 1 {
		t.Errorf("ChampionCV(zero %v, mean %v) = %d, want 1", scores[0].Mean, scores[1].Mean, got)
	}
}

// With fold values the tolerance is the SE of the paired differences: a
// candidate that loses on every fold by about the same amount is out even
// when the best's own folds vary more than the gap, and one that trades
// wins with the best stays in.
func TestChampionCVPaired(t *testing.T) {
	best := contest.CVScore{Key: "forest", Folds: []float64{0.90, 1.00, 0.80, 0.95, 0.85}}
	best.Mean, best.SE = 0.90, 0.0354 // sd 0.079 / √5
	behind := contest.CVScore{Key: "logistic", Folds: []float64{0.88, 0.98, 0.78, 0.93, 0.83}}
	behind.Mean, behind.SE = 0.88, 0.0354
	if got := contest.ChampionCV([]contest.CVScore{behind, best}, true); got != 1 {
		t.Errorf("a candidate 0.02 behind on every fold won (%d): the paired SE is 0", got)
	}
	// Without fold values the best's SE (0.035) keeps it.
	behind.Folds, best.Folds = nil, nil
	if got := contest.ChampionCV([]contest.CVScore{behind, best}, true); got != 0 {
		t.Errorf("without folds ChampionCV = %d, want the simpler within the best's SE", got)
	}
	trading := contest.CVScore{Key: "logistic", Folds: []float64{0.95, 0.95, 0.85, 0.85, 0.80}}
	trading.Mean = 0.88
	best.Folds = []float64{0.90, 1.00, 0.80, 0.95, 0.85}
	if got := contest.ChampionCV([]contest.CVScore{trading, best}, true); got != 0 {
		t.Errorf("a candidate trading wins with the best lost (%d)", got)
	}
}

// ChampionCVWithin widens the margin: a simpler candidate 1.6 paired SEs
// behind loses under one SE and wins under two.
func TestChampionCVWithin(t *testing.T) {
	best := contest.CVScore{Key: "forest", Mean: 0.90, Folds: []float64{0.90, 1.00, 0.80, 0.95, 0.85}}
	behind := contest.CVScore{Key: "logistic", Mean: 0.88, Folds: []float64{0.91, 0.95, 0.81, 0.91, 0.82}} // paired SE 0.0126
	scores := []contest.CVScore{behind, best}
	if got := contest.ChampionCVWithin(scores, true, 1); got != 1 {
		t.Errorf("ChampionCVWithin(1 SE) = %d, want 1: 0.02 is 1.6 paired SEs", got)
	}
	if got := contest.ChampionCV(scores, true); got != 1 {
		t.Errorf("ChampionCV = %d, want ChampionCVWithin(1 SE)'s 1", got)
	}
	if got := contest.ChampionCVWithin(scores, true, 2); got != 0 {
		t.Errorf("ChampionCVWithin(2 SEs) = %d, want the simpler 0", got)
	}
	// Lower is better: the same margins on an error.
	for i := range scores {
		scores[i].Mean = 1 - scores[i].Mean
		for f := range scores[i].Folds {
			scores[i].Folds[f] = 1 - scores[i].Folds[f]
		}
	}
	if got1, got2 := contest.ChampionCVWithin(scores, false, 1), contest.ChampionCVWithin(scores, false, 2); got1 != 1 || got2 != 0 {
		t.Errorf("lower is better: ChampionCVWithin = %d (1 SE), %d (2 SEs), want 1, 0", got1, got2)
	}
}

// ChampionCVBounded bounds the margin by a gap in the metric's units: a
// simpler candidate 0.02 behind, within two paired SEs (0.025), wins with
// a bound of 0.03 and loses with 0.015; the same with lower is better.
func TestChampionCVBounded(t *testing.T) {
	best := contest.CVScore{Key: "forest", Mean: 0.90, Folds: []float64{0.90, 1.00, 0.80, 0.95, 0.85}}
	behind := contest.CVScore{Key: "logistic", Mean: 0.88, Folds: []float64{0.91, 0.95, 0.81, 0.91, 0.82}} // paired SE 0.0126
	scores := []contest.CVScore{behind, best}
	if got := contest.ChampionCVBounded(scores, true, 2, 0.03); got != 0 {
		t.Errorf("ChampionCVBounded(2 SEs, 0.03) = %d, want the simpler 0", got)
	}
	if got := contest.ChampionCVBounded(scores, true, 2, 0.015); got != 1 {
		t.Errorf("ChampionCVBounded(2 SEs, 0.015) = %d, want the best 1: 0.02 behind is past the bound", got)
	}
	if got := contest.ChampionCVBounded(scores, true, 1, 0.03); got != 1 {
		t.Errorf("ChampionCVBounded(1 SE, 0.03) = %d, want 1: the SEs still bind", got)
	}
	for i := range scores {
		scores[i].Mean = 1 - scores[i].Mean
		for f := range scores[i].Folds {
			scores[i].Folds[f] = 1 - scores[i].Folds[f]
		}
	}
	if got1, got2 := contest.ChampionCVBounded(scores, false, 2, 0.03), contest.ChampionCVBounded(scores, false, 2, 0.015); got1 != 0 || got2 != 1 {
		t.Errorf("lower is better: ChampionCVBounded(2 SEs) = %d (0.03), %d (0.015), want 0, 1", got1, got2)
	}
}
