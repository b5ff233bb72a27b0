package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/engine/enginetest"
)

// Vocabularies are built by model sessions with text columns; these tests
// put them in the catalog directly (enginetest.SaveVocabulary), with
// fixed ids and dates so that the goldens hold them as they are.

func vocabID(n int) string   { return fmt.Sprintf("2f3a4b5c-6d7e-4f80-9a1b-%012d", n) }
func sessionID(n int) string { return fmt.Sprintf("0161a0b1-c2d3-4e5f-8a6b-%012d", n) }

// airlineWords is a vocabulary as §8.7 shows one: words by rank, bigrams
// among them, and stop words.
var airlineWords = []engine.VocabularyWord{
	{Text: "the", Stop: true, Rank: -1, Count: 812, DocumentFrequency: 603},
	{Text: "delayed", Rank: 0, Count: 120, DocumentFrequency: 98},
	{Text: "totes", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
	{Text: "lost bag", Rank: 1, Count: 41, DocumentFrequency: 40},
	{Text: "customer service", Rank: 2, Count: 39, DocumentFrequency: 37},
	{Text: "amp", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
	{Text: "gate", Rank: 3, Count: 17, DocumentFrequency: 17},
}

// seedVocabularies saves vocabularies n = 1… of the given data sources
// (name and type), created an hour apart, session n%2+1 each.
func (s *testServer) seedVocabularies(t testing.TB, sources ...[2]string) {
	t.Helper()
	at := time.Date(2026, 1, 22, 19, 25, 18, 666296100, time.UTC)
	for i, src := range sources {
		n := i + 1
		v := engine.Vocabulary{ID: vocabID(n), DataSourceName: src[0], DataSourceType: src[1], ColumnName: "text",
			SessionID: sessionID(n%2 + 1), CreatedOn: at.Add(time.Duration(n) * time.Hour)}
		if err := enginetest.SaveVocabulary(t.Context(), s.store, v, airlineWords); err != nil {
			t.Fatal(err)
		}
	}
}

type vocabularyJSON struct {
	ID                 string     `json:"id"`
	DataSourceName     string     `json:"dataSourceName"`
	ColumnName         string     `json:"columnName"`
	DataSourceType     string     `json:"dataSourceType"`
	CreatedOnDate      string     `json:"createdOnDate"`
	CreatedBySessionID string     `json:"createdBySessionId"`
	Links              []linkJSON `json:"links"`
}

type vocabularyListJSON struct {
	Items []vocabularyJSON `json:"items"`
	pageJSON
}

type wordsJSON struct {
	ID    string `json:"id"`
	Items []struct {
		Text string `json:"text"`
		Type string `json:"type"`
		Rank *int   `json:"rank"`
	} `json:"items"`
	pageJSON
}

// listVocabularies GETs /vocabulary with query and returns the ids.
func (s *testServer) listVocabularies(t testing.TB, query string) ([]string, vocabularyListJSON) {
	t.Helper()
	res := s.do(t, http.MethodGet, "/v1/vocabulary?"+query, nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /vocabulary?%s = %d %s", query, res.status, res.body)
	}
	l := decode[vocabularyListJSON](t, res)
	ids := make([]string, len(l.Items))
	for i, v := range l.Items {
		ids[i] = v.ID
	}
	return ids, l
}

func TestListVocabularies(t *testing.T) {
	s := newServer(t)
	res := s.do(t, http.MethodGet, "/v1/vocabulary", nil)
	golden(t, "vocabulary_list_empty", res.body)
	s.seedVocabularies(t, [2]string{"AirlineTweets", "dataSet"}, [2]string{"airline-view", "view"}, [2]string{"airlinetweets", "dataSet"})

	res = s.do(t, http.MethodGet, "/v1/vocabulary", nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /vocabulary = %d %s", res.status, res.body)
	}
	golden(t, "vocabulary_list", res.body)

	for _, c := range []struct {
		query string
		want  []int
	}{
		{"", []int{2, 1, 3}}, // by data source name in any case, then oldest first
		{"dataSource=AIRLINETWEETS", []int{1, 3}},
		{"dataSourceName=airline-view", []int{2}},
		{"DATASOURCE=airline-view", []int{2}},
		{"createdFromSession=" + sessionID(2), []int{1, 3}},
		{"createdFromSessionid=" + sessionID(1), []int{2}},
		{"created_from_session=" + sessionID(1), []int{2}},
		{"createdFromSession=" + strings.ToUpper(sessionID(2)) + "&dataSource=airlinetweets", []int{1, 3}},
		{"dataSource=nothing", []int{}},
		{"sortBy=createdOnDate&sortOrder=desc", []int{3, 2, 1}},
		{"sortBy=dataSourceName&sortOrder=DESC", []int{3, 1, 2}},
		{"page=1&pageSize=2", []int{3}},
	} {
		ids, _ := s.listVocabularies(t, c.query)
		want := []string{}
		for _, n := range c.want {
			want = append(want, vocabID(n))
		}
		if !slices.Equal(ids, want) {
			t.Errorf("GET /vocabulary?%s = %q, want %q", c.query, ids, want)
		}
	}
	_, l := s.listVocabularies(t, "page=1&pageSize=2&dataSource=airlinetweets")
	if l.TotalCount != 2 || l.TotalPages != 1 || l.PageNumber != 1 || l.PageSize != 2 {
		t.Errorf("page 1 of 2 by 2: envelope %+v", l.pageJSON)
	}

	for _, c := range []struct{ query, detail string }{
		{"createdFromSession=nope", "createdFromSession"},
		{"createdFromSessionid=0161a0b1", "createdFromSession"},
		{"page=-1", "page"},
		{"pageSize=0", "pageSize"},
		{"sortBy=columnName", "sortBy"},
		{"sortOrder=up", "sortOrder"},
	} {
		res := s.do(t, http.MethodGet, "/v1/vocabulary?"+c.query, nil)
		wantError(t, "GET /vocabulary?"+c.query, res, http.StatusBadRequest, "RequestValidation", c.detail)
	}
}

func TestVocabularyWords(t *testing.T) {
	s := newServer(t)
	s.seedVocabularies(t, [2]string{"AirlineTweets", "dataSet"})
	id := vocabID(1)

	res := s.do(t, http.MethodGet, "/v1/vocabulary/"+id+"?pageSize=3&page=1", nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /vocabulary/%s = %d %s", id, res.status, res.body)
	}
	golden(t, "vocabulary_words", res.body)
	res = s.do(t, http.MethodGet, "/v1/vocabulary/"+id+"?type=stopWord", nil)
	golden(t, "vocabulary_words_stop", res.body)

	words := []string{"delayed", "lost bag", "customer service", "gate"}
	stops := []string{"amp", "the", "totes"}
	for _, c := range []struct {
		query string
		want  []string
		total int64
	}{
		{"", append(slices.Clone(words), stops...), 7},
		{"type=word", words, 4},
		{"TYPE=Word", words, 4},
		{"type=StopWord", stops, 3},
		{"type=stop_word", stops, 3},
		{"type=stopword&page=1&pageSize=2", stops[2:], 3},
		{"type=word&page=3&pageSize=2", nil, 4},
		{"page=2&pageSize=3", []string{"totes"}, 7},
	} {
		res := s.do(t, http.MethodGet, "/v1/vocabulary/"+id+"?"+c.query, nil)
		if res.status != http.StatusOK {
			t.Fatalf("GET /vocabulary/%s?%s = %d %s", id, c.query, res.status, res.body)
		}
		w := decode[wordsJSON](t, res)
		var got []string
		for _, it := range w.Items {
			got = append(got, it.Text)
			if (it.Type == "word") != (it.Rank != nil) || (it.Type != "word" && it.Type != "stopWord") {
				t.Errorf("GET ?%s: entry %q type %s rank %v; want a rank exactly for words", c.query, it.Text, it.Type, it.Rank)
			}
		}
		if !slices.Equal(got, c.want) || w.TotalCount != c.total || w.ID != id {
			t.Errorf("GET /vocabulary/%s?%s = %s %q total %d, want %q total %d", id, c.query, w.ID, got, w.TotalCount, c.want, c.total)
		}
	}

	res = s.do(t, http.MethodGet, "/v1/vocabulary/"+id+"?type=phrase", nil)
	wantError(t, "GET ?type=phrase", res, http.StatusBadRequest, "RequestValidation", "type")
	res = s.do(t, http.MethodGet, "/v1/vocabulary/"+id+"?pageSize=-3", nil)
	wantError(t, "GET ?pageSize=-3", res, http.StatusBadRequest, "RequestValidation", "pageSize")
	res = s.do(t, http.MethodGet, "/v1/vocabulary/not-a-guid", nil)
	wantError(t, "GET malformed id", res, http.StatusBadRequest, "RequestValidation", "vocabularyId")
	res = s.do(t, http.MethodGet, "/v1/vocabulary/"+vocabID(9), nil)
	e := wantError(t, "GET unknown id", res, http.StatusNotFound, "NotFound", "itemType")
	if e.ErrorDetails["itemType"] != "vocabulary" || e.ErrorDetails["itemId"] != vocabID(9) {
		t.Errorf("GET unknown id details = %v, want itemType vocabulary and the id", e.ErrorDetails)
	}
}

func TestDeleteVocabularies(t *testing.T) {
	s := newServer(t)
	s.seedVocabularies(t, [2]string{"a", "dataSet"}, [2]string{"a", "dataSet"}, [2]string{"b", "view"}, [2]string{"b", "view"}, [2]string{"c", "dataSet"})
	remaining := func(want ...int) { t.Helper(); s.wantVocabularies(t, want...) }

	res := s.do(t, http.MethodDelete, "/v1/vocabulary", nil)
	e := wantError(t, "DELETE /vocabulary", res, http.StatusBadRequest, "SomeParametersRequired", "")
	if len(e.ErrorDetails) != 0 {
		t.Errorf("DELETE /vocabulary errorDetails = %v, want {}", e.ErrorDetails)
	}
	res = s.do(t, http.MethodDelete, "/v1/vocabulary?page=0", nil)
	wantError(t, "DELETE /vocabulary?page=0", res, http.StatusBadRequest, "SomeParametersRequired", "")
	res = s.do(t, http.MethodDelete, "/v1/vocabulary?createdFromSession=x", nil)
	wantError(t, "DELETE malformed session", res, http.StatusBadRequest, "RequestValidation", "createdFromSession")
	res = s.do(t, http.MethodDelete, "/v1/vocabulary?vocabularyId=x", nil)
	wantError(t, "DELETE malformed vocabularyId", res, http.StatusBadRequest, "RequestValidation", "vocabularyId")
	res = s.do(t, http.MethodDelete, "/v1/vocabulary/x", nil)
	wantError(t, "DELETE /vocabulary/x", res, http.StatusBadRequest, "RequestValidation", "vocabularyId")
	res = s.do(t, http.MethodDelete, "/v1/vocabulary/"+vocabID(9), nil)
	wantError(t, "DELETE unknown", res, http.StatusNotFound, "NotFound", "itemType")
	remaining(1, 2, 3, 4, 5)

	for _, c := range []struct {
		path string
		left []int
	}{
		{"/v1/vocabulary/" + vocabID(1), []int{2, 3, 4, 5}},
		{"/v1/vocabulary?vocabularyId=" + vocabID(5), []int{2, 3, 4}},
		{"/v1/vocabulary?dataSource=B&createdFromSession=" + sessionID(2), []int{2, 4}},
		{"/v1/vocabulary?dataSourceName=A", []int{4}},
		{"/v1/vocabulary?created_from_session=" + sessionID(1), []int{}},
	} {
		res := s.do(t, http.MethodDelete, c.path, nil)
		if res.status != http.StatusNoContent {
			t.Fatalf("DELETE %s = %d %s, want 204", c.path, res.status, res.body)
		}
		remaining(c.left...)
	}
	res = s.do(t, http.MethodGet, "/v1/vocabulary/"+vocabID(1), nil)
	wantError(t, "GET a deleted vocabulary", res, http.StatusNotFound, "NotFound", "itemType")
	if n := s.sql(t, `SELECT count(*) FROM catalog.vocabulary_words`); n != "0" {
		t.Errorf("words left = %s, want 0", n)
	}
}

// The vocabulary cascade of DELETE /data and DELETE /views (REFERENCE
// §3.4, §4.4), in each spelling.
func TestVocabularyCascade(t *testing.T) {
	s := newServer(t)
	s.putCSV(t, "tweets", "text,y\nhello world,1\n")
	s.putCSV(t, "essays", "text,y\ngood bye,1\n")
	for _, v := range []string{"tweetview", "essayview"} {
		if res := s.do(t, http.MethodPut, "/v1/views/"+v, `{"dataSetName": "tweets"}`, "Content-Type", "application/json"); res.status != http.StatusCreated && res.status != http.StatusOK {
			t.Fatalf("PUT /views/%s = %d %s", v, res.status, res.body)
		}
	}
	s.seedVocabularies(t, [2]string{"tweets", "dataSet"}, [2]string{"tweetview", "view"}, [2]string{"essays", "dataSet"}, [2]string{"essayview", "view"})
	left := func(want ...int) { t.Helper(); s.wantVocabularies(t, want...) }
	for _, c := range []struct {
		path string
		left []int
	}{
		{"/v1/views/tweetview?cascade=session", []int{1, 2, 3, 4}},
		{"/v1/data/essays?cascade=models", []int{1, 2, 3, 4}},
		{"/v1/views/essayview?options=Vocabularies", []int{1, 2, 3}},
		{"/v1/data/tweets?cascade=session,VOCABULARY", []int{2, 3}},
	} {
		res := s.do(t, http.MethodDelete, c.path, nil)
		if res.status != http.StatusNoContent {
			t.Fatalf("DELETE %s = %d %s, want 204", c.path, res.status, res.body)
		}
		left(c.left...)
	}
}

// A model session with a text column links to its vocabularies from
// creation on, in the session and in its results (REFERENCE §1.7, §2.3,
// §6.10); one without text does not.
func TestSessionVocabulariesLink(t *testing.T) {
	s := newServer(t)
	var b strings.Builder
	b.WriteString(`{"columns": {"note": {"dataType": "text"}}, "data": [`)
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"x": "%d", "note": "flight %d was %s", "y": "%d"}`, i, i, []string{"late", "fine", "early"}[i%3], 3*i+i%3)
	}
	b.WriteString("]}")
	s.putJSON(t, "notes", b.String())
	hasLink := func(links []linkJSON, want string) bool {
		return slices.ContainsFunc(links, func(l linkJSON) bool { return l.Rel == "vocabularies" && strings.HasSuffix(l.Href, want) })
	}

	created := s.createSession(t, `{"dataSourceName": "notes", "targetColumn": "y", "predictionDomain": "regression"}`)
	want := "/v1/vocabulary?createdFromSession=" + created.SessionID
	if !hasLink(created.Links, want) {
		t.Errorf("created session links = %+v, want vocabularies %s", created.Links, want)
	}
	done := s.waitSession(t, created.SessionID)
	if !hasLink(done.Links, want) {
		t.Errorf("session links = %+v, want vocabularies %s", done.Links, want)
	}
	res := s.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/results", nil)
	if r := decode[struct {
		Links []linkJSON `json:"links"`
	}](t, res); !hasLink(r.Links, want) {
		t.Errorf("results links = %+v, want vocabularies %s", r.Links, want)
	}

	plain := s.regression(t, "plain", 60)
	res = s.do(t, http.MethodGet, "/v1/sessions/"+plain.SessionID+"/results", nil)
	if strings.Contains(string(res.body), `"vocabularies"`) || hasLink(plain.Links, "") {
		t.Errorf("a session without text links to vocabularies: %s", res.body)
	}
}

// FuzzVocabularyParams sends arbitrary query strings to the four
// vocabulary endpoints (the last one deletes, so it goes to an unknown
// id): the answer is never a 5xx, and a GET that succeeds pages within
// the counts.
func FuzzVocabularyParams(f *testing.F) {
	for _, seed := range []string{
		"", "type=word", "type=StopWord&page=1&pageSize=2", "type=stop_word", "type=%00", "dataSource=a&createdFromSession=x",
		"createdFromSessionid=" + sessionID(1), "created_from_session=" + sessionID(2) + "&dataSourceName=AirlineTweets",
		"vocabularyId=" + vocabID(9), "sortBy=createdOnDate&sortOrder=desc", "page=2147483647&pageSize=1000", "pageSize=-1",
	} {
		f.Add(seed)
	}
	s := newServer(f)
	s.seedVocabularies(f, [2]string{"AirlineTweets", "dataSet"})
	f.Fuzz(func(t *testing.T, query string) {
		for _, c := range []struct{ method, path string }{
			{http.MethodGet, "/v1/vocabulary"}, {http.MethodGet, "/v1/vocabulary/" + vocabID(1)},
			{http.MethodDelete, "/v1/vocabulary/" + vocabID(9)}, {http.MethodDelete, "/v1/vocabulary?vocabularyId=" + vocabID(9) + "&"},
		} {
			u := s.URL + c.path
			if strings.Contains(c.path, "?") {
				u += query
			} else {
				u += "?" + query
			}
			req, err := http.NewRequestWithContext(t.Context(), c.method, u, nil)
			if err != nil {
				return // not a URL the client can send
			}
			req.Header.Set("api-key", "test-key")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return // the client refuses some raw queries (control bytes)
			}
			var p pageJSON
			err = json.NewDecoder(res.Body).Decode(&p)
			res.Body.Close()
			if res.StatusCode >= 500 {
				t.Errorf("%s %s = %d, want < 500", c.method, u, res.StatusCode)
			}
			if c.method == http.MethodGet && res.StatusCode == http.StatusOK && (err != nil || p.TotalCount > 7 || p.PageSize < 1 || p.PageSize > 1000) {
				t.Errorf("%s %s = envelope %+v, %v", c.method, u, p, err)
			}
		}
	})
}

// wantVocabularies checks that the vocabularies left, oldest first, are
// those numbered want (vocabID).
func (s *testServer) wantVocabularies(t testing.TB, want ...int) {
	t.Helper()
	ids, _ := s.listVocabularies(t, "sortBy=createdOnDate")
	w := []string{}
	for _, n := range want {
		w = append(w, vocabID(n))
	}
	if !slices.Equal(ids, w) {
		t.Errorf("vocabularies = %q, want %q", ids, w)
	}
}
