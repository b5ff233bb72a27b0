package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
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
		`{"dataSetName":"x","url":"http://h/","columns":` + strings.Repeat("[", 70), `{"dataSetName":"x","url":"http://h/","columns":{"a\u0000":{},"":{}}}`,
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
		`{"dataSetName":"base","joins":` + strings.Repeat("[", 70),
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

// FuzzSessionRequest posts arbitrary bodies and queries to POST
// /sessions/model: the answer is a 200 (with every estimate accepted as
// such) or a 4xx with the error body, never a 5xx. isEstimate is forced on
// in the query so accepted requests never start a contest.
func FuzzSessionRequest(f *testing.F) {
	for _, seed := range []struct{ body, query string }{
		{`{}`, ""}, {`""`, "dataSetName=fz&targetColumn=y&predictionDomain=regression"}, {`null`, ""},
		{`{"dataSourceName":"fz","targetColumn":"y","predictionDomain":"regression"}`, ""},
		{`{"dataSourceName":"fz","predictionDomain":"classification"}`, ""},
		{`{"dataSourceName":"fz","predictionDomain":"anomalies","extraParameters":{"containsAnomalies":"False"}}`, ""},
		{`{"dataSourceName":"fz","targetColumn":"y","predictionDomain":"anomalies","columns":{"x0":{"role":"none"}}}`, ""},
		{`{"dataSourceName":"fz","targetColumn":"y","predictionDomain":"classification","extraParameters":{"balance":"no"}}`, ""},
		{`{"dataSourceName":"fz","targetColumn":"y","predictionDomain":"regression","columns":{"a":{"role":"none"}}}`, ""},
		{`{"dataSourceName":"fz","targetColumn":"a","predictionDomain":"regression","extraParameters":{"balance":"True"}}`, ""},
		{`{"dataSourceName":"fz","targetColumn":"y","predictionDomain":"regression","missingValues":["-"],"callbackUrl":"http://[::1"}`, ""},
		{`{"DATASOURCENAME":1}`, "isEstimate=maybe"}, {`{"columns":[]}`, ""}, {`[`, ""},
		{`{"dataSourceName":"fz","extraParameters":` + strings.Repeat("[", 70), ""},
	} {
		f.Add(seed.body, seed.query)
	}
	s := newServer(f)
	s.putCSV(f, "fz", firstLines(friedman1(f), 30))
	f.Fuzz(func(t *testing.T, body, query string) {
		postEstimate(t, s, "model", body, query)
	})
}

// postEstimate posts a fuzzed session request to /sessions/{kind} with
// isEstimate forced on (so nothing runs) and wants a 200 estimate or a
// 4xx with the error body, never a 5xx.
func postEstimate(t *testing.T, s *testServer, kind, body, query string) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return
	}
	q.Set("isEstimate", "true")
	req, err := http.NewRequestWithContext(t.Context(), "POST", s.URL+"/v1/sessions/"+kind+"?"+q.Encode(), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("api-key", "test-key")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %q: %v", body, err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 500 || (res.StatusCode != 200 && res.StatusCode < 400) {
		t.Errorf("POST /sessions/%s %q ?%s = %d %s, want 200 or 4xx", kind, body, query, res.StatusCode, b)
	}
	if res.StatusCode == 200 && res.Header.Get("Nexosis-Session-Status") != "Estimated" {
		t.Errorf("POST %q: accepted but not an estimate", body)
	}
	if res.StatusCode >= 400 && !strings.Contains(string(b), `"errorType"`) {
		t.Errorf("POST %q: %d without the error body: %s", body, res.StatusCode, b)
	}
}

// FuzzPredictBody posts arbitrary JSON and CSV bodies to a model's
// predict: the answer is a 200 or a 4xx, never a 5xx.
func FuzzPredictBody(f *testing.F) {
	addPredictSeeds(f, `{"x0":1,"x1":"2","x2":null,"x3":true,"x4":1e3,"x5":-1,"x6":0,"x7":"","x8":1,"x9":1}`, "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9\n1,2,3,4,5,6,7,8,9,10\n")
	s := newServer(f)
	done := s.regression(f, "fz", 40)
	fuzzPredict(f, s, done.ModelID)
}

