package api_test

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t testing.TB, s string) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll([]byte(s), nil)
}

// cols is a compact expectation of column metadata: name → "dataType/role"
// (role may be empty).
type cols map[string]string

func colsOf(d datasetJSON) cols {
	out := cols{}
	for n, c := range d.Columns {
		out[n] = c.DataType + "/" + c.Role
	}
	return out
}

type row = map[string]string

func TestPutDatasetBodies(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	salesCols := cols{"day": "date/timestamp", "sales": "numericMeasure/target"}
	salesRows := []row{
		{"day": "2017-01-01T00:00:00Z", "sales": "10"},
		{"day": "2017-01-02T00:00:00Z", "sales": "20.5"},
		{"day": "2017-01-03T00:00:00Z", "sales": "30"},
		{"day": "2017-01-04T00:00:00Z", "sales": "40"},
		{"day": "2017-01-05T00:00:00Z", "sales": "50"},
	}
	for _, tc := range []struct {
		name    string
		query   string
		headers []string
		body    any
		cols    cols
		rows    []row
		series  bool
	}{
		{name: "csv", headers: hdr{"Content-Type", "text/csv"}, body: salesCSV, cols: salesCols, rows: salesRows, series: true},
		{name: "csv charset", headers: hdr{"Content-Type", "text/csv; charset=utf-8"}, body: salesCSV, cols: salesCols, rows: salesRows, series: true},
		{name: "csv crlf", headers: hdr{"Content-Type", "text/csv"}, body: strings.ReplaceAll(salesCSV, "\n", "\r\n"), cols: salesCols, rows: salesRows, series: true},
		{name: "csv bom", headers: hdr{"Content-Type", "text/csv"}, body: "\uFEFF" + salesCSV, cols: salesCols, rows: salesRows, series: true},
		{name: "csv no final newline", headers: hdr{"Content-Type", "text/csv"}, body: strings.TrimSuffix(salesCSV, "\n"), cols: salesCols, rows: salesRows, series: true},
		{name: "csv gzip", headers: hdr{"Content-Type", "text/csv", "Content-Encoding", "gzip"}, body: gzipped(t, salesCSV), cols: salesCols, rows: salesRows, series: true},
		{name: "csv zstd", headers: hdr{"Content-Type", "text/csv", "Content-Encoding", "zstd"}, body: zstded(t, salesCSV), cols: salesCols, rows: salesRows, series: true},
		{name: "csv gzip sniffed", headers: hdr{"Content-Type", "text/csv"}, body: gzipped(t, salesCSV), cols: salesCols, rows: salesRows, series: true},
		{name: "csv sniffed", body: salesCSV, cols: salesCols, rows: salesRows, series: true},
		{name: "json sniffed", body: `{"data":[{"day":"2017-01-01","sales":1}]}`,
			cols: cols{"day": "date/timestamp", "sales": "numericMeasure/target"},
			rows: []row{{"day": "2017-01-01T00:00:00Z", "sales": "1"}}, series: true},
		{name: "csv quoted", headers: hdr{"Content-Type", "text/csv"},
			body: "name,note\n\"a, b\",\"line1\nline2\"\n\"x\",\"say \"\"hi\"\"\"\n",
			cols: cols{"name": "string/", "note": "string/"},
			rows: []row{{"name": "a, b", "note": "line1\nline2"}, {"name": "x", "note": `say "hi"`}}},
		{name: "csv no header", headers: hdr{"Content-Type", "text/csv"},
			body: "1,1,2010-02-05,24924.5,FALSE\n1,1,2010-02-12,46039.49,TRUE\n1,2,2010-02-19,41595.55,FALSE\n",
			cols: cols{"column1": "numeric/", "column2": "numeric/", "column3": "date/timestamp", "column4": "numeric/", "column5": "logical/"},
			rows: []row{
				{"column1": "1", "column2": "1", "column3": "2010-02-05T00:00:00Z", "column4": "24924.5", "column5": "false"},
				{"column1": "1", "column2": "1", "column3": "2010-02-12T00:00:00Z", "column4": "46039.49", "column5": "true"},
				{"column1": "1", "column2": "2", "column3": "2010-02-19T00:00:00Z", "column4": "41595.55", "column5": "false"},
			}, series: true},
		{name: "csv timestampColumn", query: "timestampColumn=b", headers: hdr{"Content-Type", "text/csv"},
			body:   "a,b,v\n2017-01-01,2017-02-01,1\n2017-01-01,2017-02-02,2\n",
			cols:   cols{"a": "date/", "b": "date/timestamp", "v": "numeric/target"},
			rows:   []row{{"a": "2017-01-01T00:00:00Z", "b": "2017-02-01T00:00:00Z", "v": "1"}, {"a": "2017-01-01T00:00:00Z", "b": "2017-02-02T00:00:00Z", "v": "2"}},
			series: true},
		{name: "csv M-d-yyyy and time", headers: hdr{"Content-Type", "text/csv"},
			body: "when,n\n1-2-2017,1\n12-31-2016 13:30:00,2\n",
			cols: cols{"when": "date/timestamp", "n": "numericMeasure/target"},
			rows: []row{{"when": "2016-12-31T13:30:00Z", "n": "2"}, {"when": "2017-01-02T00:00:00Z", "n": "1"}}, series: true},
		{name: "csv non-unique dates", headers: hdr{"Content-Type", "text/csv"},
			body: "d,n\n2017-01-01,1\n2017-01-01,2\n",
			cols: cols{"d": "date/", "n": "numeric/"},
			rows: []row{{"d": "2017-01-01T00:00:00Z", "n": "1"}, {"d": "2017-01-01T00:00:00Z", "n": "2"}}},
		{name: "logical words", headers: hdr{"Content-Type", "text/csv"},
			body: "yn,tf,onoff,bit\nyes,true,on,0\nNo,FALSE,Off,1\nYES,True,on,1\n",
			cols: cols{"yn": "logical/", "tf": "logical/", "onoff": "logical/", "bit": "numeric/"},
			rows: []row{
				{"yn": "true", "tf": "true", "onoff": "true", "bit": "0"},
				{"yn": "false", "tf": "false", "onoff": "false", "bit": "1"},
				{"yn": "true", "tf": "true", "onoff": "true", "bit": "1"},
			}},
		{name: "json pascal case metadata", headers: hdr{"Content-Type", "application/json"},
			body: `{"Columns":{"day":{"DataType":"Date","Role":"TIMESTAMP"},"sales":{"DataType":"NUMERIC","Role":"Target","Imputation":"Mean","Aggregation":"MAX"},"store":{"dataType":"String","role":"feature"}},
				"Data":[{"day":"2017-01-02","sales":"2.5","store":"a"},{"day":"2017-01-01","sales":"1","store":"b"}]}`,
			cols:   cols{"day": "date/timestamp", "sales": "numeric/target", "store": "string/feature"},
			rows:   []row{{"day": "2017-01-01T00:00:00Z", "sales": "1", "store": "b"}, {"day": "2017-01-02T00:00:00Z", "sales": "2.5", "store": "a"}},
			series: true},
		{name: "json numbers and strings", headers: hdr{"Content-Type", "application/json"},
			body: `{"data":[{"x":1,"y":"1.5","z":true,"w":"a"},{"x":2.25,"y":2,"z":false,"w":null},{"x":"3","y":-4e2,"z":"true","w":7}]}`,
			cols: cols{"x": "numeric/", "y": "numeric/", "z": "logical/", "w": "string/"},
			rows: []row{
				{"x": "1", "y": "1.5", "z": "true", "w": "a"},
				{"x": "2.25", "y": "2", "z": "false", "w": ""},
				{"x": "3", "y": "-400", "z": "true", "w": "7"},
			}},
		{name: "json top-level array", headers: hdr{"Content-Type", "application/json"},
			body: `[{"sepal":"5.1","species":"setosa"},{"sepal":4.9,"species":"setosa"}]`,
			cols: cols{"sepal": "numeric/", "species": "string/"},
			rows: []row{{"sepal": "5.1", "species": "setosa"}, {"sepal": "4.9", "species": "setosa"}}},
		{name: "json columns after data", headers: hdr{"Content-Type", "application/json"},
			body: `{"data":[{"code":"007","n":"1"},{"code":"010","n":"2"}],"columns":{"code":{"dataType":"string","role":"key"}}}`,
			cols: cols{"code": "string/key", "n": "numeric/"},
			rows: []row{{"code": "007", "n": "1"}, {"code": "010", "n": "2"}}},
		{name: "json missing values", headers: hdr{"Content-Type", "application/json"},
			body: `{"missingValues":["N/A","?"],"data":[{"a":"1","b":"x"},{"a":"N/A","b":"?"},{"a":"3","b":""}]}`,
			cols: cols{"a": "numeric/", "b": "string/"},
			rows: []row{{"a": "1", "b": "x"}, {"a": "", "b": ""}, {"a": "3", "b": ""}}},
		{name: "json unknown properties", headers: hdr{"Content-Type", "application/json"},
			body: `{"dataSetName":"ignored","extra":{"a":[1,2]},"data":[{"a":"1"}],"columns":{"a":{"role":"","imputation":null}},"missingValues":null}`,
			cols: cols{"a": "numeric/"},
			rows: []row{{"a": "1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(tc.name, " ", "-")
			path := "/v1/data/" + name
			if tc.query != "" {
				path += "?" + tc.query
			}
			res := s.do(t, "PUT", path, tc.body, tc.headers...)
			if res.status != 201 {
				t.Fatalf("PUT %s = %d %s, want 201", path, res.status, res.body)
			}
			if got, want := res.header.Get("Location"), s.URL+"/v1/data/"+name; got != want {
				t.Errorf("PUT %s Location = %q, want %q", path, got, want)
			}
			d := decode[datasetJSON](t, res)
			if got := colsOf(d); !reflect.DeepEqual(got, tc.cols) {
				t.Errorf("PUT %s columns = %v, want %v", path, got, tc.cols)
			}
			if d.IsTimeSeries != tc.series || d.RowCount != int64(len(tc.rows)) || d.ColumnCount != len(tc.cols) || d.DataSetName != name {
				t.Errorf("PUT %s = name %q isTimeSeries %v rowCount %d columnCount %d, want %q %v %d %d",
					path, d.DataSetName, d.IsTimeSeries, d.RowCount, d.ColumnCount, name, tc.series, len(tc.rows), len(tc.cols))
			}
			if len(d.Links) != 1 || d.Links[0].Rel != "self" || d.Links[0].Href != s.URL+"/v1/data/"+name {
				t.Errorf("PUT %s links = %v, want self %s/v1/data/%s", path, d.Links, s.URL, name)
			}
			got := s.get(t, name, "")
			if !reflect.DeepEqual(got.Data, tc.rows) {
				t.Errorf("GET %s rows = %q, want %q", name, got.Data, tc.rows)
			}
			if !reflect.DeepEqual(colsOf(got.datasetJSON), tc.cols) {
				t.Errorf("GET %s columns = %v, want %v", name, colsOf(got.datasetJSON), tc.cols)
			}
		})
	}
}

func TestPutDatasetGolden(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	golden(t, "put_csv", s.put(t, "sales", "text/csv", salesCSV).body)
	golden(t, "put_json", s.put(t, "stores", "application/json",
		`{"columns":{"id":{"dataType":"string","role":"key"},"opened":{"dataType":"date"},"size":{"dataType":"numeric","imputation":"median"},"open":{"dataType":"logical","role":"feature"},"notes":{"dataType":"text","role":"none"}},
		  "missingValues":["N/A"],
		  "data":[{"id":"s1","opened":"2015-03-01","size":120.5,"open":true,"notes":"corner shop by the river"},
		          {"id":"s2","opened":"2016-07-15","size":"N/A","open":false,"notes":"N/A"}]}`).body)
}

func TestPutDatasetColumnMetadataOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	d := s.putJSON(t, "keyed", `{"columns":{"id":{"role":"key"}}}`)
	if d.RowCount != 0 || d.Columns["id"].Role != "key" {
		t.Fatalf("PUT keyed with only columns = %+v, want an empty dataset with key id", d)
	}
	got := s.get(t, "keyed", "")
	if len(got.Data) != 0 || got.TotalCount != 0 || got.Columns["id"].Role != "key" {
		t.Errorf("GET keyed = %+v, want no rows and column id with role key", got)
	}
	d = s.putJSON(t, "keyed", `{"data":[{"id":"a","v":"1"},{"id":"b","v":"2"}]}`)
	if d.RowCount != 2 || d.Columns["id"].Role != "key" || d.Columns["v"].DataType != "numeric" {
		t.Errorf("PUT keyed with data = %+v, want 2 rows, id the key, v numeric", d)
	}
	d = s.putJSON(t, "keyed", `{"data":[{"id":"a","v":"10"}]}`)
	if d.RowCount != 2 {
		t.Errorf("PUT keyed replacing a = rowCount %d, want 2", d.RowCount)
	}
	if got := rowsOf(s.get(t, "keyed", "").Data, "v"); !slices.Equal(got, []string{"10", "2"}) && !slices.Equal(got, []string{"2", "10"}) {
		t.Errorf("GET keyed v = %q, want 10 and 2", got)
	}
	// Metadata-only update of an existing dataset keeps its rows.
	d = s.putJSON(t, "keyed", `{"columns":{"v":{"dataType":"numericMeasure","role":"target"}}}`)
	if d.RowCount != 2 || d.Columns["v"].DataType != "numericMeasure" || d.Columns["v"].Role != "target" || d.Columns["v"].Imputation != "mean" {
		t.Errorf("PUT keyed metadata = %+v, want 2 rows and v numericMeasure target with imputation mean", d)
	}
}

func TestPutDatasetMissingValuesOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "mv", `{"missingValues":["-","none"]}`)
	d := s.get(t, "mv", "")
	if !slices.Equal(d.MissingValues, []string{"-", "none"}) {
		t.Errorf("GET mv missingValues = %q, want [- none]", d.MissingValues)
	}
	s.putCSV(t, "mv", "a,b\n1,x\n-,none\n3,-\n")
	got := s.get(t, "mv", "")
	want := []row{{"a": "1", "b": "x"}, {"a": "", "b": ""}, {"a": "3", "b": ""}}
	if !reflect.DeepEqual(got.Data, want) {
		t.Errorf("GET mv rows = %q, want %q", got.Data, want)
	}
	if got.Columns["a"].DataType != "numeric" {
		t.Errorf("GET mv column a = %+v, want numeric (missing tokens ignored by inference)", got.Columns["a"])
	}
}

func TestPutDatasetNames(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, tc := range []struct{ put, get, want, location string }{
		{"I%20have%20spaces", "i%20HAVE%20spaces", "I have spaces", "/v1/data/I%20have%20spaces"},
		{"Axon.Api.Regression_Airline", "axon.api.regression_airline", "Axon.Api.Regression_Airline", "/v1/data/Axon.Api.Regression_Airline"},
		{"forecast.015ce681-1a2b", "FORECAST.015CE681-1A2B", "forecast.015ce681-1a2b", "/v1/data/forecast.015ce681-1a2b"},
		{"TestNode", "testnode", "TestNode", "/v1/data/TestNode"},
		{"caf%C3%A9", "CAF%C3%89", "café", "/v1/data/caf%C3%A9"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			res := s.put(t, tc.put, "text/csv", salesCSV)
			if got := res.header.Get("Location"); got != s.URL+tc.location {
				t.Errorf("PUT %s Location = %q, want %q", tc.put, got, s.URL+tc.location)
			}
			if got := s.get(t, tc.get, "").DataSetName; got != tc.want {
				t.Errorf("GET %s dataSetName = %q, want %q", tc.get, got, tc.want)
			}
		})
	}
	// A PUT under another spelling adds to the same dataset.
	d := s.putCSV(t, "TESTNODE", "day,sales\n2017-02-01,1\n")
	if d.DataSetName != "TestNode" || d.RowCount != 6 {
		t.Errorf("PUT TESTNODE = %q with %d rows, want TestNode with 6", d.DataSetName, d.RowCount)
	}
	l := decode[listJSON](t, s.do(t, "GET", "/v1/data?partialName=testnode", nil))
	if l.TotalCount != 1 {
		t.Errorf("GET /v1/data?partialName=testnode totalCount = %d, want 1", l.TotalCount)
	}
}

// TestPutDatasetCSVExportRoundTrip re-imports a CSV export: quoting
// survives both ways.
func TestPutDatasetCSVExportRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	body := "name,note\n\"a, b\",\"line1\nline2\"\n\"x\",\"say \"\"hi\"\"\"\n , padded \n"
	s.putCSV(t, "rt", body)
	res := s.do(t, "GET", "/v1/data/rt", nil, "Accept", "text/csv")
	s.putCSV(t, "rt2", string(res.body))
	a, b := s.get(t, "rt", "").Data, s.get(t, "rt2", "").Data
	if !reflect.DeepEqual(a, b) {
		t.Errorf("rows after a CSV export and re-import = %q, want %q", b, a)
	}
}
