package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The attacks of the hardening issue (§1: one small request must not take
// the machine's memory), each refused early with a 400 that names the
// limit, and nothing written.

// wideJSON is a JSON body of rows rows with keys new keys each.
func wideJSON(rows, keys int) string {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k := range keys {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d_%d":1`, i, k)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.String()
}

// wideCSV is a header of ncol names and one row.
func wideCSV(ncol int) string {
	var b strings.Builder
	for j := range ncol {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	b.WriteString(strings.TrimSuffix(strings.Repeat("1,", ncol), ","))
	b.WriteByte('\n')
	return b.String()
}

func TestPutDatasetLimits(t *testing.T) {
	s := newServer(t)
	js := hdr{"Content-Type", "application/json"}
	jsGzip := hdr{"Content-Type", "application/json", "Content-Encoding", "gzip"}
	csv := hdr{"Content-Type", "text/csv"}
	// {"x": and 5 million [, a few kB on the wire.
	deepIgnored := gzipped(t, `{"data":[{"day":"2017-01-09","sales":1}],"x":`+strings.Repeat("[", 5_000_000))
	deepData := gzipped(t, `{"data":[{"day":"2017-01-09","sales":1},`+strings.Repeat("[", 5_000_000))
	long := strings.Repeat("x", 10000)
	wide := gzipped(t, wideJSON(200, 500))
	if len(wide) > 300<<10 || len(deepIgnored) > 100<<10 {
		t.Fatalf("attack bodies of %d and %d bytes, want them small on the wire", len(wide), len(deepIgnored))
	}
	for _, tc := range []badPut{
		{name: "json gzip 200 rows of 500 keys", headers: jsGzip, body: wide, status: 400, errorType: "RequestValidation", detail: "body", mention: "more than 4096 columns; the column limit is 4096"},
		{name: "csv 50000 columns", headers: csv, body: wideCSV(50000), status: 400, errorType: "RequestValidation", detail: "body", mention: "line 1: more than 4096 columns"},
		{name: "json columns 5000 entries", headers: js, body: `{"columns":{` + strings.TrimSuffix(strings.Repeat(`"c":{},`, 1)+columnsEntries(5000), ",") + `}}`, status: 400, errorType: "RequestValidation", detail: "body", mention: "4096 columns"},
		{name: "json deep in an ignored property", headers: jsGzip, body: deepIgnored, status: 400, errorType: "RequestValidation", detail: "body", mention: "deeper than 64 levels"},
		{name: "json deep in data", headers: jsGzip, body: deepData, status: 400, errorType: "RequestValidation", detail: "body", mention: "deeper than 64 levels"},
		{name: "json deep in column metadata", headers: js, body: `{"columns":{"sales":{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}}`, status: 400, errorType: "RequestValidation", detail: "body", mention: "deeper than 64 levels"},
		{name: "csv NUL in header", headers: csv, body: "day,sa\x00les\n2017-01-09,1\n", status: 400, errorType: "InvalidColumnMetadata", detail: "sa\x00les", mention: "Column names must be"},
		{name: "csv 10000-character name", headers: csv, body: "day," + long + "\n2017-01-09,1\n", status: 400, errorType: "InvalidColumnMetadata", mention: "Column names must be"},
		{name: "json NUL in key", headers: js, body: `{"data":[{"day":"2017-01-09","sa\u0000les":1}]}`, status: 400, errorType: "InvalidColumnMetadata", detail: "sa\x00les"},
		{name: "json empty key", headers: js, body: `{"data":[{"day":"2017-01-09","":1}]}`, status: 400, errorType: "InvalidColumnMetadata", detail: ""},
		{name: "json empty key after the sample", headers: js, body: `{"data":[` + strings.Repeat(`{"day":"2017-01-09","sales":1},`, 10001) + `{"":1}]}`, status: 400, errorType: "InvalidColumnMetadata"},
		{name: "json 10000-character key", headers: js, body: `{"data":[{"day":"2017-01-09","` + long + `":1}]}`, status: 400, errorType: "InvalidColumnMetadata", mention: "Column names must be"},
		{name: "json 10000-character columns key", headers: js, body: `{"columns":{"` + long + `":{"dataType":"numeric"}}}`, status: 400, errorType: "InvalidColumnMetadata", mention: "Column names must be"},
		{name: "json NUL in columns key", headers: js, body: `{"columns":{"a\u0000":{"dataType":"numeric"}},"data":[{"day":"2017-01-09"}]}`, status: 400, errorType: "InvalidColumnMetadata", detail: "a\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quickly(t, tc.name, func() { s.checkBadPut(t, tc) })
		})
	}
	// A refused name is not echoed whole.
	res := s.do(t, "PUT", "/v1/data/long-key", `{"data":[{"`+long+`":1}]}`, js...)
	if len(res.body) > 1000 {
		t.Errorf("PUT with a 10000-character key answered %d bytes, want the name shortened", len(res.body))
	}
	// A data key that differs from a stored name only in case is the
	// stored column, not a new one.
	s.putCSV(t, "case", "day,sales\n2017-01-09,1\n")
	s.putJSON(t, "case", `{"data":[{"DAY":"2017-01-10","Sales":2}]}`)
}

func columnsEntries(n int) string {
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, `"c%d":{"dataType":"numeric"},`, k)
	}
	return b.String()
}

