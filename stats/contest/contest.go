// Package contest runs candidate algorithms and ranks them (MODELLING
// §5.3), in two ways: Run fits each candidate once on a train/test split
// and Champion picks the best test metric; RankCV scores each candidate on
// the same repeated k-fold partitions of the training rows (RepeatedKFold,
// RepeatedStratifiedKFold) and ChampionCV picks by the one-standard-error
// rule, the steadier choice on small data. It knows no algorithm family: a
// Candidate fits and returns anything that predicts, a CVCandidate fits and
// scores one fold, and the caller turns predictions into metrics. It
// imports only stats.
package contest

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"sync"
	"time"
)

// Candidate is one contestant. Fit trains on the training rows and
// returns the fitted model; it may panic (a bug in one algorithm), which
// fails that candidate only.
type Candidate[M any] interface {
	Key() string
	Fit() (M, error)
}

// Func adapts a key and a function to a Candidate.
type Func[M any] struct {
	K string
	F func() (M, error)
}

// Key returns the key.
func (f Func[M]) Key() string { return f.K }

// Fit calls F.
func (f Func[M]) Fit() (M, error) { return f.F() }

// Result is how one candidate fared.
type Result[M any] struct {
	Key     string
	Model   M                  // the fitted model; the zero value when Err is set
	Metrics map[string]float64 // empty when Err is set
	Err     error              // fit, score or panic failure; nil on success
	Elapsed time.Duration
}

// Options configure Run.
type Options struct {
	// Workers bounds the candidates fitted at once (≥ 1).
	Workers int
	// Metric is the champion metric, a key of every metrics map.
	Metric string
	// HigherIsBetter says the champion maximises Metric (F1); otherwise it
	// minimises it (RMSE).
	HigherIsBetter bool
	// Progress, when set, is called after each candidate finishes with the
	// number done so far; calls are serialised.
	Progress func(done, total int)
}

// PanicError is a candidate's panic turned into an error.
type PanicError struct {
	Key   string
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("contest: %s panicked: %v", p.Key, p.Value) }

// Run fits every candidate (at most Workers at once) and scores each fitted
// model with score. Results come back in the candidates' order. A candidate
// that fails keeps its place with Err set. When ctx is canceled no new
// candidate starts; Run returns ctx's error once the running ones end.
func Run[M any](ctx context.Context, cands []Candidate[M], score func(M) (map[string]float64, error), opt Options) ([]Result[M], error) {
	workers := max(opt.Workers, 1)
	out := make([]Result[M], len(cands))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, c := range cands {
		select {
		case <-ctx.Done():
		case sem <- struct{}{}:
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = runOne(c, score)
			if opt.Progress != nil {
				mu.Lock()
				done++
				opt.Progress(done, len(cands))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func runOne[M any](c Candidate[M], score func(M) (map[string]float64, error)) (r Result[M]) {
	r.Key = c.Key()
	start := time.Now()
	defer func() {
		r.Elapsed = time.Since(start)
		if v := recover(); v != nil {
			var zero M
			r.Model, r.Metrics, r.Err = zero, nil, &PanicError{Key: r.Key, Value: v, Stack: debug.Stack()}
		}
	}()
	m, err := c.Fit()
	if err != nil {
		r.Err = err
		return r
	}
	metrics, err := score(m)
	if err != nil {
		r.Err = err
		return r
	}
	r.Model, r.Metrics = m, metrics
	return r
}

// Champion returns the index of the best successful result by the champion
// metric, or -1 when none has it. Ties go to the earlier candidate (the
// line-up lists simpler algorithms first).
func Champion[M any](results []Result[M], opt Options) int {
	best := -1
	for i, r := range results {
		if r.Err != nil {
			continue
		}
		v, ok := r.Metrics[opt.Metric]
		if !ok || math.IsNaN(v) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := results[best].Metrics[opt.Metric]
		if (opt.HigherIsBetter && v > b) || (!opt.HigherIsBetter && v < b) {
			best = i
		}
	}
	return best
}
