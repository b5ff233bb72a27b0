package api_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// monthCSV is 31 daily rows of January 2017, uploaded out of order, with a
// second numeric column so no target is inferred.
func monthCSV() string {
	var b strings.Builder
	b.WriteString("date,visits,sales\n")
	for _, d := range []int{31, 1, 15, 2, 30, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29} {
		fmt.Fprintf(&b, "2017-01-%02d,%d,%d.5\n", d, d*10, d)
	}
	return b.String()
}

func days(from, to int) []string {
	var out []string
	for d := from; d <= to; d++ {
		out = append(out, fmt.Sprintf("2017-01-%02dT00:00:00Z", d))
	}
	return out
}

func TestGetDatasetRows(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	d := s.putCSV(t, "month", monthCSV())
	if !d.IsTimeSeries || d.Columns["date"].Role != "timestamp" || d.Columns["visits"].Role != "" || d.Columns["sales"].Role != "" {
		t.Fatalf("PUT month columns = %v, want date the timestamp and no target (two numeric columns)", d.Columns)
	}
	for _, tc := range []struct {
		name, query string
		dates       []string
		total       int64
		page, size  int
		columns     []string
	}{
		{"all ascending", "", days(1, 31), 31, 0, 50, []string{"date", "sales", "visits"}},
		{"page", "page=1&pageSize=10", days(11, 20), 31, 1, 10, nil},
		{"last page", "page=3&pageSize=10", days(31, 31), 31, 3, 10, nil},
		{"past the end", "page=9&pageSize=10", nil, 31, 9, 10, nil},
		{"start iso Z", "startDate=2017-01-29T00:00:00.000Z", days(29, 31), 3, 0, 50, nil},
		{"start offset encoded", "startDate=2017-01-29T00:00:00%2B00:00", days(29, 31), 3, 0, 50, nil},
		{"start offset unencoded plus", "startDate=2017-01-29T00:00:00+00:00", days(29, 31), 3, 0, 50, nil},
		{"start net round trip", "startDate=2017-01-29T00:00:00.0000000%2B00:00", days(29, 31), 3, 0, 50, nil},
		{"start other offset", "startDate=2017-01-29T02:00:00%2B02:00", days(29, 31), 3, 0, 50, nil},
		{"start negative offset", "startDate=2017-01-28T20:00:00-04:00", days(29, 31), 3, 0, 50, nil},
		{"end month-day-year", "endDate=01-03-2017", days(1, 3), 3, 0, 50, nil},
		{"end M-d-yyyy", "endDate=1-3-2017", days(1, 3), 3, 0, 50, nil},
		{"end slashes", "endDate=01/03/2017%2000:00:00", days(1, 3), 3, 0, 50, nil},
		{"end python isoformat", "endDate=2017-01-03T00:00:00", days(1, 3), 3, 0, 50, nil},
		{"range", "startDate=2017-01-10&endDate=2017-01-12", days(10, 12), 3, 0, 50, nil},
		{"range one day", "startDate=01-10-2017&endDate=01-10-2017", days(10, 10), 1, 0, 50, nil},
		{"range paged", "startDate=2017-01-10&endDate=2017-01-20&page=1&pageSize=5", days(15, 19), 11, 1, 5, nil},
		{"empty dates ignored", "startDate=&endDate=", days(1, 31), 31, 0, 50, nil},
		{"include repeated", "include=date&include=sales", days(1, 31), 31, 0, 50, []string{"date", "sales"}},
		{"include comma", "include=date,visits", days(1, 31), 31, 0, 50, []string{"date", "visits"}},
		{"include any case", "include=DATE&include=Sales", days(1, 31), 31, 0, 50, []string{"date", "sales"}},
		{"include unknown ignored", "include=date&include=nothing", days(1, 31), 31, 0, 50, []string{"date"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.get(t, "month", tc.query)
			if dates := rowsOf(got.Data, "date"); !slices.Equal(dates, tc.dates) && !(len(dates) == 0 && len(tc.dates) == 0) {
				t.Errorf("GET month?%s dates = %q, want %q", tc.query, dates, tc.dates)
			}
			if got.Data == nil {
				t.Errorf("GET month?%s data = null, want an array", tc.query)
			}
			if got.TotalCount != tc.total || got.PageNumber != tc.page || got.PageSize != tc.size || got.RowCount != 31 {
				t.Errorf("GET month?%s = totalCount %d page %d size %d rowCount %d, want %d %d %d 31",
					tc.query, got.TotalCount, got.PageNumber, got.PageSize, got.RowCount, tc.total, tc.page, tc.size)
			}
			if tc.columns != nil && len(got.Data) > 0 {
				var keys []string
				for k := range got.Data[0] {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, tc.columns) {
					t.Errorf("GET month?%s row keys = %q, want %q", tc.query, keys, tc.columns)
				}
			}
			for _, r := range got.Data {
				var day int
				fmt.Sscanf(r["date"], "2017-01-%02d", &day)
				if v, ok := r["sales"]; ok && v != fmt.Sprintf("%d.5", day) {
					t.Errorf("GET month?%s row %v: sales = %q, want %d.5", tc.query, r, v, day)
				}
			}
		})
	}
	t.Run("formatDates", func(t *testing.T) {
		got := s.get(t, "month", "formatDates=true&pageSize=2")
		if want := []string{"2017-01-01T00:00:00.0000000Z", "2017-01-02T00:00:00.0000000Z"}; !slices.Equal(rowsOf(got.Data, "date"), want) {
			t.Errorf("GET month?formatDates=true dates = %q, want %q", rowsOf(got.Data, "date"), want)
		}
		got = s.get(t, "month", "formatDates=TRUE&pageSize=1")
		if want := "2017-01-01T00:00:00.0000000Z"; got.Data[0]["date"] != want {
			t.Errorf("GET month?formatDates=TRUE date = %q, want %q", got.Data[0]["date"], want)
		}
	})
	t.Run("links", func(t *testing.T) {
		got := s.get(t, "month", "page=1&pageSize=10&include=date")
		var rels []string
		for _, l := range got.pageJSON.Links {
			rels = append(rels, l.Rel)
		}
		want := []string{"self", "sessions", "imports", "views", "models", "vocabularies", "stats", "first", "prev", "next", "last"}
		if !slices.Equal(rels, want) {
			t.Errorf("GET month links = %q, want %q", rels, want)
		}
		m := relsOf(got.pageJSON.Links)
		if want := s.URL + "/v1/data/month?include=date&page=3&pageSize=10"; m["last"] != want {
			t.Errorf("GET month last = %q, want %q", m["last"], want)
		}
		if want := s.URL + "/v1/data/month/stats"; m["stats"] != want {
			t.Errorf("GET month stats link = %q, want %q", m["stats"], want)
		}
		if want := s.URL + "/v1/sessions?dataSourceName=month"; m["sessions"] != want {
			t.Errorf("GET month sessions link = %q, want %q", m["sessions"], want)
		}
	})
	t.Run("golden", func(t *testing.T) {
		res := s.do(t, "GET", "/v1/data/month?pageSize=3&page=1", nil)
		if ct := res.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("GET month Content-Type = %q, want application/json; charset=utf-8", ct)
		}
		golden(t, "rows_page", res.body)
		golden(t, "rows_range_formatted", s.do(t, "GET", "/v1/data/month?startDate=2017-01-30&formatDates=true&include=date,sales", nil).body)
	})
}

