package api_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// textTopics are the words that mark each topic of textCorpus; the
// filler words occur in every topic.
var textTopics = map[string][]string{
	"sport":   {"match", "goal", "team", "league", "referee", "striker"},
	"cooking": {"oven", "flour", "recipe", "butter", "simmer", "garlic"},
	"finance": {"shares", "market", "bond", "dividend", "investor", "budget"},
}

var textFiller = []string{"today", "really", "people", "think", "week", "great", "news", "story", "long", "time", "city", "good"}

// textCorpus is a JSON dataset of n short documents (column review, text)
// labelled by topic, with a numeric column that carries no signal.
func textCorpus(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 16))
	topics := []string{"cooking", "finance", "sport"}
	type row struct {
		Review string `json:"review"`
		Topic  string `json:"topic"`
		Noise  string `json:"noise"`
	}
	rows := make([]row, n)
	for i := range rows {
		topic := topics[i%len(topics)]
		var words []string
		for range 8 + rng.IntN(6) {
			if rng.Float64() < 0.4 {
				w := textTopics[topic]
				words = append(words, w[rng.IntN(len(w))])
			} else {
				words = append(words, textFiller[rng.IntN(len(textFiller))])
			}
		}
		rows[i] = row{Review: strings.Join(words, " ") + ".", Topic: topic, Noise: fmt.Sprint(rng.IntN(100))}
	}
	data, _ := json.Marshal(rows)
	return `{"columns": {"review": {"dataType": "text"}, "topic": {"dataType": "string"}, "noise": {"dataType": "numeric"}}, "data": ` + string(data) + `}`
}

