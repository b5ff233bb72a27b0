package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vaticml/vatic/engine"
)

// badPut is a PUT that must fail and leave the dataset untouched.
type badPut struct {
	name      string
	query     string
	headers   []string
	body      any
	status    int
	errorType string // "" accepts any
	detail    string // a key errorDetails must have, or ""
	mention   string // text the body must contain (line, column, value), or ""
	golden    string
	oldOnly   bool // an error only given the existing dataset's metadata
}

func TestPutDatasetBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	csv := hdr{"Content-Type", "text/csv"}
	js := hdr{"Content-Type", "application/json"}
	for _, tc := range []badPut{
		{name: "malformed json", headers: js, body: `{"data":[{"day":"2017-01-09","sales":1}`, status: 400, errorType: "RequestValidation", detail: "body", mention: "malformed JSON"},
		{name: "json trailing comma", headers: js, body: `{"data":[{"day":"2017-01-09","sales":1},]}`, status: 400, errorType: "RequestValidation", detail: "body"},
		{name: "json garbage after value", headers: js, body: `{"data":[{"day":"2017-01-09","sales":1}]} {"x":1}`, status: 400, errorType: "RequestValidation", detail: "body"},
		{name: "json row not an object", headers: js, body: `{"data":[{"day":"2017-01-09","sales":1},7]}`, status: 400, errorType: "RequestValidation", mention: "row 2"},
		{name: "json nested value", headers: js, body: `{"data":[{"day":"2017-01-09","sales":{"a":1}}]}`, status: 400, errorType: "RequestValidation", detail: "sales"},
		{name: "json data not an array", headers: js, body: `{"data":{"day":"2017-01-09"}}`, status: 400, errorType: "RequestValidation"},
		{name: "json string body", headers: js, body: `"hello"`, status: 400, errorType: "RequestValidation"},
		{name: "json columns not an object", headers: js, body: `{"columns":[1,2]}`, status: 400, errorType: "RequestValidation"},
		{name: "json missingValues not strings", headers: js, body: `{"missingValues":[1,{}]}`, status: 400, errorType: "RequestValidation"},
		{name: "csv bare quote", headers: csv, body: "day,sales\n2017-01-09,1\"2\n", status: 400, errorType: "RequestValidation", mention: "line 2"},
		{name: "csv unterminated quote", headers: csv, body: "day,sales\n2017-01-09,1\n2017-01-10,\"12\n2017-01-11,3\n", status: 400, errorType: "RequestValidation", mention: "line 3"},
		{name: "csv jagged long", headers: csv, body: "day,sales\n2017-01-09,1\n2017-01-10,2,extra\n", status: 400, errorType: "RequestValidation", mention: "line 3"},
		{name: "csv jagged short", headers: csv, body: "day,sales\n2017-01-09\n", status: 400, errorType: "RequestValidation", mention: "line 2"},
		{name: "csv invalid utf8", headers: csv, body: "day,sales\n2017-01-09,1\n2017-01-10,\xff\xfe\n", status: 400, errorType: "RequestValidation", mention: "line 3"},
		{name: "csv invalid utf8 header", headers: csv, body: "day,s\xffales\n2017-01-09,1\n", status: 400, errorType: "RequestValidation", mention: "line 1"},
		{name: "csv duplicate columns", headers: csv, body: "day,sales,Sales\n2017-01-09,1,2\n", status: 400, errorType: "RequestValidation", mention: "duplicate"},
		{name: "csv value not numeric", headers: csv, body: "day,sales\n2017-01-09,1\n2017-01-10,lots\n", status: 400, errorType: "RequestValidation", detail: "sales", mention: "line 3", oldOnly: true},
		{name: "csv value not a date", headers: csv, body: "day,sales\nyesterday,1\n", status: 400, errorType: "RequestValidation", detail: "day", mention: "yesterday", oldOnly: true},
		{name: "timestampColumn not a date", query: "timestampColumn=sales", headers: csv, body: "day,sales\n2017-01-09,1\n", status: 400},
		{name: "empty csv", headers: csv, body: "", status: 400},
		{name: "empty json", headers: js, body: "", status: 400},
		{name: "unknown content type", headers: hdr{"Content-Type", "application/xml"}, body: "<rows/>", status: 400, errorType: "RequestValidation", detail: "Content-Type", golden: "error_400_content_type"},
		{name: "unknown content encoding", headers: hdr{"Content-Type", "text/csv", "Content-Encoding", "br"}, body: salesCSV, status: 415, errorType: "RequestValidation", detail: "Content-Encoding"},
		{name: "gzip encoding on plain body", headers: hdr{"Content-Type", "text/csv", "Content-Encoding", "gzip"}, body: salesCSV, status: 400, errorType: "RequestValidation"},
		{name: "truncated gzip", headers: hdr{"Content-Type", "text/csv", "Content-Encoding", "gzip"}, body: gzipped(t, salesCSV)[:30], status: 400, errorType: "RequestValidation"},
		{name: "declared type mismatch", headers: js, body: `{"columns":{"x":{"dataType":"numeric"}},"data":[{"x":"abc"}]}`, status: 400, errorType: "RequestValidation", detail: "x", mention: `abc`},
		{name: "declared type mismatch later row", headers: js, body: `{"columns":{"x":{"dataType":"logical"}},"data":[{"x":"true"},{"x":"maybe"}]}`, status: 400, errorType: "RequestValidation", detail: "x", mention: "row 2"},
		{name: "invalid dataType", headers: js, body: `{"columns":{"sales":{"dataType":"money"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sales", mention: "money", golden: "error_400_invalid_column_metadata"},
		{name: "invalid role", headers: js, body: `{"columns":{"sales":{"role":"boss"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sales", mention: "boss"},
		{name: "invalid imputation", headers: js, body: `{"columns":{"sales":{"imputation":"guess"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sales", mention: "guess"},
		{name: "invalid aggregation", headers: js, body: `{"columns":{"sales":{"aggregation":"avg"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sales", mention: "avg"},
		{name: "metadata not strings", headers: js, body: `{"columns":{"sales":{"dataType":5}}}`, status: 400},
		{name: "two targets", headers: js, body: `{"columns":{"other":{"dataType":"numeric","role":"target"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "other", oldOnly: true},
		{name: "two targets in one body", headers: js, body: `{"columns":{"a":{"role":"target"},"b":{"role":"target"}},"data":[{"a":"1","b":"2"}]}`, status: 400, errorType: "InvalidColumnMetadata"},
		{name: "two timestamps", headers: js, body: `{"columns":{"when":{"dataType":"date","role":"timestamp"}}}`, status: 400, errorType: "InvalidColumnMetadata", oldOnly: true},
		{name: "timestamp not a date", headers: js, body: `{"columns":{"sales":{"dataType":"numeric","role":"timestamp"}}}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sales"},
		{name: "no data", headers: js, body: `{"dataSetName":"x","other":[1]}`, status: 400, errorType: "NoData", detail: "dataSetName", golden: "error_400_no_data"},
		{name: "empty object", headers: js, body: `{}`, status: 400, errorType: "NoData", detail: "dataSetName"},
		{name: "null fields", headers: js, body: `{"data":null,"columns":null,"missingValues":null}`, status: 400, errorType: "NoData", detail: "dataSetName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s.checkBadPut(t, tc)
		})
	}
}

// checkBadPut sends tc's PUT to a new dataset and (unless oldOnly) to an
// existing one, and checks the error and that nothing changed.
func (s *testServer) checkBadPut(t *testing.T, tc badPut) {
	t.Helper()
	slug := strings.NewReplacer(" ", "-").Replace(tc.name)
	for _, existing := range []bool{true, false} {
		if !existing && tc.oldOnly {
			continue
		}
		name := "new-" + slug
		var before string
		if existing {
			name = "old-" + slug
			s.putCSV(t, name, salesCSV)
			before = s.snapshot(t, name)
		}
		path := "/v1/data/" + name
		if tc.query != "" {
			path += "?" + tc.query
		}
		res := s.do(t, "PUT", path, tc.body, tc.headers...)
		what := fmt.Sprintf("PUT %s", path)
		if res.status != tc.status {
			t.Fatalf("%s = %d %s, want %d", what, res.status, res.body, tc.status)
		}
		typ := tc.errorType
		if typ == "" {
			typ = decode[errorJSON](t, res).typ()
		}
		wantError(t, what, res, tc.status, typ, tc.detail)
		if tc.mention != "" && !strings.Contains(string(res.body), tc.mention) {
			t.Errorf("%s body = %s, want it to mention %q", what, res.body, tc.mention)
		}
		if existing {
			if after := s.snapshot(t, name); after != before {
				t.Errorf("GET %s after a refused PUT = %s, want %s", name, after, before)
			}
			if tc.golden != "" {
				golden(t, tc.golden, res.body)
			}
		} else if res := s.do(t, "GET", "/v1/data/"+name, nil); res.status != 404 {
			t.Errorf("GET %s after a refused PUT = %d, want 404 (no dataset created)", name, res.status)
		}
	}
}

func TestPutDatasetKeyType(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "keyed", `{"columns":{"id":{"dataType":"numeric","role":"key"}},"data":[{"id":1,"v":"a"}]}`)
	before := s.snapshot(t, "keyed")
	for _, body := range []string{
		`{"columns":{"id":{"dataType":"string","role":"key"}}}`,
		`{"columns":{"id":{"role":"feature"}}}`,
		`{"columns":{"v":{"role":"key"}}}`,
	} {
		res := s.do(t, "PUT", "/v1/data/keyed", body, "Content-Type", "application/json")
		wantError(t, "PUT keyed "+body, res, 400, "InvalidColumnMetadata", "")
		if after := s.snapshot(t, "keyed"); after != before {
			t.Errorf("GET keyed after PUT %s = %s, want %s", body, after, before)
		}
	}
}

func TestPutDatasetTooLarge(t *testing.T) {
	t.Parallel()
	const limit = 4096
	s := newServer(t, withMaxBody(limit))
	s.putCSV(t, "sales", salesCSV)
	before := s.snapshot(t, "sales")
	var big strings.Builder
	big.WriteString("day,sales\n")
	for i := 0; big.Len() <= 4*limit; i++ {
		fmt.Fprintf(&big, "2018-%02d-%02d,%d\n", 1+i/28%12, 1+i%28, i)
	}
	var bigJSON strings.Builder
	bigJSON.WriteString(`{"data":[`)
	for i := 0; bigJSON.Len() <= 4*limit; i++ {
		fmt.Fprintf(&bigJSON, `{"day":"2019-01-01","sales":%d},`, i)
	}
	bigJSON.WriteString(`{"day":"2019-01-02","sales":1}]}`)
	bomb := gzipped(t, "day,sales\n"+strings.Repeat("2019-01-01,1\n", 50000))
	if len(bomb) >= limit {
		t.Fatalf("gzip bomb is %d bytes, want under %d", len(bomb), limit)
	}
	zbomb := zstded(t, "day,sales\n"+strings.Repeat("2019-01-01,1\n", 100000))
	jsonBomb := gzipped(t, `{"data":[`+strings.Repeat(`{"day":"2019-01-01","sales":1},`, 30000)+`{"day":"2019-01-02","sales":1}]}`)
	for _, tc := range []struct {
		name    string
		headers []string
		body    any
	}{
		{"csv", hdr{"Content-Type", "text/csv"}, big.String()},
		{"json", hdr{"Content-Type", "application/json"}, bigJSON.String()},
		{"gzip bomb", hdr{"Content-Type", "text/csv", "Content-Encoding", "gzip"}, bomb},
		{"sniffed gzip bomb", hdr{"Content-Type", "text/csv"}, bomb},
		{"zstd bomb", hdr{"Content-Type", "text/csv", "Content-Encoding", "zstd"}, zbomb},
		{"json gzip bomb", hdr{"Content-Type", "application/json", "Content-Encoding", "gzip"}, jsonBomb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"sales", "fresh"} {
				res := s.do(t, "PUT", "/v1/data/"+name, tc.body, tc.headers...)
				wantError(t, "PUT "+name+" "+tc.name, res, 413, "RequestValidation", "")
				if tc.name == "csv" && name == "sales" {
					golden(t, "error_413", res.body)
				}
			}
			if after := s.snapshot(t, "sales"); after != before {
				t.Errorf("GET sales after a refused PUT = %s, want %s", after, before)
			}
			if res := s.do(t, "GET", "/v1/data/fresh", nil); res.status != 404 {
				t.Errorf("GET fresh after a refused PUT = %d, want 404", res.status)
			}
		})
	}
	// Just under the limit is fine.
	body := "day,sales\n" + strings.Repeat("2019-01-01,1\n", (limit-20)/13)
	if len(body) > limit {
		t.Fatalf("body is %d bytes, want at most %d", len(body), limit)
	}
	s.putCSV(t, "fits", body)
}

func TestPutDatasetQuota(t *testing.T) {
	t.Parallel()
	s := newServer(t, withAllotments(engine.Allotments{DataSets: 2}))
	s.putCSV(t, "a", salesCSV)
	s.putCSV(t, "b", salesCSV)
	res := s.do(t, "PUT", "/v1/data/c", salesCSV, "Content-Type", "text/csv")
	wantError(t, "PUT c over the quota", res, 429, "QuotaExceeded", "")
	wantAccountHeaders(t, "PUT c over the quota", res, 2)
	if got := res.header.Get("Nexosis-Account-DataSetCount-Allotted"); got != "2" {
		t.Errorf("PUT c Nexosis-Account-DataSetCount-Allotted = %q, want 2", got)
	}
	golden(t, "error_429", res.body)
	if res := s.do(t, "GET", "/v1/data/c", nil); res.status != 404 {
		t.Errorf("GET c after 429 = %d, want 404", res.status)
	}
	// Adding to an existing dataset is not a new dataset.
	d := s.putCSV(t, "A", "day,sales\n2017-02-01,1\n")
	if d.RowCount != 6 {
		t.Errorf("PUT A within the quota rowCount = %d, want 6", d.RowCount)
	}
	if res := s.do(t, "DELETE", "/v1/data/b", nil); res.status != 204 {
		t.Fatalf("DELETE b = %d, want 204", res.status)
	}
	s.putCSV(t, "c", salesCSV)
}

// TestPutDatasetSizeQuota: a PUT that would take the account's datasets
// past -allot-dataset-size (their dataSetSize summed) answers 429
// QuotaExceeded and writes nothing; one that fits, or adds no bytes,
// passes.
func TestPutDatasetSizeQuota(t *testing.T) {
	t.Parallel()
	const allotted = 100
	s := newServer(t, withAllotments(engine.Allotments{DataSetSize: allotted}))
	a := s.putCSV(t, "a", salesCSV)
	if a.DataSetSize <= allotted/2 || a.DataSetSize+13 > allotted {
		t.Fatalf("PUT a dataSetSize = %d, want more than %d and room for one 13-byte row", a.DataSetSize, allotted/2)
	}
	res := s.do(t, "PUT", "/v1/data/b", salesCSV, "Content-Type", "text/csv")
	e := wantError(t, "PUT b past the size allotment", res, 429, "QuotaExceeded", "dataSetSize")
	if want := fmt.Sprintf("You have %d bytes of DataSetSize left; this upload needs %d.", allotted-a.DataSetSize, a.DataSetSize); !strings.HasPrefix(e.Message, want) {
		t.Errorf("PUT b past the size allotment message = %q, want it to start %q", e.Message, want)
	}
	if got := res.header.Get("Nexosis-Account-DataSetSize-Allotted"); got != fmt.Sprint(allotted) {
		t.Errorf("PUT b Nexosis-Account-DataSetSize-Allotted = %q, want %d", got, allotted)
	}
	wantAccountHeaders(t, "PUT b past the size allotment", res, 1)
	golden(t, "error_429_dataset_size", res.body)
	if res := s.do(t, "GET", "/v1/data/b", nil); res.status != 404 {
		t.Errorf("GET b after 429 = %d, want 404", res.status)
	}
	// Adding to a dataset counts as much as creating one; a refused
	// upsert leaves the dataset as it was.
	before := s.snapshot(t, "a")
	res = s.do(t, "PUT", "/v1/data/a", "day,sales\n"+strings.Repeat("2017-02-01,1\n", 3), "Content-Type", "text/csv")
	wantError(t, "PUT a past the size allotment", res, 429, "QuotaExceeded", "dataSetSize")
	res = s.do(t, "PUT", "/v1/data/a", `{"data": [{"day": "2017-03-01", "sales": "12345"}, {"day": "2017-03-02", "sales": "12345"}]}`, "Content-Type", "application/json")
	wantError(t, "PUT a JSON past the size allotment", res, 429, "QuotaExceeded", "dataSetSize")
	if after := s.snapshot(t, "a"); after != before {
		t.Errorf("GET a after refused PUTs = %s, want %s", after, before)
	}
	// Metadata adds no bytes; a row that fits is accepted.
	s.putJSON(t, "a", `{"columns": {"sales": {"imputation": "mean"}}}`)
	if d := s.putCSV(t, "a", "day,sales\n2017-02-01,1\n"); d.RowCount != 6 || d.DataSetSize != a.DataSetSize+13 {
		t.Errorf("PUT a within the allotment = rowCount %d dataSetSize %d, want 6 and %d", d.RowCount, d.DataSetSize, a.DataSetSize+13)
	}
	// Deleting frees the bytes.
	if res := s.do(t, "DELETE", "/v1/data/a", nil); res.status != 204 {
		t.Fatalf("DELETE a = %d, want 204", res.status)
	}
	s.putCSV(t, "b", salesCSV)
}