func TestGetDatasetRowsInsertionOrder(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "plain", "name,n\nc,3\na,1\nb,2\n")
	s.putCSV(t, "plain", "name,n\n0,0\n")
	if got := rowsOf(s.get(t, "plain", "").Data, "name"); !slices.Equal(got, []string{"c", "a", "b", "0"}) {
		t.Errorf("GET plain names = %q, want insertion order [c a b 0]", got)
	}
	// Dates on a dataset without a timestamp select nothing away.
	res := s.do(t, "GET", "/v1/data/plain?startDate=2017-01-01", nil)
	if res.status != 200 && res.status != 400 {
		t.Errorf("GET plain?startDate = %d %s, want 200 or 400", res.status, res.body)
	}
}

func TestGetDatasetErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "month", monthCSV())
	for _, tc := range []struct {
		name, path        string
		status            int
		errorType, detail string
		golden            string
	}{
		{"unknown dataset", "/v1/data/nothing", 404, "NotFound", "itemType", "error_404_dataset"},
		{"bad start", "/v1/data/month?startDate=yesterday", 400, "RequestValidation", "startDate", ""},
		{"bad end", "/v1/data/month?endDate=2017-13-45", 400, "RequestValidation", "endDate", ""},
		{"start after end", "/v1/data/month?startDate=2017-01-20&endDate=2017-01-10", 400, "InvalidDateRange", "startDate", "error_400_invalid_date_range"},
		{"bad formatDates", "/v1/data/month?formatDates=perhaps", 400, "RequestValidation", "formatDates", ""},
		{"bad page", "/v1/data/month?page=x", 400, "RequestValidation", "page", ""},
		{"unknown dataset bad page", "/v1/data/nothing?pageSize=0", 400, "RequestValidation", "pageSize", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, accept := range []string{"application/json", "text/csv", acceptArrow, acceptParquet} {
				res := s.do(t, "GET", tc.path, nil, "Accept", accept)
				e := wantError(t, "GET "+tc.path+" Accept "+accept, res, tc.status, tc.errorType, tc.detail)
				if tc.status == 404 && (e.ErrorDetails["itemType"] != "dataSet" || e.ErrorDetails["itemId"] != "nothing") {
					t.Errorf("GET %s errorDetails = %v, want itemType dataSet and itemId nothing", tc.path, e.ErrorDetails)
				}
				if tc.golden != "" && accept == "application/json" {
					golden(t, tc.golden, res.body)
				}
			}
		})
	}
}

