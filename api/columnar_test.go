package api_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/vaticml/vatic/columnar"
)

const (
	acceptArrow   = "application/vnd.apache.arrow.stream"
	acceptParquet = "application/vnd.apache.parquet"
)

// rowTime is how JSON rows show dates (formatDates=true for datasets).
const rowTime = "2006-01-02T15:04:05.0000000Z"

// table is a columnar answer decoded: its schema and its rows as text,
// the way rowText writes each value.
type table struct {
	schema *arrow.Schema
	rows   []map[string]string
}

// column returns the field named name.
func (tb table) column(t testing.TB, name string) arrow.Field {
	t.Helper()
	i := tb.schema.FieldIndices(name)
	if len(i) != 1 {
		t.Fatalf("schema %v: want one column %q", tb.schema, name)
	}
	return tb.schema.Field(i[0])
}

// rowText is the text of row i of a: numbers in Go's shortest form,
// dates in the JSON rows' format, "" for a missing value.
func rowText(t testing.TB, a arrow.Array, i int) string {
	t.Helper()
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		return a.Value(i).ToTime(tt.Unit).UTC().Format(rowTime)
	}
	t.Fatalf("unexpected column type %s", a.DataType())
	return ""
}

func readBatches(t testing.TB, schema *arrow.Schema, rr array.RecordReader) table {
	t.Helper()
	tb := table{schema: schema, rows: []map[string]string{}}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := map[string]string{}
			for c, f := range schema.Fields() {
				row[f.Name] = rowText(t, rec.Column(c), i)
			}
			tb.rows = append(tb.rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("read batches: %v", err)
	}
	return tb
}

// readIPC decodes an Arrow IPC stream, wanting it complete.
func readIPC(t testing.TB, body []byte) table {
	t.Helper()
	rd, err := ipc.NewReader(bytes.NewReader(body), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatalf("ipc.NewReader: %v", err)
	}
	defer rd.Release()
	return readBatches(t, rd.Schema(), rd)
}

// readParquet decodes a Parquet file with pqarrow.
func readParquet(t testing.TB, body []byte) table {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parquet reader: %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 100}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("pqarrow.NewFileReader: %v", err)
	}
	// The file's schema, with its key-value metadata as schema metadata.
	schema, err := fr.Schema()
	if err != nil {
		t.Fatalf("parquet schema: %v", err)
	}
	if schema.NumFields() == 0 { // pqarrow reads no rows from a file without columns
		return table{schema: schema, rows: []map[string]string{}}
	}
	rr, err := fr.GetRecordReader(t.Context(), nil, nil)
	if err != nil {
		t.Fatalf("GetRecordReader: %v", err)
	}
	defer rr.Release()
	return readBatches(t, schema, rr)
}

// duckParquet reads a Parquet body with DuckDB's read_parquet: the column
// types as DuckDB names them, the rows as text and the file's key-value
// metadata.
func duckParquet(t testing.TB, body []byte) (types map[string]string, rows []map[string]string, kv map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "answer.parquet")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	types = map[string]string{}
	q := func(query string, scan func(vals []any)) {
		rs, err := db.QueryContext(t.Context(), query, path)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			scan(vals)
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	var names []string
	q("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))", func(v []any) {
		types[v[0].(string)] = v[1].(string)
		names = append(names, v[0].(string))
	})
	rows = []map[string]string{}
	q("SELECT * FROM read_parquet(?)", func(v []any) {
		row := map[string]string{}
		for i, x := range v {
			switch x := x.(type) {
			case nil:
				row[names[i]] = ""
			case float64:
				row[names[i]] = strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				row[names[i]] = strconv.FormatBool(x)
			case string:
				row[names[i]] = x
			case time.Time:
				row[names[i]] = x.UTC().Format(rowTime)
			default:
				t.Fatalf("DuckDB gave %T for %s", x, names[i])
			}
		}
		rows = append(rows, row)
	})
	kv = map[string]string{}
	q("SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)", func(v []any) {
		kv[v[0].(string)] = v[1].(string)
	})
	return types, rows, kv
}

// asNumbers rewrites the values of the float64 columns of rows (JSON rows,
// numbers as the API writes them) in rowText's form, so that both sides
// compare value for value.
func asNumbers(t testing.TB, schema *arrow.Schema, rows []map[string]string) []map[string]string {
	t.Helper()
	out := make([]map[string]string, len(rows))
	for i, r := range rows {
		out[i] = map[string]string{}
		for k, v := range r {
			out[i][k] = v
			f := schema.FieldIndices(k)
			if v == "" || len(f) != 1 || schema.Field(f[0]).Type.ID() != arrow.FLOAT64 {
				continue
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("row %d %s = %q: %v", i, k, v, err)
			}
			out[i][k] = strconv.FormatFloat(n, 'g', -1, 64)
		}
	}
	return out
}