// FuzzClassifierPredictBody is FuzzPredictBody on a classification
// model, whose answer may carry class scores.
func FuzzClassifierPredictBody(f *testing.F) {
	addPredictSeeds(f, `{"sepal_length":1,"sepal_width":"2","petal_length":null,"petal_width":true}`, "sepal_length,sepal_width,petal_length,petal_width\n1,2,3,4\n")
	f.Add(`{"extraParameters":{"includeClassScores":"maybe"},"data":[{"sepal_length":1}]}`, false)
	f.Add(`{"extraParameters":{"includeClassScores":1},"data":[{"sepal_length":1}]}`, false)
	s := newServer(f)
	s.putCSV(f, "iris", classifyCSV(f, "iris"))
	created := s.createSession(f, `{"dataSourceName": "iris", "targetColumn": "species", "predictionDomain": "classification"}`)
	done := s.waitSession(f, created.SessionID)
	if done.Status != "completed" {
		f.Fatalf("iris session = %+v", done)
	}
	fuzzPredict(f, s, done.ModelID)
}

// FuzzAnomalyPredictBody is FuzzPredictBody on an anomalies model, whose
// answer carries an anomaly score per row (and no target).
func FuzzAnomalyPredictBody(f *testing.F) {
	addPredictSeeds(f, `{"sepal_length":1,"sepal_width":"2","petal_length":null,"petal_width":true,"anomaly":"x"}`, "sepal_length,sepal_width,petal_length,petal_width\n1,2,3,4\n")
	s := newServer(f)
	s.putCSV(f, "iris", classifyCSV(f, "iris"))
	created := s.createSession(f, `{"dataSourceName": "iris", "predictionDomain": "anomalies", "columns": {"species": {"role": "none"}}}`)
	done := s.waitSession(f, created.SessionID)
	if done.Status != "completed" {
		f.Fatalf("iris anomalies session = %+v", done)
	}
	fuzzPredict(f, s, done.ModelID)
}

// addPredictSeeds adds predict bodies built around one valid JSON row and
// one valid CSV text.
func addPredictSeeds(f *testing.F, row, csvText string) {
	for _, seed := range []struct {
		body string
		csv  bool
	}{
		{`{"data":[` + row + `]}`, false}, {`{"data":[]}`, false}, {`{"data":[1,2]}`, false}, {`{"data":{}}`, false},
		{`{"extraParameters":{"includeClassScores":"True"},"data":[` + row + `]}`, false}, {`{"data":[{"x0":[]}]}`, false},
		{`{"data":[` + row + `],"extraParameters":{"predictionInterval":0.5}}`, false}, {`{"extraParameters":{"predictionInterval":[]},"data":[]}`, false},
		{csvText, true}, {"x0\n\"", true}, {"", true}, {"a,b\n1\n", true},
		{`{"data":[` + strings.Repeat("[", 70), false}, {`{"data":[{"x0":1,"":2,"a\u0000":3}]}`, false}, {"x0,\x00\n1,2\n", true},
		{`{"data":[` + row + `,{"X0":"\u00e9\"","b":1,"x0":2},{}],"data":[` + row + `]}`, false}, {"{\"data\":[{\"x0\":\"\xff\",\"\xfe\":1}]}", false},
		{`{"data":[` + row + `],"extraParameters":{"includeClassScores":true},"x":[1,{"a":null}]}`, false}, {"x0,x0\n1,2\n", true}, {"x0\n\"a\"\"b\"\n\xff\n", true},
	} {
		f.Add(seed.body, seed.csv)
	}
}

// fuzzPredict posts the fuzzer's bodies to a model's predict.
func fuzzPredict(f *testing.F, s *testServer, modelID string) {
	f.Fuzz(func(t *testing.T, body string, asCSV bool) {
		ct := "application/json"
		if asCSV {
			ct = "text/csv"
		}
		res := s.do(t, http.MethodPost, "/v1/models/"+modelID+"/predict", body, "Content-Type", ct)
		if res.status >= 500 || (res.status != 200 && res.status < 400) {
			t.Errorf("predict %q (%s) = %d %s, want 200 or 4xx", body, ct, res.status, res.body)
		}
		if res.status != 200 {
			return
		}
		// The answer, rendered without encoding/json, is JSON with a row
		// per row of a JSON body as encoding/json reads it (when the body
		// has one data array: rows of several are all predicted).
		var out struct{ Data []map[string]string }
		if err := json.Unmarshal(res.body, &out); err != nil {
			t.Fatalf("predict %q (%s) = 200 %s: %v", body, ct, res.body, err)
		}
		var in struct{ Data []json.RawMessage }
		single := strings.Count(strings.ToLower(body), `"data"`) == 1
		if !asCSV && single && json.Unmarshal([]byte(body), &in) == nil && len(in.Data) != len(out.Data) {
			t.Errorf("predict %q = %d rows, want %d", body, len(out.Data), len(in.Data))
		}
	})
}

