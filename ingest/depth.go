package ingest

import (
	"errors"
	"fmt"
	"io"
)

// MaxJSONDepth is the deepest nesting of arrays and objects accepted in
// any JSON input: a body's top-level value is at depth 1, a dataset row
// at 3, a column's metadata at 3. A constant, not a flag: no request of
// the API nests deeper than four levels, and encoding/json's Decoder.Token
// keeps one stack entry per open level, so an unbounded depth lets a small
// compressed body take gigabytes.
const MaxJSONDepth = 64

// ErrTooDeep is matched (errors.Is) by the read error of a LimitDepth
// reader whose JSON text nests deeper than MaxJSONDepth.
var ErrTooDeep = errors.New("ingest: JSON nests arrays and objects deeper than 64 levels")

// depthScanner follows the nesting of a JSON text, byte by byte, without
// validating it: only strings (whose brackets do not count) and brackets
// matter. Malformed JSON is the decoder's to report.
type depthScanner struct {
	depth int
	off   int64 // bytes scanned
	str   bool  // inside a string
	esc   bool  // after a backslash inside a string
}

// scan advances over p and reports ErrTooDeep, with the byte offset, as
// soon as an array or object opens beyond MaxJSONDepth.
func (s *depthScanner) scan(p []byte) error {
	for i, c := range p {
		switch {
		case s.esc:
			s.esc = false
		case s.str:
			switch c {
			case '\\':
				s.esc = true
			case '"':
				s.str = false
			}
		case c == '"':
			s.str = true
		case c == '[' || c == '{':
			if s.depth++; s.depth > MaxJSONDepth {
				return fmt.Errorf("%w (at byte %d)", ErrTooDeep, s.off+int64(i))
			}
		case c == ']' || c == '}':
			s.depth--
		}
	}
	s.off += int64(len(p))
	return nil
}

type depthReader struct {
	r   io.Reader
	s   depthScanner
	err error
}

// LimitDepth returns a reader of r that fails, with an error matching
// ErrTooDeep, once the JSON text read through it nests arrays and objects
// deeper than MaxJSONDepth; the bytes of the read that went too deep are
// not returned. A decoder reading through it never holds more than
// MaxJSONDepth levels.
func LimitDepth(r io.Reader) io.Reader { return &depthReader{r: r} }

func (d *depthReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if serr := d.s.scan(p[:n]); serr != nil {
		d.err = serr
		return 0, serr
	}
	return n, err
}

// CheckDepth reports an error matching ErrTooDeep when the JSON text b
// nests deeper than MaxJSONDepth.
func CheckDepth(b []byte) error {
	var s depthScanner
	return s.scan(b)
}