// The column limit applies to the dataset: its columns and those a PUT or
// an import adds, after any number of PUTs.
func TestPutDatasetColumnLimitAcrossPuts(t *testing.T) {
	s := newServer(t, withMaxColumns(4))
	js := hdr{"Content-Type", "application/json"}
	s.putCSV(t, "w", "a,b,c\n1,2,3\n")
	s.putJSON(t, "w", `{"data":[{"a":4,"d":5}]}`)
	s.putCSV(t, "w", "A,b,c,d\n6,7,8,9\n")
	before := s.snapshot(t, "w")
	for _, c := range []struct{ what, contentType, body string }{
		{"a new key", "application/json", `{"data":[{"a":1,"e":2}]}`},
		{"a new key after the sample", "application/json", `{"data":[` + strings.Repeat(`{"a":1},`, 10001) + `{"e":2}]}`},
		{"a new CSV column", "text/csv", "a,e\n1,2\n"},
		{"new column metadata", "application/json", `{"columns":{"e":{"dataType":"numeric"}}}`},
	} {
		res := s.do(t, "PUT", "/v1/data/w", c.body, "Content-Type", c.contentType)
		e := wantError(t, "PUT w with "+c.what, res, 400, "RequestValidation", "")
		if !strings.Contains(string(res.body), "column limit is 4") {
			t.Errorf("PUT w with %s = %s %v, want the limit named", c.what, e.Message, e.ErrorDetails)
		}
		if after := s.snapshot(t, "w"); after != before {
			t.Errorf("GET w after a refused PUT with %s = %s, want %s", c.what, after, before)
		}
	}
	// Five columns at once in a new dataset: refused, nothing created.
	res := s.do(t, "PUT", "/v1/data/five", `{"data":[{"a":1,"b":2,"c":3,"d":4,"e":5}]}`, js...)
	wantError(t, "PUT five", res, 400, "RequestValidation", "body")
	if res := s.do(t, "GET", "/v1/data/five", nil); res.status != 404 {
		t.Errorf("GET five after a refused PUT = %d, want 404", res.status)
	}

	// Imports take the same path.
	f, base := serveFiles(t)
	f.put("/wide.csv", []byte("a,e\n1,2\n"), "text/csv", "")
	f.put("/narrow.csv", []byte("a,b\n1,2\n"), "text/csv", "")
	f.put("/nul.csv", []byte("a,b\x00\n1,2\n"), "text/csv", "")
	f.put("/deep.json", []byte(`{"x":`+strings.Repeat("[", 1000)), "application/json", "")
	for _, c := range []struct{ path, want string }{
		{"/wide.csv", "column limit is 4"},
		{"/nul.csv", "invalid metadata"},
		{"/deep.json", "deeper than 64 levels"},
	} {
		imp := postImport(t, s, "url", map[string]any{"dataSetName": "w", "url": base + c.path})
		done := waitImport(t, s, imp.ImportID)
		if done.Status != "failed" || len(done.Messages) == 0 || !strings.Contains(done.Messages[len(done.Messages)-1].Message, c.want) {
			t.Errorf("import of %s = %s %+v, want failed mentioning %q", c.path, done.Status, done.Messages, c.want)
		}
		if after := s.snapshot(t, "w"); after != before {
			t.Errorf("GET w after the import of %s = %s, want %s", c.path, after, before)
		}
	}
	// An import request with more column metadata than the limit is
	// refused at once.
	res = s.do(t, "POST", "/v1/imports/url", `{"dataSetName":"w","url":"`+base+`/wide.csv","columns":{`+strings.TrimSuffix(columnsEntries(5), ",")+`}}`, js...)
	wantError(t, "import request with 5 columns", res, 400, "RequestValidation", "columns")
	imp := postImport(t, s, "url", map[string]any{"dataSetName": "w", "url": base + "/narrow.csv", "columns": map[string]any{"f": map[string]string{"dataType": "numeric"}}})
	if done := waitImport(t, s, imp.ImportID); done.Status != "failed" || !strings.Contains(fmt.Sprint(done.Messages), "column limit is 4") {
		t.Errorf("import declaring a fifth column = %s %+v, want failed naming the limit", done.Status, done.Messages)
	}
	if after := s.snapshot(t, "w"); after != before {
		t.Errorf("GET w after an import declaring a fifth column = %s, want %s", after, before)
	}
}

// Predict bodies: their keys name columns (echoed in the answer) and
// follow the same rules and limit.
func TestPredictBodyLimits(t *testing.T) {
	s := newServer(t, withMaxColumns(20))
	id := s.namedModel(t, "friedman", "limits")
	path := "/v1/models/" + id + "/predict"
	row := strings.TrimSuffix(friedmanRow, "}")
	for _, c := range []struct{ what, body, errorType string }{
		{"NUL key", `{"data":[` + row + `,"a\u0000":1}]}`, "InvalidColumnMetadata"},
		{"empty key", `{"data":[` + row + `,"":1}]}`, "InvalidColumnMetadata"},
		{"10000-character key", `{"data":[` + row + `,"` + strings.Repeat("k", 10000) + `":1}]}`, "InvalidColumnMetadata"},
		{"more columns than the limit", `{"data":[` + row + `,` + strings.TrimSuffix(columnsEntries(11), ",") + `}]}`, "RequestValidation"},
		{"nested deep", `{"data":[` + row + `,"a":` + strings.Repeat("[", 1000) + `}]}`, "RequestValidation"},
	} {
		res := s.do(t, http.MethodPost, path, c.body, "Content-Type", "application/json")
		wantError(t, "predict with "+c.what, res, 400, c.errorType, "")
	}
	res := s.do(t, http.MethodPost, path, "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,b\x00\n1,1,1,1,1,1,1,1,1,1,1\n", "Content-Type", "text/csv")
	wantError(t, "predict CSV with a NUL in the header", res, 400, "InvalidColumnMetadata", "")
	if res := s.do(t, http.MethodGet, "/v1/models/"+id, nil); strings.Contains(string(res.body), "lastUsedDate") {
		t.Errorf("model after refused predictions = %s, want no lastUsedDate", res.body)
	}
}
