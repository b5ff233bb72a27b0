package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// vocabWords is a small vocabulary given out of listing order: words
// ranked 0…2 and three stop words.
func vocabWords() []VocabularyWord {
	return []VocabularyWord{
		{Text: "the", Stop: true, Rank: -1, Count: 40, DocumentFrequency: 20},
		{Text: "lost bag", Rank: 1, Count: 7, DocumentFrequency: 6},
		{Text: "amp", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
		{Text: "delayed", Rank: 0, Count: 9, DocumentFrequency: 8},
		{Text: "gate", Rank: 2, Count: 3, DocumentFrequency: 3},
		{Text: "zebra crossing", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
	}
}

func texts(ws []VocabularyWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// mustSaveVocabulary saves a vocabulary with the given fields and words.
func mustSaveVocabulary(t testing.TB, e *Engine, v Vocabulary, words []VocabularyWord) {
	t.Helper()
	if err := e.saveVocabulary(t.Context(), v, words); err != nil {
		t.Fatalf("saveVocabulary(%s): %v", v.ID, err)
	}
}

// wantKind checks that err is an *Error of kind k whose details name key
// (when key is not "").
func wantKind(t *testing.T, what string, err error, k Kind, key string) {
	t.Helper()
	var ee *Error
	if !errors.As(err, &ee) || ee.Kind != k {
		t.Fatalf("%s = %v, want kind %d", what, err, k)
	}
	if key != "" {
		if _, ok := ee.Details[key]; !ok {
			t.Errorf("%s details = %v, want key %q", what, ee.Details, key)
		}
	}
}

func vocabIDs(vs []Vocabulary) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

// vid makes the id of test vocabulary n.
func vid(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// sid makes the id of test session n.
func sid(n int) string { return fmt.Sprintf("a0000000-0000-4000-8000-%012d", n) }

func TestVocabularyWords(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	given := vocabWords()
	mustSaveVocabulary(t, e, Vocabulary{ID: vid(1), DataSourceName: "tweets", DataSourceType: SourceDataSet, ColumnName: "text", SessionID: sid(1), CreatedOn: at}, given)
	if !slices.Equal(texts(given), texts(vocabWords())) {
		t.Errorf("saveVocabulary reordered its argument: %q", texts(given))
	}

	all := []string{"delayed", "lost bag", "gate", "amp", "the", "zebra crossing"}
	for _, c := range []struct {
		typ           string
		limit, offset int
		want          []string
		total         int
	}{
		{"", 50, 0, all, 6},
		{"", 2, 2, all[2:4], 6},
		{"", 50, 5, all[5:], 6},
		{"", 50, 6, nil, 6},
		{"", 50, 1 << 30, nil, 6},
		{"word", 50, 0, all[:3], 3},
		{"Word", 2, 2, all[2:3], 3},
		{"word", 2, 3, nil, 3},
		{"stopWord", 50, 0, all[3:], 3},
		{"StopWord", 1, 1, all[4:5], 3},
		{"stop_word", 50, 2, all[5:], 3},
		{"STOPWORD", 50, 3, nil, 3},
	} {
		t.Run(fmt.Sprintf("%s/%d/%d", c.typ, c.limit, c.offset), func(t *testing.T) {
			v, ws, total, err := e.VocabularyWords(ctx, vid(1), c.typ, c.limit, c.offset)
			if err != nil {
				t.Fatalf("VocabularyWords = %v", err)
			}
			if v.ID != vid(1) || v.SessionID != sid(1) || v.ColumnName != "text" || v.DataSourceName != "tweets" || v.DataSourceType != SourceDataSet || !v.CreatedOn.Equal(at) {
				t.Errorf("VocabularyWords vocabulary = %+v", v)
			}
			if got := texts(ws); !slices.Equal(got, c.want) || ws == nil {
				t.Errorf("VocabularyWords texts = %q, want %q (non-nil)", got, c.want)
			}
			if total != c.total {
				t.Errorf("VocabularyWords total = %d, want %d", total, c.total)
			}
		})
	}

	_, ws, _, err := e.VocabularyWords(ctx, vid(1), "", 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []VocabularyWord{
		{Text: "delayed", Rank: 0, Count: 9, DocumentFrequency: 8},
		{Text: "lost bag", Rank: 1, Count: 7, DocumentFrequency: 6},
		{Text: "gate", Rank: 2, Count: 3, DocumentFrequency: 3},
		{Text: "amp", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
		{Text: "the", Stop: true, Rank: -1, Count: 40, DocumentFrequency: 20},
		{Text: "zebra crossing", Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1},
	}
	if !slices.Equal(ws, want) {
		t.Errorf("VocabularyWords = %+v, want %+v", ws, want)
	}

	// What a data engineer reads in the file: NULL rank for stop words.
	rows, err := e.store.Rows(ctx, `SELECT count(*), count(rank), min(seq), max(seq) FROM catalog.vocabulary_words WHERE vocabulary_id = ?`, vid(1))
	if err != nil {
		t.Fatal(err)
	}
	var n, ranked, lo, hi int
	if err := scanOne(rows, &n, &ranked, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != 6 || ranked != 3 || lo != 0 || hi != 5 {
		t.Errorf("catalog.vocabulary_words count, ranked, min and max seq = %d, %d, %d, %d, want 6, 3, 0, 5", n, ranked, lo, hi)
	}

	t.Run("errors", func(t *testing.T) {
		_, _, _, err := e.VocabularyWords(ctx, vid(1), "phrase", 50, 0)
		wantKind(t, "VocabularyWords(type phrase)", err, Invalid, "type")
		_, _, _, err = e.VocabularyWords(ctx, "not-a-uuid", "", 50, 0)
		wantKind(t, "VocabularyWords(malformed id)", err, Invalid, "vocabularyId")
		_, _, _, err = e.VocabularyWords(ctx, vid(99), "", 50, 0)
		wantKind(t, "VocabularyWords(unknown id)", err, NotFound, "itemType")
		if err := e.saveVocabulary(ctx, Vocabulary{ID: vid(2), DataSourceType: "table"}, nil); err == nil {
			t.Errorf("saveVocabulary(data source type table) = nil, want an error")
		}
	})
}

// An empty vocabulary (every document empty) is listed with no words;
// one saved without id or date gets both.
func TestVocabularyEmptyAndDefaults(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	mustSaveVocabulary(t, e, Vocabulary{DataSourceName: "d", DataSourceType: SourceView, ColumnName: "c", SessionID: sid(1)}, nil)
	vs, total, err := e.ListVocabularies(ctx, VocabularyQuery{PageSize: 50})
	if err != nil || total != 1 || len(vs) != 1 {
		t.Fatalf("ListVocabularies = %v, %d, %v, want one", vs, total, err)
	}
	if _, err := parseID("id", vs[0].ID); err != nil || vs[0].CreatedOn.IsZero() || vs[0].DataSourceType != SourceView {
		t.Errorf("saved vocabulary = %+v, want a UUID, a date and type view", vs[0])
	}
	_, ws, n, err := e.VocabularyWords(ctx, vs[0].ID, "", 50, 0)
	if err != nil || n != 0 || ws == nil || len(ws) != 0 {
		t.Errorf("VocabularyWords(empty) = %v, %d, %v, want [], 0", ws, n, err)
	}

	// Saved inside the caller's transaction, words included, it goes with
	// the transaction's rollback.
	boom := errors.New("boom")
	err = e.store.Tx(ctx, func(ctx context.Context) error {
		if err := e.saveVocabulary(ctx, Vocabulary{ID: vid(7), DataSourceName: "d", DataSourceType: SourceDataSet, ColumnName: "c", SessionID: sid(1)}, vocabWords()); err != nil {
			return err
		}
		if _, _, n, err := e.VocabularyWords(ctx, vid(7), "", 50, 0); err != nil || n != len(vocabWords()) {
			t.Errorf("VocabularyWords inside the transaction = %d, %v, want %d", n, err, len(vocabWords()))
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx = %v, want boom", err)
	}
	if _, _, _, err := e.VocabularyWords(ctx, vid(7), "", 50, 0); err == nil || wordRows(t, e) != 0 {
		t.Errorf("after the rollback: VocabularyWords = %v, %d words stored; want not found and none", err, wordRows(t, e))
	}
}

func TestListVocabularies(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, v := range []Vocabulary{
		{DataSourceName: "tweets", SessionID: sid(1), ColumnName: "b"},
		{DataSourceName: "Essays", SessionID: sid(2), ColumnName: "x"},
		{DataSourceName: "tweets", SessionID: sid(1), ColumnName: "a"},
		{DataSourceName: "essays", SessionID: sid(3), ColumnName: "y"},
	} {
		v.ID, v.DataSourceType = vid(i+1), SourceDataSet
		v.CreatedOn = day.Add(time.Duration(10-i) * time.Hour) // later ids are older
		mustSaveVocabulary(t, e, v, vocabWords()[:i+1])
	}
	for _, c := range []struct {
		name  string
		q     VocabularyQuery
		want  []string
		total int
	}{
		{"default: by source, then oldest first", VocabularyQuery{PageSize: 50}, []string{vid(4), vid(2), vid(3), vid(1)}, 4},
		{"page", VocabularyQuery{Page: 1, PageSize: 3}, []string{vid(1)}, 4},
		{"by source, descending", VocabularyQuery{SortBy: "DATASOURCENAME", Desc: true, PageSize: 50}, []string{vid(1), vid(3), vid(2), vid(4)}, 4},
		{"by date", VocabularyQuery{SortBy: "createdOnDate", PageSize: 50}, []string{vid(4), vid(3), vid(2), vid(1)}, 4},
		{"data source in any case", VocabularyQuery{DataSource: "ESSAYS", PageSize: 50}, []string{vid(4), vid(2)}, 2},
		{"session", VocabularyQuery{Session: sid(1), PageSize: 50}, []string{vid(3), vid(1)}, 2},
		{"session in capitals", VocabularyQuery{Session: strings.ToUpper(sid(3)), PageSize: 50}, []string{vid(4)}, 1},
		{"source and session", VocabularyQuery{DataSource: "tweets", Session: sid(2), PageSize: 50}, nil, 0},
		{"id", VocabularyQuery{ID: vid(2), PageSize: 50}, []string{vid(2)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs, total, err := e.ListVocabularies(ctx, c.q)
			if err != nil {
				t.Fatalf("ListVocabularies(%+v) = %v", c.q, err)
			}
			if got := vocabIDs(vs); !slices.Equal(got, c.want) || total != c.total {
				t.Errorf("ListVocabularies(%+v) = %q, %d, want %q, %d", c.q, got, total, c.want, c.total)
			}
		})
	}
	_, _, err := e.ListVocabularies(ctx, VocabularyQuery{Session: "nope", PageSize: 50})
	wantKind(t, "ListVocabularies(malformed session)", err, Invalid, "createdFromSession")
	_, _, err = e.ListVocabularies(ctx, VocabularyQuery{SortBy: "columnName", PageSize: 50})
	wantKind(t, "ListVocabularies(sortBy columnName)", err, Invalid, "sortBy")
}

// wordRows counts the rows of catalog.vocabulary_words.
func wordRows(t *testing.T, e *Engine) int {
	t.Helper()
	rows, err := e.store.Rows(t.Context(), `SELECT count(*) FROM catalog.vocabulary_words`)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := scanOne(rows, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// listedIDs lists every vocabulary's id, oldest first.
func listedIDs(t *testing.T, e *Engine) []string {
	t.Helper()
	vs, _, err := e.ListVocabularies(t.Context(), VocabularyQuery{SortBy: "createdOnDate", PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return vocabIDs(vs)
}

func TestDeleteVocabularies(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	save := func(n int, source string, session int) {
		mustSaveVocabulary(t, e, Vocabulary{ID: vid(n), DataSourceName: source, DataSourceType: SourceDataSet, ColumnName: "c",
			SessionID: sid(session), CreatedOn: day.Add(time.Duration(n) * time.Hour)}, vocabWords())
	}
	for n, source := range []string{"a", "a", "b", "b", "c"} {
		save(n+1, source, n%2)
	}

	wantKind(t, "DeleteVocabularies(no selector)", e.DeleteVocabularies(ctx, VocabularyQuery{}), ParametersRequired, "")
	wantKind(t, "DeleteVocabularies(malformed session)", e.DeleteVocabularies(ctx, VocabularyQuery{Session: "x"}), Invalid, "createdFromSession")
	wantKind(t, "DeleteVocabularies(malformed id)", e.DeleteVocabularies(ctx, VocabularyQuery{ID: "x"}), Invalid, "vocabularyId")
	wantKind(t, "DeleteVocabulary(malformed id)", e.DeleteVocabulary(ctx, "x"), Invalid, "vocabularyId")
	wantKind(t, "DeleteVocabulary(unknown id)", e.DeleteVocabulary(ctx, vid(99)), NotFound, "itemType")

	if err := e.DeleteVocabulary(ctx, vid(1)); err != nil {
		t.Fatalf("DeleteVocabulary = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(2), vid(3), vid(4), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after DeleteVocabulary(1): %q, want %q", got, want)
	}
	// Source and session together: only vocabulary 3 (source b, session 0).
	if err := e.DeleteVocabularies(ctx, VocabularyQuery{DataSource: "B", Session: sid(0)}); err != nil {
		t.Fatalf("DeleteVocabularies = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(2), vid(4), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after DeleteVocabularies(b, session 0): %q, want %q", got, want)
	}
	if err := e.DeleteVocabularies(ctx, VocabularyQuery{ID: vid(4)}); err != nil {
		t.Fatalf("DeleteVocabularies(id) = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(2), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after DeleteVocabularies(id 4): %q, want %q", got, want)
	}
	if n := wordRows(t, e); n != 2*len(vocabWords()) {
		t.Errorf("words left = %d, want %d (the words of two vocabularies)", n, 2*len(vocabWords()))
	}
}

// The vocabulary cascade of dataset and view deletes (REFERENCE §3.4,
// §4.4) takes the vocabularies built from that data source only, and
// nothing goes without it.
func TestVocabularyCascade(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "docs", "when,text,y\n2026-01-01,hello world,1\n2026-01-02,good bye,0\n")
	e.putTestCSV(t, "other", "text,y\nhi there,1\n")
	if _, _, err := e.PutView(ctx, ViewSpec{Name: "docview", DataSetName: "other"}); err != nil {
		t.Fatalf("PutView = %v", err)
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for n, src := range []struct{ name, typ string }{{"docs", SourceDataSet}, {"Docs", SourceDataSet}, {"other", SourceDataSet}, {"docview", SourceView}, {"docs", SourceDataSet}} {
		mustSaveVocabulary(t, e, Vocabulary{ID: vid(n + 1), DataSourceName: src.name, DataSourceType: src.typ, ColumnName: "text",
			SessionID: sid(n + 1), CreatedOn: day.AddDate(0, 0, n)}, vocabWords())
	}

	// A delete of some rows with the cascade takes the vocabularies created
	// within the range (vocabulary 2, on day 1) and keeps the rest.
	start, end := day.Add(time.Hour), day.AddDate(0, 0, 2)
	if err := e.DeleteDataset(ctx, "docs", DeleteQuery{Start: &start, End: &end, Cascade: CascadeVocabularies}); err != nil {
		t.Fatalf("DeleteDataset(range, cascade vocabulary) = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(1), vid(3), vid(4), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after a ranged delete: %q, want %q", got, want)
	}
	if err := e.DeleteView(ctx, "docview", 0); err != nil {
		t.Fatalf("DeleteView = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(1), vid(3), vid(4), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after a view delete without cascade: %q, want %q", got, want)
	}
	if _, _, err := e.PutView(ctx, ViewSpec{Name: "docview", DataSetName: "other"}); err != nil {
		t.Fatalf("PutView = %v", err)
	}
	if err := e.DeleteView(ctx, "DOCVIEW", CascadeVocabularies); err != nil {
		t.Fatalf("DeleteView(cascade vocabulary) = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(1), vid(3), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after a view delete with cascade: %q, want %q", got, want)
	}
	if err := e.DeleteDataset(ctx, "other", DeleteQuery{Cascade: CascadeModels}); err != nil {
		t.Fatalf("DeleteDataset(cascade model) = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(1), vid(3), vid(5)}; !slices.Equal(got, want) {
		t.Errorf("after a dataset delete without the vocabulary cascade: %q, want %q", got, want)
	}
	if err := e.DeleteDataset(ctx, "docs", DeleteQuery{Cascade: CascadeVocabularies | CascadeSessions}); err != nil {
		t.Fatalf("DeleteDataset(cascade vocabulary) = %v", err)
	}
	if got, want := listedIDs(t, e), []string{vid(3)}; !slices.Equal(got, want) {
		t.Errorf("after a dataset delete with cascade: %q, want %q", got, want)
	}
	if n := wordRows(t, e); n != len(vocabWords()) {
		t.Errorf("words left = %d, want %d", n, len(vocabWords()))
	}
}

// A session's vocabularies outlive the session while its model remains
// (REFERENCE §6.9), and go with whichever of the two goes last.
func TestVocabularySessionAndModelDelete(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "lin", linearCSV(60))
	run := func() Session {
		t.Helper()
		s, err := e.CreateSession(ctx, regressionRequest("lin"))
		if err != nil {
			t.Fatalf("CreateSession = %v", err)
		}
		s = e.waitSession(t, s.ID)
		if s.Status != StatusCompleted || s.ModelID == "" {
			t.Fatalf("session %s = %s, model %q, want completed with a model", s.ID, s.Status, s.ModelID)
		}
		mustSaveVocabulary(t, e, Vocabulary{ID: "", DataSourceName: "lin", DataSourceType: SourceDataSet, ColumnName: "t", SessionID: s.ID}, vocabWords())
		return s
	}
	count := func(session string) int {
		t.Helper()
		_, n, err := e.ListVocabularies(ctx, VocabularyQuery{Session: session, PageSize: 50})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Session first, then model.
	s := run()
	if err := e.DeleteSession(ctx, s.ID); err != nil {
		t.Fatalf("DeleteSession = %v", err)
	}
	if n := count(s.ID); n != 1 {
		t.Errorf("vocabularies after the session's delete, its model kept = %d, want 1", n)
	}
	if err := e.DeleteModel(ctx, s.ModelID); err != nil {
		t.Fatalf("DeleteModel = %v", err)
	}
	if n := count(s.ID); n != 0 {
		t.Errorf("vocabularies after the model's delete too = %d, want 0", n)
	}

	// Model first, then session.
	s = run()
	if err := e.DeleteModel(ctx, s.ModelID); err != nil {
		t.Fatalf("DeleteModel = %v", err)
	}
	if n := count(s.ID); n != 1 {
		t.Errorf("vocabularies after the model's delete, its session kept = %d, want 1", n)
	}
	if err := e.DeleteSession(ctx, s.ID); err != nil {
		t.Fatalf("DeleteSession = %v", err)
	}
	if n := count(s.ID); n != 0 {
		t.Errorf("vocabularies after the session's delete too = %d, want 0", n)
	}

	// A run that starts again starts without the last run's vocabularies.
	s = run()
	if err := e.clearSessionOutputs(ctx, s.ID); err != nil {
		t.Fatalf("clearSessionOutputs = %v", err)
	}
	if n := count(s.ID); n != 0 {
		t.Errorf("vocabularies after clearSessionOutputs = %d, want 0", n)
	}
	if n := wordRows(t, e); n != 0 {
		t.Errorf("words left = %d, want 0", n)
	}
}
