package api_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// predictBenchRows and predictBenchFeatures are the shape of issue 17's
// predict target: 100 000 rows of 20 numeric features.
const predictBenchRows, predictBenchFeatures = 100_000, 20

// predictBenchModel trains a regression model on 2000 rows of f0…f19 → y
// and returns its id and champion. linear makes y a noisy weighted sum (a
// linear champion); otherwise y is a sum of steps and an interaction of
// the features, which trees fit and lines do not (a tree ensemble
// champion).
func predictBenchModel(b *testing.B, s *testServer, linear bool) (string, string) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for j := range predictBenchFeatures {
		fmt.Fprintf(&sb, "f%d,", j)
	}
	sb.WriteString("y\n")
	x := make([]float64, predictBenchFeatures)
	for range 2000 {
		for j := range x {
			x[j] = r.Float64()
			fmt.Fprintf(&sb, "%g,", x[j])
		}
		y := 0.0
		if linear {
			for j, v := range x {
				y += float64(j+1) * v
			}
		} else {
			y = 10*step(x[0] > 0.5 && x[1] > 0.5) + 5*step(x[2] > 0.3) - 4*step(x[3] < 0.2 || x[4] > 0.8)
		}
		noise := 0.01
		if !linear {
			// Noisy steps: the forest (200 trees) and boosting score alike,
			// and the forest, first in the line-up, is champion.
			noise = 1
		}
		fmt.Fprintf(&sb, "%g\n", y+r.NormFloat64()*noise)
	}
	name := "linear"
	if !linear {
		name = "steps"
	}
	s.putCSV(b, name, sb.String())
	created := s.createSession(b, fmt.Sprintf(`{"dataSourceName": %q, "targetColumn": "y", "predictionDomain": "regression"}`, name))
	done := s.waitSession(b, created.SessionID)
	if done.Status != "completed" || done.ModelID == "" || done.Algorithm == nil {
		b.Fatalf("session = %s %+v", done.Status, done.Messages)
	}
	return done.ModelID, done.Algorithm.Key
}

func step(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// predictBenchBody renders the benchmark rows (6-decimal numbers) as CSV
// or as a JSON body of row objects with number values.
func predictBenchBody(asJSON bool) string {
	r := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	if asJSON {
		sb.WriteString(`{"data":[`)
	} else {
		for j := range predictBenchFeatures {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "f%d", j)
		}
		sb.WriteByte('\n')
	}
	for i := range predictBenchRows {
		if asJSON && i > 0 {
			sb.WriteByte(',')
		}
		if asJSON {
			sb.WriteByte('{')
		}
		for j := range predictBenchFeatures {
			if j > 0 {
				sb.WriteByte(',')
			}
			if asJSON {
				fmt.Fprintf(&sb, `"f%d":`, j)
			}
			sb.WriteString(strconv.FormatFloat(r.Float64(), 'f', 6, 64))
		}
		if asJSON {
			sb.WriteByte('}')
		} else {
			sb.WriteByte('\n')
		}
	}
	if asJSON {
		sb.WriteString(`]}`)
	}
	return sb.String()
}

// predictBenchColumnar renders the benchmark rows as float64 columns, as
// an Arrow IPC stream or a Parquet file (mt).
func predictBenchColumnar(b *testing.B, mt string) string {
	r := rand.New(rand.NewPCG(3, 4))
	cols := make([][]float64, predictBenchFeatures)
	for range predictBenchRows {
		for j := range cols {
			cols[j] = append(cols[j], r.Float64())
		}
	}
	fields := make([]arrow.Field, predictBenchFeatures)
	arrs := make([]arrow.Array, predictBenchFeatures)
	for j, c := range cols {
		fb := array.NewFloat64Builder(memory.DefaultAllocator)
		fb.AppendValues(c, nil)
		fields[j], arrs[j] = arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float64, Nullable: true}, fb.NewArray()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, predictBenchRows)
	defer rec.Release()
	var buf bytes.Buffer
	if mt == "application/vnd.apache.parquet" {
		tbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
		defer tbl.Release()
		if err := pqarrow.WriteTable(tbl, &buf, 122_880, nil, pqarrow.DefaultWriterProps()); err != nil {
			b.Fatal(err)
		}
		return buf.String()
	}
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	w.Close()
	return buf.String()
}

// benchmarkPredict posts the benchmark body in mt to a real server over
// loopback HTTP and reads the whole answer, in the body's own format.
func benchmarkPredict(b *testing.B, linear bool, mt string) {
	s := newServer(b)
	id, champion := predictBenchModel(b, s, linear)
	var body string
	switch mt {
	case "text/csv":
		body = predictBenchBody(false)
	case "application/json":
		body = predictBenchBody(true)
	default:
		body = predictBenchColumnar(b, mt)
	}
	url := s.URL + "/v1/models/" + id + "/predict"
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("api-key", "test-key")
		req.Header.Set("Content-Type", mt)
		req.Header.Set("Accept", mt)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("predict = %d (%d bytes, %v)", res.StatusCode, n, err)
		}
	}
	b.ReportMetric(float64(predictBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.Logf("champion: %s", champion)
}

func BenchmarkPredictLinearCSV(b *testing.B)  { benchmarkPredict(b, true, "text/csv") }
func BenchmarkPredictLinearJSON(b *testing.B) { benchmarkPredict(b, true, "application/json") }
func BenchmarkPredictLinearArrow(b *testing.B) {
	benchmarkPredict(b, true, "application/vnd.apache.arrow.stream")
}
func BenchmarkPredictLinearParquet(b *testing.B) {
	benchmarkPredict(b, true, "application/vnd.apache.parquet")
}
func BenchmarkPredictTreesCSV(b *testing.B) { benchmarkPredict(b, false, "text/csv") }
