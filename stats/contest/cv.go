package contest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/vaticml/vatic/stats"
)

// Cross-validated ranking (issue 14): on small data one train/test split
// is too noisy to pick a champion, so every candidate is scored on the same
// repeated k-fold partitions of the training rows and the champion is the
// simplest candidate whose mean fold score is within one standard error of
// the best (Hastie, Tibshirani & Friedman, The Elements of Statistical
// Learning, 2nd ed., §7.10 "the one-standard-error rule").

// Fold is one partition of the positions 0..n-1 of the rows a
// cross-validation runs on: a candidate fits on Train and is scored on
// Test. Both are ascending and disjoint, and together hold every position.
type Fold struct {
	Train, Test []int
}

// RepeatedKFold partitions n positions into k folds of sizes that differ by
// at most one, repeats times, each repetition from a fresh shuffle drawn
// from rng (scikit-learn's RepeatedKFold). It returns k·repeats folds,
// repetition by repetition. It fails when k < 2, repeats < 1 or n < k
// (some fold would be empty).
func RepeatedKFold(n, k, repeats int, rng *rand.Rand) ([]Fold, error) {
	if err := checkFolds(n, k, repeats); err != nil {
		return nil, err
	}
	out := make([]Fold, 0, k*repeats)
	assign := make([]int, n)
	for range repeats {
		for i, p := range rng.Perm(n) {
			assign[p] = i % k
		}
		out = append(out, foldsOf(assign, k)...)
	}
	return out, nil
}

// RepeatedStratifiedKFold is RepeatedKFold with every class spread over the
// folds as evenly as its count allows (stats.StratifiedFolds for each
// repetition), so each fold's class mix follows the whole's. y holds class
// indices in [0, nClasses). A class with fewer than k rows is missing from
// some test folds, as in scikit-learn. It fails on the conditions of
// RepeatedKFold and on a class index outside [0, nClasses).
func RepeatedStratifiedKFold(y []int, nClasses, k, repeats int, rng *rand.Rand) ([]Fold, error) {
	if err := checkFolds(len(y), k, repeats); err != nil {
		return nil, err
	}
	for i, c := range y {
		if c < 0 || c >= nClasses {
			return nil, fmt.Errorf("contest: class %d of row %d is outside [0, %d)", c, i, nClasses)
		}
	}
	out := make([]Fold, 0, k*repeats)
	for range repeats {
		out = append(out, foldsOf(stats.StratifiedFolds(y, nClasses, k, rng), k)...)
	}
	return out, nil
}

func checkFolds(n, k, repeats int) error {
	switch {
	case k < 2:
		return fmt.Errorf("contest: %d folds, want at least 2", k)
	case repeats < 1:
		return fmt.Errorf("contest: %d repetitions, want at least 1", repeats)
	case n < k:
		return fmt.Errorf("contest: %d rows cannot fill %d folds", n, k)
	}
	return nil
}

// foldsOf turns a fold index per position into k folds.
func foldsOf(assign []int, k int) []Fold {
	out := make([]Fold, k)
	for p, f := range assign {
		for j := range out {
			if j == f {
				out[j].Test = append(out[j].Test, p)
			} else {
				out[j].Train = append(out[j].Train, p)
			}
		}
	}
	return out
}

// CVCandidate is one contestant of a cross-validated ranking. Score fits on
// the training positions of one fold and returns the fold metric on its
// test positions; it may be called concurrently for different folds and
// must not modify the slices. It may panic (a bug in one algorithm), which
// fails that candidate only.
type CVCandidate interface {
	Key() string
	Score(train, test []int) (float64, error)
}

// CVFunc adapts a key and a function to a CVCandidate.
type CVFunc struct {
	K string
	F func(train, test []int) (float64, error)
}

// Key returns the key.
func (f CVFunc) Key() string { return f.K }

// Score calls F.
func (f CVFunc) Score(train, test []int) (float64, error) { return f.F(train, test) }

// CVScore is how one candidate fared over the folds.
type CVScore struct {
	Key string
	// Mean is the mean of Folds; NaN when Err is set.
	Mean float64
	// SE is the standard error of Mean: the sample standard deviation of
	// the F fold values over √F, counting every fold of every repetition
	// as one value (ESL §7.10). Folds share training rows, so this
	// understates the true uncertainty (Bengio & Grandvalet, 2004); it is
	// the usual yardstick of the one-SE rule all the same. 0 with one fold,
	// NaN when Err is set.
	SE float64
	// Folds holds the metric of each fold, in the folds' order; nil when
	// Err is set.
	Folds []float64
	// Err is the failure (error, panic or a metric that is not a number)
	// of the first fold, in the folds' order, that failed.
	Err error
	// Elapsed is the time spent in Score summed over the folds.
	Elapsed time.Duration
}

// CVOptions configure RankCV.
type CVOptions struct {
	// Workers bounds the (candidate, fold) fits run at once (≥ 1).
	Workers int
	// Progress, when set, is called after each (candidate, fold) fit with
	// the number done so far and the total; calls are serialised.
	Progress func(done, total int)
}

