package engine

import "context"

// SaveVocabulary lets the black-box tests save a vocabulary as a session
// does.
func (e *Engine) SaveVocabulary(ctx context.Context, v Vocabulary, words []VocabularyWord) error {
	return e.saveVocabulary(ctx, v, words)
}
