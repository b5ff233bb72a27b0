package bench

import (
	"runtime"
	"time"

	"github.com/vaticml/vatic/stats/forecast"
)

// ContestLabel names [ContestForecaster] in the report.
const ContestLabel = "forecast.Contest (both variants, champion by holdout MAE)"

// contestSeasons are the seasons a contest considers for a series of the
// given period, as a forecast session of that interval does (MODELLING
// §2.7): days also get the annual season, weeks the 52.18-week year.
func contestSeasons(period int) []forecast.Season {
	switch period {
	case 7:
		return []forecast.Season{{Period: 7, Code: "W"}, {Period: 365.25, Code: "A"}}
	case 12:
		return []forecast.Season{{Period: 12, Code: "MA"}}
	case 24:
		return []forecast.Season{{Period: 24, Code: "HD"}, {Period: 168, Code: "HW"}}
	case 52:
		return []forecast.Season{{Period: 52.18, Code: "WA"}}
	case 0, 1:
		return nil
	}
	return []forecast.Season{{Period: float64(period), Code: "P"}}
}

// ContestForecaster is our side of the forecast workload: the whole
// time-series contest (forecast.Contest) with the Smoothed variant, its
// holdout the last h points of y, on every core.
func ContestForecaster(y []float64, period, h int) ([]float64, time.Duration, error) {
	start := time.Now()
	res, err := forecast.Contest(y, forecast.ContestOptions{
		Seasons: contestSeasons(period), Holdout: h, Horizon: h, Smoothed: true,
		Seed: 1, Workers: runtime.GOMAXPROCS(0),
	})
	if err != nil {
		return nil, 0, err
	}
	return res.Forecast.Mean, time.Since(start), nil
}
