package api_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// relsOf returns rel → href of links.
func relsOf(links []linkJSON) map[string]string {
	m := map[string]string{}
	for _, l := range links {
		m[l.Rel] = l.Href
	}
	return m
}

// pageOf returns the page and pageSize of a paging href, and its other
// parameters.
func pageOf(t testing.TB, href string) (page, size string, rest url.Values) {
	t.Helper()
	u, err := url.Parse(href)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", href, err)
	}
	q := u.Query()
	if len(q["page"]) != 1 || len(q["pageSize"]) != 1 {
		t.Errorf("href %q: want exactly one page and one pageSize", href)
	}
	page, size = q.Get("page"), q.Get("pageSize")
	q.Del("page")
	q.Del("pageSize")
	return page, size, q
}

func TestPaging(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	t.Run("empty list", func(t *testing.T) {
		res := s.do(t, "GET", "/v1/data", nil)
		l := decode[listJSON](t, res)
		if l.Items == nil || len(l.Items) != 0 || l.PageNumber != 0 || l.TotalPages != 0 || l.PageSize != 50 || l.TotalCount != 0 {
			t.Errorf("GET /v1/data on nothing = %s, want empty items, page 0 of 0, pageSize 50", res.body)
		}
		if len(l.Links) != 1 || l.Links[0].Rel != "self" {
			t.Errorf("GET /v1/data on nothing links = %v, want only self", l.Links)
		}
		golden(t, "list_empty", res.body)
	})
	for i := range 7 {
		s.putCSV(t, fmt.Sprintf("ds%d", i), salesCSV)
	}
	for _, tc := range []struct {
		query            string
		page, size, last int
		total            int
		rels             string // expected rels, sorted by position
	}{
		{"", 0, 50, 0, 7, "self first last"},
		{"pageSize=5000", 0, 1000, 0, 7, "self first last"},
		{"pageSize=1000", 0, 1000, 0, 7, "self first last"},
		{"pageSize=3", 0, 3, 2, 3, "self first next last"},
		{"page=1&pageSize=3", 1, 3, 2, 3, "self first prev next last"},
		{"page=2&pageSize=3", 2, 3, 2, 1, "self first prev last"},
		{"page=5&pageSize=3", 5, 3, 2, 0, "self first prev last"},
		{"page=0&page=1&pageSize=3", 1, 3, 2, 3, "self first prev next last"},
		{"PAGESIZE=2&Page=3", 3, 2, 3, 1, "self first prev last"},
		{"pageSize=2&partialName=DS", 0, 2, 3, 2, "self first next last"},
		{"page=&pageSize=", 0, 50, 0, 7, "self first last"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := s.do(t, "GET", "/v1/data?"+tc.query, nil)
			if res.status != 200 {
				t.Fatalf("GET /v1/data?%s = %d %s, want 200", tc.query, res.status, res.body)
			}
			l := decode[listJSON](t, res)
			if l.PageNumber != tc.page || l.PageSize != tc.size || l.TotalPages != tc.last+1 || l.TotalCount != 7 || len(l.Items) != tc.total {
				t.Errorf("GET /v1/data?%s = page %d size %d pages %d count %d items %d, want %d %d %d 7 %d",
					tc.query, l.PageNumber, l.PageSize, l.TotalPages, l.TotalCount, len(l.Items), tc.page, tc.size, tc.last+1, tc.total)
			}
			var rels []string
			for _, ln := range l.Links {
				rels = append(rels, ln.Rel)
			}
			if got := strings.Join(rels, " "); got != tc.rels {
				t.Errorf("GET /v1/data?%s rels = %q, want %q", tc.query, got, tc.rels)
			}
			want := map[string]int{"self": tc.page, "first": 0, "prev": tc.page - 1, "next": tc.page + 1, "last": tc.last}
			if tc.page > tc.last {
				want["prev"] = tc.last
			}
			for rel, href := range relsOf(l.Links) {
				if !strings.HasPrefix(href, s.URL+"/v1/data?") {
					t.Errorf("GET /v1/data?%s %s href = %q, want it under %s/v1/data?", tc.query, rel, href, s.URL)
				}
				page, size, rest := pageOf(t, href)
				if page != fmt.Sprint(want[rel]) || size != fmt.Sprint(tc.size) {
					t.Errorf("GET /v1/data?%s %s = page %s size %s, want %d %d", tc.query, rel, page, size, want[rel], tc.size)
				}
				for k := range rest {
					if strings.EqualFold(k, "page") || strings.EqualFold(k, "pageSize") {
						t.Errorf("GET /v1/data?%s %s href = %q, want no other spelling of page/pageSize", tc.query, rel, href)
					}
				}
				if strings.Contains(tc.query, "partialName") && rest.Get("partialName") != "DS" {
					t.Errorf("GET /v1/data?%s %s href = %q, want partialName=DS kept", tc.query, rel, href)
				}
			}
		})
	}
	t.Run("golden", func(t *testing.T) {
		res := s.do(t, "GET", "/v1/data?page=1&pageSize=2&partialName=ds", nil)
		golden(t, "list_page", res.body)
	})
	t.Run("sorted by name", func(t *testing.T) {
		l := decode[listJSON](t, s.do(t, "GET", "/v1/data?sortBy=dataSetName&sortOrder=DESC", nil))
		if len(l.Items) != 7 || l.Items[0].DataSetName != "ds6" || l.Items[6].DataSetName != "ds0" {
			t.Errorf("GET /v1/data?sortBy=dataSetName&sortOrder=DESC first/last = %v, want ds6…ds0", l.Items)
		}
	})
	for _, tc := range []struct{ query, param string }{
		{"pageSize=0", "pageSize"},
		{"pageSize=-1", "pageSize"},
		{"pageSize=abc", "pageSize"},
		{"pageSize=1.5", "pageSize"},
		{"page=-1", "page"},
		{"page=abc", "page"},
		{"page=99999999999", "page"},
		{"sortBy=colour", "sortBy"},
		{"sortOrder=sideways", "sortOrder"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			for _, path := range []string{"/v1/data?", "/v1/data/ds0?"} {
				if strings.HasPrefix(tc.param, "sort") && path != "/v1/data?" {
					continue // rows are not sorted
				}
				res := s.do(t, "GET", path+tc.query, nil)
				wantError(t, "GET "+path+tc.query, res, 400, "RequestValidation", tc.param)
			}
		})
	}
	golden(t, "error_400_request_validation", s.do(t, "GET", "/v1/data?pageSize=0", nil).body)
}
