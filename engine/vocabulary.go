package engine

import (
	"context"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
)

// Vocabulary is one text column's vocabulary built by a session (REFERENCE §2.9).
type Vocabulary struct {
	ID, DataSourceName, DataSourceType, ColumnName, SessionID string // DataSourceType "dataSet" or "view"
	CreatedOn                                                 time.Time
}

// The data source types of a vocabulary (REFERENCE §2.9 dataSourceType).
const (
	SourceDataSet = "dataSet"
	SourceView    = "view"
)

// VocabularyWord is one entry: a word with its rank (0 = most important) or a stop word (Rank -1).
type VocabularyWord struct {
	Text              string
	Stop              bool
	Rank              int
	Count             int64
	DocumentFrequency int
}

// UsesText reports whether s is a model session with a text feature
// column: such a session builds a vocabulary of each (MODELLING §10), so
// it links to them (REFERENCE §1.7 vocabularies). Time-series sessions
// never use text.
func (s Session) UsesText() bool {
	if s.Type != SessionModel {
		return false
	}
	for _, c := range s.Columns {
		if c.DataType == columnar.Text && (c.Role == columnar.RoleFeature || c.Role == "") {
			return true
		}
	}
	return false
}

// VocabularyQuery selects vocabularies (REFERENCE §8.6, §8.8): every
// non-empty field narrows the selection. DataSource matches a dataset or
// view name in any case; Session and ID must be UUIDs.
type VocabularyQuery struct {
	DataSource, Session, ID string
	// SortBy is dataSourceName or createdOnDate (any case; REFERENCE §1.6
	// suggests those two); "" lists by data source name, then creation,
	// as the recorded lists were ordered.
	SortBy         string
	Desc           bool
	Page, PageSize int
}

// VocabularySortKeys are the sortBy values of GET /vocabulary.
var VocabularySortKeys = []string{"dataSourceName", "createdOnDate"}

func (q VocabularyQuery) filter() (vocabularyFilter, error) {
	f := vocabularyFilter{DataSource: q.DataSource}
	var err error
	if q.Session != "" {
		if f.Session, err = parseID("createdFromSession", q.Session); err != nil {
			return f, err
		}
	}
	if q.ID != "" {
		if f.ID, err = parseID("vocabularyId", q.ID); err != nil {
			return f, err
		}
	}
	return f, nil
}

// ListVocabularies returns a page of vocabularies and how many match.
// Unlike sessions and models they list oldest first by default: by data
// source name, then creation (the recorded lists, REFERENCE §8.6).
func (e *Engine) ListVocabularies(ctx context.Context, q VocabularyQuery) ([]Vocabulary, int, error) {
	if q.SortBy != "" && !containsFold(VocabularySortKeys, q.SortBy) {
		return nil, 0, Validation("sortBy", "Value for sortBy must be one of "+strings.Join(VocabularySortKeys, ", "))
	}
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	f.SortBy, f.Desc = strings.ToLower(q.SortBy), q.Desc
	f.Limit, f.Offset = q.PageSize, q.Page*q.PageSize
	return e.listVocabularies(ctx, f)
}

// Vocabulary returns a vocabulary by id (404 itemType vocabulary,
// REFERENCE §1.10).
func (e *Engine) Vocabulary(ctx context.Context, id string) (Vocabulary, error) {
	v, _, err := e.vocabulary(ctx, id)
	return v, err
}

// vocabulary returns a vocabulary by id and how many entries of each type
// it has.
func (e *Engine) vocabulary(ctx context.Context, id string) (Vocabulary, wordCounts, error) {
	vid, err := parseID("vocabularyId", id)
	if err != nil {
		return Vocabulary{}, wordCounts{}, err
	}
	v, n, ok, err := e.loadVocabulary(ctx, vid)
	if err != nil {
		return Vocabulary{}, wordCounts{}, err
	}
	if !ok {
		return Vocabulary{}, wordCounts{}, NotFoundError("vocabulary", id)
	}
	return v, n, nil
}

// wordCounts are how many entries of a vocabulary are words and stop
// words.
type wordCounts struct{ words, stop int }

// VocabularyWords returns a page of a vocabulary's entries (REFERENCE
// §8.7) and how many entries of the type there are. wordType "" lists
// words by rank, then stop words alphabetically (MODELLING §10); "word"
// and "stopWord" (any case; "stop_word" too, REFERENCE §2.9) list one
// type. limit is the page size, offset the entries before the page.
func (e *Engine) VocabularyWords(ctx context.Context, id string, wordType string /* "", "word", "stopWord" */, limit, offset int) (Vocabulary, []VocabularyWord, int, error) {
	stop, typed, err := parseWordType(wordType)
	if err != nil {
		return Vocabulary{}, nil, 0, err
	}
	v, n, err := e.vocabulary(ctx, id)
	if err != nil {
		return Vocabulary{}, nil, 0, err
	}
	// Entries sit at seq 0…words-1 (words by rank) then words…words+stop-1
	// (stop words by text): each selection is one range of seq.
	lo, total := 0, n.words+n.stop
	switch {
	case typed && stop:
		lo, total = n.words, n.stop
	case typed:
		total = n.words
	}
	from := min(offset, total)
	words, err := e.loadWords(ctx, v.ID, lo+from, lo+min(from+limit, total))
	return v, words, total, err
}

// parseWordType reads the type filter of GET /vocabulary/{id}: typed is
// false for "", and stop tells stop words from words.
func parseWordType(s string) (stop, typed bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return false, false, nil
	case "word":
		return false, true, nil
	case "stopword", "stop_word":
		return true, true, nil
	}
	return false, false, Validation("type", "Value for type must be word or stopWord")
}

// DeleteVocabulary removes a vocabulary and its words (REFERENCE §8.9).
func (e *Engine) DeleteVocabulary(ctx context.Context, id string) error {
	v, err := e.Vocabulary(ctx, id)
	if err != nil {
		return err
	}
	return e.store.Tx(ctx, func(ctx context.Context) error { return e.deleteVocabularyRows(ctx, []string{v.ID}) })
}

// DeleteVocabularies removes the vocabularies matching q; at least one
// selector is required so that no request deletes every vocabulary by
// accident (REFERENCE §8.8).
func (e *Engine) DeleteVocabularies(ctx context.Context, q VocabularyQuery) error {
	if q.DataSource == "" && q.Session == "" && q.ID == "" {
		return &Error{Kind: ParametersRequired, Msg: "Some vocabulary selection parameters are required.", Details: map[string]any{}}
	}
	f, err := q.filter()
	if err != nil {
		return err
	}
	return e.store.Tx(ctx, func(ctx context.Context) error { return e.deleteVocabularies(ctx, f) })
}

// deleteVocabularies removes the vocabularies matching f with their words.
func (e *Engine) deleteVocabularies(ctx context.Context, f vocabularyFilter) error {
	vs, _, err := e.listVocabularies(ctx, f)
	if err != nil {
		return err
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	return e.deleteVocabularyRows(ctx, ids)
}
