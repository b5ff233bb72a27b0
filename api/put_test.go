package api_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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

func TestPutDatasetUpserts(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	t.Run("key", func(t *testing.T) {
		s.putJSON(t, "k", `{"columns":{"id":{"dataType":"string","role":"key"}},"data":[{"id":"1","v":"a"},{"id":"2","v":"b"}]}`)
		d := s.putJSON(t, "k", `{"data":[{"id":"2","v":"B"},{"id":"3","v":"c"}]}`)
		if d.RowCount != 3 {
			t.Errorf("second PUT k rowCount = %d, want 3", d.RowCount)
		}
		got := map[string]string{}
		for _, r := range s.get(t, "k", "").Data {
			got[r["id"]] = r["v"]
		}
		if want := map[string]string{"1": "a", "2": "B", "3": "c"}; !reflect.DeepEqual(got, want) {
			t.Errorf("GET k = %v, want %v", got, want)
		}
	})
	t.Run("timestamp", func(t *testing.T) {
		s.putCSV(t, "ts", salesCSV)
		d := s.putCSV(t, "ts", "day,sales\n2017-01-05,55\n2017-01-06,60\n")
		if d.RowCount != 6 {
			t.Errorf("second PUT ts rowCount = %d, want 6", d.RowCount)
		}
		got := s.get(t, "ts", "")
		if want := []string{"10", "20.5", "30", "40", "55", "60"}; !slices.Equal(rowsOf(got.Data, "sales"), want) {
			t.Errorf("GET ts sales = %q, want %q", rowsOf(got.Data, "sales"), want)
		}
	})
	t.Run("append", func(t *testing.T) {
		s.putCSV(t, "plain", "a,b\nx,1\ny,2\n")
		d := s.putCSV(t, "plain", "a,b\nx,1\n")
		if d.RowCount != 3 {
			t.Errorf("second PUT plain rowCount = %d, want 3", d.RowCount)
		}
		if got := rowsOf(s.get(t, "plain", "").Data, "a"); !slices.Equal(got, []string{"x", "y", "x"}) {
			t.Errorf("GET plain a = %q, want [x y x]", got)
		}
	})
	t.Run("new columns", func(t *testing.T) {
		s.putCSV(t, "grow", "a,b\nx,1\n")
		d := s.putJSON(t, "grow", `{"data":[{"a":"y","b":"2","c":"new"}]}`)
		if d.ColumnCount != 3 || d.Columns["c"].DataType != "string" {
			t.Errorf("PUT grow with c = %d columns %v, want 3 with c string", d.ColumnCount, d.Columns)
		}
		want := []row{{"a": "x", "b": "1", "c": ""}, {"a": "y", "b": "2", "c": "new"}}
		if got := s.get(t, "grow", "").Data; !reflect.DeepEqual(got, want) {
			t.Errorf("GET grow = %q, want %q", got, want)
		}
	})
	t.Run("stored types bind later PUTs", func(t *testing.T) {
		// A column's type is settled by its first upload: a later value
		// that does not fit is refused (declare the column string to widen
		// it), and the dataset stays as it was.
		s.putCSV(t, "widen", "a,n\nx,1\ny,2\n")
		before := s.snapshot(t, "widen")
		res := s.do(t, "PUT", "/v1/data/widen", "a,n\nz,three\n", "Content-Type", "text/csv")
		e := wantError(t, "PUT widen with text", res, 400, "RequestValidation", "n")
		if !strings.Contains(e.Message, "line 2") {
			t.Errorf("PUT widen with text message = %q, want it to name line 2", e.Message)
		}
		if after := s.snapshot(t, "widen"); after != before {
			t.Errorf("GET widen after a refused PUT = %s, want %s", after, before)
		}
	})
	t.Run("declared string widens a stored numeric column", func(t *testing.T) {
		s.putCSV(t, "widen2", "a,n\nx,1\ny,2\n")
		d := s.putJSON(t, "widen2", `{"columns":{"n":{"dataType":"string"}},"data":[{"a":"z","n":"three"}]}`)
		if d.RowCount != 3 || d.Columns["n"].DataType != "string" {
			t.Errorf("PUT widen2 declaring n string = %d rows, n %v, want 3 rows and n string", d.RowCount, d.Columns["n"])
		}
		if got := rowsOf(s.get(t, "widen2", "").Data, "n"); !slices.Equal(got, []string{"1", "2", "three"}) {
			t.Errorf("GET widen2 n = %q, want [1 2 three]", got)
		}
	})
}

