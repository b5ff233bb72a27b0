package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

const (
	arrowStream = "application/vnd.apache.arrow.stream"
	parquetType = "application/vnd.apache.parquet"
)

// salesRows is a batch in the shape of salesCSV with more types: day
// (timestamp, ms, with a zone), sales (int64), price (float64, one null),
// open (bool) and store (dictionary-encoded strings), one row per day
// from start.
func salesRows(t testing.TB, start time.Time, sales ...int64) arrow.RecordBatch {
	t.Helper()
	mem := memory.DefaultAllocator
	n := len(sales)
	day := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"})
	sb := array.NewInt64Builder(mem)
	price := array.NewFloat64Builder(mem)
	open := array.NewBooleanBuilder(mem)
	store := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	for i := range n {
		day.Append(arrow.Timestamp(start.AddDate(0, 0, i).UnixMilli()))
		sb.Append(sales[i])
		if i == 1 {
			price.AppendNull()
		} else {
			price.Append(float64(sales[i]) / 4)
		}
		open.Append(i%2 == 0)
		_ = store.AppendString([]string{"north", "south"}[i%2])
	}
	cols := []arrow.Array{day.NewArray(), sb.NewArray(), price.NewArray(), open.NewArray(), store.NewArray()}
	fields := []arrow.Field{{Name: "day", Type: cols[0].DataType(), Nullable: true}, {Name: "sales", Type: cols[1].DataType(), Nullable: true},
		{Name: "price", Type: cols[2].DataType(), Nullable: true}, {Name: "open", Type: cols[3].DataType(), Nullable: true},
		{Name: "store", Type: cols[4].DataType(), Nullable: true}}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	for _, b := range []interface{ Release() }{day, sb, price, open, store} {
		b.Release()
	}
	t.Cleanup(rec.Release)
	return rec
}

// oneColumn is a batch of a single column.
func oneColumn(t testing.TB, name string, col arrow.Array) arrow.RecordBatch {
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: name, Type: col.DataType(), Nullable: true}}, nil), []arrow.Array{col}, int64(col.Len()))
	col.Release()
	t.Cleanup(rec.Release)
	return rec
}

func ipcOf(t testing.TB, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(recs[0].Schema()))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parquetOf(t testing.TB, groupRows int64, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	defer tbl.Release()
	if err := pqarrow.WriteTable(tbl, &buf, groupRows, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// columnarBody encodes recs in format ("ipc" or "parquet", row groups of
// two rows) and returns it with its media type.
func columnarBody(t testing.TB, format string, recs ...arrow.RecordBatch) ([]byte, string) {
	if format == "ipc" {
		return ipcOf(t, recs...), arrowStream
	}
	return parquetOf(t, 2, recs...), parquetType
}

var jan1 = time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)

// TestPutColumnar creates and then upserts a dataset with Arrow IPC and
// Parquet bodies and reads it back as JSON: the types and values are the
// ones sent.
func TestPutColumnar(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, format := range []string{"ipc", "parquet"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			name := "columnar-" + format
			body, ct := columnarBody(t, format, salesRows(t, jan1, 10, 20, 30), salesRows(t, jan1.AddDate(0, 0, 3), 40))
			res := s.do(t, http.MethodPut, "/v1/data/"+name, body, "Content-Type", ct)
			if res.status != http.StatusCreated {
				t.Fatalf("PUT %s = %d %s", ct, res.status, res.body)
			}
			d := decode[datasetJSON](t, res)
			want := map[string]string{"day": "date", "sales": "numeric", "price": "numeric", "open": "logical", "store": "string"}
			for col, typ := range want {
				if d.Columns[col].DataType != typ {
					t.Errorf("column %s has dataType %q, want %q", col, d.Columns[col].DataType, typ)
				}
			}
			if d.RowCount != 4 || d.Columns["day"].Role != "timestamp" || d.DataSetSize <= 0 {
				t.Errorf("dataset = %+v, want 4 rows with timestamp day", d)
			}
			rows := s.get(t, name, "")
			wantRows := []map[string]string{
				{"day": "2017-01-01T00:00:00Z", "sales": "10", "price": "2.5", "open": "true", "store": "north"},
				{"day": "2017-01-02T00:00:00Z", "sales": "20", "price": "", "open": "false", "store": "south"},
				{"day": "2017-01-03T00:00:00Z", "sales": "30", "price": "7.5", "open": "true", "store": "north"},
				{"day": "2017-01-04T00:00:00Z", "sales": "40", "price": "10", "open": "true", "store": "north"},
			}
			checkRows(t, rows.Data, wantRows)

			// An upsert by timestamp: 2017-01-04 is replaced, 2017-01-05 added.
			body, ct = columnarBody(t, format, salesRows(t, jan1.AddDate(0, 0, 3), 44, 55))
			res = s.do(t, http.MethodPut, "/v1/data/"+name, body, "Content-Type", ct)
			if res.status != http.StatusCreated {
				t.Fatalf("upsert PUT %s = %d %s", ct, res.status, res.body)
			}
			wantRows[3]["sales"], wantRows[3]["price"] = "44", "11"
			wantRows = append(wantRows, map[string]string{"day": "2017-01-05T00:00:00Z", "sales": "55", "price": "", "open": "false", "store": "south"})
			checkRows(t, s.get(t, name, "").Data, wantRows)
		})
	}
}

