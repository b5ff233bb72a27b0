package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"
)

// friedman1 is the regression dataset of the tests and benchmarks.
func friedman1(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../stats/regress/testdata/friedman1.csv")
	if err != nil {
		t.Fatalf("read friedman1: %v", err)
	}
	return string(b)
}

// sessionJSON is a session as the API answers it.
type sessionJSON struct {
	SessionID        string                               `json:"sessionId"`
	Type             string                               `json:"type"`
	Status           string                               `json:"status"`
	PredictionDomain string                               `json:"predictionDomain"`
	ModelID          string                               `json:"modelId"`
	Progress         *int                                 `json:"approximateCompletionPercentage"`
	StatusHistory    []struct{ Date, Status string }      `json:"statusHistory"`
	Messages         []struct{ Severity, Message string } `json:"messages"`
	TargetColumn     string                               `json:"targetColumn"`
	Algorithm        *struct{ Key, Name string }          `json:"algorithm"`
	Links            []linkJSON                           `json:"links"`
}

// createSession posts a model session and wants 200.
func (s *testServer) createSession(t testing.TB, body string) sessionJSON {
	t.Helper()
	res := s.do(t, http.MethodPost, "/v1/sessions/model", body, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST /sessions/model = %d %s", res.status, res.body)
	}
	return decode[sessionJSON](t, res)
}

// waitSession polls a session until it leaves requested/started.
func (s *testServer) waitSession(t testing.TB, id string) sessionJSON {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		res := s.do(t, http.MethodGet, "/v1/sessions/"+id, nil)
		if res.status != http.StatusOK {
			t.Fatalf("GET /sessions/%s = %d %s", id, res.status, res.body)
		}
		sj := decode[sessionJSON](t, res)
		if sj.Status != "requested" && sj.Status != "started" {
			return sj
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("session %s did not finish in 2 minutes", id)
	return sessionJSON{}
}

func TestRegressionSessionEndToEnd(t *testing.T) {
	s := newServer(t)
	s.putCSV(t, "friedman", friedman1(t))
	created := s.createSession(t, `{"dataSourceName": "friedman", "targetColumn": "y", "predictionDomain": "regression"}`)
	if created.Status != "requested" {
		t.Errorf("created status = %q, want requested", created.Status)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v, want completed", done)
	}
	b, _ := json.MarshalIndent(done, "", " ")
	t.Logf("%s", b)
	res := s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/contest", nil)
	t.Logf("%d %s", res.status, res.body)
	res = s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=2", nil)
	t.Logf("%d %s", res.status, res.body)
	res = s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", `{"data":[{"x0":0.5,"x1":0.5,"x2":0.5,"x3":0.5,"x4":0.5,"x5":0.5,"x6":0.5,"x7":0.5,"x8":0.5,"x9":"0.5"}]}`)
	t.Logf("%d %s", res.status, res.body)
}