func TestPutDatasetWideningAcrossBatches(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	const rows = 70_000
	var b strings.Builder
	b.WriteString("id,v\n")
	for i := range rows - 1 {
		fmt.Fprintf(&b, "%d,%d.5\n", i, i)
	}
	fmt.Fprintf(&b, "%d,text\n", rows-1)
	for _, tc := range []struct{ name, ctype string }{{"csv", "text/csv"}, {"json", "application/json"}} {
		t.Run(tc.name, func(t *testing.T) {
			body := b.String()
			if tc.ctype == "application/json" {
				var j strings.Builder
				j.WriteString(`{"data":[`)
				for i := range rows - 1 {
					if i > 0 {
						j.WriteByte(',')
					}
					fmt.Fprintf(&j, `{"id":%d,"v":%d.5}`, i, i)
				}
				fmt.Fprintf(&j, `,{"id":%d,"v":"text"}]}`, rows-1)
				body = j.String()
			}
			d := decode[datasetJSON](t, s.put(t, "wide-"+tc.name, tc.ctype, body))
			if d.RowCount != rows || d.Columns["v"].DataType != "string" || d.Columns["id"].DataType != "numeric" {
				t.Fatalf("PUT wide-%s = %d rows, columns %v, want %d rows, v string, id numeric", tc.name, d.RowCount, d.Columns, rows)
			}
			last := s.get(t, "wide-"+tc.name, "page=69&pageSize=1000")
			if n := len(last.Data); n != 1000 || last.TotalCount != rows {
				t.Fatalf("GET wide-%s page 69 = %d rows of %d, want 1000 of %d", tc.name, n, last.TotalCount, rows)
			}
			want := []row{{"id": "69998", "v": "69998.5"}, {"id": "69999", "v": "text"}}
			if got := last.Data[998:]; !reflect.DeepEqual(got, want) {
				t.Errorf("GET wide-%s last rows = %q, want %q", tc.name, got, want)
			}
			first := s.get(t, "wide-"+tc.name, "pageSize=1")
			if want := []row{{"id": "0", "v": "0.5"}}; !reflect.DeepEqual(first.Data, want) {
				t.Errorf("GET wide-%s first row = %q, want %q", tc.name, first.Data, want)
			}
		})
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

// observedRows are 92 daily rows like the Python client's data.csv (a
// timestamp date column and an observed numeric one, newest first), as
// JSON row objects with string values, the way its tests upload them.
func observedRows() (rows string, observed []string) {
	day := time.Date(2008, 8, 31, 0, 0, 0, 0, time.UTC)
	var objs []string
	for i := range 92 {
		v := strconv.FormatFloat(float64(20+(i*37)%170)+float64(i%24)/24, 'g', -1, 64)
		objs = append(objs, fmt.Sprintf(`{"timestamp":%q,"observed":%q}`, day.AddDate(0, 0, -i).Format(time.DateOnly), v))
		observed = append(observed, v)
	}
	slices.Reverse(observed) // GET orders a time series by its timestamp
	return "[" + strings.Join(objs, ",") + "]", observed
}

// TestPutDatasetMetadataReplaces: metadata sent for a column replaces its
// imputation, aggregation and (when given) data type; role is kept unless
// given. The sequence is the Python client's integration tests, which PUT
// the same dataset with different metadata for observed.
func TestPutDatasetMetadataReplaces(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	data, observed := observedRows()
	timestamp := columnJSON{DataType: "date", Role: "timestamp"}
	check := func(t *testing.T, what string, put datasetJSON, want columnJSON) {
		t.Helper()
		cols := map[string]columnJSON{"timestamp": timestamp, "observed": want}
		wantColumns(t, what+" response", put.Columns, cols)
		got := s.get(t, "data", "pageSize=1000")
		wantColumns(t, what+", then GET", got.Columns, cols)
		if v := rowsOf(got.Data, "observed"); !slices.Equal(v, observed) {
			t.Errorf("%s, then GET observed = %q, want %q", what, v, observed)
		}
	}
	steps := []struct {
		name, columns string
		want          columnJSON
	}{
		{"create without metadata", ``,
			columnJSON{DataType: "numericMeasure", Role: "target", Imputation: "mean", Aggregation: "mean"}},
		{"numeric with mode and median", `"observed":{"dataType":"numeric","role":"target","imputation":"mode","aggregation":"median"}`,
			columnJSON{DataType: "numeric", Role: "target", Imputation: "mode", Aggregation: "median"}},
		{"numericMeasure takes its defaults", `"observed":{"dataType":"numericMeasure","role":"target"}`,
			columnJSON{DataType: "numericMeasure", Role: "target", Imputation: "mean", Aggregation: "mean"}},
		{"string with role none", `"observed":{"dataType":"string","role":"none"}`,
			columnJSON{DataType: "string", Role: "none", Imputation: "mode", Aggregation: "mode"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			body := `{"data":` + data + `}`
			if st.columns != "" {
				body = `{"columns":{"timestamp":{"dataType":"date","role":"timestamp"},` + st.columns + `},"data":` + data + `}`
			}
			d := s.putJSON(t, "data", body)
			if d.RowCount != 92 {
				t.Errorf("rowCount = %d, want 92 (rows replaced by timestamp)", d.RowCount)
			}
			check(t, "PUT "+st.name, d, st.want)
		})
	}

	t.Run("a column not mentioned keeps its metadata", func(t *testing.T) {
		s.putJSON(t, "kept", `{"columns":{"timestamp":{"dataType":"date","role":"timestamp"},
			"observed":{"dataType":"numeric","role":"target","imputation":"mode","aggregation":"median"},
			"visits":{"dataType":"numeric","role":"feature","imputation":"max"}},
			"data":[{"timestamp":"2008-06-01","observed":"1.5","visits":"3"},{"timestamp":"2008-06-02","observed":"2.5","visits":"4"}]}`)
		d := s.putJSON(t, "kept", `{"columns":{"observed":{"dataType":"numericMeasure"}}}`)
		want := map[string]columnJSON{
			"timestamp": timestamp,
			"observed":  {DataType: "numericMeasure", Role: "target", Imputation: "mean", Aggregation: "mean"},
			"visits":    {DataType: "numeric", Role: "feature", Imputation: "max", Aggregation: "sum"},
		}
		wantColumns(t, "metadata-only PUT response", d.Columns, want)
		got := s.get(t, "kept", "")
		wantColumns(t, "metadata-only PUT, then GET", got.Columns, want)
		if d.RowCount != 2 || !slices.Equal(rowsOf(got.Data, "observed"), []string{"1.5", "2.5"}) {
			t.Errorf("metadata-only PUT: rowCount %d, observed %q; want the 2 rows kept", d.RowCount, rowsOf(got.Data, "observed"))
		}
		// An empty object resets the strategies to the type's defaults.
		d = s.putJSON(t, "kept", `{"columns":{"visits":{}}}`)
		want["visits"] = columnJSON{DataType: "numeric", Role: "feature", Imputation: "zeroes", Aggregation: "sum"}
		wantColumns(t, "PUT visits {}", d.Columns, want)
	})

	t.Run("numeric to string, metadata only", func(t *testing.T) {
		s.putJSON(t, "retyped", `{"data":`+data+`}`)
		d := s.putJSON(t, "retyped", `{"columns":{"observed":{"dataType":"string"}}}`)
		want := columnJSON{DataType: "string", Role: "target", Imputation: "mode", Aggregation: "mode"}
		wantColumns(t, "PUT observed string", d.Columns, map[string]columnJSON{"timestamp": timestamp, "observed": want})
		got := s.get(t, "retyped", "pageSize=1000")
		if got.Columns["observed"] != want {
			t.Errorf("GET observed = %+v, want %+v", got.Columns["observed"], want)
		}
		if v := rowsOf(got.Data, "observed"); !slices.Equal(v, observed) {
			t.Errorf("GET observed values = %q, want %q", v, observed)
		}
	})
}
