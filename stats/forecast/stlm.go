package forecast

// STLModel is forecast's stlm(): a series decomposed by MSTL (STL with
// s.window 11, not robust, as stlm's defaults), a non-seasonal model
// fitted on the seasonally adjusted series, and forecasts re-seasonalised
// with the last cycle of the seasonal component repeated (MODELLING §2.7
// STL-ETS, STL-ARIMA). Its intervals are the inner model's shifted by the
// same seasonal values, as stlm's forecasts are. It is how seasons too
// long for seasonal ETS or ARIMA (168, 365) are modelled.
type STLModel struct {
	Period int
	// LastSeason is the seasonal component's last cycle, oldest first.
	LastSeason []float64
	// Inner is the model of the seasonally adjusted series.
	Inner Model
	key   string
}

// STLModelFit decomposes y and fits inner on its seasonally adjusted
// series; key is the contest key of the whole ("STL-ETS"). Needs more
// than two full cycles.
func STLModelFit(y []float64, period int, key string, inner func(adjusted []float64) (Model, error)) (*STLModel, error) {
	d, err := MSTL(y, period, false)
	if err != nil {
		return nil, err
	}
	m, err := inner(d.SeasonallyAdjusted())
	if err != nil {
		return nil, err
	}
	n := len(y)
	last := make([]float64, period)
	copy(last, d.Seasonal[n-period:])
	return &STLModel{Period: period, LastSeason: last, Inner: m, key: key}, nil
}

// Key is the key given to STLModelFit.
func (m *STLModel) Key() string { return m.key }

// NumParams is the inner model's plus the period's seasonal values.
func (m *STLModel) NumParams() int { return m.Inner.NumParams() + m.Period }

// Forecast re-seasonalises the inner model's forecast.
func (m *STLModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	f, err := m.Inner.Forecast(h, xreg)
	if err != nil {
		return f, err
	}
	out := Forecast{Mean: make([]float64, h)}
	for i := range Levels {
		out.Quantiles[i] = make([]float64, h)
	}
	for t := range h {
		s := m.LastSeason[t%m.Period]
		out.Mean[t] = f.Mean[t] + s
		for i := range Levels {
			out.Quantiles[i][t] = f.Quantiles[i][t] + s
		}
	}
	return out, nil
}
