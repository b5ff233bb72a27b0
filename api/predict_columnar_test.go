package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

const (
	mediaArrow = "application/vnd.apache.arrow.stream"
	mediaPq    = "application/vnd.apache.parquet"
)

// friedmanRecord is n rows of x0…x9 as float64 columns, row i's values
// (i+1)/(n+1), x3 null in row 1.
func friedmanRecord(n int) arrow.RecordBatch {
	fields := make([]arrow.Field, 10)
	cols := make([]arrow.Array, 10)
	for j := range 10 {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := range n {
			if i == 1 && j == 3 {
				b.AppendNull()
			} else {
				b.Append(float64(i+1) / float64(n+1))
			}
		}
		fields[j], cols[j] = arrow.Field{Name: fmt.Sprintf("x%d", j), Type: arrow.PrimitiveTypes.Float64, Nullable: true}, b.NewArray()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
}

// predictedColumn reads the y column of an Arrow table.
func predictedColumn(t *testing.T, tbl arrow.Table) []float64 {
	t.Helper()
	idx := tbl.Schema().FieldIndices("y")
	if len(idx) != 1 || tbl.NumCols() != 11 {
		t.Fatalf("answer schema %s, want x0…x9 and y", tbl.Schema())
	}
	var out []float64
	for _, c := range tbl.Column(idx[0]).Data().Chunks() {
		out = append(out, c.(*array.Float64).Float64Values()...)
	}
	return out
}

// Arrow IPC and Parquet predict bodies are read as typed columns and
// answered in kind when Accept asks; the predictions equal the JSON
// answer's for the same rows, and a typed value echoes as the rows
// endpoints show it.
func TestPredictColumnarRoundTrip(t *testing.T) {
	s := newServer(t)
	id := s.namedModel(t, "friedman", "columnar")
	path := "/v1/models/" + id + "/predict"
	const n = 5
	rec := friedmanRecord(n)
	defer rec.Release()

	// The JSON answer for the same rows.
	var rows []string
	for i := range n {
		var kv []string
		for j := range 10 {
			v := strconv.FormatFloat(float64(i+1)/float64(n+1), 'g', -1, 64)
			if i == 1 && j == 3 {
				v = "null"
			}
			kv = append(kv, fmt.Sprintf(`"x%d":%s`, j, v))
		}
		rows = append(rows, "{"+strings.Join(kv, ",")+"}")
	}
	res := s.do(t, http.MethodPost, path, `{"data":[`+strings.Join(rows, ",")+`]}`)
	want := decode[struct {
		Data []map[string]string `json:"data"`
	}](t, res)
	if len(want.Data) != n {
		t.Fatalf("JSON predict = %d %s", res.status, res.body)
	}

	var ipcBody bytes.Buffer
	w := ipc.NewWriter(&ipcBody, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var pqBody bytes.Buffer
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer tbl.Release()
	if err := pqarrow.WriteTable(tbl, &pqBody, n, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		media string
		body  []byte
	}{{mediaArrow, ipcBody.Bytes()}, {mediaPq, pqBody.Bytes()}} {
		res := s.do(t, http.MethodPost, path, c.body, "Content-Type", c.media, "Accept", c.media)
		if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), c.media) {
			t.Fatalf("predict %s = %d %s %.300s", c.media, res.status, res.header.Get("Content-Type"), res.body)
		}
		var got arrow.Table
		if c.media == mediaArrow {
			rd, err := ipc.NewReader(bytes.NewReader(res.body))
			if err != nil {
				t.Fatal(err)
			}
			var recs []arrow.RecordBatch
			for rd.Next() {
				r := rd.RecordBatch()
				r.Retain()
				recs = append(recs, r)
			}
			got = array.NewTableFromRecords(rd.Schema(), recs)
			rd.Release()
		} else {
			pf, err := file.NewParquetReader(bytes.NewReader(res.body))
			if err != nil {
				t.Fatal(err)
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			if got, err = fr.ReadTable(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		ys := predictedColumn(t, got)
		for i, y := range ys {
			if s := strconv.FormatFloat(y, 'g', -1, 64); s != want.Data[i]["y"] {
				t.Errorf("%s row %d y = %s, want the JSON answer's %s", c.media, i, s, want.Data[i]["y"])
			}
		}
		if len(ys) != n {
			t.Errorf("%s answer = %d rows, want %d", c.media, len(ys), n)
		}
		got.Release()

		// Typed values echoed as text: numbers as the rows endpoints write them.
		res = s.do(t, http.MethodPost, path, c.body, "Content-Type", c.media)
		js := decode[struct {
			Data []map[string]string `json:"data"`
		}](t, res)
		if len(js.Data) != n || js.Data[0]["x0"] != strconv.FormatFloat(1.0/(n+1), 'f', -1, 64) || js.Data[1]["x3"] != "" || js.Data[4]["y"] != want.Data[4]["y"] {
			t.Errorf("predict %s as JSON = %v", c.media, js.Data)
		}
	}

	// A body that is not what its Content-Type says is a 400.
	res = s.do(t, http.MethodPost, path, "x0\n1\n", "Content-Type", mediaArrow)
	wantError(t, "predict an Arrow body that is not one", res, 400, "RequestValidation", "data")
	res = s.do(t, http.MethodPost, path, "x0\n1\n", "Content-Type", mediaPq)
	wantError(t, "predict a Parquet body that is not one", res, 400, "RequestValidation", "data")
}
