package calendar_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/engine/calendar"
)

const ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Team\r\n" +
	"BEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Launch\r\nDTSTART;TZID=America/New_York:20170704T200000\r\nDTEND;TZID=America/New_York:20170704T220000\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:2\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Sale\r\nDTSTART;VALUE=DATE:20170710\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:3\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Standup\r\nDTSTART:20170703T090000\r\nDURATION:PT15M\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEXDATE:20170710T090000\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:4\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Old\r\nDTSTART:20100101T000000Z\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

func TestParseICal(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	from := time.Date(2017, 7, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2017, 8, 1, 0, 0, 0, 0, time.UTC)
	name, events, err := calendar.ParseICal(strings.NewReader(ics), berlin, from, to, 100)
	if err != nil {
		t.Fatal(err)
	}
	if name != "Team" {
		t.Errorf("name = %q, want Team", name)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Name+"@"+e.Start.Format(time.RFC3339)+"-"+e.End.Format("15:04"))
	}
	want := []string{
		// Floating 09:00 read in Berlin (UTC+2 in summer); the 10th is excluded.
		"Standup@2017-07-03T07:00:00Z-07:15",
		"Launch@2017-07-05T00:00:00Z-02:00", // 20:00 New York is midnight UTC
		"Sale@2017-07-09T22:00:00Z-22:00",   // all day on the 10th in Berlin
		"Standup@2017-07-17T07:00:00Z-07:15",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events =\n%v\nwant\n%v", got, want)
	}
	if _, _, err := calendar.ParseICal(strings.NewReader(ics), time.UTC, from, to, 2); !errors.Is(err, calendar.ErrTooManyEvents) {
		t.Errorf("ParseICal with a cap of 2 = %v, want ErrTooManyEvents", err)
	}
	for _, bad := range []string{"", "not a calendar", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:nonsense\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"} {
		if _, _, err := calendar.ParseICal(strings.NewReader(bad), time.UTC, from, to, 10); err == nil {
			t.Errorf("ParseICal(%q) = nil error", bad)
		}
	}
}

func FuzzParseICal(f *testing.F) {
	f.Add(ics)
	f.Add("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		from := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
		_, events, err := calendar.ParseICal(strings.NewReader(s), time.UTC, from, from.AddDate(1, 0, 0), 1000)
		if err != nil {
			return
		}
		for _, e := range events {
			if !e.End.After(e.Start) {
				t.Fatalf("event %+v does not end after it starts", e)
			}
		}
	})
}
