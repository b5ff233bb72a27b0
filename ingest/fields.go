package ingest

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// fieldSet holds the fields of a run of rows without copying them: each
// field is a pair of offsets into the input chunk, or, for a quoted field
// with doubled quotes that had to be unescaped, into esc (stored as ^off).
// Rows are laid out row-major with ncol fields each.
type fieldSet struct {
	data  []byte  // the input the offsets refer to
	refs  []int32 // 2 per field: start, end
	esc   []byte
	lines []int32 // per row: its first physical line, 1-based within data
	ncol  int
	rows  int
	// maxCols, when positive, bounds the fields of a record whose width is
	// not known yet (ncol < 0, a header): splitCSV fails as soon as the
	// record has more, so an endless header costs nothing per field.
	maxCols int
}

func (fs *fieldSet) reset(data []byte, ncol int) {
	fs.data = data
	fs.refs = fs.refs[:0]
	fs.esc = fs.esc[:0]
	fs.lines = fs.lines[:0]
	fs.ncol = ncol
	fs.rows = 0
}

// field returns the bytes of field col of row row.
func (fs *fieldSet) field(row, col int) []byte {
	k := 2 * (row*fs.ncol + col)
	s, e := fs.refs[k], fs.refs[k+1]
	if s < 0 {
		return fs.esc[^s:^e]
	}
	return fs.data[s:e]
}

// csvSyntaxError is a CSV syntax problem found by splitCSV.
type csvSyntaxError struct {
	line  int32 // 1-based within the chunk
	field int   // 0-based field index, -1 when not known
	msg   string
}

// special marks the bytes that end an unquoted CSV field or are not allowed
// in one.
var special = [256]bool{',': true, '\n': true, '"': true}

