package ingest

import (
	"encoding/binary"
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
// soon as an array or object opens beyond MaxJSONDepth. It skips the
// bytes that change nothing (strDone marks what ends or escapes a
// string's run, depthBytes what matters outside strings) in tight loops:
// a predict body is mostly short strings, where a switch on every byte
// cost about 40 ms of CPU per 100 000-row body.
func (s *depthScanner) scan(p []byte) error {
	i, n := 0, len(p)
	for i < n {
		if s.esc {
			s.esc = false
			i++
			continue
		}
		if s.str {
			// Eight bytes at a time while none is '"' or '\\'.
			for i+8 <= n {
				w := binary.LittleEndian.Uint64(p[i:])
				if hasByte(w, '"')|hasByte(w, '\\') != 0 {
					break
				}
				i += 8
			}
			for i < n && !strDone[p[i]] {
				i++
			}
			if i == n {
				break
			}
			if p[i] == '\\' {
				s.esc = true
			} else {
				s.str = false
			}
			i++
			continue
		}
		for i < n && !depthBytes[p[i]] {
			i++
		}
		if i == n {
			break
		}
		switch p[i] {
		case '"':
			s.str = true
		case '[', '{':
			if s.depth++; s.depth > MaxJSONDepth {
				return fmt.Errorf("%w (at byte %d)", ErrTooDeep, s.off+int64(i))
			}
		default: // ']', '}'
			s.depth--
		}
		i++
	}
	s.off += int64(n)
	return nil
}

// hasByte is not zero when a byte of w is c (the zero-byte test of
// w ^ c repeated: Hacker's Delight 6-1).
func hasByte(w uint64, c byte) uint64 {
	v := w ^ (0x0101010101010101 * uint64(c))
	return (v - 0x0101010101010101) &^ v & 0x8080808080808080
}

// strDone marks the bytes that end a string's run ('"', '\\');
// depthBytes those that matter outside strings.
var strDone, depthBytes = func() (str, out [256]bool) {
	str['"'], str['\\'] = true, true
	for _, c := range []byte(`"[]{}`) {
		out[c] = true
	}
	return str, out
}()

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
