package engine

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPredictLinear scores 100 000 rows of 20 numeric features with a
// saved linear model through Engine.PredictStream: preparation replay, the
// model's kernel and the bookkeeping, without HTTP or JSON.
func BenchmarkPredictLinear(b *testing.B) {
	const features, trainRows, rows = 20, 2000, 100_000
	e := newBenchEngine(b)
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for j := range features {
		fmt.Fprintf(&sb, "f%d,", j)
	}
	sb.WriteString("y\n")
	for range trainRows {
		y := 0.0
		for j := range features {
			v := r.Float64()
			y += float64(j+1) * v
			fmt.Fprintf(&sb, "%g,", v)
		}
		fmt.Fprintf(&sb, "%g\n", y+r.NormFloat64()*0.01)
	}
	if _, _, err := e.PutDataset(b.Context(), PutRequest{Name: "lin", Body: strings.NewReader(sb.String()), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		b.Fatal(err)
	}
	s, err := e.CreateSession(b.Context(), regressionRequest("lin"))
	if err != nil {
		b.Fatal(err)
	}
	done := waitSessionB(b, e, s.ID)
	if done.ModelID == "" {
		b.Fatalf("session %s: %v", done.Status, done.Messages)
	}
	names := make([]string, features)
	for j := range names {
		names[j] = fmt.Sprintf("f%d", j)
	}
	// Text values in batches of 16384 rows, as the API decodes a body.
	var batches [][][]string
	for i := 0; i < rows; i += 16384 {
		batch := make([][]string, min(16384, rows-i))
		for k := range batch {
			batch[k] = make([]string, features)
			for j := range features {
				batch[k][j] = strconv.FormatFloat(r.Float64(), 'f', 6, 64)
			}
		}
		batches = append(batches, batch)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.predictText(b.Context(), done.ModelID, names, batches...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.Logf("champion: %s", done.Algorithm.Key)
}