// splitCSV splits data, which starts at a record boundary, into fs. ncol is
// the expected number of fields per record (-1: take it from the first
// record). It stops after maxRows records; when atEOF is false it also stops
// before a record that is not terminated by a newline. It returns the
// number of bytes consumed, the number of physical lines consumed, and a
// syntax error if any.
func splitCSV(fs *fieldSet, data []byte, ncol, maxRows int, atEOF bool) (int, int32, *csvSyntaxError) {
	fs.reset(data, ncol)
	pos := 0
	line := int32(1)
	n := len(data)
	for pos < n && fs.rows < maxRows {
		// Skip blank lines.
		if data[pos] == '\n' {
			pos++
			line++
			continue
		}
		if data[pos] == '\r' && (pos+1 == n || data[pos+1] == '\n') {
			pos++
			if pos < n {
				pos++
				line++
			}
			continue
		}
		recStart, recLine, refStart := pos, line, len(fs.refs)
		nf := 0
		complete := false
	fields:
		for {
			if pos < n && data[pos] == '"' {
				pos++
				start := pos
				escaped := false
				for {
					i := bytes.IndexByte(data[pos:], '"')
					if i < 0 {
						if !atEOF {
							break fields // incomplete record
						}
						return recStart, line - 1, &csvSyntaxError{recLine, nf, "unterminated quoted field"}
					}
					line += int32(bytes.Count(data[pos:pos+i], nl))
					pos += i + 1
					if pos < n && data[pos] == '"' {
						escaped = true
						pos++
						continue
					}
					break
				}
				end := pos - 1
				if escaped {
					es := len(fs.esc)
					v := data[start:end]
					for len(v) > 0 {
						i := bytes.Index(v, dq)
						if i < 0 {
							fs.esc = append(fs.esc, v...)
							break
						}
						fs.esc = append(fs.esc, v[:i+1]...)
						v = v[i+2:]
					}
					fs.refs = append(fs.refs, int32(^es), int32(^len(fs.esc)))
				} else {
					fs.refs = append(fs.refs, int32(start), int32(end))
				}
				nf++
				if fs.ncol < 0 && fs.maxCols > 0 && nf > fs.maxCols {
					return recStart, recLine - 1, &csvSyntaxError{recLine, -1, tooManyColumns(fs.maxCols)}
				}
				if pos == n {
					if !atEOF {
						break fields
					}
					complete = true
					break fields
				}
				switch c := data[pos]; {
				case c == ',':
					pos++
					continue fields
				case c == '\n':
					pos++
					line++
					complete = true
					break fields
				case c == '\r' && pos+1 < n && data[pos+1] == '\n':
					pos += 2
					line++
					complete = true
					break fields
				case c == '\r' && pos+1 == n:
					if !atEOF {
						break fields
					}
					pos++
					complete = true
					break fields
				}
				return recStart, recLine - 1, &csvSyntaxError{line, nf - 1, "unexpected character after a closing quote"}
			}
			start := pos
			pos = scanUnquoted(data, pos)
			if pos < n && data[pos] == '"' {
				return recStart, recLine - 1, &csvSyntaxError{line, nf, `bare " in an unquoted field`}
			}
			end := pos
			if end > start && data[end-1] == '\r' && (pos < n && data[pos] == '\n' || pos == n && atEOF) {
				end--
			}
			fs.refs = append(fs.refs, int32(start), int32(end))
			nf++
			if fs.ncol < 0 && fs.maxCols > 0 && nf > fs.maxCols {
				return recStart, recLine - 1, &csvSyntaxError{recLine, -1, tooManyColumns(fs.maxCols)}
			}
			if pos == n {
				if !atEOF {
					break fields
				}
				complete = true
				break fields
			}
			if data[pos] == ',' {
				pos++
				continue fields
			}
			pos++ // '\n'
			line++
			complete = true
			break fields
		}
		if !complete {
			fs.refs = fs.refs[:refStart]
			return recStart, recLine - 1, nil
		}
		if fs.ncol < 0 {
			fs.ncol = nf
		} else if nf != fs.ncol {
			fs.refs = fs.refs[:refStart]
			return recStart, recLine - 1, &csvSyntaxError{recLine, -1, jaggedMsg(fs.ncol, nf)}
		}
		fs.lines = append(fs.lines, recLine)
		fs.rows++
	}
	return pos, line - 1, nil
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// scanUnquoted returns the index of the first ',', '\n' or '"' in data at or
// after pos, or len(data). It tests eight bytes at a time: for each wanted
// byte c, (x-ones) &^ x & highs with x = word^(c*ones) marks the bytes equal
// to c; borrows can only add marks above the first true one, so the lowest
// mark is exact.
func scanUnquoted(data []byte, pos int) int {
	for pos+8 <= len(data) {
		w := binary.LittleEndian.Uint64(data[pos:])
		a, b, c := w^(ones*','), w^(ones*'\n'), w^(ones*'"')
		m := (a-ones)&^a | (b-ones)&^b | (c-ones)&^c
		if m &= highs; m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(data) && !special[data[pos]] {
		pos++
	}
	return pos
}

var (
	nl = []byte{'\n'}
	dq = []byte{'"', '"'}
)

func jaggedMsg(want, got int) string {
	return "expected " + itoa(want) + " fields, got " + itoa(got)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// cutRecords returns the length of the longest prefix of data that ends
// with a record boundary (a newline outside quotes) and holds at most
// maxRecs boundaries, and the number of newlines in it. It returns 0 when
// data holds no boundary. Parity of quotes decides what is quoted; on
// malformed quoting the cut may be wrong, but splitCSV then reports the
// error before reaching it.
func cutRecords(data []byte, maxRecs int) (cut, lines int) {
	if bytes.IndexByte(data, '"') < 0 {
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			return 0, 0
		}
		cnt := bytes.Count(data[:last+1], nl)
		if cnt <= maxRecs {
			return last + 1, cnt
		}
		pos := 0
		for range maxRecs {
			pos += bytes.IndexByte(data[pos:], '\n') + 1
		}
		return pos, maxRecs
	}
	pos, recs, nlines := 0, 0, 0
	for pos < len(data) {
		// Outside quotes: newlines up to the next quote are boundaries.
		q := bytes.IndexByte(data[pos:], '"')
		seg := data[pos:]
		if q >= 0 {
			seg = seg[:q]
		}
		c := bytes.Count(seg, nl)
		if recs+c >= maxRecs {
			for range maxRecs - recs {
				i := bytes.IndexByte(data[pos:], '\n')
				pos += i + 1
				nlines++
			}
			return pos, nlines
		}
		if c > 0 {
			cut = pos + bytes.LastIndexByte(seg, '\n') + 1
			lines = nlines + c
		}
		recs += c
		nlines += c
		if q < 0 {
			break
		}
		pos += q + 1
		// Inside quotes: skip to the closing quote; "" reopens at once.
		e := bytes.IndexByte(data[pos:], '"')
		if e < 0 {
			break
		}
		nlines += bytes.Count(data[pos:pos+e], nl)
		pos += e + 1
	}
	return cut, lines
}

// firstInvalidUTF8 returns the index of the field (row*ncol+col) holding
// the first invalid UTF-8 sequence, or -1.
func (fs *fieldSet) firstInvalidUTF8() int {
	for k := 0; k < fs.rows*fs.ncol; k++ {
		if !utf8.Valid(fs.field(k/fs.ncol, k%fs.ncol)) {
			return k
		}
	}
	return -1
}
