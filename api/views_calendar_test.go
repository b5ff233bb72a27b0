package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A daily dataset joined with the built-in US holidays (REFERENCE §11.6):
// real 2017 dates are flagged, the day after is not.
func TestViewHolidayCalendar(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "daily", "day,sales\n2017-07-03,5\n2017-07-04,7\n2017-07-05,3\n2017-11-23,4\n2017-12-25,9\n")
	s.putCSV(t, "hourly", "hour,sales\n2017-07-04 15:00:00,1\n2017-07-05 01:00:00,2\n")
	def := s.mustPutView(t, "holidays", `{"dataSetName":"daily","joins":[{"calendar":{"name":"nexosis.holidays-us"}}]}`)
	if def.Joins[0]["calendar"].(map[string]any)["name"] != "Nexosis.Holidays-US" {
		t.Errorf("calendar name = %v, want the canonical Nexosis.Holidays-US", def.Joins[0])
	}
	for name, want := range map[string][3]string{
		"eventTimestamp":                     {"date", "", ""},
		"calendar:US Holidays":               {"numeric", "feature", "mode"},
		"event:US Holidays:Independence Day": {"numeric", "feature", "mode"},
		"event:US Holidays:Thanksgiving Day": {"numeric", "feature", "mode"},
		"event:US Holidays:Christmas Day":    {"numeric", "feature", "mode"},
		"event:US Holidays:New Year's Day":   {"numeric", "feature", "mode"},
	} {
		c, ok := def.Columns[name]
		if !ok || string(c.DataType) != want[0] || string(c.Role) != want[1] || (want[2] != "" && string(c.Aggregation) != want[2]) {
			t.Errorf("column %q = %+v (present %v), want %v", name, c, ok, want)
		}
	}
	rows := s.getView(t, "holidays", "").Data
	want := []struct{ day, cal, july4, thanks, xmas, ts string }{
		{"2017-07-03", "0", "0", "0", "0", ""},
		{"2017-07-04", "1", "1", "0", "0", "2017-07-04T00:00:00.0000000Z"},
		{"2017-07-05", "0", "0", "0", "0", ""},
		{"2017-11-23", "1", "0", "1", "0", "2017-11-23T00:00:00.0000000Z"},
		{"2017-12-25", "1", "0", "0", "1", "2017-12-25T00:00:00.0000000Z"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %d, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if !strings.HasPrefix(r["day"], w.day) || r["calendar:US Holidays"] != w.cal || r["event:US Holidays:Independence Day"] != w.july4 ||
			r["event:US Holidays:Thanksgiving Day"] != w.thanks || r["event:US Holidays:Christmas Day"] != w.xmas || r["eventTimestamp"] != w.ts {
			t.Errorf("row %d = %v, want %+v", i, r, w)
		}
	}

	t.Run("instants inside the holiday match; joinInterval widens", func(t *testing.T) {
		s.mustPutView(t, "hourly-holidays", `{"dataSetName":"hourly","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}}]}`)
		got := s.getView(t, "hourly-holidays", "").Data
		if got[0]["calendar:US Holidays"] != "1" || got[1]["calendar:US Holidays"] != "0" {
			t.Errorf("hourly rows = %v, want 15:00 on July 4 flagged, 01:00 on July 5 not", got)
		}
		s.mustPutView(t, "hourly-week", `{"dataSetName":"hourly","joins":[{"calendar":{"name":"Nexosis.Holidays-US"},"columnOptions":{"eventTimestamp":{"joinInterval":"week"}}}]}`)
		got = s.getView(t, "hourly-week", "").Data
		if got[1]["calendar:US Holidays"] != "1" {
			t.Errorf("with joinInterval week, July 5 = %v, want flagged (same week as July 4)", got[1])
		}
	})
	t.Run("two calendars: the first eventTimestamp wins unless aliased", func(t *testing.T) {
		def := s.mustPutView(t, "two", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}},{"calendar":{"name":"Nexosis.Holidays-CA"}}]}`)
		if _, ok := def.Columns["calendar:CA Holidays"]; !ok || def.Columns["eventTimestamp"].DataType != "date" {
			t.Errorf("columns = %v, want calendar:CA Holidays and one eventTimestamp", def.Columns)
		}
		rows := s.getView(t, "two", "").Data
		if got := rows[1]; got["calendar:US Holidays"] != "1" || got["calendar:CA Holidays"] != "0" || got["eventTimestamp"] != "2017-07-04T00:00:00.0000000Z" {
			t.Errorf("2017-07-04 = %v, want a US holiday only, with the US eventTimestamp", got)
		}
		if got := rows[4]; got["calendar:US Holidays"] != "1" || got["calendar:CA Holidays"] != "1" || got["eventTimestamp"] != "2017-12-25T00:00:00.0000000Z" {
			t.Errorf("2017-12-25 = %v, want a holiday in both", got)
		}
		// The same calendar twice adds nothing the second time.
		def = s.mustPutView(t, "twice", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}},{"calendar":{"name":"Nexosis.Holidays-US"}}]}`)
		if once := s.mustPutView(t, "once", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}}]}`); len(def.Columns) != len(once.Columns) {
			t.Errorf("US twice has %d columns, want the %d of US once", len(def.Columns), len(once.Columns))
		}
		if got := s.getView(t, "twice", "").Data; len(got) != 5 || got[1]["calendar:US Holidays"] != "1" {
			t.Errorf("US twice rows = %v, want the five rows with July 4 flagged", got)
		}
		res := s.putView(t, "bad", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}},
			{"calendar":{"name":"Nexosis.Holidays-CA"},"columnOptions":{"eventTimestamp":{"alias":"sales"}}}]}`)
		wantError(t, "calendar alias clashing", res, 400, "InvalidColumnMetadata", "eventTimestamp")
		wantNoView(t, s, "bad")
		def = s.mustPutView(t, "two", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}},
			{"calendar":{"name":"Nexosis.Holidays-CA"},"columnOptions":{"eventTimestamp":{"alias":"caEvent"}}}]}`)
		if _, ok := def.Columns["calendar:CA Holidays"]; !ok {
			t.Errorf("columns = %v, want calendar:CA Holidays", def.Columns)
		}
		rows = s.getView(t, "two", "").Data
		if got := rows[1]; got["calendar:US Holidays"] != "1" || got["calendar:CA Holidays"] != "0" {
			t.Errorf("2017-07-04 = %v, want a US holiday only", got)
		}
		if got := rows[4]; got["calendar:US Holidays"] != "1" || got["calendar:CA Holidays"] != "1" || got["caEvent"] == "" {
			t.Errorf("2017-12-25 = %v, want a holiday in both, with the aliased CA eventTimestamp", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		s.putCSV(t, "flat", "a,b\n1,2\n")
		for _, c := range []struct{ name, body, detail string }{
			{"base without timestamp", `{"dataSetName":"flat","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}}]}`, "joins[0].calendar"},
			{"bad time zone", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US","timeZone":"Mars/Base"}}]}`, "joins[0].calendar.timeZone"},
			{"bad interval", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"},"columnOptions":{"eventTimestamp":{"joinInterval":"fortnight"}}}]}`, "joins[0].columnOptions.eventTimestamp.joinInterval"},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantError(t, c.name, s.putView(t, "bad", c.body), 400, "RequestValidation", c.detail)
				wantNoView(t, s, "bad")
			})
		}
	})
}