// sameRows fails unless got and want (JSON rows) hold the same values in
// the same order.
func sameRows(t testing.TB, what string, got table, want []map[string]string) {
	t.Helper()
	want = asNumbers(t, got.schema, want)
	if len(got.rows) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got.rows), len(want))
	}
	for i := range want {
		g, _ := json.Marshal(got.rows[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Fatalf("%s: row %d = %s, want %s", what, i, g, w)
		}
	}
}

// getColumnar GETs path with an Accept header, wants 200 and the format's
// Content-Type, and decodes the body (Parquet with pqarrow).
func (s *testServer) getColumnar(t testing.TB, path, accept string) table {
	t.Helper()
	res := s.do(t, http.MethodGet, path, nil, "Accept", accept)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s (%s) = %d %s", path, accept, res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != accept {
		t.Fatalf("GET %s Content-Type = %q, want %q", path, ct, accept)
	}
	if accept == acceptParquet {
		return readParquet(t, res.body)
	}
	return readIPC(t, res.body)
}

// mixedCSV is a time series with every stored type and missing values.
func mixedCSV(rows int) string {
	var b strings.Builder
	b.WriteString("day,amount,flag,label\n")
	t0 := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		amount, flag, label := fmt.Sprintf("%d.%02d", i*7%1000, i%100), strconv.FormatBool(i%3 == 0), fmt.Sprintf("w%d", i%5)
		switch i % 7 {
		case 3:
			amount = ""
		case 4:
			flag = ""
		case 5:
			label = `"a, ""quoted"" one"`
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", t0.Add(time.Duration(i)*6*time.Hour).Format(time.DateTime), amount, flag, label)
	}
	return b.String()
}

func TestDatasetColumnarExport(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "mixed", mixedCSV(130))
	all := s.get(t, "mixed", "formatDates=true&pageSize=1000")
	if all.TotalCount != 130 {
		t.Fatalf("JSON totalCount = %d, want 130", all.TotalCount)
	}
	for _, accept := range []string{acceptArrow, acceptParquet} {
		t.Run(accept, func(t *testing.T) {
			// No paging parameters: every row, as CSV gives.
			got := s.getColumnar(t, "/v1/data/mixed", accept)
			sameRows(t, "every row", got, all.Data)
			for name, want := range map[string]struct {
				typ            arrow.DataType
				dataType, role string
			}{
				"day":    {&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "date", "timestamp"},
				"amount": {arrow.PrimitiveTypes.Float64, "numeric", "target"},
				"flag":   {arrow.FixedWidthTypes.Boolean, "logical", ""},
				"label":  {arrow.BinaryTypes.String, "string", ""},
			} {
				f := got.column(t, name)
				dt, _ := f.Metadata.GetValue(columnar.MetaDataType)
				role, _ := f.Metadata.GetValue(columnar.MetaRole)
				if !arrow.TypeEqual(f.Type, want.typ) || dt != want.dataType || role != want.role {
					t.Errorf("column %s = %s dataType %q role %q, want %s %q %q", name, f.Type, dt, role, want.typ, want.dataType, want.role)
				}
			}
			if md, _ := got.schema.Metadata().GetValue("vatic.columns"); !strings.Contains(md, `{"name":"day","dataType":"date","role":"timestamp"}`) {
				t.Errorf("schema metadata vatic.columns = %q, want the columns with their dataType and role", md)
			}
			page := s.get(t, "mixed", "formatDates=true&page=2&pageSize=25")
			sameRows(t, "page 2 of 25", s.getColumnar(t, "/v1/data/mixed?page=2&pageSize=25", accept), page.Data)
			sameRows(t, "pageSize only", s.getColumnar(t, "/v1/data/mixed?pageSize=7", accept), all.Data[:7])
			sameRows(t, "page only", s.getColumnar(t, "/v1/data/mixed?page=2", accept), all.Data[100:])
			rng := "startDate=2017-01-05&endDate=2017-01-09T12:00:00Z&include=label,amount"
			sub := s.getColumnar(t, "/v1/data/mixed?"+rng, accept)
			if sub.schema.NumFields() != 2 || sub.schema.Field(0).Name != "amount" || sub.schema.Field(1).Name != "label" {
				t.Errorf("include=label,amount schema = %v, want amount and label", sub.schema)
			}
			sameRows(t, "date range", sub, s.get(t, "mixed", rng+"&pageSize=1000").Data)
			if len(sub.rows) != 19 {
				t.Errorf("date range rows = %d, want 19", len(sub.rows))
			}
			none := s.getColumnar(t, "/v1/data/mixed?include=nothing", accept)
			if none.schema.NumFields() != 0 || len(none.rows) != 0 {
				t.Errorf("include=nothing = %v with %d rows, want no columns", none.schema, len(none.rows))
			}
		})
	}
	// HEAD sends no body whatever the format.
	if res := s.do(t, http.MethodHead, "/v1/data/mixed", nil, "Accept", acceptArrow); res.status != 200 || len(res.body) != 0 {
		t.Errorf("HEAD = %d with %d bytes, want 200 and no body", res.status, len(res.body))
	}
}

