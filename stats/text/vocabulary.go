package text

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// The document-frequency bounds of MODELLING §10: a term in fewer than
// MinDF documents, or in more than MaxDF × N of the N documents, is typed
// stopWord (scikit-learn's min_df=2, max_df=0.95).
const (
	MinDF = 2
	MaxDF = 0.95
)

// Term is one vocabulary entry.
type Term struct {
	Text  string // a token, or a bigram "tok1 tok2"
	Stop  bool   // typed stopWord: a stop-list word, or DF < MinDF, or DF > MaxDF × Docs
	Rank  int    // 0, 1, … for words (Stop false), −1 for stop words
	Count int64  // occurrences in the corpus
	DF    int    // documents containing it
}

// Vocabulary is a fitted vocabulary (MODELLING §10).
//
// Terms are in listing order: the words by Rank (rank r is Terms[r]), then
// the stop words alphabetically. IDF[r] is the idf of the word of rank r,
// ln((1 + Docs)/(1 + DF)) + 1 (scikit-learn's smooth_idf), so len(IDF) is
// the number of words and the columns of Fit's matrix.
type Vocabulary struct {
	Docs  int
	Terms []Term
	IDF   []float64
}

// Words returns the texts of the words, by rank: the column names of Fit's
// matrix, and the terms to give NewEncoder with IDF.
func (v *Vocabulary) Words() []string {
	out := make([]string, len(v.IDF))
	for r := range out {
		out[r] = v.Terms[r].Text
	}
	return out
}

// termStat accumulates one term of the corpus during Fit. Its text is not
// kept: unigrams are the keys of fitter.uni, bigrams their pair of ids.
type termStat struct {
	count int64
	df    int32
	last  int32 // last document that counted it, −1 before the first
	slot  int32 // its position in that document's term list
	a, b  int32 // the unigram ids of a bigram; a = −1 for a unigram
	stop  bool  // a stop-list word
}

// Fit builds the vocabulary of docs and returns it with the TF-IDF matrix of
// the same documents (MODELLING §10). A missing document is "".
//
// Each document is tokenised by Tokenize's rules; its terms are the
// remaining tokens and the bigrams "t1 t2" of consecutive remaining tokens.
// Stop-list words that occur are listed as stop words (as unigrams: they
// never form bigrams, and a bigram spans the stop words between its two
// tokens, as "best cleaning" in "The best at cleaning"). A term is a word
// unless it is a stop-list word or its document frequency is below MinDF
// or above MaxDF × len(docs). Words are ranked by total count, descending,
// ties by document frequency, descending, then by text.
//
// The matrix has one row per document and one column per word (column r is
// the word of rank r): the raw count of the word in the document times its
// idf, each row scaled to unit Euclidean norm (a row without words stays
// empty). Without any word (all documents empty, or a single document, whose
// terms all fall below MinDF) the vocabulary has no words and the matrix no
// columns.
//
// Cost: one tokenising pass that interns terms (unigrams by text, bigrams
// by their pair of unigram ids, so no string is built per occurrence), then
// a sort of the distinct terms; memory is the distinct terms plus the
// (document, term) pairs.
func Fit(docs []string) (*Vocabulary, *CSR) {
	f := fitter{
		uni: make(map[string]int32),
		bi:  make(map[uint64]int32),
	}
	docPtr := make([]int, 1, len(docs)+1)
	for d, doc := range docs {
		f.add(int32(d), doc)
		docPtr = append(docPtr, len(f.docTerms))
	}
	voc, rank := f.vocabulary(len(docs))

	nnz := 0
	for _, id := range f.docTerms {
		if rank[id] >= 0 {
			nnz++
		}
	}
	b := newTFIDFRows(len(docs), len(voc.IDF), nnz)
	var row []entry
	for d := range docs {
		row = row[:0]
		for k := docPtr[d]; k < docPtr[d+1]; k++ {
			if r := rank[f.docTerms[k]]; r >= 0 {
				row = append(row, entry{col: r, v: float64(f.docCounts[k])})
			}
		}
		b.append(row, voc.IDF)
	}
	return voc, b.m
}

// fitter interns the terms of a corpus.
type fitter struct {
	uni   map[string]int32 // unigram text → term id
	bi    map[uint64]int32 // unigram ids a<<32 | b → term id
	terms []termStat

	// docTerms and docCounts list, document after document, the distinct
	// term ids of each document and their counts.
	docTerms  []int32
	docCounts []int32

	sc  scanner
	seq []int32 // the current document's remaining (non-stop) tokens
}

// add counts the terms of document d.
func (f *fitter) add(d int32, doc string) {
	f.sc.reset(doc)
	f.seq = f.seq[:0]
	for tok := f.sc.next(); tok != nil; tok = f.sc.next() {
		id, ok := f.uni[string(tok)]
		if !ok {
			text := string(tok)
			id = f.newTerm(-1, -1, IsStopWord(text))
			f.uni[text] = id
		}
		f.count(d, id)
		if !f.terms[id].stop {
			f.seq = append(f.seq, id)
		}
	}
	for k := 1; k < len(f.seq); k++ {
		a, b := f.seq[k-1], f.seq[k]
		key := uint64(a)<<32 | uint64(b)
		id, ok := f.bi[key]
		if !ok {
			id = f.newTerm(a, b, false)
			f.bi[key] = id
		}
		f.count(d, id)
	}
}

