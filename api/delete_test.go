package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestDeleteDataset(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "month", monthCSV())
	s.putCSV(t, "plain", "a,b\nx,1\n")
	t.Run("whole", func(t *testing.T) {
		s.putCSV(t, "Gone", salesCSV)
		res := s.do(t, "DELETE", "/v1/data/gone", nil, "Content-Type", "application/json")
		if res.status != 204 || len(res.body) != 0 {
			t.Fatalf("DELETE gone = %d %q, want 204 and no body", res.status, res.body)
		}
		wantAccountHeaders(t, "DELETE gone", res, 2)
		wantError(t, "GET Gone after DELETE", s.do(t, "GET", "/v1/data/Gone", nil), 404, "NotFound", "itemType")
		wantError(t, "DELETE Gone again", s.do(t, "DELETE", "/v1/data/Gone", nil), 404, "NotFound", "itemType")
		// The name can be used again, from scratch.
		d := s.putCSV(t, "gone", "a\nfresh\n")
		if d.DataSetName != "gone" || d.RowCount != 1 || d.ColumnCount != 1 {
			t.Errorf("PUT gone after DELETE = %+v, want a new dataset of 1 row and 1 column", d)
		}
		if res := s.do(t, "DELETE", "/v1/data/gone", nil); res.status != 204 {
			t.Errorf("DELETE gone = %d, want 204", res.status)
		}
	})
	// The dates come from the query, in any form the API reads; which
	// rows a range removes, and that an emptied dataset stays, is in
	// engine/testdata/rules/deletes.
	t.Run("dates from the query", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			keep  []string
		}{
			{"startDate=2017-01-30T00:00:00%2B00:00", days(1, 29)},
			{"endDate=01-02-2017", days(3, 29)},
		} {
			res := s.do(t, "DELETE", "/v1/data/month?"+tc.query, nil)
			if res.status != 204 {
				t.Fatalf("DELETE month?%s = %d %s, want 204", tc.query, res.status, res.body)
			}
			if dates := rowsOf(s.get(t, "month", "").Data, "date"); !slices.Equal(dates, tc.keep) {
				t.Errorf("GET month after DELETE ?%s dates = %q, want %q", tc.query, dates, tc.keep)
			}
		}
	})
	t.Run("cascade", func(t *testing.T) {
		for _, q := range []string{
			"cascade=session&cascade=views", "cascade=Model,Vocabulary", "cascade=FORECASTS", "cascade=sessions,view,models,vocabularies,forecast", "cascade=",
		} {
			s.putCSV(t, "c", salesCSV)
			if res := s.do(t, "DELETE", "/v1/data/c?"+q, nil); res.status != 204 {
				t.Errorf("DELETE c?%s = %d %s, want 204", q, res.status, res.body)
			}
		}
	})
	before := s.snapshot(t, "month")
	for _, tc := range []struct {
		name, path        string
		status            int
		errorType, detail string
	}{
		{"bogus cascade", "/v1/data/month?cascade=bogus", 400, "RequestValidation", "cascade"},
		{"bogus among good cascade", "/v1/data/month?cascade=session,bogus", 400, "RequestValidation", "cascade"},
		{"bad start", "/v1/data/month?startDate=soon", 400, "RequestValidation", "startDate"},
		{"bad end", "/v1/data/month?endDate=2017-02-30", 400, "RequestValidation", "endDate"},
		{"start after end", "/v1/data/month?startDate=2017-01-20&endDate=2017-01-10", 400, "InvalidDateRange", "startDate"},
		{"range without timestamp", "/v1/data/plain?startDate=2017-01-01", 400, "RequestValidation", "startDate"},
		{"end without timestamp", "/v1/data/plain?endDate=2017-01-01", 400, "RequestValidation", "endDate"},
		{"unknown dataset", "/v1/data/nothing", 404, "NotFound", "itemType"},
		{"unknown dataset with range", "/v1/data/nothing?startDate=2017-01-01", 404, "NotFound", "itemType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, "DELETE", tc.path, nil)
			wantError(t, "DELETE "+tc.path, res, tc.status, tc.errorType, tc.detail)
			wantAccountHeaders(t, "DELETE "+tc.path, res, 2)
		})
	}
	if after := s.snapshot(t, "month"); after != before {
		t.Errorf("GET month after refused DELETEs = %s, want %s", after, before)
	}
	if got := s.get(t, "plain", ""); got.RowCount != 1 {
		t.Errorf("GET plain after refused DELETEs rowCount = %d, want 1", got.RowCount)
	}
}

