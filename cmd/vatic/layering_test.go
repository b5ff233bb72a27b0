package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/vaticml/vatic"

// allowed lists, per package, the in-module packages it may import
// directly (STYLE.md §2). A package missing here fails the test: new
// packages must be placed in the table deliberately.
var allowed = map[string][]string{
	// libraries
	"columnar":              {},
	"columnar/columnartest": {"columnar"},
	"ingest":                {"columnar"},
	"stats":                 {"stats/internal/codec"}, // the bounded model's framing (bounded.go); codec is a leaf
	"stats/*":               {"stats", "stats/internal/*"},
	"stats/internal/*":      {"stats"},
	"engine/calendar":       {},
	"engine/sqlgen":         {"columnar"},
	// the domain
	"engine":            {"engine/sqlgen", "engine/calendar", "ingest", "columnar", "stats", "stats/*"},
	"engine/enginetest": {"engine", "columnar"},
	// adapters, side by side: none imports another
	"api":               {"engine", "columnar"},
	"duckstore":         {"columnar"},
	"remote":            {"engine"},
	"remote/remotetest": {"remote"},
	"webhook":           {"engine"},
	"flightsql":         {"columnar"},
	// wiring and tools
	"bench":     {"stats", "stats/forecast"},
	"cmd/bench": {"bench"},
	"cmd/vatic": {"*"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "duckdb_arrow", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		rules, ok := lookup(rel)
		if !ok {
			t.Errorf("package %s is not in the layering table", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			target := strings.TrimPrefix(imp, module+"/")
			if !permitted(rules, target) {
				t.Errorf("%s imports %s, which the layering table does not allow", rel, target)
			}
		}
		// HTTP is the adapters' business: the domain and its libraries
		// never import net/http themselves. Libraries they use may link
		// it for features we do not call (thrift's HTTP transport, which
		// arrow-go's Parquet reader brings), so the rule is on direct
		// imports; every module package is checked itself.
		if slices.Contains(p.Imports, "net/http") && (rel == "engine" || strings.HasPrefix(rel, "engine/") || rel == "ingest" || rel == "stats" || strings.HasPrefix(rel, "stats/")) {
			t.Errorf("%s imports net/http", rel)
		}
		for _, dep := range p.Deps {
			switch {
			case strings.HasPrefix(dep, "github.com/duckdb/") && rel != "duckstore" && rel != "cmd/vatic":
				t.Errorf("%s depends on %s: only duckstore may use DuckDB", rel, dep)
			case strings.HasPrefix(dep, "github.com/apache/arrow-go") && (rel == "stats" || strings.HasPrefix(rel, "stats/")):
				t.Errorf("%s depends on Arrow: stats sees []float64 and gonum only", rel)
			}
		}
	}
}

func lookup(rel string) ([]string, bool) {
	if r, ok := allowed[rel]; ok {
		return r, true
	}
	if i := strings.LastIndex(rel, "/"); i > 0 {
		r, ok := allowed[rel[:i]+"/*"]
		return r, ok
	}
	return nil, false
}

func permitted(rules []string, target string) bool {
	if slices.Contains(rules, "*") || slices.Contains(rules, target) {
		return true
	}
	for _, r := range rules {
		if strings.HasSuffix(r, "/*") && strings.HasPrefix(target, strings.TrimSuffix(r, "*")) {
			return true
		}
	}
	return false
}