// newTerm registers a term and returns its id.
func (f *fitter) newTerm(a, b int32, stop bool) int32 {
	f.terms = append(f.terms, termStat{last: -1, a: a, b: b, stop: stop})
	return int32(len(f.terms) - 1)
}

// count adds one occurrence of term id in document d.
func (f *fitter) count(d, id int32) {
	t := &f.terms[id]
	t.count++
	if t.last != d {
		t.last = d
		t.df++
		t.slot = int32(len(f.docTerms))
		f.docTerms = append(f.docTerms, id)
		f.docCounts = append(f.docCounts, 1)
		return
	}
	f.docCounts[t.slot]++
}

// vocabulary types, ranks and lists the interned terms of n documents; it
// returns the vocabulary and the rank of each term id (−1: stop word).
func (f *fitter) vocabulary(n int) (*Vocabulary, []int32) {
	texts, key := f.texts()
	maxDocs := MaxDF * float64(n)
	type ranked struct {
		count int64
		df    int32
		id    int32
		key   uint64
	}
	// Words fill all from the front, stop words from the back.
	all := make([]ranked, len(f.terms))
	nw, ns := 0, len(all)
	for id, t := range f.terms {
		r := ranked{count: t.count, df: t.df, id: int32(id), key: key[id]}
		if t.stop || t.df < MinDF || float64(t.df) > maxDocs {
			ns--
			all[ns] = r
		} else {
			all[nw] = r
			nw++
		}
	}
	words, stops := all[:nw], all[nw:]
	slices.SortFunc(words, func(a, b ranked) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		if c := cmp.Compare(b.df, a.df); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	slices.SortFunc(stops, func(a, b ranked) int { return cmp.Compare(a.key, b.key) })

	rank := make([]int32, len(f.terms))
	v := &Vocabulary{
		Docs:  n,
		Terms: make([]Term, len(f.terms)),
		IDF:   make([]float64, len(words)),
	}
	for r, w := range words {
		rank[w.id] = int32(r)
		v.IDF[r] = idf(n, int(w.df))
		v.Terms[r] = Term{Text: texts[w.id], Rank: r, Count: w.count, DF: int(w.df)}
	}
	for k, s := range stops {
		rank[s.id] = -1
		v.Terms[nw+k] = Term{Text: texts[s.id], Stop: true, Rank: -1, Count: s.count, DF: int(s.df)}
	}
	return v, rank
}

// texts returns the text of each term id, and a key per term whose order
// is the byte order of the texts, so that sorting millions of bigrams
// compares integers rather than strings.
//
// A unigram u gets the key (pos(u)+1) << 32, a bigram "a b" (pos(a)+1) << 32
// | (pos(b)+1), pos being the alphabetical position among the unigrams.
// This is the order of the texts because the separator ' ' sorts below
// every byte a token can hold (letters, digits, '_' and UTF-8 bytes ≥
// 0x80): when a is a proper prefix of c, "a b" < "c…" as a < c; when a = c
// the bigrams compare as b and d do, and the unigram a comes first.
//
// The bigram texts are carved out of one string, so that a corpus with
// millions of distinct bigrams costs one allocation for them.
func (f *fitter) texts() ([]string, []uint64) {
	texts := make([]string, len(f.terms))
	uni := make([]int32, 0, len(f.uni))
	for text, id := range f.uni {
		texts[id] = text
		uni = append(uni, id)
	}
	slices.SortFunc(uni, func(a, b int32) int { return strings.Compare(texts[a], texts[b]) })
	key := make([]uint64, len(f.terms))
	for pos, id := range uni {
		key[id] = uint64(pos+1) << 32
	}

	size := 0
	for id, t := range f.terms {
		if t.a >= 0 {
			key[id] = key[t.a] | key[t.b]>>32
			size += len(texts[t.a]) + 1 + len(texts[t.b])
		}
	}
	var sb strings.Builder
	sb.Grow(size)
	for _, t := range f.terms {
		if t.a >= 0 {
			sb.WriteString(texts[t.a])
			sb.WriteByte(' ')
			sb.WriteString(texts[t.b])
		}
	}
	all, off := sb.String(), 0
	for id, t := range f.terms {
		if t.a >= 0 {
			n := len(texts[t.a]) + 1 + len(texts[t.b])
			texts[id] = all[off : off+n]
			off += n
		}
	}
	return texts, key
}

// idf is the smoothed inverse document frequency of a term in df of n
// documents, as scikit-learn's TfidfTransformer(smooth_idf=True) computes it.
func idf(n, df int) float64 {
	return math.Log(float64(n+1)/float64(df+1)) + 1
}
