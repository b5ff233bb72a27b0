package text

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// termsByText indexes a vocabulary's terms.
func termsByText(v *Vocabulary) map[string]Term {
	m := make(map[string]Term, len(v.Terms))
	for _, t := range v.Terms {
		m[t.Text] = t
	}
	return m
}

func TestFitTyping(t *testing.T) {
	docs := []string{
		"Red apples and green apples.",  // "and" is on the stop list
		"Green apples, red cherries.",   // "red" and "green" in 3 of 4 docs
		"Red wine; green tea.",          // "wine", "tea" in one doc only
		"apples the apples, red green.", // "apples apples" spans "the"
	}
	voc, m := Fit(docs)
	terms := termsByText(voc)
	for _, c := range []struct {
		text  string
		stop  bool
		count int64
		df    int
	}{
		{"apples", false, 5, 3},
		{"red", false, 4, 4}, // df 4 > 0.95 × 4? no: 4 > 3.8, a stop word
		{"green", false, 4, 4},
		{"and", true, 1, 1},           // stop list
		{"the", true, 1, 1},           // stop list
		{"wine", true, 1, 1},          // df 1 < MinDF
		{"apples apples", true, 1, 1}, // across "the"; df 1
		{"red green", true, 1, 1},     // df 1
		{"green apples", false, 2, 2},
	} {
		got, ok := terms[c.text]
		if !ok {
			t.Errorf("term %q missing", c.text)
			continue
		}
		if got.Count != c.count || got.DF != c.df {
			t.Errorf("term %q: count %d df %d, want %d %d", c.text, got.Count, got.DF, c.count, c.df)
		}
		wantStop := c.stop || float64(c.df) > MaxDF*float64(len(docs))
		if got.Stop != wantStop || (got.Rank < 0) != wantStop {
			t.Errorf("term %q: stop %v rank %d, want stop %v", c.text, got.Stop, got.Rank, wantStop)
		}
	}
	if _, ok := terms["and green"]; ok {
		t.Error(`stop-list words form bigrams: "and green" listed`)
	}
	if _, ok := terms["red apples"]; !ok {
		t.Error(`"red apples" missing`)
	}
	if m.Rows != len(docs) || m.Cols != len(voc.IDF) {
		t.Errorf("Fit: %d×%d matrix, want %d×%d", m.Rows, m.Cols, len(docs), len(voc.IDF))
	}
}

func TestFitRanksAndListing(t *testing.T) {
	docs := []string{
		"zeta zeta zeta alpha beta",
		"zeta alpha beta gamma",
		"alpha beta gamma delta",
		"delta gamma omega",
		"omega",
		"",
		"aaa aaa",
		"aaa",
	}
	voc, _ := Fit(docs)
	// Count (df): zeta 4 (2); alpha, beta, gamma, "alpha beta" 3 (3);
	// aaa 3 (2); delta, omega, "beta gamma", "zeta alpha" 2 (2); "zeta
	// zeta" 2 (1) is a stop word.
	var words, stops []string
	for r, term := range voc.Terms {
		if term.Stop {
			stops = append(stops, term.Text)
			continue
		}
		if term.Rank != r || len(stops) > 0 {
			t.Fatalf("Terms[%d] = %+v: words must come first, by rank", r, term)
		}
		words = append(words, term.Text)
	}
	want := []string{"zeta", "alpha", "alpha beta", "beta", "gamma", "aaa", "beta gamma", "delta", "omega", "zeta alpha"}
	if !slices.Equal(words, want) {
		t.Errorf("words by rank = %q, want %q", words, want)
	}
	if !slices.IsSorted(stops) {
		t.Errorf("stop words not alphabetical: %q", stops)
	}
	if !slices.Equal(voc.Words(), words) {
		t.Errorf("Words() = %q, want %q", voc.Words(), words)
	}
	for r, w := range voc.Terms[:len(voc.IDF)] {
		if want := math.Log(float64(len(docs)+1)/float64(w.DF+1)) + 1; voc.IDF[r] != want {
			t.Errorf("IDF[%d] (%q) = %v, want %v", r, w.Text, voc.IDF[r], want)
		}
	}
}

func TestFitRows(t *testing.T) {
	docs := []string{"cat dog cat", "dog cat", "bird", "", "the of and"}
	voc, m := Fit(docs)
	for i := range m.Rows {
		ss := 0.0
		for k := m.Indptr[i]; k < m.Indptr[i+1]; k++ {
			if m.Data[k] <= 0 {
				t.Errorf("row %d stores %v", i, m.Data[k])
			}
			if k > m.Indptr[i] && m.Indices[k] <= m.Indices[k-1] {
				t.Errorf("row %d: columns not increasing", i)
			}
			ss += m.Data[k] * m.Data[k]
		}
		empty := m.Indptr[i] == m.Indptr[i+1]
		if !empty && math.Abs(ss-1) > 1e-12 {
			t.Errorf("row %d: squared norm %v, want 1", i, ss)
		}
		if wantEmpty := i >= 2; empty != wantEmpty {
			t.Errorf("row %d empty = %v, want %v", i, empty, wantEmpty)
		}
	}
	// Row 0: cat (tf 2), dog (tf 1), "cat dog" and "dog cat" (tf 1 each).
	terms := termsByText(voc)
	col := func(s string) int { return terms[s].Rank }
	idf := func(s string) float64 { return voc.IDF[col(s)] }
	if col("cat dog") >= 0 || col("dog cat") < 0 {
		t.Fatalf("typing: %+v", voc.Terms)
	}
	w := []float64{2 * idf("cat"), idf("dog"), idf("dog cat")}
	norm := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
	for k, s := range []string{"cat", "dog", "dog cat"} {
		if got := m.At(0, col(s)); math.Abs(got-w[k]/norm) > 1e-15 {
			t.Errorf("At(0, %q) = %v, want %v", s, got, w[k]/norm)
		}
	}
}