// TestTextClassificationSession: a text column becomes TF-IDF features
// (issue 16): the session learns the topics from the words, lists the
// words in its feature importance, stores one vocabulary for the column,
// and predict encodes new text with it, ignoring unseen words.
func TestTextClassificationSession(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "reviews", textCorpus(150, 1))
	res := s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "reviews", "targetColumn": "topic", "predictionDomain": "classification"}`, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST = %d %s", res.status, res.body)
	}
	done := s.waitSession(t, decode[sessionJSON](t, res).SessionID)
	if done.Status != "completed" || done.ModelID == "" {
		t.Fatalf("session = %+v", done)
	}
	sid := "/v1/sessions/" + done.SessionID
	got := decode[modelSessionJSON](t, s.do(t, http.MethodGet, sid+"/results?pageSize=1", nil))
	if f1 := got.Metrics["macroAverageF1Score"]; f1 < 0.9 {
		t.Errorf("macro-F1 = %v on separable topics", f1)
	}
	msgs := s.do(t, http.MethodGet, sid, nil).body
	if !strings.Contains(string(msgs), "Text column review: ") || strings.Contains(string(msgs), "is not used yet") {
		t.Errorf("session messages: %s", msgs)
	}
	fi := decode[struct {
		Importance map[string]float64 `json:"featureImportance"`
	}](t, s.do(t, http.MethodGet, sid+"/results/featureimportance?pageSize=100", nil))
	for _, w := range []string{"review:goal", "review:oven", "review:market"} {
		if fi.Importance[w] <= 0 {
			t.Errorf("feature importance of %s = %v (of %v)", w, fi.Importance[w], fi.Importance)
		}
	}
	if _, ok := fi.Importance["review:today"]; ok && fi.Importance["review:today"] > fi.Importance["review:goal"] {
		t.Errorf("a filler word outranks a topic word: %v", fi.Importance)
	}
	contestants := string(s.do(t, http.MethodGet, sid+"/contest/contestants", nil).body)
	if !strings.Contains(contestants, "multinomial_naive_bayes") {
		t.Errorf("multinomial naive Bayes is not in the contest: %s", contestants)
	}

	// One vocabulary, linked from the session and listed by its filters.
	list := decode[vocabularyListJSON](t, s.do(t, http.MethodGet, "/v1/vocabulary?createdFromSession="+done.SessionID, nil))
	if len(list.Items) != 1 {
		t.Fatalf("vocabularies of the session = %+v", list)
	}
	v := list.Items[0]
	if v.DataSourceName != "reviews" || v.ColumnName != "review" || v.DataSourceType != "dataSet" || v.CreatedBySessionID != done.SessionID {
		t.Errorf("vocabulary = %+v", v)
	}
	words := decode[wordsJSON](t, s.do(t, http.MethodGet, "/v1/vocabulary/"+v.ID+"?pageSize=1000", nil))
	var ranks []int
	var texts []string
	for _, w := range words.Items {
		texts = append(texts, w.Text)
		if w.Type == "word" {
			ranks = append(ranks, *w.Rank)
		} else if w.Rank != nil {
			t.Errorf("stop word %+v has a rank", w)
		}
	}
	if len(ranks) == 0 || !slices.IsSorted(ranks) || ranks[0] != 0 {
		t.Errorf("word ranks = %v", ranks)
	}
	for _, w := range []string{"goal", "oven", "market", "today"} {
		if !slices.Contains(texts, w) {
			t.Errorf("vocabulary lacks %q: %v", w, texts)
		}
	}

	// Predict: new text, an unseen word, an empty review.
	body := `{"data": [{"review": "the striker scored a goal for the team", "noise": "3"},
		{"review": "simmer the garlic in butter, then the oven", "noise": "5"},
		{"review": "the investor bought shares and bonds on the market zzzunseen", "noise": "9"},
		{"review": "", "noise": "1"}]}`
	res = s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", body, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("predict = %d %s", res.status, res.body)
	}
	pred := decode[struct {
		Data []map[string]string `json:"data"`
	}](t, res)
	if len(pred.Data) != 4 {
		t.Fatalf("predict rows = %v", pred.Data)
	}
	for i, want := range []string{"sport", "cooking", "finance"} {
		if pred.Data[i]["topic"] != want {
			t.Errorf("row %d predicted %q, want %q", i, pred.Data[i]["topic"], want)
		}
	}
	if pred.Data[1]["review"] != "simmer the garlic in butter, then the oven" || pred.Data[3]["topic"] == "" {
		t.Errorf("predict echo = %v", pred.Data)
	}

	// Invalid UTF-8 in a CSV predict body: the tokeniser splits on the bad
	// bytes, the row is predicted.
	res = s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict", "review,noise\n\xffgoal\xfe team striker,2\n", "Content-Type", "text/csv")
	if res.status != http.StatusOK {
		t.Fatalf("predict invalid UTF-8 = %d %s", res.status, res.body)
	}
	if p := decode[struct {
		Data []map[string]string `json:"data"`
	}](t, res); len(p.Data) != 1 || p.Data[0]["topic"] != "sport" {
		t.Errorf("predict invalid UTF-8 = %s", res.body)
	}
}

// TestTextRegressionAndAnomalies: text features in the other two model
// domains; an anomalies session whose only feature is text has no
// Mahalanobis distances but completes.
func TestTextRegressionAndAnomalies(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString(`{"columns": {"note": {"dataType": "text"}, "price": {"dataType": "numeric"}}, "data": [`)
	for i := range 120 {
		expensive := i%2 == 0
		w := "cheap basic plain"
		price := 10 + rng.Float64()
		if expensive {
			w, price = "luxury premium deluxe", 100+rng.Float64()
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"note": "a %s item for sale %d", "price": "%g"}`, strings.Fields(w)[rng.IntN(3)]+" "+strings.Fields(w)[rng.IntN(3)], rng.IntN(4), price)
	}
	b.WriteString("]}")
	s.putJSON(t, "items", b.String())
	res := s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "items", "targetColumn": "price", "predictionDomain": "regression"}`, "Content-Type", "application/json")
	done := s.waitSession(t, decode[sessionJSON](t, res).SessionID)
	if done.Status != "completed" {
		t.Fatalf("regression session = %+v", done)
	}
	got := decode[modelSessionJSON](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=1", nil))
	if got.Metrics["rSquared"] < 0.95 {
		t.Errorf("regression on text: metrics %v", got.Metrics)
	}

	res = s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "items", "predictionDomain": "anomalies", "columns": {"price": {"role": "none"}}}`, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("anomalies POST = %d %s", res.status, res.body)
	}
	done = s.waitSession(t, decode[sessionJSON](t, res).SessionID)
	if done.Status != "completed" {
		t.Fatalf("anomalies session = %+v", done)
	}
	dist := s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results/mahalanobisdistances?pageSize=2", nil)
	if dist.status != http.StatusOK {
		t.Errorf("distances = %d %s", dist.status, dist.body)
	}
}

// TestTextBadInput: text columns that give no features, and text as the
// target, each with a clear answer rather than a 500.
func TestTextBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var b strings.Builder
	b.WriteString(`{"columns": {"empty": {"dataType": "text"}, "same": {"dataType": "text"}, "label": {"dataType": "string"}, "long": {"dataType": "text"}}, "data": [`)
	big := strings.Repeat("lorem ipsum dolor sit amet ", 40000) // about 1 MB in one cell
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		long := "short text " + []string{"alpha", "beta", "gamma", "delta"}[i%4]
		if i == 7 {
			long = big
		}
		fmt.Fprintf(&b, `{"empty": "", "same": "always the same words", "label": "%c", "long": "%s"}`, 'a'+rune(i%2), long)
	}
	b.WriteString("]}")
	s.putJSON(t, "bad", b.String())

	// Only the empty and constant text columns: no feature at all.
	res := s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "bad", "targetColumn": "label", "predictionDomain": "classification", "columns": {"long": {"role": "none"}}}`, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST = %d %s", res.status, res.body)
	}
	done := s.waitSession(t, decode[sessionJSON](t, res).SessionID)
	if done.Status != "failed" {
		t.Fatalf("session on text without words = %+v", done)
	}
	body := string(s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID, nil).body)
	if !strings.Contains(body, "no text column has a word") {
		t.Errorf("failure message: %s", body)
	}

	// The 1 MB cell is one document among others.
	res = s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "bad", "predictionDomain": "anomalies"}`, "Content-Type", "application/json")
	done = s.waitSession(t, decode[sessionJSON](t, res).SessionID)
	if done.Status != "completed" {
		t.Errorf("anomalies with a 1 MB text cell = %+v", done)
	}

	// Text as the target.
	res = s.do(t, http.MethodPost, "/v1/sessions/model", `{"dataSourceName": "bad", "targetColumn": "long", "predictionDomain": "classification"}`, "Content-Type", "application/json")
	if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "long") {
		t.Errorf("text target = %d %s", res.status, res.body)
	}
}

