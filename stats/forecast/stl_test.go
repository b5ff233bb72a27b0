package forecast_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// baseRef is testdata/base_reference.json, written by base_reference.R.
type baseRef struct {
	STL []struct {
		Name                       string
		Period                     int
		SWindow                    int `json:"swindow"`
		Robust                     bool
		SDegree                    int `json:"sdegree"`
		TDegree                    int `json:"tdegree"`
		TWindow                    int `json:"twindow"`
		LWindow                    int `json:"lwindow"`
		Seasonal, Trend, Remainder []float64
	}
	MSTL []struct {
		Name                       string
		Period                     int
		Robust                     bool
		Trend, Seasonal, Remainder []float64
		Strength, Heuristic        float64
	}
	Supsmu []struct {
		Name string
		Y    []float64
	}
	SupsmuShort []struct{ X, Y []float64 } `json:"supsmu_short"`
	Baselines   []baseRefForecast
	Decompose   []struct {
		Name                            string
		Type                            string
		Trend, Seasonal, Random, Figure []float64
	}
	Seasonality []struct {
		Name     string
		Period   int
		Seasonal bool
		Stat     float64
	}
	Naive2 []baseRefForecast
	Theta  []struct {
		baseRefForecast
		Alpha, Level0, Drift, Sigma2 float64
		Seasonal                     bool
	}
	Outliers []struct {
		Name        string
		Period      int
		X           []float64
		Index       []int
		Replacement []float64
		Clean       []float64
	}
}

// baseRefForecast is one R forecast: points and the 80 % and 95 % bounds.
type baseRefForecast struct {
	Name                   string
	Method                 string
	Period                 int
	H                      int
	Mean                   []float64
	Lo80, Hi80, Lo95, Hi95 []float64
}

var baseReference = sync.OnceValues(func() (*baseRef, error) {
	b, err := os.ReadFile("testdata/base_reference.json")
	if err != nil {
		return nil, err
	}
	var r baseRef
	return &r, json.Unmarshal(b, &r)
})

func loadBaseRef(tb testing.TB) *baseRef {
	tb.Helper()
	r, err := baseReference()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// closeSlices reports the first element where got and want differ by more
// than tol relative to max(1, |want|), or a length mismatch.
func closeSlices(got, want []float64, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("length %d, want %d", len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*math.Max(1, math.Abs(want[i]))) {
			return fmt.Errorf("[%d] = %.12g, want %.12g (diff %.3g)", i, got[i], want[i], d)
		}
	}
	return nil
}

// The STL port is a line-by-line translation of R's Fortran, so it agrees
// with R to rounding: 1e-8 relative leaves room for the different order of
// a few floating-point sums (R's mean of the periodic cycles, the median).
func TestSTLMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).STL {
		name := fmt.Sprintf("%s/s.window=%d/robust=%v", c.Name, c.SWindow, c.Robust)
		t.Run(name, func(t *testing.T) {
			s := forecast.LoadSeries(t, c.Name)
			o := forecast.STLOptions{SWindow: c.SWindow, Robust: c.Robust, SDegree1: c.SDegree == 1 && c.SWindow != 0,
				TDegree0: c.TDegree == 0, TWindow: c.TWindow, LWindow: c.LWindow}
			d, err := forecast.STL(s.X, c.Period, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []struct {
				name      string
				got, want []float64
			}{{"trend", d.Trend, c.Trend}, {"seasonal", d.Seasonal, c.Seasonal}, {"remainder", d.Remainder, c.Remainder}} {
				if err := closeSlices(part.got, part.want, 1e-8); err != nil {
					t.Errorf("%s: %v", part.name, err)
				}
			}
		})
	}
}

func TestMSTLMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).MSTL {
		t.Run(fmt.Sprintf("%s/robust=%v", c.Name, c.Robust), func(t *testing.T) {
			s := forecast.LoadSeries(t, c.Name)
			d, err := forecast.MSTL(s.X, c.Period, c.Robust)
			if err != nil {
				t.Fatal(err)
			}
			if err := closeSlices(d.Trend, c.Trend, 1e-8); err != nil {
				t.Errorf("trend: %v", err)
			}
			if err := closeSlices(d.Remainder, c.Remainder, 1e-8); err != nil {
				t.Errorf("remainder: %v", err)
			}
			if c.Period > 1 {
				if err := closeSlices(d.Seasonal, c.Seasonal, 1e-8); err != nil {
					t.Errorf("seasonal: %v", err)
				}
			} else if d.Seasonal != nil {
				t.Errorf("seasonal part %v for a non-seasonal series", d.Seasonal[:3])
			}
			if got := forecast.SeasonalStrength(d); math.Abs(got-c.Strength) > 1e-10 {
				t.Errorf("seasonal strength %.12g, want %.12g", got, c.Strength)
			}
			if !c.Robust && math.Abs(forecast.SeasonalStrength(d)-c.Heuristic) > 1e-10 {
				t.Errorf("seasonal strength %.12g, want seas.heuristic's %.12g", forecast.SeasonalStrength(d), c.Heuristic)
			}
		})
	}
}

func TestSTLSkipsAndErrors(t *testing.T) {
	y := make([]float64, 24)
	for i := range y {
		y[i] = float64(i % 12)
	}
	if _, err := forecast.STL(y, 12, forecast.STLOptions{}); !forecast.IsSkip(err) {
		t.Errorf("two cycles: err = %v, want a skip", err)
	}
	if _, err := forecast.STL(y, 1, forecast.STLOptions{}); !forecast.IsSkip(err) {
		t.Errorf("period 1: err = %v, want a skip", err)
	}
	if _, err := forecast.MSTL(y[:20], 7, false); err != nil {
		t.Errorf("MSTL of 20 points with period 7: %v", err)
	}
	y[3] = math.NaN()
	if _, err := forecast.STL(y, 4, forecast.STLOptions{}); err == nil || forecast.IsSkip(err) {
		t.Errorf("NaN: err = %v, want an error", err)
	}
}

func TestSTLConstantAndZeros(t *testing.T) {
	for _, v := range []float64{0, 5} {
		y := make([]float64, 50)
		for i := range y {
			y[i] = v
		}
		for _, robust := range []bool{false, true} {
			d, err := forecast.STL(y, 7, forecast.STLOptions{Robust: robust})
			if err != nil {
				t.Fatal(err)
			}
			for i := range y {
				if math.Abs(d.Trend[i]-v) > 1e-9 || math.Abs(d.Seasonal[i]) > 1e-9 || math.Abs(d.Remainder[i]) > 1e-9 {
					t.Fatalf("constant %v robust=%v: point %d = %v %v %v", v, robust, i, d.Trend[i], d.Seasonal[i], d.Remainder[i])
				}
			}
			if s := forecast.SeasonalStrength(d); s != 0 {
				t.Errorf("strength of a constant series = %v", s)
			}
		}
	}
}

func TestSTLLongSeriesIsFast(t *testing.T) {
	y := baseSynthetic(20000, 24, 1)
	d, err := forecast.STL(y, 24, forecast.STLOptions{Robust: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := forecast.SeasonalStrength(d); s < 0.5 {
		t.Errorf("strength of a strongly seasonal series = %v", s)
	}
}

func TestSupsmuMatchesR(t *testing.T) {
	r := loadBaseRef(t)
	for _, c := range r.Supsmu {
		s := forecast.LoadSeries(t, c.Name)
		if err := closeSlices(forecast.Supsmu(s.X), c.Y, 1e-9); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	for _, c := range r.SupsmuShort {
		if err := closeSlices(forecast.Supsmu(c.X), c.Y, 1e-9); err != nil {
			t.Errorf("%v: %v", c.X, err)
		}
	}
}

// baseSynthetic is a deterministic trend + seasonal + noise-like series.
func baseSynthetic(n, period int, seed uint64) []float64 {
	y := make([]float64, n)
	state := seed*0x9E3779B97F4A7C15 + 1
	for i := range y {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		noise := float64(state%1000)/1000 - 0.5
		y[i] = 100 + 0.01*float64(i) + 10*math.Sin(2*math.Pi*float64(i%period)/float64(period)) + 3*noise
	}
	return y
}

func BenchmarkSTLDaily2000(b *testing.B) {
	y := baseSynthetic(2000, 7, 3)
	for b.Loop() {
		if _, err := forecast.STL(y, 7, forecast.STLOptions{Robust: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSupsmu2000(b *testing.B) {
	y := baseSynthetic(2000, 7, 3)
	for b.Loop() {
		forecast.Supsmu(y)
	}
}