// DuckDB's read_parquet reads the Parquet answer with Vatic's types: the
// same values, dates as UTC timestamps, and the columns' metadata.
func TestDatasetParquetReadByDuckDB(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "mixed", mixedCSV(300))
	res := s.do(t, http.MethodGet, "/v1/data/mixed", nil, "Accept", acceptParquet)
	if res.status != 200 {
		t.Fatalf("GET parquet = %d %s", res.status, res.body)
	}
	types, rows, kv := duckParquet(t, res.body)
	want := map[string]string{"day": "TIMESTAMP WITH TIME ZONE", "amount": "DOUBLE", "flag": "BOOLEAN", "label": "VARCHAR"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("DuckDB types = %v, want %v", types, want)
	}
	pq := readParquet(t, res.body)
	sameRows(t, "DuckDB rows", table{schema: pq.schema, rows: rows}, s.get(t, "mixed", "formatDates=true&pageSize=1000").Data)
	var cols []struct{ Name, DataType, Role string }
	if err := json.Unmarshal([]byte(kv["vatic.columns"]), &cols); err != nil || len(cols) != 4 || cols[1].Name != "amount" || cols[1].DataType != "numeric" || cols[1].Role != "target" {
		t.Errorf("key-value metadata vatic.columns = %q (%v), want the four columns", kv["vatic.columns"], err)
	}
	if _, ok := kv["ARROW:schema"]; !ok {
		t.Errorf("key-value metadata = %v, want the Arrow schema stored", kv)
	}
}

// A view's calendar columns are integers in the query; the answer types
// them as the view declares them, numbers.
func TestViewColumnarExport(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "daily", "day,sales\n2017-07-03,5\n2017-07-04,7\n2017-07-05,3\n2017-11-23,4\n2017-12-25,9\n")
	s.mustPutView(t, "holidays", `{"dataSetName":"daily","joins":[{"calendar":{"name":"Nexosis.Holidays-US"}}]}`)
	want := s.getView(t, "holidays", "pageSize=1000").Data
	for _, accept := range []string{acceptArrow, acceptParquet} {
		got := s.getColumnar(t, "/v1/views/holidays", accept)
		sameRows(t, "view "+accept, got, want)
		f := got.column(t, "calendar:US Holidays")
		if dt, _ := f.Metadata.GetValue(columnar.MetaDataType); f.Type.ID() != arrow.FLOAT64 || dt != "numeric" {
			t.Errorf("%s calendar column = %s %q, want float64 numeric", accept, f.Type, dt)
		}
		if got.rows[1]["event:US Holidays:Independence Day"] != "1" || got.rows[1]["eventTimestamp"] != "2017-07-04T00:00:00.0000000Z" {
			t.Errorf("%s July 4 = %v, want flagged", accept, got.rows[1])
		}
		sameRows(t, "view page "+accept, s.getColumnar(t, "/v1/views/holidays?page=1&pageSize=2", accept), want[2:4])
	}
}

