package api_test

import (
	"strconv"
	"strings"
	"testing"
)

// salesCSV is a small daily time series: a unique date column and one
// numeric column, so day becomes the timestamp and sales the target.
const salesCSV = "day,sales\n" +
	"2017-01-03,30\n" +
	"2017-01-01,10\n" +
	"2017-01-02,20.5\n" +
	"2017-01-05,50\n" +
	"2017-01-04,40\n"

func TestPaths(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "Axon.Api.Regression_Airline", salesCSV)
	s.putCSV(t, "I%20have%20spaces", salesCSV)
	for _, tc := range []struct {
		name, method, path string
		want               int
	}{
		{"base", "GET", "/v1/data", 200},
		{"trailing slash", "GET", "/v1/data/", 200},
		{"double slashes", "GET", "//v1//data/", 200},
		{"upper fixed segments", "GET", "/V1/DATA", 200},
		{"dotted name", "GET", "/v1/data/Axon.Api.Regression_Airline", 200},
		{"dotted name other case", "GET", "/v1/data/axon.api.regression_airline", 200},
		{"spaces", "GET", "/v1/data/I%20have%20spaces", 200},
		{"stats any case", "GET", "/V1/Data/Axon.Api.Regression_Airline/STATS", 200},
		{"column stats any case", "GET", "/v1/DATA//Axon.Api.Regression_Airline/Stats/sales/", 200},
		{"healthz", "GET", "/healthz", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, tc.method, tc.path, nil)
			if res.status != tc.want {
				t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, res.status, res.body, tc.want)
			}
		})
	}
	t.Run("names keep their spelling", func(t *testing.T) {
		got := s.get(t, "I%20HAVE%20SPACES", "")
		if got.DataSetName != "I have spaces" {
			t.Errorf("GET /v1/data/I%%20HAVE%%20SPACES dataSetName = %q, want %q", got.DataSetName, "I have spaces")
		}
		st := decode[statsJSON](t, s.do(t, "GET", "/V1/Data/Axon.Api.Regression_Airline/STATS/SALES", nil))
		if _, ok := st.Columns["sales"]; !ok || st.DataSetName != "Axon.Api.Regression_Airline" {
			t.Errorf("GET …/STATS/SALES = %+v, want dataSetName Axon.Api.Regression_Airline with column sales", st)
		}
	})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, tc := range []struct {
		name    string
		path    string
		headers []string
		want    int
	}{
		{"api-key", "/v1/data", nil, 200},
		{"Api-Key any case", "/v1/data", []string{"api-key", "", "API-KEY", "test-key"}, 200},
		{"bearer", "/v1/data", []string{"api-key", "", "Authorization", "Bearer test-key"}, 200},
		{"bearer lower case", "/v1/data", []string{"api-key", "", "Authorization", "bearer test-key"}, 200},
		{"community key", "/v1/data", []string{"api-key", "community-key"}, 200},
		{"no key", "/v1/data", []string{"api-key", ""}, 401},
		{"wrong key", "/v1/data", []string{"api-key", "nope"}, 401},
		{"wrong bearer", "/v1/data", []string{"api-key", "", "Authorization", "Bearer nope"}, 401},
		{"no key unknown route", "/v1/nothing", []string{"api-key", ""}, 401},
		{"healthz needs no key", "/healthz", []string{"api-key", ""}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, "GET", tc.path, nil, tc.headers...)
			if res.status != tc.want {
				t.Fatalf("GET %s with %q = %d %s, want %d", tc.path, tc.headers, res.status, res.body, tc.want)
			}
			if tc.want != 401 {
				return
			}
			e := wantError(t, "GET "+tc.path, res, 401, "<none>", "")
			if e.ErrorDetails != nil {
				t.Errorf("401 errorDetails = %v, want absent", e.ErrorDetails)
			}
			if strings.Contains(string(res.body), "errorType") {
				t.Errorf("401 body = %s, want no errorType", res.body)
			}
		})
	}
	res := s.do(t, "GET", "/v1/data", nil, "api-key", "")
	golden(t, "error_401", res.body)
}

func TestCORS(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	res := s.do(t, "OPTIONS", "/v1/data/x", nil, "api-key", "",
		"Origin", "https://dashboard.example", "Access-Control-Request-Method", "PUT",
		"Access-Control-Request-Headers", "api-key, content-type")
	if res.status >= 300 {
		t.Fatalf("OPTIONS /v1/data/x = %d %s, want 2xx", res.status, res.body)
	}
	for name, want := range map[string]string{
		"Access-Control-Allow-Origin":  "https://dashboard.example",
		"Access-Control-Allow-Methods": "PUT",
		"Access-Control-Allow-Headers": "api-key",
	} {
		if got := res.header.Get(name); !strings.Contains(got, want) {
			t.Errorf("OPTIONS %s = %q, want it to contain %q", name, got, want)
		}
	}
	res = s.do(t, "GET", "/v1/data", nil)
	expose := res.header.Get("Access-Control-Expose-Headers")
	for _, h := range append(accountHeaders, "Nexosis-Session-Status", "Nexosis-Import-Status", "Location") {
		if !strings.Contains(expose, h) {
			t.Errorf("GET /v1/data Access-Control-Expose-Headers = %q, want it to list %s", expose, h)
		}
	}
	if got := res.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("GET /v1/data without Origin: Access-Control-Allow-Origin = %q, want *", got)
	}
}