func TestGetDatasetCSV(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "month", monthCSV())
	s.putCSV(t, "quoted", "name,note\n\"a, b\",\"line1\nline2\"\n\"x\",\"say \"\"hi\"\"\"\n")
	csvGet := func(t *testing.T, path string, accept string) (string, []string) {
		t.Helper()
		res := s.do(t, "GET", path, nil, "Accept", accept)
		if res.status != 200 {
			t.Fatalf("GET %s Accept %s = %d %s, want 200", path, accept, res.status, res.body)
		}
		if ct := res.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Errorf("GET %s Content-Type = %q, want text/csv; charset=utf-8", path, ct)
		}
		wantAccountHeaders(t, "GET "+path, res, 2)
		return string(res.body), strings.Split(strings.TrimSuffix(string(res.body), "\n"), "\n")
	}
	t.Run("all rows without paging", func(t *testing.T) {
		body, lines := csvGet(t, "/v1/data/month", "text/csv")
		if len(lines) != 32 || lines[0] != "date,visits,sales" || lines[1] != "2017-01-01T00:00:00.0000000Z,10,1.5" || lines[31] != "2017-01-31T00:00:00.0000000Z,310,31.5" {
			t.Errorf("GET month as CSV = %d lines, first %q, want 32 lines in date order", len(lines), lines[:2])
		}
		goldenText(t, "rows.golden.csv", []byte(body))
	})
	t.Run("paged", func(t *testing.T) {
		_, lines := csvGet(t, "/v1/data/month?page=1&pageSize=2", "text/csv")
		want := []string{"date,visits,sales", "2017-01-03T00:00:00.0000000Z,30,3.5", "2017-01-04T00:00:00.0000000Z,40,4.5"}
		if !slices.Equal(lines, want) {
			t.Errorf("GET month?page=1&pageSize=2 as CSV = %q, want %q", lines, want)
		}
		_, lines = csvGet(t, "/v1/data/month?pageSize=5", "text/csv")
		if len(lines) != 6 {
			t.Errorf("GET month?pageSize=5 as CSV = %d lines, want 6", len(lines))
		}
		_, lines = csvGet(t, "/v1/data/month?page=0", "text/csv")
		if len(lines) != 32 {
			t.Errorf("GET month?page=0 as CSV = %d lines, want 32 (page 0 of 50)", len(lines))
		}
	})
	t.Run("range and include", func(t *testing.T) {
		_, lines := csvGet(t, "/v1/data/month?startDate=2017-01-30&include=sales,date", "application/json;q=0.5, text/csv")
		want := []string{"date,sales", "2017-01-30T00:00:00.0000000Z,30.5", "2017-01-31T00:00:00.0000000Z,31.5"}
		if !slices.Equal(lines, want) {
			t.Errorf("GET month?startDate=2017-01-30&include=sales,date as CSV = %q, want %q", lines, want)
		}
	})
	t.Run("quoting", func(t *testing.T) {
		body, _ := csvGet(t, "/v1/data/quoted", "TEXT/CSV")
		want := "name,note\n\"a, b\",\"line1\nline2\"\nx,\"say \"\"hi\"\"\"\n"
		if body != want {
			t.Errorf("GET quoted as CSV = %q, want %q", body, want)
		}
	})
	t.Run("other accepts mean json", func(t *testing.T) {
		for _, accept := range []string{"*/*", "application/json", "appliction/json", "text/html", ""} {
			res := s.do(t, "GET", "/v1/data/month?pageSize=1", nil, "Accept", accept)
			if ct := res.header.Get("Content-Type"); res.status != 200 || !strings.HasPrefix(ct, "application/json") {
				t.Errorf("GET month Accept %q = %d %s, want 200 JSON", accept, res.status, ct)
			}
		}
	})
}

func TestGetDatasetMissingValues(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "gaps", `{"data":[{"a":"1","b":"x","c":"2017-01-01"},{"a":"","b":null},{"b":"z","c":""}]}`)
	want := []row{{"a": "1", "b": "x", "c": "2017-01-01T00:00:00Z"}, {"a": "", "b": "", "c": ""}, {"a": "", "b": "z", "c": ""}}
	if got := s.get(t, "gaps", "").Data; !reflect.DeepEqual(got, want) {
		t.Errorf("GET gaps = %q, want %q", got, want)
	}
	res := s.do(t, "GET", "/v1/data/gaps", nil, "Accept", "text/csv")
	if want := "a,b,c\n1,x,2017-01-01T00:00:00.0000000Z\n,,\n,z,\n"; string(res.body) != want {
		t.Errorf("GET gaps as CSV = %q, want %q", res.body, want)
	}
}
