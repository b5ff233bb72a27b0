package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/text"
)

// Text columns in model sessions (MODELLING §10, issue 16): each text
// feature column gets a vocabulary fitted on the rows its pipeline is
// fitted on (unigrams and bigrams, rare and ubiquitous terms typed stop
// words), its words become TF-IDF features, and the maxTextTerms best of
// them by the importance of §9, measured on the same rows (the training
// split inside the contest, every row for the saved model), are kept.
// Predict encodes new text with the kept words and their idf; unseen terms
// are ignored. A missing text value is the empty document.
//
// The feature rows are L2-normalised over the kept words (text.Encoder on
// them), in training and in predict alike; the vocabulary's own TF-IDF
// matrix, normalised over all its words, only ranks the words. Normalising
// over every word, as a TfidfVectorizer followed by a feature selector
// does, would make the saved model carry the whole vocabulary (10^5 words
// and more on large text) to encode one row, and would leave documents
// with many unkept words with small feature values; over the kept words a
// row weighs what the model can see.

// maxTextTerms is how many words of one text column become features
// (MODELLING §10: "keep the top 1000 terms per column").
const maxTextTerms = 1000

// textFit is one text column's fitted vocabulary and the words it keeps
// as features.
type textFit struct {
	column string
	vocab  *text.Vocabulary
	terms  []string  // kept words, in feature order
	idf    []float64 // their idf
	// importance is each kept word's importance against the target, in
	// feature order (nil without a target).
	importance []float64
}

// fitText fits a text column's vocabulary on the given rows and keeps its
// best words: by importance against t's target when there is one (words
// that do not vary with it are dropped), else by rank (corpus frequency,
// anomalies). Ties keep the better-ranked word.
func fitText(fc *frameColumn, rows []int, t fitTarget) textFit {
	vocab, x := text.Fit(documents(fc, rows))
	tf := textFit{column: fc.Name, vocab: vocab}
	words := len(vocab.IDF)
	order := make([]int, words)
	for r := range order {
		order[r] = r
	}
	var scores []float64
	if t.y != nil && words > 0 {
		scores = text.Importance(x, t.y, t.discrete)
		order = slices.DeleteFunc(order, func(r int) bool { return !(scores[r] > 0) })
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	}
	if len(order) > maxTextTerms {
		order = order[:maxTextTerms]
	}
	for _, r := range order {
		tf.terms = append(tf.terms, vocab.Terms[r].Text)
		tf.idf = append(tf.idf, vocab.IDF[r])
		if scores != nil {
			tf.importance = append(tf.importance, scores[r])
		}
	}
	return tf
}

// documents are a text column's values in the given rows, "" for missing.
func documents(fc *frameColumn, rows []int) []string {
	docs := make([]string, len(rows))
	for i, r := range rows {
		if fc.OK[r] {
			docs[i] = fc.Text[r]
		}
	}
	return docs
}

// encodeText is the TF-IDF matrix of a text column's rows over its kept
// words; the column has words.
func encodeText(pc prepColumn, fc *frameColumn, rows []int) *stats.CSR {
	return text.NewEncoder(pc.Terms, pc.IDF).Transform(documents(fc, rows))
}

// textFeatures says whether any text column became features.
func (p pipeline) textFeatures() bool {
	for _, c := range p.Columns {
		if c.Type == columnar.Text && len(c.Terms) > 0 {
			return true
		}
	}
	return false
}

// withoutText is p without its text columns.
func (p pipeline) withoutText() pipeline {
	q := p
	q.Columns = slices.DeleteFunc(slices.Clone(p.Columns), func(c prepColumn) bool { return c.Type == columnar.Text })
	return q
}

// textMessages tells the session what each text column of p became (in
// model sessions, p is the training split's pipeline: the saved model's,
// fitted on every row, keeps the same number of words or close to it).
func textMessages(p pipeline) []Message {
	var msgs []Message
	for _, tf := range p.texts {
		words := len(tf.vocab.IDF)
		switch {
		case words == 0:
			msgs = append(msgs, Message{"warning", fmt.Sprintf("Text column %s adds no features: no term occurs in at least %d and at most %.0f%% of the rows.", tf.column, text.MinDF, 100*text.MaxDF)})
		case len(tf.terms) == 0:
			msgs = append(msgs, Message{"warning", fmt.Sprintf("Text column %s adds no features: none of its %d words varies with the target.", tf.column, words)})
		default:
			msgs = append(msgs, Message{"informational", fmt.Sprintf("Text column %s: %d of its %d words became features (its vocabulary has %d terms, the others stop words).", tf.column, len(tf.terms), words, len(tf.vocab.Terms))})
		}
	}
	return msgs
}

// vocabularyWords are a fitted vocabulary's entries as the catalog keeps
// them.
func vocabularyWords(v *text.Vocabulary) []VocabularyWord {
	out := make([]VocabularyWord, len(v.Terms))
	for i, t := range v.Terms {
		out[i] = VocabularyWord{Text: t.Text, Stop: t.Stop, Rank: t.Rank, Count: t.Count, DocumentFrequency: t.DF}
	}
	return out
}

// saveVocabularies stores the vocabulary of each of a completed session's
// text columns (REFERENCE §11.5: one per text column per session, a new
// one on every run).
func (e *Engine) saveVocabularies(ctx context.Context, s Session, at time.Time, texts []textFit) error {
	kind := SourceDataSet
	if s.sourceIsView {
		kind = SourceView
	}
	for _, tf := range texts {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		v := Vocabulary{ID: id.String(), DataSourceName: s.DataSourceName, DataSourceType: kind, ColumnName: tf.column, SessionID: s.ID, CreatedOn: at}
		if err := e.saveVocabulary(ctx, v, vocabularyWords(tf.vocab)); err != nil {
			return fmt.Errorf("save the vocabulary of %s: %w", tf.column, err)
		}
	}
	return nil
}
