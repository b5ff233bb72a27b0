package api_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestPageCacheReadsOwnWrites reads the same page after every kind of
// write with the page cache on, and checks it against a fresh rendering
// (a query the cache has never seen): a cached page never outlives a
// write, whatever the write changed.
func TestPageCacheReadsOwnWrites(t *testing.T) {
	s := newServer(t, withPageCache(1<<20))
	fresh := 0
	check := func(step, name, query string) {
		t.Helper()
		cached := s.get(t, name, query)
		again := s.get(t, name, query) // a hit when the first was a miss
		fresh++
		want := s.get(t, name, fmt.Sprintf("%s&fresh=%d", query, fresh))
		for _, got := range []rowsJSON{cached, again} {
			if !reflect.DeepEqual(got.Data, want.Data) || !reflect.DeepEqual(got.datasetJSON.Columns, want.datasetJSON.Columns) ||
				got.RowCount != want.RowCount || got.LastModified != want.LastModified || got.TotalCount != want.TotalCount {
				t.Fatalf("%s: cached page\n%+v\nfresh page\n%+v", step, got, want)
			}
		}
	}
	const page = "pageSize=2&page=0"
	s.putCSV(t, "sales", "day,v\n2020-01-01,1\n2020-01-02,2\n2020-01-03,3\n")
	check("created", "sales", page)
	s.putCSV(t, "sales", "day,v\n2020-01-01,10\n")
	check("upserted a row", "sales", page)
	s.putCSV(t, "sales", "day,v,w\n2019-12-31,0,x\n")
	check("added an older row and a column", "sales", page)
	s.putJSON(t, "sales", `{"columns":{"v":{"dataType":"string"}}}`)
	check("changed metadata", "SALES", page)
	if r := s.do(t, http.MethodDelete, "/v1/data/sales?endDate=2019-12-31T00:00:00Z", nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE range = %d %s", r.status, r.body)
	}
	check("deleted a range", "sales", page)
	if r := s.do(t, http.MethodPut, "/v1/data/sales", "day,v\n2020-02-01,1\n2020-02-02,x,y\n", "Content-Type", "text/csv"); r.status != http.StatusBadRequest {
		t.Fatalf("bad PUT = %d %s, want 400", r.status, r.body)
	}
	check("a refused write", "sales", page)
	if r := s.do(t, http.MethodDelete, "/v1/data/sales", nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE = %d %s", r.status, r.body)
	}
	if r := s.do(t, http.MethodGet, "/v1/data/sales?"+page, nil); r.status != http.StatusNotFound {
		t.Fatalf("GET of a deleted dataset = %d %s, want 404", r.status, r.body)
	}
	s.putCSV(t, "Sales", "day,v\n2021-01-01,7\n")
	check("re-created", "sales", page)

	// CSV and JSON of the same page are different entries, and a cached
	// answer keeps its own request ID.
	j := s.do(t, http.MethodGet, "/v1/data/sales?"+page, nil)
	c1 := s.do(t, http.MethodGet, "/v1/data/sales?"+page, nil, "Accept", "text/csv")
	c2 := s.do(t, http.MethodGet, "/v1/data/sales?"+page, nil, "Accept", "text/csv")
	if !strings.HasPrefix(c1.header.Get("Content-Type"), "text/csv") || string(c1.body) != string(c2.body) || string(c1.body) == string(j.body) {
		t.Fatalf("CSV pages: %q / %q, JSON %q", c1.body, c2.body, j.body)
	}
	if id1, id2 := c1.header.Get("X-Request-Id"), c2.header.Get("X-Request-Id"); id1 != "" && id1 == id2 {
		t.Errorf("a cached answer repeated the request ID %s", id1)
	}
}
