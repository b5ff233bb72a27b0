package api_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestAnomaliesSessionBreastCancer(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "bc", classifyCSV(t, "breast_cancer"))
	res := s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "bc", "targetColumn": "diagnosis", "predictionDomain": "anomalies"}`, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST = %d %s", res.status, res.body)
	}
	goldenRows(t, "anomalies_created", res.body)
	created := decode[modelSessionJSON](t, res)
	if created.TargetColumn != "anomaly" || created.Name != "Anomalies on bc" || created.Extra["containsAnomalies"] != true || created.Intervals == nil || len(created.Intervals) != 0 ||
		created.Columns["anomaly"].Role != "target" || created.Columns["anomaly"].DataType != "numeric" || created.Columns["diagnosis"].Role != "none" ||
		len(created.Messages) != 1 || created.Messages[0].Severity != "warning" {
		t.Errorf("created = %+v", created)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" || done.Algorithm == nil || done.Algorithm.Key != "isolation_forest_anomalies" || done.SupportsFeatureImportance {
		t.Fatalf("session = %+v", done)
	}
	sid := "/v1/sessions/" + done.SessionID

	// ⌊0.1·(n−1)⌋ + 1 = 57 of the 569 rows are flagged (MODELLING §8.1).
	res = s.do(t, http.MethodGet, sid+"/results?pageSize=2", nil)
	goldenRows(t, "anomalies_results", res.body)
	flagged := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results?pageSize=1000", nil))
	if flagged.TotalCount != 57 || len(flagged.Data) != 57 || math.Abs(flagged.Metrics["percentAnomalies"]-57.0/569) > 1e-12 {
		t.Fatalf("results = %d rows of %d, metrics %v", len(flagged.Data), flagged.TotalCount, flagged.Metrics)
	}
	for _, r := range flagged.Data {
		if v, err := strconv.ParseFloat(r["anomaly"], 64); err != nil || v > 0 || r["mean_radius"] == "" {
			t.Fatalf("flagged row %v", r)
		}
		if _, ok := r["diagnosis"]; ok {
			t.Fatalf("a column of role none in %v", r)
		}
	}
	res = s.do(t, http.MethodGet, sid+"/results/anomalyscores?pageSize=2", nil)
	goldenRows(t, "anomalies_scores", res.body)
	all := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results/anomalyscores?pageSize=1000", nil))
	neg := 0
	for _, r := range all.Data {
		if v, _ := strconv.ParseFloat(r["anomaly"], 64); v <= 0 {
			neg++
		}
	}
	if all.TotalCount != 569 || len(all.Data) != 569 || neg != 57 {
		t.Errorf("anomaly scores = %d rows of %d, %d flagged", len(all.Data), all.TotalCount, neg)
	}

	// D² against the sample covariance sums to (n−1)·rank over the rows.
	res = s.do(t, http.MethodGet, sid+"/results/mahalanobisdistances?pageSize=2", nil)
	goldenRows(t, "anomalies_distances", res.body)
	md := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results/mahalanobisdistances?pageSize=1000", nil))
	sum := 0.0
	for _, r := range md.Data {
		v, err := strconv.ParseFloat(r["mahalanobis_distance"], 64)
		if err != nil || v < 0 || r["anomaly"] == "" {
			t.Fatalf("distance row %v", r)
		}
		sum += v
	}
	if md.TotalCount != 569 || math.Abs(sum-568*30)/(568*30) > 1e-8 {
		t.Errorf("distances: %d rows, ΣD² = %v, want %v", md.TotalCount, sum, 568*30)
	}
	if res := s.do(t, http.MethodGet, sid+"/results/mahalanobisdistances?pageSize=3", nil, "Accept", "text/csv"); res.status != http.StatusOK || !strings.HasSuffix(strings.SplitN(string(res.body), "\n", 2)[0], ",anomaly,mahalanobis_distance") {
		t.Errorf("distances as CSV = %d %.300s", res.status, res.body)
	}

	c := decode[struct {
		ChampionMetric string `json:"championMetric"`
		Contestants    []struct {
			Algorithm struct{ Key string }
			Metrics   map[string]float64
		}
	}](t, s.do(t, http.MethodGet, sid+"/contest", nil))
	if c.ChampionMetric != "percentAnomalies" || len(c.Contestants) != 2 || c.Contestants[1].Metrics["percentAnomalies"] <= 0 {
		t.Errorf("contest = %+v", c)
	}
	for _, r := range []string{"confusionmatrix", "classscores"} {
		wantError(t, r+" of an anomalies session", s.do(t, http.MethodGet, sid+"/results/"+r, nil), 404, "NotFound", "")
	}

	// Predict: an ordinary row and a wild one.
	lines := strings.Split(classifyCSV(t, "breast_cancer"), "\n")
	header, first := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	var normal, wild []string
	for i, h := range header[:30] {
		normal = append(normal, fmt.Sprintf("%q: %s", h, first[i]))
		wild = append(wild, fmt.Sprintf("%q: %s", h, "1e6"))
	}
	body := `{"data": [{` + strings.Join(normal, ", ") + `}, {` + strings.Join(wild, ", ") + `}]}`
	res = s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", body, "Content-Type", "application/json")
	p := decode[struct{ Data []map[string]string }](t, res)
	if res.status != http.StatusOK || len(p.Data) != 2 {
		t.Fatalf("predict = %d %s", res.status, res.body)
	}
	if w, _ := strconv.ParseFloat(p.Data[1]["anomaly"], 64); w > 0 {
		t.Errorf("a row of 1e6 everywhere scores %v, want ≤ 0", w)
	}
	wantError(t, "class scores of an anomaly model", s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict?includeClassScores=true", body, "Content-Type", "application/json"), 400, "RequestValidation", "includeClassScores")
}

// TestAnomaliesSessionClean: containsAnomalies false flags no training
// row; a view is a data source like any other.
func TestAnomaliesSessionClean(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "wine", classifyCSV(t, "wine"))
	if res := s.do(t, http.MethodPut, "/v1/views/wineview", `{"dataSetName": "wine"}`); res.status != http.StatusCreated {
		t.Fatalf("PUT view = %d %s", res.status, res.body)
	}
	created := s.createSession(t, `{"dataSourceName": "wineview", "predictionDomain": "anomalies", "extraParameters": {"containsAnomalies": "False"}, "columns": {"cultivar": {"role": "none"}}}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	got := decode[struct {
		modelSessionJSON
		Metrics    map[string]float64 `json:"metrics"`
		TotalCount int                `json:"totalCount"`
	}](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results", nil))
	if got.Extra["containsAnomalies"] != false || got.Metrics["percentAnomalies"] != 0 || got.TotalCount != 0 {
		t.Errorf("clean session = %+v", got)
	}
}

func TestAnomaliesSessionBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "same", "a,b\n"+strings.Repeat("1,2\n", 30))
	s.putCSV(t, "named", "x,anomaly\n"+strings.Repeat("1,2\n", 30))
	s.putCSV(t, "few", "x,y\n1,2\n3,4\n")
	post := func(body string) response {
		return s.do(t, http.MethodPost, "/v1/sessions/model", body, "Content-Type", "application/json")
	}
	wantError(t, "containsAnomalies not a boolean", post(`{"dataSourceName": "same", "predictionDomain": "anomalies", "extraParameters": {"containsAnomalies": "often"}}`), 400, "RequestValidation", "containsAnomalies")
	wantError(t, "a column named anomaly", post(`{"dataSourceName": "named", "predictionDomain": "anomalies"}`), 400, "InvalidColumnMetadata", "anomaly")
	wantError(t, "too few rows", post(`{"dataSourceName": "few", "predictionDomain": "anomalies"}`), 400, "RequestValidation", "dataSourceName")
	wantError(t, "no features", post(`{"dataSourceName": "same", "predictionDomain": "anomalies", "columns": {"a": {"role": "none"}, "b": {"role": "none"}}}`), 400, "InvalidColumnMetadata", "columns")

	created := s.createSession(t, `{"dataSourceName": "same", "predictionDomain": "anomalies"}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "failed" || len(done.Messages) == 0 || done.Messages[len(done.Messages)-1].Message != "Every row of the data source has the same feature values: no row can stand out as an anomaly." {
		t.Errorf("identical rows = %s %+v", done.Status, done.Messages)
	}
	for _, r := range []string{"anomalyscores", "mahalanobisdistances"} {
		wantError(t, "failed session's "+r, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/"+r, nil), 404, "NotFound", "")
	}
}

// TestAnomaliesSessionEdgeCases covers issue 15's edge cases that are not
// refusals of the request: a single row, more columns than rows (the
// pseudo-inverse path of the distances) and a column with no value at
// all, which read through the distances' columnar path failed the
// session with an internal error before.
func TestAnomaliesSessionEdgeCases(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	post := func(body string) response {
		return s.do(t, http.MethodPost, "/v1/sessions/model", body, "Content-Type", "application/json")
	}
	s.putCSV(t, "one", "x,y\n1,2\n")
	wantError(t, "a single row", post(`{"dataSourceName": "one", "predictionDomain": "anomalies"}`), 400, "RequestValidation", "dataSourceName")

	// 24 rows of 30 random columns: the covariance has rank 23.
	rng := rand.New(rand.NewPCG(15, 24))
	var wide strings.Builder
	for j := range 30 {
		if j > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, "c%d", j)
	}
	wide.WriteByte('\n')
	for range 24 {
		for j := range 30 {
			if j > 0 {
				wide.WriteByte(',')
			}
			fmt.Fprintf(&wide, "%.6f", rng.NormFloat64())
		}
		wide.WriteByte('\n')
	}
	s.putCSV(t, "wide", wide.String())
	// Every value of c2 missing; note has 3 distinct values, so it is a
	// string column whose 3 levels add rank 2.
	var gap strings.Builder
	gap.WriteString("a,b,c2,note\n")
	for i := range 30 {
		fmt.Fprintf(&gap, "%d,%d,,word%d and more words here\n", i, (i*i)%11, i%3)
	}
	s.putCSV(t, "gap", gap.String())
	var gap2 strings.Builder
	gap2.WriteString("a,b,c2\n")
	for i := range 30 {
		fmt.Fprintf(&gap2, "%d,%d,\n", i, (i*i)%11)
	}
	s.putCSV(t, "gap2", gap2.String())

	// Each completes; the distances are finite, and over the rows they sum
	// to (n−1)·rank of the covariance, pseudo-inverse or not. An empty
	// string column encodes to nothing.
	for _, c := range []struct {
		src     string
		n, rank int
	}{{"wide", 24, 23}, {"gap", 30, 4}, {"gap2", 30, 2}} {
		created := s.createSession(t, `{"dataSourceName": "`+c.src+`", "predictionDomain": "anomalies"}`)
		done := s.waitSession(t, created.SessionID)
		if done.Status != "completed" {
			t.Errorf("%s: %s %+v", c.src, done.Status, done.Messages)
			continue
		}
		md := decode[classRows](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/mahalanobisdistances?pageSize=1000", nil))
		sum := 0.0
		for _, r := range md.Data {
			v, err := strconv.ParseFloat(r["mahalanobis_distance"], 64)
			if err != nil || v < 0 || math.IsInf(v, 0) {
				t.Fatalf("%s: distance row %v", c.src, r)
			}
			sum += v
		}
		if want := float64((c.n - 1) * c.rank); md.TotalCount != c.n || math.Abs(sum-want) > 1e-6*want {
			t.Errorf("%s: %d distances summing to %v, want %d summing to %v", c.src, md.TotalCount, sum, c.n, want)
		}
	}
}
