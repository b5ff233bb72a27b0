package api_test

import (
	"slices"
	"testing"
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
