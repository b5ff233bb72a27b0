package text

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tfidf_tokens.json; then run testdata/tfidf_reference.py")

// readCorpus returns the documents of testdata/tfidf_corpus.txt, one per
// line (empty lines are empty documents).
func readCorpus(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tfidf_corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// boundaryCorpus puts terms on both sides of the document-frequency bounds
// of 20 documents: MaxDF × 20 = 19, so a term in 19 documents is a word and
// one in all 20 is not; MinDF = 2.
func boundaryCorpus() []string {
	docs := make([]string, 20)
	for i := range docs {
		doc := "common"
		if i < 19 {
			doc += " frequent"
		}
		if i < 2 {
			doc += " pair pair"
		}
		if i == 5 {
			doc += " single"
		}
		if i%3 == 0 {
			doc += " tri common"
		}
		docs[i] = doc
	}
	return docs
}

// reference is one corpus of testdata/tfidf_reference.json.
type reference struct {
	Docs  int
	Terms map[string]struct {
		DF  int
		IDF float64
	}
	Rows []map[string]float64
}

// TestTFIDFReference compares Fit with scikit-learn's TfidfVectorizer fed
// with our tokens (testdata/tfidf_reference.py): the same words, document
// frequencies, idf and every non-zero of the matrix, to 1e-12, on the
// fortunes corpus and on one that probes the bounds MinDF and MaxDF.
func TestTFIDFReference(t *testing.T) {
	corpora := map[string][]string{"fortunes": readCorpus(t), "boundary": boundaryCorpus()}
	tokens := map[string][][]string{}
	for name, docs := range corpora {
		tokens[name] = make([][]string, len(docs))
		for i, d := range docs {
			tokens[name][i] = Tokenize([]string{}, d)
		}
	}
	tokPath := filepath.Join("testdata", "tfidf_tokens.json")
	if *update {
		b, err := json.Marshal(tokens)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tokPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("now run /usr/bin/python3 testdata/tfidf_reference.py")
		return
	}
	var stored map[string][][]string
	readJSON(t, tokPath, &stored)
	var refs map[string]reference
	readJSON(t, filepath.Join("testdata", "tfidf_reference.json"), &refs)
	for name, docs := range corpora {
		t.Run(name, func(t *testing.T) {
			if !slices.EqualFunc(stored[name], tokens[name], slices.Equal) {
				t.Fatalf("testdata/tfidf_tokens.json is stale: run go test -run TestTFIDFReference -update, then testdata/tfidf_reference.py")
			}
			ref, ok := refs[name]
			if !ok {
				t.Fatalf("testdata/tfidf_reference.json lacks %s", name)
			}
			checkReference(t, docs, ref)
		})
	}
}

func checkReference(t *testing.T, docs []string, ref reference) {
	const tol = 1e-12
	voc, m := Fit(docs)
	if voc.Docs != ref.Docs || m.Rows != ref.Docs {
		t.Fatalf("Fit: %d docs, %d rows, want %d", voc.Docs, m.Rows, ref.Docs)
	}
	words := voc.Words()
	if len(words) != len(ref.Terms) || m.Cols != len(words) {
		t.Errorf("Fit: %d words, %d columns, want %d", len(words), m.Cols, len(ref.Terms))
	}
	for r, w := range words {
		want, ok := ref.Terms[w]
		switch {
		case !ok:
			t.Errorf("word %q (rank %d) is not a scikit-learn feature", w, r)
		case voc.Terms[r].DF != want.DF || math.Abs(voc.IDF[r]-want.IDF) > tol:
			t.Errorf("word %q: df %d idf %v, want %d %v", w, voc.Terms[r].DF, voc.IDF[r], want.DF, want.IDF)
		}
	}
	nnz := 0
	for i, want := range ref.Rows {
		nnz += len(want)
		for k := m.Indptr[i]; k < m.Indptr[i+1]; k++ {
			w := words[m.Indices[k]]
			if v, ok := want[w]; !ok || math.Abs(m.Data[k]-v) > tol {
				t.Errorf("row %d, %q = %v, want %v (present %v)", i, w, m.Data[k], v, ok)
			}
		}
	}
	if m.NNZ() != nnz {
		t.Errorf("Fit: %d non-zeros, want %d", m.NNZ(), nnz)
	}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
