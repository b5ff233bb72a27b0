package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/columnar"
)

// anomalyCSV is n rows of d correlated columns c0…c(d−1) from a fixed
// seed (column j is uniform plus half of column j − 1), with one row in a
// hundred shifted by 3 in every column: the planted anomalies.
func anomalyCSV(n, d int) string {
	rng := rand.New(rand.NewPCG(15, 1))
	var b strings.Builder
	for j := range d {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	row := make([]float64, d)
	for i := range n {
		for j := range d {
			row[j] = rng.Float64()
			if j > 0 {
				row[j] += 0.5 * row[j-1]
			}
		}
		for j, v := range row {
			if i%100 == 0 {
				v += 3
			}
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%.6f", v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkAnomaliesSession runs an anomalies session on 200 000 rows ×
// 20 numeric columns, from CreateSession to completed: the frame and its
// encoding, Isolation Forest and robust Mahalanobis (FastMCD) fitted and
// scored on every row, the distances and the result tables. It reports
// the process's CPU seconds per session besides the wall time, which a
// loaded machine distorts less.
//
//	go test -tags duckdb_arrow -run '^$' -bench AnomaliesSession -benchtime 3x -cpu 2 ./engine
func BenchmarkAnomaliesSession(b *testing.B) {
	const n, d = 200_000, 20
	e := newBenchEngine(b)
	if _, _, err := e.PutDataset(b.Context(), PutRequest{Name: "anom", Body: strings.NewReader(anomalyCSV(n, d)), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		b.Fatal(err)
	}
	req := SessionRequest{Type: SessionModel, DataSourceName: "anom", PredictionDomain: DomainAnomalies}
	benchSessions(b, e, req)
}

// textAnomalyCSV is n rows of three numeric columns (anomalyCSV's, with
// its planted anomalies) and a text column note of 20–40 words drawn from
// a Zipf law over 20 000 pseudo-words (textSessionFrame's corpus), so
// the vocabulary keeps the full maxTextTerms words.
func textAnomalyCSV(n int) string {
	rng := rand.New(rand.NewPCG(8, 9))
	zipf := rand.NewZipf(rng, 1.1, 2, 19_999)
	lines := strings.Split(anomalyCSV(n, 3), "\n")
	var b strings.Builder
	b.WriteString(lines[0] + ",note\n")
	for _, l := range lines[1 : n+1] {
		b.WriteString(l + ",")
		for k := range 20 + rng.IntN(21) {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%dq", zipf.Uint64())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkAnomaliesText runs an anomalies session on
// VATIC_BENCH_TEXT_ROWS rows (3 000 by default) of three numeric columns
// and one text column (textAnomalyCSV), from CreateSession to completed:
// Isolation Forest reads the 1 000 kept words as CSR, robust Mahalanobis
// the numeric columns. Run it under /usr/bin/time -v for the peak RSS:
//
//	go test -tags duckdb_arrow -c -o /tmp/engine.test ./engine
//	VATIC_BENCH_TEXT_ROWS=100000 /usr/bin/time -v /tmp/engine.test -test.run '^$' -test.bench AnomaliesText -test.benchtime 1x
func BenchmarkAnomaliesText(b *testing.B) {
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("VATIC_BENCH_TEXT_ROWS")); err == nil && v > 0 {
		n = v
	}
	e := newBenchEngine(b)
	meta := []columnar.Spec{{Name: "note", DataType: "text"}}
	if _, _, err := e.PutDataset(b.Context(), PutRequest{Name: "notes", Body: strings.NewReader(textAnomalyCSV(n)), Format: FormatHints{ContentType: "text/csv"}, Columns: meta}); err != nil {
		b.Fatal(err)
	}
	req := SessionRequest{Type: SessionModel, DataSourceName: "notes", PredictionDomain: DomainAnomalies}
	benchSessions(b, e, req)
}

// benchSessions runs req's session once per benchmark iteration, from
// CreateSession to completed, and reports the process's CPU seconds per
// session besides the wall time, which a loaded machine distorts less.
func benchSessions(b *testing.B, e *Engine, req SessionRequest) {
	c0 := cpuTime(b)
	for b.Loop() {
		s, err := e.CreateSession(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		for s.Status == StatusRequested || s.Status == StatusStarted {
			time.Sleep(20 * time.Millisecond)
			if s, err = e.Session(b.Context(), s.ID); err != nil {
				b.Fatal(err)
			}
		}
		if s.Status != StatusCompleted {
			b.Fatalf("session %s", s.Status)
		}
	}
	b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/op")
}
