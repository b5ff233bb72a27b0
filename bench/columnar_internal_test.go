package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// Predict bodies in Arrow IPC and Parquet carry every feature as float64,
// row for row, over two batches (row groups), and the answer readers read
// a column of them back; the CSV and JSON bodies are the regression
// workload's.
func TestNumericBodyRoundTrip(t *testing.T) {
	big := treeTable(columnarBatchRows+7, 3)
	small := &table{header: big.header, rows: big.rows[:1000]}
	for _, f := range []struct {
		media string
		tbl   *table
		read  func([]byte, string) ([]float64, error)
	}{
		{MediaArrow, big, arrowPredictions}, {MediaParquet, big, parquetPredictions},
		{MediaCSV, small, csvPredictions}, {MediaJSON, small, jsonPredictions},
	} {
		tbl := f.tbl
		features := make([][]string, len(tbl.rows))
		for i, r := range tbl.rows {
			features[i] = r[:linearFeatures]
		}
		body, err := numericBody(f.media, tbl.features(), features)
		if err != nil {
			t.Fatalf("numericBody(%s) = %v", f.media, err)
		}
		for _, col := range []int{0, linearFeatures - 1} {
			got, err := f.read(body, tbl.header[col])
			if err != nil || len(got) != len(tbl.rows) {
				t.Fatalf("%s: read %s = %d values, %v; want %d", f.media, tbl.header[col], len(got), err, len(tbl.rows))
			}
			for i, v := range got {
				if want, _ := strconv.ParseFloat(tbl.rows[i][col], 64); v != want {
					t.Fatalf("%s: %s row %d = %v, want %v", f.media, tbl.header[col], i, v, want)
				}
			}
		}
	}
	if _, err := arrowPredictions([]byte("not a stream"), "y"); err == nil {
		t.Error("arrowPredictions of garbage = nil error")
	}
	body, _ := numericBody(MediaParquet, small.header[:2], small.rows[:10])
	if _, err := parquetPredictions(body, "y"); err == nil {
		t.Error("parquetPredictions of an answer without y = nil error")
	}
}

// The upload files hold the generated table: the same rows, in the server's
// types, the JSON body one object per row with numbers as numbers.
func TestConvertTable(t *testing.T) {
	dir := t.TempDir()
	files, err := Generate(dir, 1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, media := range []string{MediaArrow, MediaParquet, MediaJSON} {
		dst := filepath.Join(dir, "table")
		n, err := convertTable(files.CSV, dst, media)
		if err != nil || n != 1000 {
			t.Fatalf("convertTable(%s) = %d, %v; want 1000 rows", media, n, err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		switch media {
		case MediaArrow:
			r, err := ipc.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Schema().Equal(tableSchema) {
				t.Errorf("Arrow schema %v, want %v", r.Schema(), tableSchema)
			}
			if !r.Next() {
				t.Fatalf("no batch: %v", r.Err())
			}
			rec := r.RecordBatch()
			ts := rec.Column(0).(*array.Timestamp).Value(1)
			if got := ts.ToTime(arrow.Microsecond).UTC().Format("2006-01-02 15:04:05"); got != "2015-01-01 00:01:00" {
				t.Errorf("ts of row 2 = %s, want 2015-01-01 00:01:00", got)
			}
			r.Release()
			if rows, err := countArrowRows(bytes.NewReader(b)); rows != 1000 || err != nil {
				t.Errorf("countArrowRows = %d, %v; want 1000", rows, err)
			}
		case MediaParquet:
			if rows, err := parquetRows(bytes.NewReader(b)); rows != 1000 || err != nil {
				t.Errorf("parquetRows = %d, %v; want 1000", rows, err)
			}
		case MediaJSON:
			var body struct{ Data []map[string]any }
			if err := json.Unmarshal(b, &body); err != nil || len(body.Data) != 1000 {
				t.Fatalf("JSON body: %d rows, %v; want 1000", len(body.Data), err)
			}
			row := body.Data[0]
			if _, ok := row["a"].(float64); !ok || row["ts"] != "2015-01-01 00:00:00" || len(row) != len(Columns) {
				t.Errorf("JSON row 1 = %v, want a number a and ts 2015-01-01 00:00:00", row)
			}
		}
	}
}

// The tree table's target is its formula plus noise of sd 0.5, and the
// same seed gives the same table.
func TestTreeTable(t *testing.T) {
	a, b := treeTable(2000, 9), treeTable(2000, 9)
	var ss float64
	for i, r := range a.rows {
		if r[3] != b.rows[i][3] || a.y[i] != b.y[i] {
			t.Fatalf("row %d differs between two calls with the same seed", i)
		}
		x := make([]float64, 6)
		for j := range x {
			x[j], _ = strconv.ParseFloat(r[j], 64)
		}
		step := func(c bool) float64 {
			if c {
				return 1
			}
			return 0
		}
		f := 10*step(x[0] > 5) + 8*step(x[1] > 3)*step(x[2] < 6) + 6*step((x[3] > 7) != (x[4] > 7)) + 2*math.Floor(x[5]/2)
		ss += (a.y[i] - f) * (a.y[i] - f)
	}
	if sd := math.Sqrt(ss / 2000); sd < 0.45 || sd > 0.55 {
		t.Errorf("noise sd %.3f, want about 0.5", sd)
	}
}
