package api

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
)

// The document and the router agree, route by route: every route the
// router serves is documented, and every documented operation is served
// by exactly one route (a documented fixed segment, like
// /v1/sessions/forecast, may be served by a parameter of the router's).
func TestOpenAPIMatchesRouter(t *testing.T) {
	s := New(nil, Options{})
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	// served[method][i] counts the documented operations route i serves.
	served := map[string][]int{}
	for method, pats := range s.patterns {
		served[method] = make([]int, len(pats))
	}
	methods := []string{"get", "put", "post", "delete", "head", "patch", "options", "trace"}
	for path, ops := range doc.Paths {
		segs := splitPath(path)
		for m := range ops {
			if !slices.Contains(methods, m) {
				continue // parameters, summary …
			}
			method := strings.ToUpper(m)
			var matched []int
			for i, pat := range s.patterns[method] {
				if documents(segs, pat) {
					matched = append(matched, i)
				}
			}
			if len(matched) != 1 {
				t.Errorf("%s %s is served by %d routes, want 1", method, path, len(matched))
				continue
			}
			served[method][matched[0]]++
		}
	}
	for method, counts := range served {
		for i, n := range counts {
			if n == 0 {
				t.Errorf("route %s /%s is not in openapi.json", method, strings.Join(s.patterns[method][i], "/"))
			}
		}
	}
}

// documents reports whether a documented path (segments, {name} for a
// parameter) is one the router pattern (segments, :name for a parameter)
// serves: same length, equal fixed segments (any case, as the router
// matches them), a documented parameter only where the router has the same
// one, and a documented fixed segment where the router has a parameter.
func documents(doc, pat []string) bool {
	if len(doc) != len(pat) {
		return false
	}
	for i, d := range doc {
		p := pat[i]
		switch {
		case strings.HasPrefix(d, "{"):
			if "{"+strings.TrimPrefix(p, ":")+"}" != d || !strings.HasPrefix(p, ":") {
				return false
			}
		case strings.HasPrefix(p, ":"):
		case !strings.EqualFold(d, p):
			return false
		}
	}
	return true
}

// The document is a valid OpenAPI 3.1 document by libopenapi, the
// validator the end-to-end tests use on every JSON response.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	d, err := libopenapi.NewDocument(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatalf("build the model: %v", err)
	}
	if m.Model.Paths == nil || m.Model.Paths.PathItems.Len() == 0 {
		t.Fatal("no paths")
	}
}
