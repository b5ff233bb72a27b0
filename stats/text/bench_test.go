package text

import (
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var speedCorpus = flag.String("speed-corpus", "", "write the corpus of BenchmarkFit100k to this file (one document a line) and the stop list to FILE.stop, for testdata/tfidf_speed.py")

// synthCorpus returns n documents of 20–40 words drawn from a Zipf law
// (s = 1.1) over a fixed list of 30 000 pseudo-words built from syllables,
// with the stop list interleaved among the most frequent (a third of the
// tokens are stop words, as in English prose).
// Words are joined by spaces with some punctuation and capitals.
func synthCorpus(n int, seed uint64) []string {
	syll := []string{"ba", "ke", "di", "mo", "lu", "ra", "ne", "si", "to", "vo", "pa", "ge", "fi", "zu", "ho", "we", "ly", "cra", "ste", "qua"}
	stop := StopWords()
	var words []string
	for k := range 30_000 {
		var sb strings.Builder
		for v := k + len(syll); v > 0; v /= len(syll) {
			sb.WriteString(syll[v%len(syll)])
		}
		words = append(words, sb.String())
		if k < len(stop) {
			words = append(words, stop[k])
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7e47))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	docs := make([]string, n)
	var sb strings.Builder
	for i := range docs {
		sb.Reset()
		for k := range 20 + rng.IntN(21) {
			w := words[zipf.Uint64()]
			switch {
			case k == 0:
				sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
			case rng.IntN(12) == 0:
				sb.WriteString(", ")
				sb.WriteString(w)
			default:
				sb.WriteByte(' ')
				sb.WriteString(w)
			}
		}
		sb.WriteByte('.')
		docs[i] = sb.String()
	}
	return docs
}

// TestWriteSpeedCorpus writes the benchmark corpus for tfidf_speed.py when
// -speed-corpus is given:
//
//	go test ./stats/text -run TestWriteSpeedCorpus -speed-corpus /tmp/corpus.txt
//	/usr/bin/python3 stats/text/testdata/tfidf_speed.py /tmp/corpus.txt
func TestWriteSpeedCorpus(t *testing.T) {
	if *speedCorpus == "" {
		t.Skip("no -speed-corpus")
	}
	docs := synthCorpus(100_000, 1)
	if err := os.WriteFile(*speedCorpus, []byte(strings.Join(docs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*speedCorpus+".stop", []byte(strings.Join(StopWords(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFit100k fits the vocabulary and TF-IDF matrix of 100 000
// synthetic documents of about 30 words (the speed target, against
// testdata/tfidf_speed.py):
//
//	go test ./stats/text -run '^$' -bench Fit100k -count 6
func BenchmarkFit100k(b *testing.B) {
	docs := synthCorpus(100_000, 1)
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		Fit(docs)
	}
	b.ReportMetric(float64(b.N)*float64(len(docs))/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkTransform encodes the same documents with their vocabulary.
func BenchmarkTransform(b *testing.B) {
	docs := synthCorpus(100_000, 1)
	voc, _ := Fit(docs)
	e := NewEncoder(voc.Words(), voc.IDF)
	b.ReportAllocs()
	for b.Loop() {
		e.Transform(docs)
	}
	b.ReportMetric(float64(b.N)*float64(len(docs))/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkImportance scores the words of the same documents against a
// three-class target.
func BenchmarkImportance(b *testing.B) {
	docs := synthCorpus(100_000, 1)
	_, m := Fit(docs)
	y := make([]float64, m.Rows)
	for i := range y {
		y[i] = float64(i % 3)
	}
	b.ReportAllocs()
	for b.Loop() {
		Importance(m, y, true)
	}
}
