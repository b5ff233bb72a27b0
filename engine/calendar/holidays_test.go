package calendar_test

import (
	"testing"
	"time"

	"github.com/vaticml/vatic/engine/calendar"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct{ in, canonical, label string }{
		{"Nexosis.Holidays-US", "Nexosis.Holidays-US", "US Holidays"},
		{"nexosis.holidays-ca", "Nexosis.Holidays-CA", "CA Holidays"},
	} {
		canonical, label, ok := calendar.Lookup(c.in)
		if !ok || canonical != c.canonical || label != c.label {
			t.Errorf("Lookup(%q) = %q, %q, %v, want %q, %q", c.in, canonical, label, ok, c.canonical, c.label)
		}
	}
	for _, bad := range []string{"", "Nexosis.Holidays-", "Nexosis.Holidays-XX", "Holidays-US", "US"} {
		if _, _, ok := calendar.Lookup(bad); ok {
			t.Errorf("Lookup(%q) found a calendar", bad)
		}
	}
	if n := len(calendar.Names()); n < 30 {
		t.Errorf("Names() has %d calendars, want the library's 30+", n)
	}
}

// US federal holidays of 2017, checked against the OPM calendar.
func TestUSHolidays2017(t *testing.T) {
	got := map[string]string{}
	for _, e := range calendar.Holidays("Nexosis.Holidays-US", 2017, 2017) {
		got[e.Start.Format("2006-01-02")] = e.Name
		if !e.End.Equal(e.Start.Add(24 * time.Hour)) {
			t.Errorf("%s: end %v, want a whole day", e.Name, e.End)
		}
	}
	for day, name := range map[string]string{
		"2017-07-04": "Independence Day", "2017-11-23": "Thanksgiving Day", "2017-12-25": "Christmas Day", "2017-01-16": "Martin Luther King Jr. Day",
	} {
		if got[day] != name {
			t.Errorf("2017 US holiday on %s = %q, want %q", day, got[day], name)
		}
	}
	if _, ok := got["2017-07-05"]; ok {
		t.Errorf("2017-07-05 is listed as a holiday")
	}
}
