package text

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	f := func(doc string, want ...string) {
		t.Helper()
		if got := Tokenize(nil, doc); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", doc, got, want)
		}
	}
	f("")
	f("   ,;!? ")
	f("don't", "don")
	f("I've", "ve")
	f("We'll", "ll")
	f("79.01", "79", "01")
	f("The best at cleaning", "best", "cleaning")
	f("a b c de", "de")
	f("Customer SERVICE", "customer", "service")
	f("snake_case __ _x", "snake_case", "__", "_x")
	f("http://t.co/abc&amp;", "http", "co", "abc", "amp")
	f("cancelled Flightled!!", "cancelled", "flightled")
	f("Straße ÉCOLE naïve", "straße", "école", "naïve")
	f("ΣΊΣΥΦΟΣ", "σίσυφοσ") // simple case mapping: no final sigma
	f("İstanbul", "istanbul")
	f("日本語 テキスト", "日本語", "テキスト")
	f("x² ٤٢", "٤٢")            // ² is not a decimal digit (No), Arabic-Indic digits are (Nd)
	f("ab\xffcd", "ab", "cd")   // an invalid byte separates
	f("ab\xc3cd", "ab", "cd")   // a truncated sequence too
	f("ab\uFFFDcd", "ab", "cd") // the replacement character is not a letter
	f("THE at Your and OF")
}

func TestTokenizeAppends(t *testing.T) {
	dst := []string{"keep"}
	if got := Tokenize(dst, "hello world"); !slices.Equal(got, []string{"keep", "hello", "world"}) {
		t.Errorf("Tokenize(dst, ...) = %q", got)
	}
}

func TestStopList(t *testing.T) {
	words := StopWords()
	if len(words) < 280 || len(words) > 340 {
		t.Errorf("stop list has %d words, want about 300", len(words))
	}
	for i, w := range words {
		if got := Tokenize(nil, w+" x"); len(got) != 0 {
			t.Errorf("stop word %q tokenises to %q", w, got)
		}
		if i > 0 && words[i-1] == w {
			t.Errorf("stop word %q listed twice", w)
		}
	}
	if len(stopList) != len(words) {
		t.Errorf("stopList has %d entries, %d distinct", len(stopList), len(words))
	}
	for _, w := range []string{"the", "at", "your", "and", "of", "is", "which", "between"} {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false, want true", w)
		}
	}
	// The recordings keep contraction fragments and web tokens as words.
	for _, w := range []string{"don", "ve", "ll", "re", "didn", "http", "amp", "customer", "The", ""} {
		if IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = true, want false", w)
		}
	}
}

func TestTokenizeLongDocument(t *testing.T) {
	doc := strings.Repeat("Lorem ipsum dolor sit amet, the consectetur 42 adipiscing. ", 1<<20/60)
	got := Tokenize(nil, doc)
	if want := 8 * (1 << 20 / 60); len(got) != want {
		t.Errorf("Tokenize(1 MB) gave %d tokens, want %d", len(got), want)
	}
}

// checkTokens fails unless every token is a lower-case run of at least two
// word characters that is not a stop word.
func checkTokens(t testing.TB, doc string, toks []string) {
	t.Helper()
	for _, tok := range toks {
		if utf8.RuneCountInString(tok) < 2 || !utf8.ValidString(tok) || IsStopWord(tok) {
			t.Fatalf("Tokenize(%q): bad token %q", doc, tok)
		}
		for _, r := range tok {
			if !isWordRune(r) || unicode.ToLower(r) != r {
				t.Fatalf("Tokenize(%q): token %q holds %q", doc, tok, r)
			}
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "don't stop", "79.01", "The best at cleaning", "İstanbul ΣΊΣΥΦΟΣ", "a\xffb\xc3cd", "x²_y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 1<<16 {
			return
		}
		toks := Tokenize(nil, doc)
		checkTokens(t, doc, toks)
		// Fit and Transform never panic and agree: in two of four documents,
		// every term of doc is a word.
		voc, m := Fit([]string{doc, "", doc, ""})
		if m.Rows != 4 || m.Cols != len(voc.IDF) {
			t.Fatalf("Fit(%q): %d×%d matrix, %d words", doc, m.Rows, m.Cols, len(voc.IDF))
		}
		e := NewEncoder(voc.Words(), voc.IDF).Transform([]string{doc})
		if e.NNZ() != m.Indptr[1] || (len(toks) > 0) != (e.NNZ() > 0) {
			t.Fatalf("Transform(%q) has %d non-zeros, Fit's row %d, %d tokens", doc, e.NNZ(), m.Indptr[1], len(toks))
		}
		for k := range e.NNZ() {
			if e.Indices[k] != m.Indices[k] || math.Abs(e.Data[k]-m.Data[k]) > 1e-15 {
				t.Fatalf("Transform(%q) differs from Fit at non-zero %d", doc, k)
			}
		}
	})
}
