package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPage is GET /data/{name}?pageSize=100 of a 100 000-row time
// series through the real stack, from parallel clients: the server work
// of the reads workload's page phase (bench/reads.go) without its separate
// process, for profiling; from the page cache (cached=true) and rendered
// afresh by a query each time (cached=false).
func BenchmarkPage(b *testing.B) {
	s := newServer(b, withPageCache(64<<20)) // cmd/vatic's default
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
	for _, c := range []struct {
		page   int
		cached bool
	}{{0, true}, {500, true}, {0, false}, {500, false}} {
		b.Run(fmt.Sprintf("page=%d/cached=%v", c.page, c.cached), func(b *testing.B) {
			url := fmt.Sprintf("%s/v1/data/page?pageSize=100&page=%d", s.URL, c.page)
			var n atomic.Int64
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					u := url
					if !c.cached { // a query the cache has not seen: a miss
						u += "&n=" + strconv.FormatInt(n.Add(1), 10)
					}
					req, _ := http.NewRequest(http.MethodGet, u, nil)
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
