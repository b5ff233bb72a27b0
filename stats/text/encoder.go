package text

import "strings"

// Encoder encodes documents with a stored vocabulary (MODELLING §10,
// prediction): the same tokens and bigrams as Fit, counted on the given
// terms only, times their stored idf, rows L2-normalised. It is safe for
// concurrent use.
//
// Rows are normalised over the encoder's own terms. To reproduce the rows
// of Fit's matrix after CSR.Select, build the encoder over all the words
// (Vocabulary.Words and IDF) and Select the same columns from Transform's
// result; an encoder over the selected terms alone normalises over those.
type Encoder struct {
	tokens map[string]int32 // the tokens that occur in a term → token id
	uni    []int32          // token id → column of the unigram, −1 if none
	bi     map[uint64]int32 // token ids a<<32 | b → column of the bigram
	idf    []float64
}

// NewEncoder returns an encoder whose column j is the term terms[j] (a
// token or a bigram "tok1 tok2", as Term.Text) with idf idf[j]. The terms
// are distinct and none is a stop-list word. It panics when the lengths
// differ.
func NewEncoder(terms []string, idf []float64) *Encoder {
	if len(terms) != len(idf) {
		panic("text: NewEncoder length mismatch")
	}
	e := &Encoder{
		tokens: make(map[string]int32),
		bi:     make(map[uint64]int32),
		idf:    idf,
	}
	token := func(s string) int32 {
		id, ok := e.tokens[s]
		if !ok {
			id = int32(len(e.uni))
			e.tokens[s] = id
			e.uni = append(e.uni, -1)
		}
		return id
	}
	for j, t := range terms {
		if a, b, ok := strings.Cut(t, " "); ok {
			e.bi[uint64(token(a))<<32|uint64(token(b))] = int32(j)
		} else {
			e.uni[token(t)] = int32(j)
		}
	}
	return e
}

// Transform returns the TF-IDF matrix of docs, one row per document, one
// column per term of the encoder. Terms that the encoder does not know are
// ignored; a document without known terms gives an empty row.
func (e *Encoder) Transform(docs []string) *CSR {
	b := newTFIDFRows(len(docs), len(e.idf), 0)
	var (
		sc   scanner
		seq  []int32 // remaining tokens: token id, −1 for an unknown token
		row  []entry
		slot = make([]int32, len(e.idf)) // column → position in row + 1, 0: absent
	)
	countCol := func(j int32) {
		if s := slot[j]; s != 0 {
			row[s-1].v++
			return
		}
		row = append(row, entry{col: j, v: 1})
		slot[j] = int32(len(row))
	}
	for _, doc := range docs {
		sc.reset(doc)
		seq, row = seq[:0], row[:0]
		for tok := sc.next(); tok != nil; tok = sc.next() {
			id, ok := e.tokens[string(tok)]
			switch {
			case ok:
				if j := e.uni[id]; j >= 0 {
					countCol(j)
				}
			case isStop(tok):
				continue // removed before bigrams are formed
			default:
				id = -1 // an unknown token still separates its neighbours
			}
			seq = append(seq, id)
		}
		for k := 1; k < len(seq); k++ {
			a, b := seq[k-1], seq[k]
			if a < 0 || b < 0 {
				continue
			}
			if j, ok := e.bi[uint64(a)<<32|uint64(b)]; ok {
				countCol(j)
			}
		}
		for _, en := range row {
			slot[en.col] = 0
		}
		b.append(row, e.idf)
	}
	return b.m
}
