package api_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

func TestRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newServer(t, withDir(dir))
	s.putCSV(t, "month", monthCSV())
	s.putJSON(t, "Keyed.Set", `{"columns":{"id":{"dataType":"string","role":"key"},"v":{"dataType":"numericMeasure","role":"target","imputation":"median"}},
		"missingValues":["?"],"data":[{"id":"a","v":"1"},{"id":"b","v":"?"}]}`)
	s.putCSV(t, "deleted", salesCSV)
	if res := s.do(t, "DELETE", "/v1/data/deleted", nil); res.status != 204 {
		t.Fatalf("DELETE deleted = %d, want 204", res.status)
	}
	if res := s.do(t, "DELETE", "/v1/data/month?startDate=2017-01-20", nil); res.status != 204 {
		t.Fatalf("DELETE month range = %d, want 204", res.status)
	}
	list := func(s *testServer) listJSON { return decode[listJSON](t, s.do(t, "GET", "/v1/data", nil)) }
	wantList := list(s)
	want := map[string]rowsJSON{"month": s.get(t, "month", "pageSize=1000"), "Keyed.Set": s.get(t, "Keyed.Set", "pageSize=1000")}
	s.Close()

	s2 := newServer(t, withDir(dir))
	// Links carry each server's address; everything else is the same.
	same := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(requestIP.ReplaceAll(b, []byte("http://vatic.test")))
	}
	if got := list(s2); same(got) != same(wantList) {
		t.Errorf("GET /v1/data after restart = %s, want %s", same(got), same(wantList))
	}
	for name, w := range want {
		if got := s2.get(t, name, "pageSize=1000"); same(got) != same(w) {
			t.Errorf("GET %s after restart = %s, want %s", name, same(got), same(w))
		}
	}
	if res := s2.do(t, "GET", "/v1/data/deleted", nil); res.status != 404 {
		t.Errorf("GET deleted after restart = %d, want 404", res.status)
	}
	// Writes keep working on the reopened file, and upserts still see the key.
	d := s2.putJSON(t, "keyed.set", `{"data":[{"id":"b","v":"2"},{"id":"c","v":"3"}]}`)
	if d.RowCount != 3 || d.DataSetName != "Keyed.Set" {
		t.Errorf("PUT keyed.set after restart = %q with %d rows, want Keyed.Set with 3", d.DataSetName, d.RowCount)
	}
	res := s2.do(t, "GET", "/v1/data", nil)
	wantAccountHeaders(t, "GET /v1/data after restart", res, 2)
}

func TestConcurrentPuts(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	const (
		separate = 8
		shared   = 4
		rows     = 200
	)
	s.putJSON(t, "shared", `{"columns":{"id":{"dataType":"numeric","role":"key"}}}`)
	var wg sync.WaitGroup
	errs := make(chan string, separate+shared)
	put := func(name, body, ctype string) {
		defer wg.Done()
		res := s.do(t, "PUT", "/v1/data/"+name, body, "Content-Type", ctype)
		if res.status != 201 {
			errs <- fmt.Sprintf("PUT %s = %d %s, want 201", name, res.status, res.body)
		}
	}
	for i := range separate {
		var b []byte
		b = append(b, "id,v\n"...)
		for r := range rows {
			b = fmt.Appendf(b, "%d,%d\n", r, i)
		}
		wg.Add(1)
		go put(fmt.Sprintf("sep%d", i), string(b), "text/csv")
	}
	for i := range shared {
		// Writer i sends ids i*rows/2 … i*rows/2+rows-1: half overlaps the
		// next writer's.
		b := []byte(`{"data":[`)
		for r := range rows {
			if r > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"id":%d,"w":"%d"}`, i*rows/2+r, i)
		}
		b = append(b, "]}"...)
		wg.Add(1)
		go put("shared", string(b), "application/json")
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for i := range separate {
		if got := s.get(t, fmt.Sprintf("sep%d", i), "pageSize=1"); got.RowCount != rows || got.TotalCount != rows {
			t.Errorf("GET sep%d rowCount %d totalCount %d, want %d", i, got.RowCount, got.TotalCount, rows)
		}
	}
	want := int64((shared-1)*rows/2 + rows)
	got := s.get(t, "shared", "pageSize=1000")
	if got.RowCount != want || got.TotalCount != want || int64(len(got.Data)) != want {
		t.Errorf("GET shared rowCount %d totalCount %d rows %d, want %d (distinct keys)", got.RowCount, got.TotalCount, len(got.Data), want)
	}
	seen := map[string]bool{}
	for _, r := range got.Data {
		if seen[r["id"]] {
			t.Errorf("GET shared: id %s appears twice", r["id"])
		}
		seen[r["id"]] = true
	}
	l := decode[listJSON](t, s.do(t, "GET", "/v1/data", nil))
	if l.TotalCount != separate+1 {
		t.Errorf("GET /v1/data totalCount = %d, want %d", l.TotalCount, separate+1)
	}
}