var accountHeaders = []string{
	"Nexosis-Account-DataSetCount-Allotted", "Nexosis-Account-DataSetCount-Current",
	"Nexosis-Account-PredictionCount-Allotted", "Nexosis-Account-PredictionCount-Current",
	"Nexosis-Account-SessionCount-Allotted", "Nexosis-Account-SessionCount-Current",
	"Nexosis-Account-DataSetSize-Allotted",
}

// wantAccountHeaders checks the quota headers of an authenticated response
// and the current dataset count.
func wantAccountHeaders(t testing.TB, what string, res response, datasets int) {
	t.Helper()
	for _, h := range accountHeaders {
		v := res.header.Get(h)
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			t.Errorf("%s header %s = %q, want an integer", what, h, v)
		}
	}
	if got, want := res.header.Get("Nexosis-Account-DataSetCount-Current"), strconv.Itoa(datasets); got != want {
		t.Errorf("%s Nexosis-Account-DataSetCount-Current = %q, want %q", what, got, want)
	}
	if got := res.header.Get("Nexosis-Account-Balance"); got != "0.00 USD" {
		t.Errorf("%s Nexosis-Account-Balance = %q, want 0.00 USD", what, got)
	}
	if got := res.header.Get("Nexosis-Request-Cost"); got != "0.00 USD" {
		t.Errorf("%s Nexosis-Request-Cost = %q, want 0.00 USD", what, got)
	}
	if res.header.Get("X-Request-Id") == "" {
		t.Errorf("%s has no X-Request-Id", what)
	}
}

func TestResponseHeaders(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	steps := []struct {
		name, method, path, ctype, body string
		status, datasets                int
	}{
		{"empty list", "GET", "/v1/data", "", "", 200, 0},
		{"create a", "PUT", "/v1/data/a", "text/csv", salesCSV, 201, 1},
		{"create b", "PUT", "/v1/data/b", "text/csv", salesCSV, 201, 2},
		{"rows", "GET", "/v1/data/a", "", "", 200, 2},
		{"stats", "GET", "/v1/data/a/stats", "", "", 200, 2},
		{"bad request", "GET", "/v1/data?page=-1", "", "", 400, 2},
		{"not found", "GET", "/v1/data/zzz", "", "", 404, 2},
		{"unknown route", "GET", "/v1/nothing/here", "", "", 404, 2},
		{"delete b", "DELETE", "/v1/data/b", "", "", 204, 1},
		{"list", "GET", "/v1/data", "", "", 200, 1},
	}
	for _, st := range steps {
		var body any
		var headers []string
		if st.body != "" {
			body = st.body
			headers = []string{"Content-Type", st.ctype}
		}
		res := s.do(t, st.method, st.path, body, headers...)
		what := st.method + " " + st.path
		if res.status != st.status {
			t.Fatalf("%s = %d %s, want %d", what, res.status, res.body, st.status)
		}
		wantAccountHeaders(t, what, res, st.datasets)
	}
	res := s.do(t, "GET", "/v1/data", nil, "api-key", "")
	if res.header.Get("X-Request-Id") == "" {
		t.Errorf("401 has no X-Request-Id")
	}
	a, b := s.do(t, "GET", "/healthz", nil), s.do(t, "GET", "/healthz", nil)
	if a.header.Get("X-Request-Id") == b.header.Get("X-Request-Id") {
		t.Errorf("two requests share X-Request-Id %q", a.header.Get("X-Request-Id"))
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "sales", salesCSV)
	for _, tc := range []struct {
		name, method, path string
		status             int
		golden             string
	}{
		{"unknown route", "GET", "/v1/nothing", 404, "error_404_route"},
		{"unknown nested route", "GET", "/v1/data/sales/stats/sales/more", 404, ""},
		{"no version", "GET", "/data", 404, ""},
		{"wrong method", "POST", "/v1/data/sales", 0, ""},
		{"wrong method on list", "DELETE", "/v1/data", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, tc.method, tc.path, nil)
			if tc.status == 0 {
				// The reference names no status for a wrong method; any 4xx
				// with the error body will do.
				if res.status < 400 || res.status >= 500 {
					t.Fatalf("%s %s = %d, want 4xx", tc.method, tc.path, res.status)
				}
				e := decode[errorJSON](t, res)
				if e.StatusCode != res.status || e.Message == "" || e.ErrorType == nil {
					t.Errorf("%s %s body = %s, want an error body", tc.method, tc.path, res.body)
				}
				return
			}
			e := wantError(t, tc.method+" "+tc.path, res, tc.status, "NotFound", "")
			if e.ErrorDetails == nil {
				t.Errorf("%s %s errorDetails absent, want {}", tc.method, tc.path)
			}
			if tc.golden != "" {
				golden(t, tc.golden, res.body)
			}
		})
	}
	t.Run("HEAD has no error body", func(t *testing.T) {
		res := s.do(t, "HEAD", "/v1/data/zzz", nil)
		if res.status != 404 || len(res.body) != 0 {
			t.Errorf("HEAD /v1/data/zzz = %d %q, want 404 and no body", res.status, res.body)
		}
		res = s.do(t, "HEAD", "/v1/data/sales", nil)
		if res.status != 200 {
			t.Errorf("HEAD /v1/data/sales = %d, want 200", res.status)
		}
	})
}
