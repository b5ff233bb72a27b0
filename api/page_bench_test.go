package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkPage is GET /data/{name}?pageSize=100 of a 100 000-row time
// series through the real stack, from parallel clients: the server work
// of the reads workload's page phase (bench/reads.go), without its
// separate process, for profiling.
func BenchmarkPage(b *testing.B) {
	s := newServer(b, withPageCache(benchPageCache))
	var csv strings.Builder
	csv.WriteString("ts,a,b,c,d,e,f,g\n")
	t0 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100_000 {
		fmt.Fprintf(&csv, "%s,%d.25,%d,%d.125,0.%04d,%d,word%d,x-%d\n", t0.Add(time.Duration(i)*time.Minute).Format(time.DateTime),
			i%1000, i%10_000, i%200-100, i%10_000, i%100, i%50, i%1000)
	}
	if r := s.do(b, http.MethodPut, "/v1/data/page", csv.String(), "Content-Type", "text/csv"); r.status != http.StatusCreated {
		b.Fatalf("PUT: %d %s", r.status, r.body)
	}
	for _, page := range []int{0, 500} {
		b.Run(fmt.Sprintf("page=%d", page), func(b *testing.B) {
			url := fmt.Sprintf("%s/v1/data/page?pageSize=100&page=%d", s.URL, page)
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodGet, url, nil)
					req.Header.Set("api-key", "test-key")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("GET: %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// benchPageCache is the page cache of BenchmarkPage: cmd/vatic's default.
// Set it to 0 (go test -bench Page -args …) to time the uncached path.
var benchPageCache int64 = 64 << 20