// TestDeleteDatasetCascadeScope: REFERENCE §3.4. With dates, cascade
// session removes only the dataset's sessions requested within the range
// (either bound may be absent), and forecast only its forecast and impact
// sessions; other datasets' sessions never go. The model sessions and
// models of these rules are in engine/testdata/rules/deletes; the forecast
// and impact sessions are written to the catalog here as finished ones
// would be, with the request dates the rules need.
func TestDeleteDatasetCascadeScope(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var csv strings.Builder
	csv.WriteString("day,x0,x1,y\n")
	for i := range 100 {
		fmt.Fprintf(&csv, "%s,%d,%d,%d\n", time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), i%7, i%5, 3*(i%7)-i%5+i%3)
	}
	s.putCSV(t, "ts", csv.String())
	s.putCSV(t, "other", firstLines(friedman1(t), 100))
	timeSeries := func(day, typ, source string) string {
		t.Helper()
		id := uuid.NewString()
		requested, err := time.Parse(time.DateOnly+"T15", day+"T12")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.store.Exec(t.Context(), `INSERT INTO catalog.sessions
			(id, type, domain, status, data_source, target, name, callback_url, webhook_token, is_estimate, requested, status_date, request, columns)
			VALUES (?, ?, ?, 'completed', ?, 'y', ?, '', '', false, ?, ?, '{"request":{},"view":false}', '[]')`,
			id, typ, typ, source, typ+" on "+source, requested, requested); err != nil {
			t.Fatalf("insert %s session: %v", typ, err)
		}
		return id
	}
	f0 := timeSeries("2018-02-01", "forecast", "ts")
	timeSeries("2018-03-10", "forecast", "ts") // both go with the sessions of 03-05 to 03-15
	timeSeries("2018-03-12", "impact", "ts")
	o := timeSeries("2018-03-10", "forecast", "other")
	f2 := timeSeries("2018-03-25", "forecast", "ts")

	sessions := func(source string) []string {
		t.Helper()
		l := decode[struct{ Items []sessionJSON }](t, s.do(t, http.MethodGet, "/v1/sessions?pageSize=100&dataSourceName="+source, nil))
		var ids []string
		for _, it := range l.Items {
			ids = append(ids, it.SessionID)
		}
		slices.Sort(ids)
		return ids
	}
	for _, step := range []struct {
		name, query string
		sessions    []string
	}{
		{"session within both bounds", "startDate=2018-03-05&endDate=2018-03-15&cascade=session", []string{f0, f2}},
		{"forecast up to an end date", "endDate=2018-02-15&cascade=forecasts", []string{f2}},
		{"forecast of the whole dataset", "cascade=forecast", nil},
	} {
		res := s.do(t, http.MethodDelete, "/v1/data/ts?"+step.query, nil)
		if res.status != http.StatusNoContent {
			t.Fatalf("DELETE ts?%s = %d %s, want 204", step.query, res.status, res.body)
		}
		slices.Sort(step.sessions)
		if got := sessions("ts"); !slices.Equal(got, step.sessions) {
			t.Errorf("%s: sessions of ts = %q, want %q", step.name, got, step.sessions)
		}
		if got := sessions("other"); !slices.Equal(got, []string{o}) {
			t.Errorf("%s: sessions of other = %q, want [%s]", step.name, got, o)
		}
	}
}