// checkRows compares rows as GET /data shows them (a missing value is
// null, read as "").
func checkRows(t *testing.T, got, want []map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("row %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestPutColumnarTimestampColumn: ?timestampColumn= applies to a columnar
// body as to CSV, and a body whose column is not a date is refused.
func TestPutColumnarTimestampColumn(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mem := memory.DefaultAllocator
	b := array.NewDate32Builder(mem)
	b.AppendValues([]arrow.Date32{17167, 17168}, nil)
	body := ipcOf(t, oneColumn(t, "when", b.NewArray()))
	b.Release()
	res := s.do(t, http.MethodPut, "/v1/data/ts-param?timestampColumn=when", body, "Content-Type", arrowStream)
	if res.status != http.StatusCreated {
		t.Fatalf("PUT = %d %s", res.status, res.body)
	}
	if d := decode[datasetJSON](t, res); d.Columns["when"].Role != "timestamp" || d.Columns["when"].DataType != "date" {
		t.Errorf("columns = %+v, want when a timestamp", d.Columns)
	}
	res = s.do(t, http.MethodPut, "/v1/data/ts-param-bad?timestampColumn=sales", parquetOf(t, 2, salesRows(t, jan1, 1)), "Content-Type", parquetType)
	wantError(t, "PUT with timestampColumn=sales", res, 400, "RequestValidation", "sales")
}

// TestPutColumnarBadInput: every refused body leaves the dataset as it
// was (checkBadPut reads it back) and names what is wrong.
func TestPutColumnarBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mem := memory.DefaultAllocator
	stream := ipcOf(t, salesRows(t, jan1, 1, 2, 3), salesRows(t, jan1.AddDate(0, 0, 3), 4, 5, 6))

	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(1)
	nested := parquetOf(t, 2, oneColumn(t, "tags", lb.NewArray()))
	lb.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"lots", "few"}, nil)
	salesText := oneColumn(t, "sales", sb.NewArray())
	sb.Release()
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	bb.Append([]byte{1, 2})
	blob := ipcOf(t, oneColumn(t, "blob", bb.NewArray()))
	bb.Release()

	arrowHdr, pqHdr := hdr{"Content-Type", arrowStream}, hdr{"Content-Type", parquetType}
	for _, tc := range []badPut{
		{name: "truncated ipc stream", headers: arrowHdr, body: stream[:len(stream)-100], status: 400, errorType: "RequestValidation", detail: "body", mention: "not a valid Arrow IPC stream"},
		{name: "ipc stream cut in its schema", headers: arrowHdr, body: stream[:20], status: 400, errorType: "RequestValidation", detail: "body"},
		{name: "ipc sniffed and truncated", body: stream[:len(stream)-100], status: 400, errorType: "RequestValidation", detail: "body"},
		{name: "parquet nested column", headers: pqHdr, body: nested, status: 400, errorType: "RequestValidation", detail: "tags", mention: "element: int64"},
		{name: "ipc binary column", headers: arrowHdr, body: blob, status: 400, errorType: "RequestValidation", detail: "blob", mention: "binary"},
		{name: "truncated parquet", headers: pqHdr, body: nested[:len(nested)-10], status: 400, errorType: "RequestValidation", detail: "body", mention: "Parquet"},
		{name: "parquet conflicting type", headers: pqHdr, body: parquetOf(t, 2, salesText), status: 400, errorType: "RequestValidation", detail: "sales", mention: "utf8", oldOnly: true},
		{name: "ipc conflicting type", headers: arrowHdr, body: ipcOf(t, salesText), status: 400, errorType: "RequestValidation", detail: "sales", mention: "numeric", oldOnly: true},
		{name: "arrow file format", headers: hdr{"Content-Type", "application/vnd.apache.arrow.file"}, body: stream, status: 400, errorType: "RequestValidation", detail: "Content-Type"},
		{name: "csv body declared parquet", headers: pqHdr, body: salesCSV, status: 400, errorType: "RequestValidation", detail: "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s.checkBadPut(t, tc)
		})
	}
}

