package engine

import (
	"fmt"
	"testing"
)

// benchWords makes n entries: every third a word (ranked in turn), the
// rest stop words, as in the recorded vocabularies (about two thirds
// stop words, MODELLING §10). Texts are one or two words.
func benchWords(n int) []VocabularyWord {
	out := make([]VocabularyWord, n)
	rank := 0
	for i := range out {
		w := VocabularyWord{Text: fmt.Sprintf("term%07d", (i*7919)%n), Count: int64(n - i), DocumentFrequency: 1 + i%50, Rank: -1}
		if i%5 == 0 {
			w.Text += " next"
		}
		if i%3 == 0 {
			w.Rank = rank
			rank++
		} else {
			w.Stop = true
		}
		out[i] = w
	}
	return out
}

const benchVocabularySize = 1_000_000

// go test -tags duckdb_arrow -run '^$' -bench 'Vocabulary' -benchtime 3x ./engine
func BenchmarkSaveVocabulary(b *testing.B) {
	e := newBenchEngine(b)
	words := benchWords(benchVocabularySize)
	b.ReportAllocs()
	for b.Loop() {
		if err := e.saveVocabulary(b.Context(), Vocabulary{DataSourceName: "d", DataSourceType: SourceDataSet, ColumnName: "c", SessionID: sid(1)}, words); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*benchVocabularySize/b.Elapsed().Seconds(), "words/s")
}

// BenchmarkVocabularyWords reads pages of 50 entries from a 10⁶-entry
// vocabulary stored after another as large: the first page, a deep one of
// each listing, and, as the anchor, the deep page the way a plain ORDER
// BY … LIMIT … OFFSET over the entries would read it.
func BenchmarkVocabularyWords(b *testing.B) {
	e := newBenchEngine(b)
	words := benchWords(benchVocabularySize)
	for _, id := range []string{vid(1), vid(2)} {
		if err := e.saveVocabulary(b.Context(), Vocabulary{ID: id, DataSourceName: "d", DataSourceType: SourceDataSet, ColumnName: "c", SessionID: sid(1)}, words); err != nil {
			b.Fatal(err)
		}
	}
	const deep = 600_000
	for _, c := range []struct {
		name   string
		typ    string
		offset int
	}{
		{"first", "", 0},
		{"deep", "", deep},
		{"words-deep", "word", 300_000},
		{"stopWords-deep", "stopWord", deep},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_, ws, _, err := e.VocabularyWords(b.Context(), vid(2), c.typ, 50, c.offset)
				if err != nil || len(ws) != 50 {
					b.Fatalf("VocabularyWords = %d words, %v", len(ws), err)
				}
			}
		})
	}
	b.Run("anchor-orderby-offset", func(b *testing.B) {
		for b.Loop() {
			rows, err := e.store.Rows(b.Context(), `SELECT text, type = 'stopWord', coalesce(rank, -1), count, document_frequency
				FROM catalog.vocabulary_words WHERE vocabulary_id = ? ORDER BY type = 'stopWord', rank, text LIMIT 50 OFFSET ?`, vid(2), deep)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if n != 50 {
				b.Fatalf("anchor read %d rows", n)
			}
		}
	})
}