// FuzzTimeSeriesRequest posts arbitrary bodies and queries to POST
// /sessions/forecast and /sessions/impact (chosen by the fuzzer): the
// answer is a 200 estimate or a 4xx with the error body, never a 5xx.
// isEstimate is forced on so accepted requests never start a contest.
func FuzzTimeSeriesRequest(f *testing.F) {
	for _, seed := range []struct {
		impact      bool
		body, query string
	}{
		{false, `{"dataSourceName":"ts","targetColumn":"sales","startDate":"2018-03-01","endDate":"2018-03-05"}`, ""},
		{false, `{"dataSourceName":"ts","targetColumn":"sales","startDate":"2018-03-01","endDate":"2018-03-05","resultInterval":"WEEK"}`, ""},
		{false, `{"dataSourceName":"ts","startDate":"2018-03-01T00:00:00+08:00","endDate":"2099-03-05","resultInterval":"hour"}`, ""},
		{false, `{"dataSourceName":"ts","targetColumn":"sales","startDate":"soon","endDate":"2018-03-01","resultInterval":"seconds"}`, ""},
		{false, "", "dataSourceName=ts&targetColumn=sales&startDate=2018-03-01&endDate=2018-03-05&resultInterval=day"},
		{false, `{"dataSourceName":"ts","targetColumn":"sales","startDate":"2018-03-01","endDate":"2018-03-05","columns":{"promo":{"role":"feature","dataType":"string"}}}`, ""},
		{true, `{"dataSourceName":"ts","targetColumn":"sales","eventName":"promo","startDate":"2018-02-01","endDate":"2018-02-10"}`, ""},
		{true, `{"dataSourceName":"ts","targetColumn":"sales","eventName":"","startDate":"2018-03-01","endDate":"2018-02-10"}`, ""},
		{true, `{"dataSourceName":"ts","eventName":"x","startDate":"1900-01-01","endDate":"1900-01-02"}`, "callbackUrl=http://[::1"},
		{true, `{"startDate":1,"endDate":[],"eventName":{}}`, ""},
	} {
		f.Add(seed.impact, seed.body, seed.query)
	}
	s := newServer(f)
	s.putCSV(f, "ts", dailySeries(60, 10))
	f.Fuzz(func(t *testing.T, impact bool, body, query string) {
		kind := "forecast"
		if impact {
			kind = "impact"
		}
		postEstimate(t, s, kind, body, query)
	})
}

// FuzzColumnarPredictBody posts arbitrary Arrow IPC and Parquet bodies
// (seeded with valid ones, typed and text) to a model's predict, asking
// for the answer in the same format: a 200 or a 4xx, never a 5xx.
func FuzzColumnarPredictBody(f *testing.F) {
	rec := friedmanRecord(3)
	text := array.NewStringBuilder(memory.DefaultAllocator)
	text.AppendValues([]string{"1", "", "x"}, []bool{true, false, true})
	mixed := array.NewRecordBatch(arrow.NewSchema(append(rec.Schema().Fields()[:9:9], arrow.Field{Name: "x9", Type: arrow.BinaryTypes.String, Nullable: true}), nil),
		append(rec.Columns()[:9:9], text.NewArray()), 3)
	for _, r := range []arrow.RecordBatch{rec, mixed} {
		var ipcBody, pqBody bytes.Buffer
		w := ipc.NewWriter(&ipcBody, ipc.WithSchema(r.Schema()))
		if err := w.Write(r); err != nil {
			f.Fatal(err)
		}
		w.Close()
		tbl := array.NewTableFromRecords(r.Schema(), []arrow.RecordBatch{r})
		if err := pqarrow.WriteTable(tbl, &pqBody, 3, nil, pqarrow.DefaultWriterProps()); err != nil {
			f.Fatal(err)
		}
		f.Add(ipcBody.Bytes(), false)
		f.Add(pqBody.Bytes(), true)
		f.Add(ipcBody.Bytes()[:ipcBody.Len()/2], false)
	}
	s := newServer(f)
	done := s.regression(f, "fz", 40)
	f.Fuzz(func(t *testing.T, body []byte, parquet bool) {
		mt := "application/vnd.apache.arrow.stream"
		if parquet {
			mt = "application/vnd.apache.parquet"
		}
		res := s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", body, "Content-Type", mt, "Accept", mt)
		if res.status >= 500 || (res.status != 200 && res.status < 400) {
			t.Errorf("predict %d bytes of %s = %d %s, want 200 or 4xx", len(body), mt, res.status, res.body)
		}
	})
}