// RankCV scores every candidate on every fold (the same folds for all, at
// most Workers fits at once) and returns one CVScore per candidate in the
// candidates' order. A candidate that fails on any fold keeps its place
// with Err set. When ctx is canceled no new fit starts; RankCV returns
// ctx's error once the running ones end. It fails without folds.
func RankCV(ctx context.Context, folds []Fold, cands []CVCandidate, opt CVOptions) ([]CVScore, error) {
	if len(folds) == 0 {
		return nil, errors.New("contest: no folds to cross-validate on")
	}
	type cell struct {
		v       float64
		err     error
		elapsed time.Duration
	}
	cells := make([][]cell, len(cands))
	for i := range cells {
		cells[i] = make([]cell, len(folds))
	}
	sem := make(chan struct{}, max(opt.Workers, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, total := 0, len(cands)*len(folds)
jobs:
	for i, c := range cands {
		for j, f := range folds {
			select {
			case <-ctx.Done():
			case sem <- struct{}{}:
			}
			if ctx.Err() != nil {
				break jobs
			}
			wg.Go(func() {
				defer func() { <-sem }()
				start := time.Now()
				v, err := scoreOne(c, f)
				cells[i][j] = cell{v, err, time.Since(start)}
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, total)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]CVScore, len(cands))
	for i, c := range cands {
		s := CVScore{Key: c.Key(), Mean: math.NaN(), SE: math.NaN()}
		vs := make([]float64, len(folds))
		for j, cl := range cells[i] {
			s.Elapsed += cl.elapsed
			if cl.err != nil && s.Err == nil {
				s.Err = fmt.Errorf("fold %d: %w", j+1, cl.err)
			}
			vs[j] = cl.v
		}
		if s.Err == nil {
			s.Folds = vs
			s.Mean, s.SE = meanSE(vs)
		}
		out[i] = s
	}
	return out, nil
}

// scoreOne runs one candidate on one fold, turning a panic or a metric that
// is not a number into an error.
func scoreOne(c CVCandidate, f Fold) (v float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = math.NaN(), &PanicError{Key: c.Key(), Value: p, Stack: debug.Stack()}
		}
	}()
	v, err = c.Score(f.Train, f.Test)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("contest: %s scored %v", c.Key(), v)
	}
	return v, err
}

// meanSE is the mean of vs and its standard error s/√n with the sample
// standard deviation s (0 for one value).
func meanSE(vs []float64) (mean, se float64) {
	for _, v := range vs {
		mean += v
	}
	n := float64(len(vs))
	mean /= n
	if len(vs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// ChampionCV applies the one-standard-error rule to scores in line-up
// order (simplest first): among the successful candidates, find the best
// mean (lowest, or highest when higherIsBetter; ties to the earlier), then
// return the earliest candidate whose mean is within one SE of the best's.
// It returns -1 when no candidate succeeded.
//
// The SE is that of the paired fold differences, candidate − best, when
// both hold the same number (≥ 2) of fold values: the candidates score
// the same folds, so what makes one fold harder than another cancels out
// of the difference. ESL §7.10's rule takes the best's own SE instead,
// which counts that fold-to-fold variation as uncertainty: on wine
// (about 140 training rows, 28-row folds) it kept logistic regression
// within one SE of the random forest although it lost on most folds, and
// the champion's macro-F1 fell 0.014 below scikit-learn's best (issue
// 14's classification workload). Without fold values the best's SE is
// used.
func ChampionCV(scores []CVScore, higherIsBetter bool) int {
	return ChampionCVWithin(scores, higherIsBetter, 1)
}

// ChampionCVWithin is ChampionCV with the margin widened to ses standard
// errors: the earliest candidate whose mean is within ses paired SEs of
// the best's wins, so a later (more complex) candidate displaces an
// earlier one only when it is better by that many SEs.
func ChampionCVWithin(scores []CVScore, higherIsBetter bool, ses float64) int {
	return ChampionCVBounded(scores, higherIsBetter, ses, math.Inf(1))
}

// ChampionCVBounded is ChampionCVWithin with the margin also bounded by
// maxGap, in the metric's units: the earliest candidate whose mean is
// within min(ses paired SEs, maxGap) of the best's wins. The SEs answer
// whether a simpler candidate may be as good as the best, given the
// noise of the folds; maxGap bounds how much of the best's mean the
// choice may give up for simplicity when the folds are too few to tell
// a large gap from noise.
func ChampionCVBounded(scores []CVScore, higherIsBetter bool, ses, maxGap float64) int {
	ok := func(s CVScore) bool { return s.Err == nil && !math.IsNaN(s.Mean) }
	best := -1
	for i, s := range scores {
		if !ok(s) {
			continue
		}
		if best < 0 || (higherIsBetter && s.Mean > scores[best].Mean) || (!higherIsBetter && s.Mean < scores[best].Mean) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	b := scores[best]
	return slices.IndexFunc(scores[:best+1], func(s CVScore) bool {
		if !ok(s) {
			return false
		}
		tol := b.SE
		if len(s.Folds) == len(b.Folds) && len(b.Folds) >= 2 {
			diff := make([]float64, len(s.Folds))
			for f := range diff {
				diff[f] = s.Folds[f] - b.Folds[f]
			}
			_, tol = meanSE(diff)
		}
		if math.IsNaN(tol) {
			tol = 0
		}
		tol = min(tol*ses, maxGap)
		if higherIsBetter {
			return s.Mean >= b.Mean-tol
		}
		return s.Mean <= b.Mean+tol
	})
}
