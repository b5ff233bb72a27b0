package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzParams sends arbitrary query strings to GET /v1/data/{name} and
// GET /v1/data: the answer is never a 5xx, and always a JSON body.
func FuzzParams(f *testing.F) {
	for _, seed := range []string{
		"", "page=1&pageSize=2", "pageSize=5000", "page=-1", "pageSize=abc&page=0&page=1",
		"startDate=2017-01-02&endDate=2017-01-01", "startDate=2017-01-01T00:00:00%2B00:00", "endDate=01-01-2017",
		"include=day,sales&include=x", "formatDates=true", "sortBy=rowCount&sortOrder=desc", "partialName=%00%ff",
		"page=2147483647&pageSize=1000", "startDate=%", "include=&include=,,", "cascade=bogus",
	} {
		f.Add(seed)
	}
	s := newServer(f)
	s.putCSV(f, "fz", salesCSV)
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/v1/data/fz", "/v1/data"} {
			for _, accept := range []string{"application/json", "text/csv"} {
				req, err := http.NewRequestWithContext(t.Context(), "GET", s.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.URL.RawQuery = query
				req.Header.Set("api-key", "test-key")
				req.Header.Set("Accept", accept)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					// The client refuses some raw queries (control bytes).
					if strings.ContainsAny(query, "\x00\r\n ") || strings.ContainsFunc(query, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
						return
					}
					t.Fatalf("GET %s?%q: %v", path, query, err)
				}
				res.Body.Close()
				if res.StatusCode >= 500 {
					t.Errorf("GET %s?%q Accept %s = %d, want < 500", path, query, accept, res.StatusCode)
				}
			}
		}
	})
}

// FuzzImportRequest posts arbitrary bodies to the import endpoints: the
// answer is never a 5xx and always a JSON body; an accepted import can be
// read back. The private-address guard is on, so nothing is fetched from
// this machine.
func FuzzImportRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `""`, `null`, `[]`, `{"dataSetName":"x","url":"http://example.invalid/a.csv"}`,
		`{"dataSetName":"x","bucket":"b","path":"p","region":"eu-west-1","accessKeyId":"k"}`,
		`{"dataSetName":"x","connectionString":"a=b","container":"c","blob":"b"}`,
		`{"dataSetName":"x","url":"http://h/","columns":{"a":{"dataType":"numeric","role":"key"}}}`,
		`{"dataSetName":"x","url":"http://h/","columns":{"a":1}}`, `{"dataSetName":5}`, `{"auth":{"basic":[]}}`,
		`{"dataSetName":"\u0000","url":"http://h/"}`, `{"dataSetName":"x","url":"http://h/","contentType":"JSON"}`,
	} {
		f.Add("url", seed)
		f.Add("s3", seed)
	}
	s := newServer(f, withGuard())
	f.Fuzz(func(t *testing.T, kind, body string) {
		if kind == "" || kind == "." || kind == ".." {
			return
		}
		res := s.do(t, "POST", "/v1/imports/"+url.PathEscape(kind), body, "Content-Type", "application/json")
		if res.status >= 500 {
			t.Fatalf("POST /v1/imports/%s %q = %d %s", kind, body, res.status, res.body)
		}
		if !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
			t.Fatalf("POST /v1/imports/%s %q: Content-Type %q", kind, body, res.header.Get("Content-Type"))
		}
		if res.status == http.StatusOK {
			imp := decode[importJSON](t, res)
			if got := s.do(t, "GET", "/v1/imports/"+imp.ImportID, nil); got.status != http.StatusOK {
				t.Fatalf("GET the accepted import %s = %d", imp.ImportID, got.status)
			}
		}
	})
}

// FuzzViewRequest puts arbitrary view definitions over two small datasets:
// never a 5xx, always JSON, and a created view can be read back.
func FuzzViewRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `""`, `{"dataSetName":"base"}`,
		`{"dataSetName":"base","joins":[{"dataSet":{"name":"side"},"columnOptions":{"day":{"joinInterval":"Day"},"v":{"alias":"w"}}}]}`,
		`{"dataSetName":"base","joins":[{"calendar":{"name":"Nexosis.Holidays-US"},"columnOptions":{"eventTimestamp":{"joinInterval":"week"}}}]}`,
		`{"dataSetName":"base","joins":[{"calendar":{"url":"http://example.invalid/x.ics","timeZone":"Mars/Base"}}]}`,
		`{"dataSetName":"base","joins":[{"dataSet":{"name":"side"},"columnOptions":{"v":{"joinTo":"x"}}}],"columns":{"x":{"role":"target"}}}`,
		`{"dataSetName":"base","joins":[{"dataSet":{"name":"side"},"calendar":{}}]}`, `{"joins":[{"joins":[{"joins":[]}]}]}`,
		`{"dataSetName":"base","columns":{"x":{"dataType":"string"}}}`, `{"dataSetName":"base","joins":[{"dataSet":{"name":"side"},"columnOptions":[]}]}`,
	} {
		f.Add(seed)
	}
	s := newServer(f, withGuard())
	s.putCSV(f, "base", "day,x\n2017-07-04,1\n2017-07-05,2\n")
	s.putCSV(f, "side", "day,v\n2017-07-04,3\n")
	f.Fuzz(func(t *testing.T, body string) {
		res := s.do(t, "PUT", "/v1/views/fuzzed", body, "Content-Type", "application/json")
		if res.status >= 500 {
			t.Fatalf("PUT /v1/views/fuzzed %q = %d %s", body, res.status, res.body)
		}
		if !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
			t.Fatalf("PUT %q: Content-Type %q", body, res.header.Get("Content-Type"))
		}
		if res.status == http.StatusCreated {
			if got := s.do(t, "GET", "/v1/views/fuzzed", nil); got.status != http.StatusOK {
				t.Fatalf("GET the created view after %q = %d %s", body, got.status, got.body)
			}
		}
	})
}
