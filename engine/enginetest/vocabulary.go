package enginetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/vaticml/vatic/engine"
)

// SaveVocabulary writes a small vocabulary into the catalog of the store
// an engine runs on, as a model session does when it builds one of a
// text column (MODELLING §10): for tests of the layers above the engine
// that need a vocabulary without running a session. v needs every field;
// words are stored in listing order (words by rank, then stop words by
// text). Row by row: for a handful of words only. The engine's own tests
// check that what it writes reads back as what the engine writes.
func SaveVocabulary(ctx context.Context, s engine.Store, v engine.Vocabulary, words []engine.VocabularyWord) error {
	words = slices.Clone(words)
	slices.SortStableFunc(words, func(a, b engine.VocabularyWord) int {
		switch {
		case a.Stop != b.Stop:
			if a.Stop {
				return 1
			}
			return -1
		case !a.Stop && a.Rank != b.Rank:
			return cmp.Compare(a.Rank, b.Rank)
		}
		return cmp.Compare(a.Text, b.Text)
	})
	stop := 0
	for _, w := range words {
		if w.Stop {
			stop++
		}
	}
	return s.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.Exec(ctx, `INSERT INTO catalog.vocabularies VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			v.ID, v.SessionID, v.DataSourceName, v.DataSourceType, v.ColumnName, v.CreatedOn.UTC(), len(words)-stop, stop); err != nil {
			return fmt.Errorf("enginetest: save vocabulary: %w", err)
		}
		for i, w := range words {
			typ, rank := "word", any(w.Rank)
			if w.Stop {
				typ, rank = "stopWord", nil
			}
			if _, err := s.Exec(ctx, `INSERT INTO catalog.vocabulary_words VALUES (?, ?, ?, ?, ?, ?, ?)`,
				v.ID, i, w.Text, typ, rank, w.Count, w.DocumentFrequency); err != nil {
				return fmt.Errorf("enginetest: save word %q: %w", w.Text, err)
			}
		}
		return nil
	})
}
