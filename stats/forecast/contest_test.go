package forecast_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

func TestContestAirPassengers(t *testing.T) {
	s := forecast.LoadSeries(t, "AirPassengers")
	opt := forecast.ContestOptions{Seasons: []forecast.Season{{Period: 12, Code: "MA"}}, Holdout: 24, Horizon: 30, Smoothed: true, Seed: 7, Workers: 2}
	res, err := forecast.Contest(s.X, opt)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, c := range res.Contestants {
		if c.Smoothed {
			continue
		}
		keys[c.Key] = true
		if c.Err != nil {
			t.Errorf("%s failed: %v", c.Key, c.Err)
			continue
		}
		for _, k := range []string{forecast.MeanAbsoluteError, forecast.RootMeanSquareError, forecast.MeanAbsolutePercentError, forecast.MeanAbsoluteScaledError} {
			if _, ok := c.Metrics[k]; !ok {
				t.Errorf("%s: no %s in %v", c.Key, k, c.Metrics)
			}
		}
		if len(c.Holdout.Mean) != 24 {
			t.Errorf("%s: holdout forecast of %d buckets", c.Key, len(c.Holdout.Mean))
		}
	}
	for _, k := range []string{"naive", "naive2", "theta", "seasonal_naive+MA", "seasonal_mean+MA", "seasonal_median+MA", "ETS+MA", "STL-ETS+MA", "TSLM+MA", "ARIMA+MA", "STL-ARIMA+MA", "ENSEMBLE"} {
		if !keys[k] {
			t.Errorf("no contestant %s (have %v)", k, keys)
		}
	}
	ch := res.Contestants[res.Champion]
	for _, c := range res.Contestants {
		if c.Err == nil && c.Metrics[forecast.MeanAbsoluteError] < ch.Metrics[forecast.MeanAbsoluteError] {
			t.Errorf("champion %s (MAE %v) beaten by %s (MAE %v)", ch.Key, ch.Metrics[forecast.MeanAbsoluteError], c.Key, c.Metrics[forecast.MeanAbsoluteError])
		}
	}
	if len(res.Forecast.Mean) != 30 || res.Model == nil {
		t.Fatalf("champion forecast of %d buckets, model %v", len(res.Forecast.Mean), res.Model)
	}
	for tt := range 30 {
		for i := 1; i < forecast.NumLevels; i++ {
			if res.Forecast.Quantiles[i][tt] < res.Forecast.Quantiles[i-1][tt] {
				t.Fatalf("quantiles cross at step %d", tt)
			}
		}
	}
	// The champion on this series is a seasonal model that follows the
	// growth: its MASE is far below the naive forecast's.
	if ch.Metrics[forecast.MeanAbsoluteScaledError] > 2 {
		t.Errorf("champion %s has MASE %v", ch.Key, ch.Metrics[forecast.MeanAbsoluteScaledError])
	}
	// The same inputs give the same contest.
	again, err := forecast.Contest(s.X, opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Champion != res.Champion || !reflect.DeepEqual(again.Forecast, res.Forecast) {
		t.Errorf("a second contest differs: champion %s vs %s", again.Contestants[again.Champion].Key, ch.Key)
	}
}

func TestContestShortAndBad(t *testing.T) {
	if _, err := forecast.Contest([]float64{1, 2, 3}, forecast.ContestOptions{Holdout: 2, Horizon: 2}); err == nil {
		t.Error("3 buckets with a holdout of 2 accepted")
	}
	if _, err := forecast.Contest([]float64{1, 2, math.NaN(), 4, 5, 6}, forecast.ContestOptions{Holdout: 2, Horizon: 2}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := forecast.Contest([]float64{1, 2, 3, 4, 5, 6}, forecast.ContestOptions{Holdout: 2, Horizon: 2, Xreg: [][]float64{{1}}}); err == nil {
		t.Error("a short regressor accepted")
	}
	// A constant series: every candidate that can fit ties; a champion
	// exists and forecasts the constant.
	flat := make([]float64, 40)
	for i := range flat {
		flat[i] = 5
	}
	res, err := forecast.Contest(flat, forecast.ContestOptions{Seasons: []forecast.Season{{Period: 7, Code: "W"}}, Holdout: 7, Horizon: 7, Smoothed: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Forecast.Mean {
		if math.Abs(v-5) > 1e-6 {
			t.Fatalf("constant series forecast %v", res.Forecast.Mean)
		}
	}
	// Seasons longer than half the fitting part are not tried.
	for _, c := range res.Contestants {
		if strings.HasSuffix(c.Key, "+W") && c.Err != nil && !forecast.IsSkip(c.Err) {
			t.Errorf("%s: %v", c.Key, c.Err)
		}
	}
	if !errors.Is(forecast.ErrNoChampion, forecast.ErrNoChampion) {
		t.Fatal("unreachable")
	}
}

func TestMetrics(t *testing.T) {
	// MODELLING §2.8: MAPE divides by 1 where the actual is 0; MASE scales
	// by the training series' one-step naive MAE (here 2).
	m := forecast.Metrics([]float64{0, 4}, []float64{1, 2}, []float64{0, 2, 4})
	want := map[string]float64{
		forecast.MeanAbsoluteError:        1.5,
		forecast.RootMeanSquareError:      math.Sqrt(2.5),
		forecast.MeanAbsolutePercentError: (1 + 0.5) / 2,
		forecast.MeanAbsoluteScaledError:  0.75,
		forecast.RSquared:                 1,
	}
	for k, v := range want {
		if math.Abs(m[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, ok := forecast.Metrics([]float64{1, 2}, []float64{3, 3}, nil)[forecast.RSquared]; ok {
		t.Error("rSquared of a constant forecast is not left out")
	}
}

// TestContestCancel: a done context stops the contest between fits — no
// fit starts after it, and the error is the context's.
func TestContestCancel(t *testing.T) {
	s := forecast.LoadSeries(t, "AirPassengers")
	opt := forecast.ContestOptions{Seasons: []forecast.Season{{Period: 12, Code: "MA"}}, Holdout: 24, Horizon: 24, Smoothed: true, Seed: 7, Workers: 1}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := 0
	opt.Progress = func(done, total int) { calls++ }
	if res, err := forecast.ContestContext(ctx, s.X, opt); !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("canceled before: res %v, err %v, want context.Canceled", res, err)
	}
	if calls != 0 {
		t.Errorf("canceled before: %d fits ran", calls)
	}

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	var seen, of int
	opt.Progress = func(done, total int) {
		seen, of = done, total
		if done == 2 {
			cancel()
		}
	}
	if _, err := forecast.ContestContext(ctx, s.X, opt); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled mid-run: err %v, want context.Canceled", err)
	}
	if seen != 2 || of < 10 {
		t.Errorf("canceled after 2 of %d fits: %d ran", of, seen)
	}
}