// TestPutColumnarTooLarge: a Parquet body over -max-body is 413 and
// changes nothing.
func TestPutColumnarTooLarge(t *testing.T) {
	t.Parallel()
	sales := make([]int64, 2000)
	for i := range sales {
		sales[i] = int64(i * 7919 % 1000)
	}
	body := parquetOf(t, 500, salesRows(t, jan1, sales...))
	s := newServer(t, withMaxBody(int64(len(body)-1)))
	s.putCSV(t, "big", salesCSV)
	before := s.snapshot(t, "big")
	res := s.do(t, http.MethodPut, "/v1/data/big", body, "Content-Type", parquetType)
	wantError(t, "PUT of a Parquet body over -max-body", res, 413, "RequestValidation", "body")
	if after := s.snapshot(t, "big"); after != before {
		t.Errorf("dataset after a refused PUT = %s, want %s", after, before)
	}
	// One byte less is within the limit.
	s2 := newServer(t, withMaxBody(int64(len(body))))
	if res := s2.do(t, http.MethodPut, "/v1/data/big", body, "Content-Type", parquetType); res.status != http.StatusCreated {
		t.Fatalf("PUT at the limit = %d %s", res.status, res.body)
	}
}

// TestImportColumnar imports Parquet (and an Arrow IPC stream) from a URL,
// S3 and Azure, recognised by extension, by the served content type and
// by the import's contentType.
func TestImportColumnar(t *testing.T) {
	pq := parquetOf(t, 2, salesRows(t, jan1, 10, 20, 30))
	stream := ipcOf(t, salesRows(t, jan1.AddDate(0, 0, 3), 40))
	check := func(t *testing.T, s *testServer, imp importJSON, name string, rows int64) {
		t.Helper()
		done := waitImport(t, s, imp.ImportID)
		if done.Status != "completed" {
			t.Fatalf("import = %+v", done)
		}
		d := s.get(t, name, "")
		if d.RowCount != rows || d.Columns["open"].DataType != "logical" || d.Columns["day"].DataType != "date" {
			t.Errorf("dataset %s after import = %d rows, columns %+v; want %d rows", name, d.RowCount, d.Columns, rows)
		}
	}

	t.Run("url", func(t *testing.T) {
		s := newServer(t)
		f, base := serveFiles(t)
		f.put("/sales.parquet", pq, "", "")
		f.put("/typed", pq, parquetType, "")
		f.put("/declared", pq, "application/octet-stream", "")
		f.put("/more.arrows", stream, "", "")
		f.put("/sniffed", stream, "application/octet-stream", "")
		for _, c := range []struct {
			path, contentType string
			rows              int64
		}{
			{"/sales.parquet", "", 3}, {"/typed", "", 3}, {"/declared", "parquet", 3}, {"/more.arrows", "", 4}, {"/sniffed", "", 4},
		} {
			name := "url" + c.path[1:]
			if c.rows == 4 {
				imp := postImport(t, s, "url", map[string]any{"dataSetName": name, "url": base + "/sales.parquet"})
				waitImport(t, s, imp.ImportID)
			}
			imp := postImport(t, s, "url", map[string]any{"dataSetName": name, "url": base + c.path, "contentType": c.contentType})
			check(t, s, imp, name, c.rows)
		}
	})
	t.Run("s3", func(t *testing.T) {
		store := remotetest.NewS3(t)
		store.CreateBucket(t, "sample-data")
		store.Put(t, "sample-data", "folder/sales.parquet", pq, "binary/octet-stream")
		s := newServer(t, withRemote(remote.Options{S3Endpoint: store.Endpoint}))
		imp := postImport(t, s, "s3", map[string]any{"dataSetName": "s3-sales", "bucket": "sample-data", "path": "folder/sales.parquet",
			"accessKeyId": store.AccessKey, "secretAccessKey": store.SecretKey})
		check(t, s, imp, "s3-sales", 3)
	})
	t.Run("azure", func(t *testing.T) {
		az := remotetest.StartAzurite(t)
		az.CreateContainer(t, "datatest")
		az.Put(t, "datatest", "sales", pq, parquetType, "")
		s := newServer(t)
		imp := postImport(t, s, "azure", map[string]any{"dataSetName": "az-sales", "connectionString": az.ConnectionString,
			"container": "datatest", "blob": "sales"})
		check(t, s, imp, "az-sales", 3)
	})
}
