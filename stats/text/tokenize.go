package text

import (
	"unicode"
	"unicode/utf8"
)

// asciiLower maps an ASCII word byte (letter, digit, underscore) to its
// lower case and every other ASCII byte to 0, the fast path of scanner.
var asciiLower = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// isWordRune reports whether r is a word character of MODELLING §10: a
// letter, a digit or an underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// scanner walks a document's tokens before stop-word removal. It
// lower-cases each rune first (unicode.ToLower, the simple case mapping)
// and then classifies it, so the order of §10 (lower-case, then split) holds
// even for the few letters whose lower case is not a letter. A byte that is
// not valid UTF-8 is a separator.
//
// Tokens are written into buf, so that callers can look them up in a
// map[string] without allocating (m[string(b)]); the bytes of a token are
// valid until the next call of next.
type scanner struct {
	doc string
	pos int
	buf []byte
}

// reset points s at doc, keeping its buffer.
func (s *scanner) reset(doc string) {
	s.doc, s.pos = doc, 0
}

// next returns the next run of at least two word characters, lower-cased,
// or nil when doc is exhausted.
func (s *scanner) next() []byte {
	doc := s.doc
	s.buf = s.buf[:0]
	n := 0 // runes in the current run
	for i := s.pos; i < len(doc); {
		c := doc[i]
		if c < utf8.RuneSelf {
			i++
			if l := asciiLower[c]; l != 0 {
				s.buf = append(s.buf, l)
				n++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(doc[i:])
			i += size
			if r != utf8.RuneError || size > 1 {
				if l := unicode.ToLower(r); isWordRune(l) {
					s.buf = utf8.AppendRune(s.buf, l)
					n++
					continue
				}
			}
		}
		// A separator ends the run.
		if n >= 2 {
			s.pos = i
			return s.buf
		}
		s.buf, n = s.buf[:0], 0
	}
	s.pos = len(doc)
	if n >= 2 {
		return s.buf
	}
	return nil
}

// Tokenize appends doc's tokens (MODELLING §10) to dst and returns the
// extended slice: the document is lower-cased (Unicode simple case
// mapping), split into maximal runs of letters, digits and underscores
// (unicode.IsLetter, unicode.IsDigit, '_'), runs of one character are
// dropped and stop-list words (IsStopWord) removed. Apostrophes and
// punctuation split, so "don't" gives "don" and "I've" gives "ve"; bytes
// that are not valid UTF-8 act as separators. Fit and Encoder use the
// same rules. It is safe for concurrent use.
func Tokenize(dst []string, doc string) []string {
	s := scanner{doc: doc}
	for tok := s.next(); tok != nil; tok = s.next() {
		if !isStop(tok) {
			dst = append(dst, string(tok))
		}
	}
	return dst
}
