package engine_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/engine/enginetest"
)

// enginetest.SaveVocabulary, which tests above the engine use, writes
// what the engine's own saveVocabulary writes: the same summary and the
// same entries in every listing and page.
func TestEnginetestSaveVocabulary(t *testing.T) {
	ctx := t.Context()
	store, err := duckstore.Open(ctx, filepath.Join(t.TempDir(), "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e, err := engine.New(ctx, store, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })

	// Ranks given in reverse, stop words in no order, a tie of text.
	var words []engine.VocabularyWord
	for i := range 7 {
		words = append(words, engine.VocabularyWord{Text: fmt.Sprintf("w%d", i), Rank: 6 - i, Count: int64(10 + i), DocumentFrequency: i + 1})
		words = append(words, engine.VocabularyWord{Text: fmt.Sprintf("s%d", (i*3)%7), Stop: true, Rank: -1, Count: 1, DocumentFrequency: 1})
	}
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	mine := engine.Vocabulary{ID: "00000000-0000-4000-8000-000000000001", DataSourceName: "d", DataSourceType: engine.SourceDataSet, ColumnName: "c", SessionID: "00000000-0000-4000-8000-0000000000aa", CreatedOn: at}
	theirs := mine
	theirs.ID = "00000000-0000-4000-8000-000000000002"
	if err := e.SaveVocabulary(ctx, mine, words); err != nil {
		t.Fatalf("saveVocabulary = %v", err)
	}
	if err := enginetest.SaveVocabulary(ctx, store, theirs, words); err != nil {
		t.Fatalf("enginetest.SaveVocabulary = %v", err)
	}
	for _, typ := range []string{"", "word", "stopWord"} {
		for _, page := range []struct{ limit, offset int }{{50, 0}, {3, 0}, {3, 3}, {4, 12}} {
			v1, w1, n1, err1 := e.VocabularyWords(ctx, mine.ID, typ, page.limit, page.offset)
			v2, w2, n2, err2 := e.VocabularyWords(ctx, theirs.ID, typ, page.limit, page.offset)
			if err1 != nil || err2 != nil {
				t.Fatalf("VocabularyWords(%q, %v) = %v, %v", typ, page, err1, err2)
			}
			v2.ID = v1.ID
			if v1 != v2 || n1 != n2 || !slices.Equal(w1, w2) {
				t.Errorf("VocabularyWords(%q, %v):\nengine     %+v %d %+v\nenginetest %+v %d %+v", typ, page, v1, n1, w1, v2, n2, w2)
			}
		}
	}
}
