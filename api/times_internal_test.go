package api

import (
	"testing"
	"time"
)

func TestTimeFormats(t *testing.T) {
	for _, c := range []struct {
		in                 time.Time
		row, stored, event string
	}{
		{time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), "2017-01-01T00:00:00.0000000Z", "2017-01-01T00:00:00Z", "2017-01-01T00:00:00+00:00"},
		{time.Date(2017, 12, 15, 20, 33, 15, 385257000, time.UTC), "2017-12-15T20:33:15.3852570Z", "2017-12-15T20:33:15.385257Z", "2017-12-15T20:33:15.385257+00:00"},
		{time.Date(2016, 5, 1, 0, 0, 0, 0, time.FixedZone("", -4*3600)), "2016-05-01T04:00:00.0000000Z", "2016-05-01T04:00:00Z", "2016-05-01T04:00:00+00:00"},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "10000-01-01T00:00:00.0000000Z", "10000-01-01T00:00:00Z", "10000-01-01T00:00:00+00:00"},
	} {
		if got := string(appendRowTime(nil, c.in)); got != c.row {
			t.Errorf("appendRowTime(%v) = %s, want %s", c.in, got, c.row)
		}
		if got := string(appendStoredTime(nil, c.in)); got != c.stored {
			t.Errorf("appendStoredTime(%v) = %s, want %s", c.in, got, c.stored)
		}
		if got := formatEventTime(c.in); got != c.event {
			t.Errorf("formatEventTime(%v) = %s, want %s", c.in, got, c.event)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{431, "431"}, {2919.51, "2919.51"}, {-0.5, "-0.5"}, {4785.9612032, "4785.9612032"},
		{1e21, "1e+21"}, {1.5e-7, "1.5e-07"}, {0.000001, "0.000001"}, {1e15, "1000000000000000"},
	} {
		if got := string(appendNumber(nil, c.in)); got != c.want {
			t.Errorf("appendNumber(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}
