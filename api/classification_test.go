package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// classifyCSV reads one of the classification datasets of the tests and
// benchmarks (stats/classify/testdata: iris, wine, breast_cancer).
func classifyCSV(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("../stats/classify/testdata/" + name + ".csv")
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

// modelSessionJSON is a model session with the fields classification
// and anomalies sessions add.
type modelSessionJSON struct {
	sessionJSON
	Extra     map[string]any     `json:"extraParameters"`
	Intervals []string           `json:"availablePredictionIntervals"`
	Metrics   map[string]float64 `json:"metrics"`
}

// classRows is a page of rows with the classification fields.
type classRows struct {
	Classes    []string            `json:"classes"`
	Metrics    map[string]float64  `json:"metrics"`
	Data       []map[string]string `json:"data"`
	TotalCount int                 `json:"totalCount"`
}

func TestClassificationSessionIris(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "iris", classifyCSV(t, "iris"))
	res := s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "iris", "targetColumn": "species", "predictionDomain": "Classification"}`, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST = %d %s", res.status, res.body)
	}
	goldenSession(t, "classification_created", res.body)
	created := decode[modelSessionJSON](t, res)
	if created.PredictionDomain != "classification" || created.Name != "Classification on iris" || created.Extra["balance"] != true || created.Intervals == nil || len(created.Intervals) != 0 {
		t.Errorf("created = %+v", created)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" || done.ModelID == "" || done.Algorithm == nil {
		t.Fatalf("session = %+v", done)
	}
	sid := "/v1/sessions/" + done.SessionID
	got := decode[modelSessionJSON](t, s.do(t, http.MethodGet, sid+"/results?pageSize=1", nil))
	for _, k := range []string{"accuracy", "macroAveragePrecision", "macroAverageRecall", "macroAverageF1Score", "matthewsCorrelationCoefficient"} {
		if _, ok := got.Metrics[k]; !ok {
			t.Errorf("session metrics %v lack %s", got.Metrics, k)
		}
	}
	if _, ok := got.Metrics["rocAreaUnderCurve"]; ok {
		t.Errorf("a 3-class session has rocAreaUnderCurve: %v", got.Metrics)
	}
	if got.Metrics["macroAverageF1Score"] < 0.85 {
		t.Errorf("iris macro-F1 = %v", got.Metrics["macroAverageF1Score"])
	}

	// The confusion matrix: 10 test rows of each class (round(0.2·50)).
	res = s.do(t, http.MethodGet, sid+"/results/confusionmatrix", nil)
	goldenRows(t, "classification_confusion", res.body)
	cm := decode[struct {
		Classes []string `json:"classes"`
		Matrix  [][]int  `json:"confusionMatrix"`
	}](t, res)
	if !slices.Equal(cm.Classes, []string{"setosa", "versicolor", "virginica"}) || len(cm.Matrix) != 3 {
		t.Fatalf("confusion matrix = %+v", cm)
	}
	correct := 0
	for i, row := range cm.Matrix {
		sum := 0
		for j, v := range row {
			sum += v
			if i == j {
				correct += v
			}
		}
		if sum != 10 {
			t.Errorf("row %d of %v sums to %d, want 10", i, cm.Matrix, sum)
		}
	}
	if acc := float64(correct) / 30; math.Abs(acc-got.Metrics["accuracy"]) > 1e-12 {
		t.Errorf("accuracy %v, the matrix says %v", got.Metrics["accuracy"], acc)
	}

	// Results: the test rows with the predicted label and the actual.
	res = s.do(t, http.MethodGet, sid+"/results?pageSize=2", nil)
	goldenRows(t, "classification_results", res.body)
	all := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	if all.TotalCount != 30 || len(all.Data) != 30 {
		t.Fatalf("results = %d rows of %d", len(all.Data), all.TotalCount)
	}
	right := 0
	for _, r := range all.Data {
		if !slices.Contains(cm.Classes, r["species"]) || !slices.Contains(cm.Classes, r["species:actual"]) || r["sepal_length"] == "" {
			t.Fatalf("result row %v", r)
		}
		if r["species"] == r["species:actual"] {
			right++
		}
	}
	if right != correct {
		t.Errorf("results have %d right, the confusion matrix %d", right, correct)
	}

	// Class scores: probabilities in [0, 1] summing to 1, the predicted
	// class the most probable.
	res = s.do(t, http.MethodGet, sid+"/results/classscores?pageSize=2", nil)
	goldenRows(t, "classification_classscores", res.body)
	sc := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results/classscores?pageSize=1000", nil))
	if sc.TotalCount != 30 || !slices.Equal(sc.Classes, cm.Classes) || sc.Metrics["accuracy"] != got.Metrics["accuracy"] {
		t.Fatalf("class scores = %d rows, classes %v, metrics %v", sc.TotalCount, sc.Classes, sc.Metrics)
	}
	for _, r := range sc.Data {
		sum, best, bestP := 0.0, "", -1.0
		for _, c := range sc.Classes {
			p, err := strconv.ParseFloat(r["species:"+c], 64)
			if err != nil || p < 0 || p > 1 {
				t.Fatalf("score of %s in %v", c, r)
			}
			sum += p
			if p > bestP {
				best, bestP = c, p
			}
		}
		if math.Abs(sum-1) > 1e-9 || best != r["species"] {
			t.Errorf("scores of %v sum to %v, best %s", r, sum, best)
		}
	}
	if res := s.do(t, http.MethodGet, sid+"/results/classscores?pageSize=5", nil, "Accept", "text/csv"); res.status != http.StatusOK || !strings.HasPrefix(string(res.body), "sepal_length,sepal_width,petal_length,petal_width,species,species:setosa,species:versicolor,species:virginica,species:actual\n") {
		t.Errorf("class scores as CSV = %d %.200s", res.status, res.body)
	}

	// The contest: every algorithm of the line-up; on 120 training rows
	// the champion is chosen by cross-validation (a debug message says
	// so), and its test metrics are the session's.
	c := decode[struct {
		ChampionMetric string `json:"championMetric"`
		Champion       struct {
			Algorithm struct{ Key string }
			Metrics   map[string]float64
		}
		Contestants []struct {
			Algorithm struct{ Key string }
			Metrics   map[string]float64
		}
	}](t, s.do(t, http.MethodGet, sid+"/contest", nil))
	if c.ChampionMetric != "macroAverageF1Score" || len(c.Contestants) != 6 || c.Champion.Algorithm.Key != done.Algorithm.Key ||
		!maps.Equal(c.Champion.Metrics, got.Metrics) {
		t.Errorf("contest = %+v, want six contestants and the session's champion and metrics", c)
	}
	if !slices.ContainsFunc(done.Messages, func(m struct{ Severity, Message string }) bool {
		return m.Severity == "debug" && strings.HasPrefix(m.Message, "The champion was chosen by 3 × 5-fold cross-validation on the 120 training rows")
	}) {
		t.Errorf("session messages %+v lack the cross-validation note", done.Messages)
	}

	// Predict through the saved model, with and without class scores.
	body := `{"data": [{"sepal_length": 5.1, "sepal_width": 3.5, "petal_length": 1.4, "petal_width": 0.2}, {"sepal_length": "6.7", "sepal_width": "3.0", "petal_length": "5.2", "petal_width": "2.3"}]}`
	p := decode[struct{ Data []map[string]string }](t, s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", body, "Content-Type", "application/json"))
	if len(p.Data) != 2 || p.Data[0]["species"] != "setosa" || p.Data[1]["species"] != "virginica" || p.Data[0]["species:setosa"] != "" {
		t.Errorf("predict = %v", p.Data)
	}
	withScores := strings.Replace(body, `{"data"`, `{"extraParameters": {"includeClassScores": "True"}, "data"`, 1)
	res = s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", withScores, "Content-Type", "application/json")
	goldenRows(t, "classification_predict", res.body)
	p = decode[struct{ Data []map[string]string }](t, res)
	if len(p.Data) != 2 || p.Data[0]["species"] != "setosa" {
		t.Fatalf("predict with scores = %v", p.Data)
	}
	for _, r := range p.Data {
		sum := 0.0
		for _, c := range cm.Classes {
			v, err := strconv.ParseFloat(r["species:"+c], 64)
			if err != nil {
				t.Fatalf("score %s of %v", c, r)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("predicted scores of %v sum to %v", r, sum)
		}
	}
	if res := s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict?includeClassScores=true", "sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n", "Content-Type", "text/csv", "Accept", "text/csv"); res.status != http.StatusOK ||
		!strings.HasPrefix(string(res.body), "sepal_length,sepal_width,petal_length,petal_width,species,species:setosa,species:versicolor,species:virginica\n5.1,3.5,1.4,0.2,setosa,") {
		t.Errorf("predict CSV with scores = %d %s", res.status, res.body)
	}
	// A plain CSV body's lines are echoed as they came, a quoted one's
	// cells rendered one by one: the same answer, with the class scores
	// or without them (cut from each row).
	plain := "sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n5.9,3,4.2,1.5\n"
	for _, q := range []string{"", "?includeClassScores=true"} {
		want := s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict"+q, plain, "Content-Type", "text/csv", "Accept", "text/csv")
		got := s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict"+q, quoteCells(plain), "Content-Type", "text/csv", "Accept", "text/csv")
		if want.status != http.StatusOK || string(got.body) != string(want.body) || strings.Count(string(want.body), "\n") != 4 ||
			strings.Contains(string(want.body), "species:") != (q != "") {
			t.Errorf("predict CSV%s: plain = %d %s, quoted %s", q, want.status, want.body, got.body)
		}
	}
	wantError(t, "bad includeClassScores", s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict?includeClassScores=maybe", body, "Content-Type", "application/json"), 400, "RequestValidation", "includeClassScores")
}

// TestClassificationLabels: numeric and logical labels keep their
// spelling, classes sort numerically, a rare class is dropped with the
// recorded warning, balance off is shown and honoured.
func TestClassificationLabels(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var b strings.Builder
	b.WriteString("x,z,color,grade,passed\n")
	for i := range 120 {
		x := float64(i%40) / 4
		grade := []string{"10", "2", "7"}[i%3]
		passed := "true"
		if i%2 == 0 {
			passed = "false"
		}
		if i == 7 {
			grade = "99" // a class of one row
		}
		fmt.Fprintf(&b, "%g,%d,%s,%s,%s\n", x+float64(i%3), i%2, []string{"red", "blue"}[i%2], grade, passed)
	}
	s.putCSV(t, "grades", b.String())
	created := s.createSession(t, `{"dataSourceName": "grades", "targetColumn": "grade", "predictionDomain": "classification", "extraParameters": {"balance": "False"}}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	warned := false
	for _, m := range done.Messages {
		if m.Severity == "warning" && strings.HasPrefix(m.Message, "Target class '99' is only specified on 1 record(s) in the dataset.") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no rare-class warning in %+v", done.Messages)
	}
	sid := "/v1/sessions/" + done.SessionID
	if got := decode[modelSessionJSON](t, s.do(t, http.MethodGet, sid, nil)); got.Extra["balance"] != false {
		t.Errorf("extraParameters = %v, want balance false", got.Extra)
	}
	cm := decode[struct{ Classes []string }](t, s.do(t, http.MethodGet, sid+"/results/confusionmatrix", nil))
	if !slices.Equal(cm.Classes, []string{"2", "7", "10"}) {
		t.Errorf("classes = %v, want numeric order 2, 7, 10", cm.Classes)
	}
	rows := decode[classRows](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	for _, r := range rows.Data {
		if !slices.Contains(cm.Classes, r["grade"]) || !slices.Contains(cm.Classes, r["grade:actual"]) {
			t.Fatalf("row %v: labels not spelt as in the data", r)
		}
	}

	// A logical target, over a view: binary, so rocAreaUnderCurve too.
	if res := s.do(t, http.MethodPut, "/v1/views/gradesview", `{"dataSetName": "grades"}`); res.status != http.StatusCreated {
		t.Fatalf("PUT view = %d %s", res.status, res.body)
	}
	created = s.createSession(t, `{"dataSourceName": "gradesview", "targetColumn": "passed", "predictionDomain": "classification"}`)
	done = s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("logical session = %+v", done)
	}
	got := decode[modelSessionJSON](t, s.do(t, "GET", "/v1/sessions/"+done.SessionID+"/results?pageSize=1", nil))
	if _, ok := got.Metrics["rocAreaUnderCurve"]; !ok {
		t.Errorf("binary metrics = %v, want rocAreaUnderCurve", got.Metrics)
	}
	cm = decode[struct{ Classes []string }](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/confusionmatrix", nil))
	if !slices.Equal(cm.Classes, []string{"false", "true"}) {
		t.Errorf("logical classes = %v", cm.Classes)
	}
	fi := decode[struct {
		FeatureImportance map[string]float64 `json:"featureImportance"`
	}](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/featureimportance", nil))
	if fi.FeatureImportance["z"] != 1 || len(fi.FeatureImportance) < 3 {
		t.Errorf("feature importance = %v, want z (which decides passed) at 1", fi.FeatureImportance)
	}
	p := decode[struct{ Data []map[string]string }](t, s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict",
		`{"data": [{"x": 1, "z": 0, "color": "green", "grade": "2"}], "extraParameters": {"includeClassScores": true}}`, "Content-Type", "application/json"))
	if len(p.Data) != 1 || (p.Data[0]["passed"] != "true" && p.Data[0]["passed"] != "false") || p.Data[0]["passed:true"] == "" || p.Data[0]["color"] != "green" {
		t.Errorf("predict on a logical target, with a colour never seen (encoded as zeros) = %v", p.Data)
	}
}

// TestClassificationBadInput: each a 4xx at creation, or a failed
// session with the recorded message.
func TestClassificationBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var b strings.Builder
	b.WriteString("day,x,label,one,long\n")
	for i := range 40 {
		fmt.Fprintf(&b, "2018-01-%02d,%d,%s,same,%s\n", i%28+1, i, []string{"a", "b"}[i%2], []string{"short", strings.Repeat("x", 300)}[i%2])
	}
	s.putCSV(t, "labels", b.String())
	post := func(body string) response {
		return s.do(t, http.MethodPost, "/v1/sessions/model", body, "Content-Type", "application/json")
	}
	wantError(t, "balance not a boolean", post(`{"dataSourceName": "labels", "targetColumn": "label", "predictionDomain": "classification", "extraParameters": {"balance": "sometimes"}}`), 400, "RequestValidation", "balance")
	wantError(t, "date target", post(`{"dataSourceName": "labels", "targetColumn": "day", "predictionDomain": "classification"}`), 400, "InvalidColumnMetadata", "day")

	created := s.createSession(t, `{"dataSourceName": "labels", "targetColumn": "one", "predictionDomain": "classification"}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "failed" || len(done.Messages) == 0 || done.Messages[len(done.Messages)-1].Message != "Dataset has only one valid target class. At least 2 target classes are required to build a model." {
		t.Errorf("one class = %s %+v", done.Status, done.Messages)
	}
	created = s.createSession(t, `{"dataSourceName": "labels", "targetColumn": "long", "predictionDomain": "classification"}`)
	done = s.waitSession(t, created.SessionID)
	if done.Status != "failed" || len(done.Messages) == 0 || !strings.HasPrefix(done.Messages[len(done.Messages)-1].Message, "Target class 'xxx") ||
		!strings.Contains(done.Messages[len(done.Messages)-1].Message, "long:<class> must be 1 to 255 bytes") {
		t.Errorf("label too long = %s %+v", done.Status, done.Messages)
	}
	for _, r := range []string{"confusionmatrix", "classscores"} {
		wantError(t, "failed session's "+r, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/"+r, nil), 404, "NotFound", "")
	}

	// A regression model refuses class scores; its session has no
	// confusion matrix.
	reg := s.regression(t, "friedman", 200)
	wantError(t, "regression confusion matrix", s.do(t, http.MethodGet, "/v1/sessions/"+reg.SessionID+"/results/confusionmatrix", nil), 404, "NotFound", "")
	row := `{"data": [{"x0": 1, "x1": 1, "x2": 1, "x3": 1, "x4": 1, "x5": 1, "x6": 1, "x7": 1, "x8": 1, "x9": 1}], "extraParameters": {"includeClassScores": true}}`
	wantError(t, "class scores of a regression", s.do(t, http.MethodPost, "/v1/models/"+reg.ModelID+"/predict", row, "Content-Type", "application/json"), 400, "RequestValidation", "includeClassScores")
}

var (
	rowValue    = regexp.MustCompile(`^(\s*"[^"]*": )"(?:[^"\\]|\\.)*"(,?)$`)
	metricValue = regexp.MustCompile(`^(\s*"[^"]*": )[^,]*(,?)$`)
	countValue  = regexp.MustCompile(`^(\s*)\d+(,?)$`)
)

// goldenRows is goldenSession for bodies whose rows, metrics and counts
// depend on the split (which the session id seeds): their values are
// replaced, their keys and order kept.
func goldenRows(t *testing.T, name string, body []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		t.Fatalf("golden %s: %v\n%s", name, err, body)
	}
	lines := strings.Split(out.String(), "\n")
	in := ""
	for i, l := range lines {
		switch {
		case l == `  "data": [`:
			in = "data"
		case l == `  "metrics": {`:
			in = "metrics"
		case l == `  "confusionMatrix": [`:
			in = "counts"
		case in != "" && (strings.HasPrefix(l, "  ]") || strings.HasPrefix(l, "  }")):
			in = ""
		case in == "data":
			lines[i] = rowValue.ReplaceAllString(l, `$1"<value>"$2`)
		case in == "metrics":
			lines[i] = metricValue.ReplaceAllString(l, `${1}0.5$2`)
		case in == "counts":
			lines[i] = countValue.ReplaceAllString(l, `${1}0$2`)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(strings.Join(lines, "\n"))); err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	goldenSession(t, name, compact.Bytes())
}