// A view's aggregation override on a joined column is how the join
// combines that column's right rows.
func TestViewAggregationOverride(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	v := `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":{"day":{"joinInterval":"day"}}},
		{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"storeSales"}}}],"columns":{"temp":{"aggregation":"max"}}}`
	def := s.mustPutView(t, "maxtemp", v)
	if def.Columns["temp"].Aggregation != "max" {
		t.Errorf("temp = %+v, want aggregation max", def.Columns["temp"])
	}
	for _, r := range s.getView(t, "maxtemp", "").Data {
		if strings.HasPrefix(r["hour"], "2017-07-03") && r["temp"] != "24" {
			t.Errorf("temp on 2017-07-03 = %s, want 24 (max of 20 and 24)", r["temp"])
		}
	}
}

// An iCal calendar served on loopback: events read in the calendar's time
// zone, indicator columns named after X-WR-CALNAME, refreshed on PUT, and
// the same refusals as URL imports.
func TestViewICalCalendar(t *testing.T) {
	t.Parallel()
	ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Promotions\r\n" +
		"BEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Summer Sale\r\nDTSTART;VALUE=DATE:20170704\r\nDTEND;VALUE=DATE:20170706\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:2\r\nDTSTAMP:20170101T000000Z\r\nSUMMARY:Flash\r\nDTSTART:20171123T230000\r\nDURATION:PT2H\r\nEND:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
	f, base := serveFiles(t)
	f.put("/promo.ics", []byte(ics), "text/calendar", "")
	f.put("/broken.ics", []byte("this is not a calendar"), "text/calendar", "")
	s := newServer(t)
	s.putCSV(t, "daily", "day,sales\n2017-07-03,5\n2017-07-04,7\n2017-07-05,3\n2017-11-23,4\n2017-11-24,6\n")
	// All-day events are read in New York: July 4-5 local is 04:00 UTC on
	// the 4th to 04:00 UTC on the 6th, so with joinInterval day the 4th and
	// 5th match; the 23:00 flash sale in New York is 04:00 UTC on the 24th.
	def := s.mustPutView(t, "promo", `{"dataSetName":"daily","joins":[{"calendar":{"url":"`+base+`/promo.ics","timeZone":"America/New_York"},
		"columnOptions":{"eventTimestamp":{"joinInterval":"day"}}}]}`)
	for _, name := range []string{"eventTimestamp", "calendar:Promotions", "event:Promotions:Summer Sale", "event:Promotions:Flash"} {
		if _, ok := def.Columns[name]; !ok {
			t.Errorf("columns = %v, want %s", def.Columns, name)
		}
	}
	rows := s.getView(t, "promo", "").Data
	for i, want := range []struct{ cal, sale, flash string }{{"0", "0", "0"}, {"1", "1", "0"}, {"1", "1", "0"}, {"0", "0", "0"}, {"1", "0", "1"}} {
		r := rows[i]
		if r["calendar:Promotions"] != want.cal || r["event:Promotions:Summer Sale"] != want.sale || r["event:Promotions:Flash"] != want.flash {
			t.Errorf("row %s = %v, want %+v", r["day"], r, want)
		}
	}
	// Reads use the stored events; a new PUT reads the file again.
	f.put("/promo.ics", []byte(strings.Replace(ics, "Summer Sale", "Big Sale", 1)), "text/calendar", "")
	if _, ok := s.getView(t, "promo", "").Data[1]["event:Promotions:Summer Sale"]; !ok {
		t.Errorf("a read refetched the calendar")
	}
	def = s.mustPutView(t, "promo", `{"dataSetName":"daily","joins":[{"calendar":{"url":"`+base+`/promo.ics","timeZone":"America/New_York"}}]}`)
	if _, ok := def.Columns["event:Promotions:Big Sale"]; !ok {
		t.Errorf("after a new PUT columns = %v, want the renamed event", def.Columns)
	}
	for _, c := range []struct{ name, url, want string }{
		{"404", base + "/missing.ics", "404"},
		{"not a calendar", base + "/broken.ics", "not an iCalendar file"},
		{"not http", "ftp://example.org/x.ics", "http"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := s.putView(t, "bad", `{"dataSetName":"daily","joins":[{"calendar":{"url":"`+c.url+`"}}]}`)
			e := wantError(t, c.name, res, 400, "RequestValidation", "joins[0].calendar.url")
			if !strings.Contains(fmt.Sprint(e.ErrorDetails), c.want) {
				t.Errorf("errorDetails = %v, want a mention of %q", e.ErrorDetails, c.want)
			}
			wantNoView(t, s, "bad")
		})
	}
	t.Run("private addresses refused by default", func(t *testing.T) {
		g := newServer(t, withGuard())
		g.putCSV(t, "daily", "day,sales\n2017-07-03,5\n")
		e := wantError(t, "guarded", g.putView(t, "p", `{"dataSetName":"daily","joins":[{"calendar":{"url":"`+base+`/promo.ics"}}]}`), 400, "RequestValidation", "joins[0].calendar.url")
		if !strings.Contains(fmt.Sprint(e.ErrorDetails), "private") {
			t.Errorf("errorDetails = %v, want the private-address refusal", e.ErrorDetails)
		}
	})
	t.Run("deleting the view drops its calendar", func(t *testing.T) {
		if res := s.do(t, "DELETE", "/v1/views/promo", nil); res.status != 204 {
			t.Fatalf("DELETE = %d", res.status)
		}
		s.mustPutView(t, "promo", `{"dataSetName":"daily"}`)
	})
}