// TestTextAnomaliesDetectors: in an anomalies session with a text column,
// Isolation Forest reads the words (a row whose text is unlike the others
// scores as an anomaly, in the session and through predict) and robust
// Mahalanobis the other columns only; when every feature is text, robust
// Mahalanobis fails with a message and Isolation Forest is the champion.
func TestTextAnomaliesDetectors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	rng := rand.New(rand.NewPCG(5, 6))
	common := []string{"order shipped on time", "parcel arrived safely", "delivery was quick", "package came on time"}
	var b strings.Builder
	b.WriteString(`{"columns": {"note": {"dataType": "text"}, "weight": {"dataType": "numeric"}}, "data": [`)
	for i := range 300 {
		note := common[rng.IntN(len(common))] + " " + common[rng.IntN(len(common))]
		if i%100 == 0 {
			note = "furious customer demands refund lawyer fraud complaint furious refund"
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"note": %q, "weight": "%g"}`, note, 1+rng.NormFloat64()*0.1)
	}
	b.WriteString("]}")
	s.putJSON(t, "notes", b.String())

	type contest struct {
		Contestants []struct {
			Algorithm struct{ Key string }
			Status    string
			Messages  []struct{ Message string }
			Metrics   map[string]float64
		}
	}
	for _, tc := range []struct {
		name, body string
		mcdOK      bool
	}{
		{"text and numeric", `{"dataSourceName": "notes", "predictionDomain": "anomalies"}`, true},
		{"text only", `{"dataSourceName": "notes", "predictionDomain": "anomalies", "columns": {"weight": {"role": "none"}}}`, false},
	} {
		created := s.createSession(t, tc.body)
		done := s.waitSession(t, created.SessionID)
		if done.Status != "completed" {
			t.Fatalf("%s: session = %+v", tc.name, done)
		}
		sid := "/v1/sessions/" + done.SessionID
		raw := s.do(t, http.MethodGet, sid+"/contest", nil)
		c := decode[contest](t, raw)
		if len(c.Contestants) != 2 || c.Contestants[0].Algorithm.Key != "isolation_forest_anomalies" || c.Contestants[0].Metrics["percentAnomalies"] <= 0 {
			t.Fatalf("%s: contest = %s", tc.name, raw.body)
		}
		mcd := c.Contestants[1]
		if got := mcd.Metrics["percentAnomalies"] > 0; got != tc.mcdOK {
			t.Errorf("%s: robust Mahalanobis percentAnomalies %v: %s", tc.name, mcd.Metrics, raw.body)
		}
		if !tc.mcdOK && !strings.Contains(string(raw.body), "did not run: every feature is text") {
			t.Errorf("%s: no message for robust Mahalanobis: %s", tc.name, raw.body)
		}
		// The odd rows (every 100th) are among the lowest scores.
		scores := decode[struct {
			Data []map[string]string `json:"data"`
		}](t, s.do(t, http.MethodGet, sid+"/results/anomalyscores?pageSize=1000", nil))
		if len(scores.Data) != 300 {
			t.Fatalf("%s: %d scores", tc.name, len(scores.Data))
		}
		for _, i := range []int{0, 100, 200} {
			if v, _ := strconv.ParseFloat(scores.Data[i]["anomaly"], 64); v > 0 {
				t.Errorf("%s: odd row %d scores %v, want ≤ 0", tc.name, i, v)
			}
		}
		// Predict with the saved model reads the text.
		res := s.do(t, http.MethodPost, "/v1/models/"+done.ModelID+"/predict",
			`{"data": [{"note": "parcel arrived safely delivery was quick", "weight": "1"}, {"note": "furious customer demands refund lawyer fraud complaint", "weight": "1"}]}`, "Content-Type", "application/json")
		p := decode[struct{ Data []map[string]string }](t, res)
		if res.status != http.StatusOK || len(p.Data) != 2 {
			t.Fatalf("%s: predict = %d %s", tc.name, res.status, res.body)
		}
		ok, _ := strconv.ParseFloat(p.Data[0]["anomaly"], 64)
		odd, _ := strconv.ParseFloat(p.Data[1]["anomaly"], 64)
		if !(odd < ok) {
			t.Errorf("%s: predict scores ordinary %v, odd %v: want the odd text lower", tc.name, ok, odd)
		}
	}
}
