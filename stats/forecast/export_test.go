package forecast

import (
	"encoding/json"
	"os"
	"sync"
	"testing"
)

// TestSeries is a series of testdata/series.json (written by series.R).
type TestSeries struct {
	Frequency []float64 `json:"frequency"`
	Start     []float64 `json:"start"`
	X         []float64 `json:"x"`
}

// Period is the series' frequency as an int (1 for yearly data).
func (s TestSeries) Period() int { return int(s.Frequency[0]) }

var testSeries = sync.OnceValues(func() (map[string]TestSeries, error) {
	b, err := os.ReadFile("testdata/series.json")
	if err != nil {
		return nil, err
	}
	var m map[string]TestSeries
	return m, json.Unmarshal(b, &m)
})

// LoadSeries returns a series of testdata/series.json by name.
func LoadSeries(tb testing.TB, name string) TestSeries {
	tb.Helper()
	m, err := testSeries()
	if err != nil {
		tb.Fatal(err)
	}
	s, ok := m[name]
	if !ok {
		tb.Fatalf("no series %q in testdata/series.json", name)
	}
	return s
}