func TestFitDegenerate(t *testing.T) {
	for name, docs := range map[string][]string{
		"none":         nil,
		"empty":        {"", "", ""},
		"stop words":   {"the", "and of", ""},
		"one document": {"only once here"},
		"one distinct": {"same text", "same text", "same text"}, // every term in 100 % of docs
		"invalid utf8": {"\xff\xfe\xc3", "\xff"},
	} {
		t.Run(name, func(t *testing.T) {
			voc, m := Fit(docs)
			if len(voc.IDF) != 0 || m.Cols != 0 || m.Rows != len(docs) || m.NNZ() != 0 || len(m.Indptr) != len(docs)+1 {
				t.Errorf("Fit(%q) = %d words, %d×%d matrix with %d non-zeros", docs, len(voc.IDF), m.Rows, m.Cols, m.NNZ())
			}
			if voc.Docs != len(docs) {
				t.Errorf("Docs = %d, want %d", voc.Docs, len(docs))
			}
			for _, term := range voc.Terms {
				if !term.Stop || term.Rank != -1 {
					t.Errorf("term %+v, want a stop word", term)
				}
			}
		})
	}
}

func TestFitLongDocument(t *testing.T) {
	long := strings.Repeat("alpha beta gamma delta ", 1<<20/24)
	voc, m := Fit([]string{long, "alpha beta", "gamma"})
	terms := termsByText(voc)
	if got := terms["alpha beta"]; got.Stop || got.Count != 1<<20/24+1 {
		t.Errorf(`"alpha beta" = %+v`, got)
	}
	if m.Rows != 3 || m.Cols == 0 {
		t.Errorf("%d×%d matrix", m.Rows, m.Cols)
	}
}

func TestEncoderMatchesFit(t *testing.T) {
	docs := readCorpus(t)
	voc, m := Fit(docs)
	got := NewEncoder(voc.Words(), voc.IDF).Transform(docs)
	if got.Rows != m.Rows || got.Cols != m.Cols || !slices.Equal(got.Indptr, m.Indptr) || !slices.Equal(got.Indices, m.Indices) {
		t.Fatalf("Transform(training docs) differs from Fit in shape or sparsity")
	}
	for k := range m.Data {
		if math.Abs(got.Data[k]-m.Data[k]) > 1e-15 {
			t.Fatalf("Transform: value %d = %v, Fit %v", k, got.Data[k], m.Data[k])
		}
	}
}

func TestEncoderUnseen(t *testing.T) {
	e := NewEncoder([]string{"red", "apples", "red apples", "green"}, []float64{1, 2, 3, 4})
	m := e.Transform([]string{
		"Red apples!",          // red, apples, red apples
		"red and the apples",   // stop words in between: still the bigram
		"red shiny apples",     // an unknown word breaks the bigram
		"purple bananas",       // nothing known
		"",                     //
		"green green red pear", // red and green, no known bigram
	})
	want := [][]float64{
		{1, 2, 3, 0},
		{1, 2, 3, 0},
		{1, 2, 0, 0},
		{0, 0, 0, 0},
		{0, 0, 0, 0},
		{1, 0, 0, 8},
	}
	for i, row := range want {
		norm := 0.0
		for _, v := range row {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for j, v := range row {
			if norm > 0 {
				v /= norm
			}
			if got := m.At(i, j); math.Abs(got-v) > 1e-15 {
				t.Errorf("Transform row %d col %d = %v, want %v", i, j, got, v)
			}
		}
	}
}

func TestCSRSelect(t *testing.T) {
	m := &CSR{Rows: 3, Cols: 4, Indptr: []int{0, 2, 2, 5}, Indices: []int32{0, 3, 1, 2, 3}, Data: []float64{1, 2, 3, 4, 5}}
	for _, cols := range [][]int{{3, 0}, {0, 1, 2, 3}, {2}, {}, {1, 3, 2}} {
		s := m.Select(cols)
		if s.Rows != m.Rows || s.Cols != len(cols) {
			t.Fatalf("Select(%v): %d×%d", cols, s.Rows, s.Cols)
		}
		for i := range m.Rows {
			for j, c := range cols {
				if s.At(i, j) != m.At(i, c) {
					t.Errorf("Select(%v).At(%d, %d) = %v, want %v", cols, i, j, s.At(i, j), m.At(i, c))
				}
			}
			for k := s.Indptr[i] + 1; k < s.Indptr[i+1]; k++ {
				if s.Indices[k] <= s.Indices[k-1] {
					t.Errorf("Select(%v): row %d columns not increasing", cols, i)
				}
			}
		}
	}
	for _, bad := range [][]int{{4}, {-1}, {1, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Select(%v) did not panic", bad)
				}
			}()
			m.Select(bad)
		}()
	}
}
