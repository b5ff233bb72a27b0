package forecast_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// TestContestWithRegressors: with regressors in the contest, the
// candidates that take none still run (their forecasts ignore the
// regressors), an ENSEMBLE can mix them with the regression ones, and a
// regressor that drives the series makes a regression candidate the
// champion, which forecasts with its future values.
func TestContestWithRegressors(t *testing.T) {
	const n, horizon = 200, 20
	x := make([]float64, n+horizon)
	for i := range x {
		if i%9 == 2 {
			x[i] = 1
		}
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = 50 + 0.1*float64(i) + []float64{0, 3, 5, 4, 8, 12, 9}[i%7] + 40*x[i] + math.Sin(float64(i)*1.3)
	}
	res, err := forecast.Contest(y, forecast.ContestOptions{
		Seasons: []forecast.Season{{Period: 7, Code: "W"}}, Holdout: horizon, Horizon: horizon,
		Xreg: [][]float64{x[:n]}, FutureXreg: [][]float64{x[n:]}, Smoothed: true, Seed: 3, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]forecast.Contestant{}
	for _, c := range res.Contestants {
		if !c.Smoothed {
			byKey[c.Key] = c
		}
	}
	for _, k := range []string{"naive", "theta", "seasonal_naive+W", "ETS+W", "STL-ETS+W", "TSLM+W", "LM", "ENSEMBLE"} {
		if c, ok := byKey[k]; !ok || c.Err != nil {
			t.Errorf("%s: present %v, err %v", k, ok, c.Err)
		}
	}
	champ := res.Contestants[res.Champion]
	if champ.Key != "TSLM+W" && champ.Key != "LM" && champ.Key != "ENSEMBLE" {
		t.Errorf("champion %s, want a candidate using the regressor", champ.Key)
	}
	for i, v := range res.Forecast.Mean {
		want := 50 + 0.1*float64(n+i) + []float64{0, 3, 5, 4, 8, 12, 9}[(n+i)%7] + 40*x[n+i]
		if math.Abs(v-want) > 5 {
			t.Errorf("forecast %d = %.2f, want about %.2f", i, v, want)
		}
	}
}
