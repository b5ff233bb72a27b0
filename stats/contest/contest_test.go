package contest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vaticml/vatic/stats/contest"
)

func cand(key string, v float64, err error, panics bool) contest.Candidate[float64] {
	return contest.Func[float64]{K: key, F: func() (float64, error) {
		if panics {
			panic("boom")
		}
		return v, err
	}}
}

func TestRunRanksAndIsolatesFailures(t *testing.T) {
	cands := []contest.Candidate[float64]{
		cand("a", 3, nil, false),
		cand("b", 1, nil, false),
		cand("bad", 0, errors.New("no fit"), false),
		cand("panics", 0, nil, true),
		cand("c", 1, nil, false),
	}
	opt := contest.Options{Workers: 2, Metric: "rmse"}
	var calls int
	opt.Progress = func(done, total int) { calls++ }
	res, err := contest.Run(t.Context(), cands, func(m float64) (map[string]float64, error) {
		return map[string]float64{"rmse": m}, nil
	}, opt)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if calls != len(cands) {
		t.Errorf("Progress called %d times, want %d", calls, len(cands))
	}
	for i, want := range []string{"a", "b", "bad", "panics", "c"} {
		if res[i].Key != want {
			t.Errorf("Run()[%d].Key = %q, want %q", i, res[i].Key, want)
		}
	}
	var pe *contest.PanicError
	if !errors.As(res[3].Err, &pe) || res[3].Metrics != nil {
		t.Errorf("Run()[panics] = %+v, want a PanicError and no metrics", res[3])
	}
	if res[2].Err == nil {
		t.Errorf("Run()[bad].Err = nil, want the fit error")
	}
	if got := contest.Champion(res, opt); got != 1 {
		t.Errorf("Champion() = %d, want 1 (lowest rmse, earliest on ties)", got)
	}
	opt.HigherIsBetter = true
	if got := contest.Champion(res, opt); got != 0 {
		t.Errorf("Champion(higher is better) = %d, want 0", got)
	}
	if got := contest.Champion(res[2:4], opt); got != -1 {
		t.Errorf("Champion(only failures) = %d, want -1", got)
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := 0
	var cands []contest.Candidate[int]
	for range 10 {
		cands = append(cands, contest.Func[int]{K: "x", F: func() (int, error) {
			started++
			cancel()
			return 1, nil
		}})
	}
	_, err := contest.Run(ctx, cands, func(int) (map[string]float64, error) { return nil, nil }, contest.Options{Workers: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(canceled) error = %v, want context.Canceled", err)
	}
	if started != 1 {
		t.Errorf("Run(canceled) started %d candidates, want 1", started)
	}
}