// A view is a data source: its statistics read the view's rows.
func TestViewStats(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.mustPutView(t, "sw", scenarioView)
	res := s.do(t, "GET", "/v1/data/sw/stats", nil)
	if res.status != 200 {
		t.Fatalf("GET /v1/data/sw/stats = %d %s", res.status, res.body)
	}
	var out struct {
		DataSetName string                    `json:"dataSetName"`
		Columns     map[string]map[string]any `json:"columns"`
	}
	if err := json.Unmarshal(res.body, &out); err != nil {
		t.Fatal(err)
	}
	if out.DataSetName != "sw" || out.Columns["temp"] == nil || out.Columns["storeSales"] == nil {
		t.Errorf("view stats = %s", res.body)
	}
	rows := len(s.getView(t, "sw", "").Data)
	if got := out.Columns["temp"]["totalCount"]; got != float64(rows) {
		t.Errorf("temp totalCount = %v, want the view's %d rows", got, rows)
	}
	if res := s.do(t, "GET", "/v1/data/sw/stats/storeSales", nil); res.status != 200 {
		t.Errorf("GET one column of a view = %d %s", res.status, res.body)
	}
	wantError(t, "unknown", s.do(t, "GET", "/v1/data/nope/stats", nil), 404, "NotFound", "itemType")
}

// When an override makes a joined column the timestamp, date ranges filter
// on it and totalCount counts the filtered view rows.
func TestViewJoinedTimestampRange(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	v := `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":{"day":{"joinInterval":"day"}}},
		{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"storeSales"}}}],
		"columns":{"time":{"role":"none"},"observed":{"role":"timestamp"}}}`
	s.mustPutView(t, "byobserved", v)
	all := s.getView(t, "byobserved", "")
	got := s.getView(t, "byobserved", "startDate=2017-07-04")
	if got.TotalCount != int64(len(got.Data)) || got.TotalCount == 0 || got.TotalCount >= all.TotalCount {
		t.Errorf("totalCount = %d with %d rows (of %d), want the filtered count", got.TotalCount, len(got.Data), all.TotalCount)
	}
	for _, r := range got.Data {
		if r["observed"] < "2017-07-04" {
			t.Errorf("row %v before the start date", r)
		}
	}
}
