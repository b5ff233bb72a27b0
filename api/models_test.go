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

// predictionInterval on predict (REFERENCE §8.3) is checked as on
// /results (§6.10): one of the model session's availablePredictionIntervals,
// from extraParameters or the query, for JSON and CSV bodies alike.
func TestPredictPredictionInterval(t *testing.T) {
	s := newServer(t)
	id := s.namedModel(t, "friedman", "intervals")
	path := "/v1/models/" + id + "/predict"
	csvBody := "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9\n1,1,1,1,1,1,1,1,1,1\n"
	withExtra := func(extra string) string { return `{"data":[` + friedmanRow + `],"extraParameters":` + extra + `}` }

	// Refused requests predict nothing: the model stays unused.
	for _, c := range []struct{ name, query, body, contentType string }{
		{"unknown interval", "", withExtra(`{"predictionInterval": "0.95"}`), "application/json"},
		{"not a number", "", withExtra(`{"predictionInterval": "half"}`), "application/json"},
		{"number", "", withExtra(`{"predictionInterval": 0.2}`), "application/json"},
		{"any case", "", withExtra(`{"PREDICTIONINTERVAL": "0.8"}`), "application/json"},
		{"query", "?predictionInterval=0.95", `{"data":[` + friedmanRow + `]}`, "application/json"},
		{"body wins", "?predictionInterval=0.5", withExtra(`{"predictionInterval": "0.95"}`), "application/json"},
		{"csv query", "?predictionInterval=0.9", csvBody, "text/csv"},
		{"csv query any case", "?PredictionInterval=.1", csvBody, "text/csv"},
	} {
		res := s.do(t, http.MethodPost, path+c.query, c.body, "Content-Type", c.contentType)
		e := wantError(t, "predict "+c.name, res, 400, "RequestValidation", "predictionInterval")
		if msg := fmt.Sprint(e.ErrorDetails["predictionInterval"]); !strings.Contains(msg, "0.5") {
			t.Errorf("predict %s errorDetails.predictionInterval = %s, want the available intervals", c.name, msg)
		}
	}
	res := s.do(t, http.MethodGet, "/v1/models/"+id, nil)
	if strings.Contains(string(res.body), "lastUsedDate") {
		t.Errorf("model after refused predictions = %s, want no lastUsedDate", res.body)
	}

	predicted := func(res response) string {
		t.Helper()
		var out struct {
			Data []map[string]string `json:"data"`
		}
		if err := json.Unmarshal(res.body, &out); err != nil || len(out.Data) != 1 {
			t.Fatalf("predict = %d %s", res.status, res.body)
		}
		return out.Data[0]["y"]
	}
	median := predicted(s.do(t, http.MethodPost, path, `{"data":[`+friedmanRow+`]}`))
	for _, c := range []struct{ name, query, body string }{
		{"extraParameters", "", withExtra(`{"predictionInterval": "0.5"}`)},
		{"short form", "", withExtra(`{"predictionInterval": ".5"}`)},
		{"number", "", withExtra(`{"predictionInterval": 0.5, "includeClassScores": "False"}`)},
		{"any case", "", withExtra(`{"predictioninterval": "0.50"}`)},
		{"query", "?predictionInterval=0.5", `{"data":[` + friedmanRow + `]}`},
		{"body wins", "?predictionInterval=0.95", withExtra(`{"predictionInterval": "0.5"}`)},
		{"empty", "?predictionInterval=", withExtra(`{"predictionInterval": ""}`)},
	} {
		res := s.do(t, http.MethodPost, path+c.query, c.body)
		if res.status != http.StatusOK {
			t.Errorf("predict %s = %d %s, want 200", c.name, res.status, res.body)
			continue
		}
		if y := predicted(res); y != median {
			t.Errorf("predict %s y = %s, want the median prediction %s", c.name, y, median)
		}
	}
	for _, q := range []string{"?predictionInterval=0.5", "?predictionInterval=.5"} {
		res := s.do(t, http.MethodPost, path+q, csvBody, "Content-Type", "text/csv", "Accept", "text/csv")
		lines := strings.Split(strings.TrimSpace(string(res.body)), "\n")
		if res.status != http.StatusOK || len(lines) != 2 || !strings.HasSuffix(lines[1], ","+median) {
			t.Errorf("predict CSV%s = %d %q, want 200 with the median prediction %s", q, res.status, res.body, median)
		}
	}
}
