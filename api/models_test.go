package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// namedModel runs a regression session called name on a fresh friedman
// dataset of 100 rows and returns its model id.
func (s *testServer) namedModel(t testing.TB, dataset, name string) string {
	t.Helper()
	s.putCSV(t, dataset, firstLines(friedman1(t), 100))
	created := s.createSession(t, fmt.Sprintf(`{"dataSourceName": %q, "targetColumn": "y", "predictionDomain": "regression", "name": %q}`, dataset, name))
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" || done.ModelID == "" {
		t.Fatalf("session %q = %s %+v, want completed with a model", name, done.Status, done.Messages)
	}
	return done.ModelID
}

const friedmanRow = `{"x0":1,"x1":1,"x2":1,"x3":1,"x4":1,"x5":1,"x6":1,"x7":1,"x8":1,"x9":1}`

// Every sortBy of REFERENCE §1.6 for models orders the list, in any case
// and either direction.
func TestListModelsSortBy(t *testing.T) {
	s := newServer(t)
	// Created in this order; names, sources and last use each order them
	// differently. Names differ in case, so that a case-sensitive order
	// ("Bravo", "Charlie", "alpha") would show.
	m1 := s.namedModel(t, "gamma", "Bravo model")
	m2 := s.namedModel(t, "alpha", "Charlie model")
	m3 := s.namedModel(t, "beta", "alpha model")
	for _, id := range []string{m3, m1} { // m2 never predicts
		if res := s.do(t, http.MethodPost, "/v1/models/"+id+"/predict", `{"data":[`+friedmanRow+`]}`); res.status != http.StatusOK {
			t.Fatalf("predict with %s = %d %s", id, res.status, res.body)
		}
	}
	// Only regression sessions run on this server yet: relabel one model
	// in the catalog so that type has two values to order.
	if _, err := s.store.Exec(t.Context(), `UPDATE catalog.models SET domain = 'classification' WHERE id = ?`, m2); err != nil {
		t.Fatal(err)
	}
	name := map[string]string{m1: "m1", m2: "m2", m3: "m3"}
	byID := []string{m1, m2, m3}
	slices.Sort(byID)
	regressionByID := slices.DeleteFunc(slices.Clone(byID), func(id string) bool { return id == m2 })
	names := func(ids ...string) string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = name[id]
		}
		return strings.Join(out, ",")
	}
	rev := func(ids []string) []string {
		out := slices.Clone(ids)
		slices.Reverse(out)
		return out
	}
	for _, c := range []struct {
		query, want string
	}{
		{"", names(m3, m2, m1)}, // newest first
		{"sortBy=id", names(byID...)},
		{"sortBy=ID&sortOrder=desc", names(rev(byID)...)},
		{"sortBy=modelName", names(m3, m1, m2)},
		{"sortBy=modelname&sortOrder=DESC", names(m2, m1, m3)},
		{"sortBy=dataSourceName", names(m2, m3, m1)},
		{"sortBy=DATASOURCENAME&sortOrder=desc", names(m1, m3, m2)},
		{"sortBy=type", names(append([]string{m2}, regressionByID...)...)},
		{"sortBy=Type&sortOrder=desc", names(append(rev(regressionByID), m2)...)},
		{"sortBy=predictionDomain", names(append([]string{m2}, regressionByID...)...)},
		{"sortBy=createdDate", names(m1, m2, m3)},
		{"sortBy=createddate&sortOrder=desc", names(m3, m2, m1)},
		// m2 never predicted: after the others either way.
		{"sortBy=lastUsedDate", names(m3, m1, m2)},
		{"sortBy=LastUsedDate&sortOrder=desc", names(m1, m3, m2)},
		{"sortBy=modelName&pageSize=1&page=1", names(m1)},
	} {
		res := s.do(t, http.MethodGet, "/v1/models?"+c.query, nil)
		if res.status != http.StatusOK {
			t.Errorf("GET /v1/models?%s = %d %s, want 200", c.query, res.status, res.body)
			continue
		}
		var l struct {
			Items []struct {
				ModelID string `json:"modelId"`
			} `json:"items"`
		}
		if err := json.Unmarshal(res.body, &l); err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(l.Items))
		for i, it := range l.Items {
			got[i] = it.ModelID
		}
		if g := names(got...); g != c.want {
			t.Errorf("GET /v1/models?%s = %s, want %s", c.query, g, c.want)
		}
	}
	for _, q := range []string{"sortBy=colour", "sortBy=name", "sortBy=requestedDate"} {
		e := wantError(t, "GET /v1/models?"+q, s.do(t, http.MethodGet, "/v1/models?"+q, nil), 400, "RequestValidation", "sortBy")
		if msg := fmt.Sprint(e.ErrorDetails["sortBy"]); !strings.Contains(msg, "modelName") || !strings.Contains(msg, "lastUsedDate") || !strings.Contains(msg, "type") {
			t.Errorf("GET /v1/models?%s errorDetails.sortBy = %s, want the allowed values", q, msg)
		}
	}
}