// Session results in both formats: every test row without paging
// parameters (JSON and CSV give a page of 50), the page asked for
// otherwise; the status headers as for JSON.
func TestSessionResultsColumnar(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	sess := s.regression(t, "fried", 600)
	path := "/v1/sessions/" + sess.SessionID + "/results"
	res := s.do(t, http.MethodGet, path+"?pageSize=1000", nil)
	if res.status != 200 {
		t.Fatalf("GET results = %d %s", res.status, res.body)
	}
	var all struct {
		Data []map[string]string `json:"data"`
		pageJSON
	}
	if err := json.Unmarshal(res.body, &all); err != nil {
		t.Fatal(err)
	}
	if all.TotalCount <= 50 || len(all.Data) != int(all.TotalCount) {
		t.Fatalf("JSON results: %d rows of %d, want more than one default page", len(all.Data), all.TotalCount)
	}
	for _, accept := range []string{acceptArrow, acceptParquet} {
		got := s.getColumnar(t, path, accept)
		sameRows(t, "results "+accept, got, all.Data)
		f := got.column(t, "y:actual")
		if dt, _ := f.Metadata.GetValue(columnar.MetaDataType); f.Type.ID() != arrow.FLOAT64 || dt != "numeric" {
			t.Errorf("%s y:actual = %s %q, want float64 numeric", accept, f.Type, dt)
		}
		if role, _ := got.column(t, "x0").Metadata.GetValue(columnar.MetaRole); role != "feature" {
			t.Errorf("%s x0 role = %q, want feature", accept, role)
		}
		sameRows(t, "results page "+accept, s.getColumnar(t, path+"?page=1&pageSize=10", accept), all.Data[10:20])
		r := s.do(t, http.MethodGet, path, nil, "Accept", accept)
		if r.header.Get("Nexosis-Session-Status") != "Completed" {
			t.Errorf("%s status header = %q, want Completed", accept, r.header.Get("Nexosis-Session-Status"))
		}
	}
	champ := s.do(t, http.MethodGet, "/v1/sessions/"+sess.SessionID+"/contest/champion?pageSize=1000", nil)
	var cj struct {
		Data []map[string]string `json:"data"`
	}
	if err := json.Unmarshal(champ.body, &cj); err != nil || len(cj.Data) == 0 {
		t.Fatalf("champion = %d %s", champ.status, champ.body)
	}
	sameRows(t, "champion", s.getColumnar(t, "/v1/sessions/"+sess.SessionID+"/contest/champion", acceptArrow), cj.Data)
}

// The page cache keys answers by format: a JSON page is never served to
// an Arrow request, nor the reverse.
func TestPageCacheSeparatesFormats(t *testing.T) {
	t.Parallel()
	s := newServer(t, withPageCache(64<<20))
	s.putCSV(t, "mixed", mixedCSV(40))
	const path = "/v1/data/mixed?pageSize=5&formatDates=true"
	first := map[string][]byte{}
	for range 2 {
		for _, accept := range []string{"application/json", acceptArrow, acceptParquet, "text/csv"} {
			res := s.do(t, http.MethodGet, path, nil, "Accept", accept)
			if res.status != 200 || !strings.HasPrefix(res.header.Get("Content-Type"), accept) {
				t.Fatalf("GET Accept %s = %d %s", accept, res.status, res.header.Get("Content-Type"))
			}
			if prev, ok := first[accept]; ok && !bytes.Equal(prev, res.body) {
				t.Errorf("Accept %s: the second answer differs from the first", accept)
			}
			first[accept] = res.body
		}
	}
	want := decode[rowsJSON](t, response{body: first["application/json"]}).Data
	sameRows(t, "cached arrow", readIPC(t, first[acceptArrow]), want)
	sameRows(t, "cached parquet", readParquet(t, first[acceptParquet]), want)
}

// Accept negotiation: the best quality among CSV, Arrow and Parquet wins;
// anything else is JSON.
func TestColumnarNegotiation(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "mixed", mixedCSV(3))
	for accept, want := range map[string]string{
		acceptArrow + ";q=0.5, " + acceptParquet:    acceptParquet,
		"text/csv;q=0.2, " + acceptArrow + ";q=0.9": acceptArrow,
		"application/json, " + acceptParquet:        acceptParquet,
		acceptParquet + ";q=0":                      "application/json; charset=utf-8",
		"application/vnd.apache.arrow.file":         "application/json; charset=utf-8",
		"*/*":                                       "application/json; charset=utf-8",
	} {
		res := s.do(t, http.MethodGet, "/v1/data/mixed", nil, "Accept", accept)
		if ct := res.header.Get("Content-Type"); res.status != 200 || ct != want {
			t.Errorf("Accept %q = %d %q, want %q", accept, res.status, ct, want)
		}
	}
}

// Errors met before the answer starts stay JSON error bodies.
func TestColumnarErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "mixed", mixedCSV(3))
	for _, tc := range []struct {
		path              string
		status            int
		errorType, detail string
	}{
		{"/v1/data/nothing", 404, "NotFound", "itemType"},
		{"/v1/data/mixed?pageSize=0", 400, "RequestValidation", "pageSize"},
		{"/v1/data/mixed?startDate=2017-01-20&endDate=2017-01-10", 400, "InvalidDateRange", "startDate"},
		{"/v1/views/nothing", 404, "NotFound", "itemType"},
		{"/v1/sessions/00000000-0000-0000-0000-000000000000/results", 404, "NotFound", "itemType"},
		{"/v1/sessions/00000000-0000-0000-0000-000000000000/results?page=-1", 400, "RequestValidation", "page"},
	} {
		for _, accept := range []string{acceptArrow, acceptParquet} {
			wantError(t, "GET "+tc.path+" Accept "+accept, s.do(t, http.MethodGet, tc.path, nil, "Accept", accept), tc.status, tc.errorType, tc.detail)
		}
	}
}
