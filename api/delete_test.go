package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
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
	for _, tc := range []struct {
		name, query string
		keep        []string
	}{
		{"range", "startDate=2017-01-10&endDate=2017-01-20", append(days(1, 9), days(21, 31)...)},
		{"start only", "startDate=2017-01-30T00:00:00%2B00:00", append(days(1, 9), days(21, 29)...)},
		{"end only", "endDate=01-02-2017", append(days(3, 9), days(21, 29)...)},
		{"nothing matches", "startDate=2018-01-01", append(days(3, 9), days(21, 29)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, "DELETE", "/v1/data/month?"+tc.query, nil)
			if res.status != 204 {
				t.Fatalf("DELETE month?%s = %d %s, want 204", tc.query, res.status, res.body)
			}
			got := s.get(t, "month", "")
			if dates := rowsOf(got.Data, "date"); !slices.Equal(dates, tc.keep) {
				t.Errorf("GET month after DELETE ?%s dates = %q, want %q", tc.query, dates, tc.keep)
			}
			if got.RowCount != int64(len(tc.keep)) || got.TotalCount != int64(len(tc.keep)) {
				t.Errorf("GET month after DELETE ?%s rowCount %d totalCount %d, want %d", tc.query, got.RowCount, got.TotalCount, len(tc.keep))
			}
			l := decode[listJSON](t, s.do(t, "GET", "/v1/data?partialName=month", nil))
			if len(l.Items) != 1 || l.Items[0].RowCount != int64(len(tc.keep)) {
				t.Errorf("GET /v1/data?partialName=month after DELETE ?%s = %+v, want rowCount %d", tc.query, l.Items, len(tc.keep))
			}
		})
	}
	t.Run("range emptying the dataset keeps it", func(t *testing.T) {
		s.putCSV(t, "short", salesCSV)
		if res := s.do(t, "DELETE", "/v1/data/short?startDate=2017-01-01&endDate=2017-01-31", nil); res.status != 204 {
			t.Fatalf("DELETE short range = %d %s, want 204", res.status, res.body)
		}
		got := s.get(t, "short", "")
		if got.RowCount != 0 || len(got.Data) != 0 || !got.IsTimeSeries {
			t.Errorf("GET short after emptying = rowCount %d, %d rows, isTimeSeries %v, want 0, 0, true", got.RowCount, len(got.Data), got.IsTimeSeries)
		}
		s.putCSV(t, "short", "day,sales\n2017-03-01,1\n")
		if got := s.get(t, "short", ""); got.RowCount != 1 {
			t.Errorf("GET short after refilling rowCount = %d, want 1", got.RowCount)
		}
		s.do(t, "DELETE", "/v1/data/short", nil)
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
// (either bound may be absent), forecast only its forecast and impact
// sessions, and model the models created within the range with the
// sessions that built them; other datasets' sessions never go.
func TestDeleteDatasetCascadeScope(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2018, 2, 1, 12, 0, 0, 0, time.UTC)
	at := func(day string) {
		mu.Lock()
		defer mu.Unlock()
		var err error
		if now, err = time.Parse(time.DateOnly+"T15", day+"T12"); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(t, withClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	var csv strings.Builder
	csv.WriteString("day,x0,x1,y\n")
	for i := range 100 {
		fmt.Fprintf(&csv, "%s,%d,%d,%d\n", time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), i%7, i%5, 3*(i%7)-i%5+i%3)
	}
	s.putCSV(t, "ts", csv.String())
	s.putCSV(t, "other", firstLines(friedman1(t), 100))
	model := func(day, source string) sessionJSON {
		t.Helper()
		at(day)
		created := s.createSession(t, fmt.Sprintf(`{"dataSourceName": %q, "targetColumn": "y", "predictionDomain": "regression"}`, source))
		done := s.waitSession(t, created.SessionID)
		if done.Status != "completed" || done.ModelID == "" {
			t.Fatalf("session on %s at %s = %s %+v, want completed with a model", source, day, done.Status, done.Messages)
		}
		return done
	}
	// Forecast and impact sessions cannot be created through the API yet:
	// they are written to the catalog as a finished one would be.
	timeSeries := func(day, typ string) string {
		t.Helper()
		id := uuid.NewString()
		requested, err := time.Parse(time.DateOnly+"T15", day+"T12")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.store.Exec(t.Context(), `INSERT INTO catalog.sessions
			(id, type, domain, status, data_source, target, name, callback_url, webhook_token, is_estimate, requested, status_date, request, columns)
			VALUES (?, ?, ?, 'completed', 'ts', 'y', ?, '', '', false, ?, ?, '{"request":{},"view":false}', '[]')`,
			id, typ, typ, typ+" on ts", requested, requested); err != nil {
			t.Fatalf("insert %s session: %v", typ, err)
		}
		return id
	}
	a := model("2018-02-01", "ts")
	f0 := timeSeries("2018-02-01", "forecast")
	b := model("2018-03-10", "ts")
	timeSeries("2018-03-10", "forecast") // both go with the sessions of 03-05 to 03-15
	timeSeries("2018-03-12", "impact")
	o := model("2018-03-10", "other")
	c := model("2018-03-20", "ts")
	f2 := timeSeries("2018-03-25", "forecast")

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
	models := func() []string {
		t.Helper()
		l := decode[struct{ Items []struct{ ModelID string } }](t, s.do(t, http.MethodGet, "/v1/models?pageSize=100", nil))
		var ids []string
		for _, it := range l.Items {
			ids = append(ids, it.ModelID)
		}
		slices.Sort(ids)
		return ids
	}
	at("2018-04-30")
	for _, step := range []struct {
		name, query      string
		sessions, models []string
		rowCount         int64
	}{
		{"session within both bounds", "startDate=2018-03-05&endDate=2018-03-15&cascade=session",
			[]string{a.SessionID, f0, c.SessionID, f2}, []string{a.ModelID, b.ModelID, o.ModelID, c.ModelID}, 89},
		{"forecast up to an end date", "endDate=2018-02-15&cascade=forecasts",
			[]string{a.SessionID, c.SessionID, f2}, []string{a.ModelID, b.ModelID, o.ModelID, c.ModelID}, 43},
		{"model from a start date", "startDate=2018-03-19&cascade=Model",
			[]string{a.SessionID, f2}, []string{a.ModelID, b.ModelID, o.ModelID}, 20},
		{"forecast of the whole dataset", "cascade=forecast",
			[]string{a.SessionID}, []string{a.ModelID, b.ModelID, o.ModelID}, -1},
	} {
		res := s.do(t, http.MethodDelete, "/v1/data/ts?"+step.query, nil)
		if res.status != http.StatusNoContent {
			t.Fatalf("DELETE ts?%s = %d %s, want 204", step.query, res.status, res.body)
		}
		slices.Sort(step.sessions)
		slices.Sort(step.models)
		if got := sessions("ts"); !slices.Equal(got, step.sessions) {
			t.Errorf("%s: sessions of ts = %q, want %q", step.name, got, step.sessions)
		}
		if got := sessions("other"); !slices.Equal(got, []string{o.SessionID}) {
			t.Errorf("%s: sessions of other = %q, want [%s]", step.name, got, o.SessionID)
		}
		if got := models(); !slices.Equal(got, step.models) {
			t.Errorf("%s: models = %q, want %q", step.name, got, step.models)
		}
		if step.rowCount >= 0 {
			if got := s.get(t, "ts", ""); got.RowCount != step.rowCount {
				t.Errorf("%s: rowCount of ts = %d, want %d", step.name, got.RowCount, step.rowCount)
			}
		}
	}
	// Without dates, cascade=model takes every model of the dataset (b's
	// too, whose session went before) and the sessions that built them.
	s.putCSV(t, "ts", csv.String())
	d := model("2018-05-01", "ts")
	if res := s.do(t, http.MethodDelete, "/v1/data/ts?cascade=model", nil); res.status != http.StatusNoContent {
		t.Fatalf("DELETE ts?cascade=model = %d %s", res.status, res.body)
	}
	if got, want := models(), []string{o.ModelID}; !slices.Equal(got, want) {
		t.Errorf("models after DELETE ts?cascade=model = %q, want %q", got, want)
	}
	for _, id := range []string{a.SessionID, d.SessionID} {
		wantError(t, "session of a cascaded model", s.do(t, http.MethodGet, "/v1/sessions/"+id, nil), 404, "NotFound", "itemType")
	}
	if got := sessions("other"); !slices.Equal(got, []string{o.SessionID}) {
		t.Errorf("sessions of other at the end = %q, want [%s]", got, o.SessionID)
	}
}
