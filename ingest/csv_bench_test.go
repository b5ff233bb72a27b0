package ingest_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vaticml/vatic/ingest"
)

// genCSV generates the benchmark shape: a timestamp, 5 numeric and 2 short
// string columns, from a fixed seed.
func genCSV(rows int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	b.WriteString("ts,a,b,c,d,e,store,item\n")
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	stores := []string{"north", "south", "east", "west", "central"}
	for i := range rows {
		ts := t0.Add(time.Duration(i) * time.Minute)
		fmt.Fprintf(&b, "%s,%d,%.2f,%.4f,%d,%.1f,%s,item%03d\n", ts.Format("2006-01-02 15:04:05"),
			rng.IntN(1000), rng.Float64()*1000, rng.NormFloat64(), rng.IntN(2), rng.Float64()*100,
			stores[rng.IntN(len(stores))], rng.IntN(500))
	}
	return b.Bytes()
}

// Compare runs with: go test -run '^$' -bench CSV -count 6 ./ingest | tee new.txt; benchstat old.txt new.txt
func BenchmarkCSV(b *testing.B) {
	const rows = 200_000
	data := genCSV(rows, 1)
	for _, workers := range []int{1, 2, 4} {
		benchCSV(b, fmt.Sprintf("workers=%d", workers), data, rows, ingest.Options{Workers: workers})
	}
	// A predict body's read: every column as its text.
	benchCSV(b, "verbatim/workers=1", data, rows, ingest.Options{Workers: 1, Verbatim: true})
}

func benchCSV(b *testing.B, name string, data []byte, rows int64, opts ingest.Options) {
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r, err := ingest.NewCSV(bytes.NewReader(data), opts)
			if err != nil {
				b.Fatal(err)
			}
			n := int64(0)
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			r.Release()
			if n != rows {
				b.Fatalf("read %d rows, want %d", n, rows)
			}
		}
		b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}
