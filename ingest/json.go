package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vaticml/vatic/columnar"
)

// JSONMeta is what a JSON body says besides its rows, handed to the
// prepare function of NewJSON before any row is converted.
type JSONMeta struct {
	Columns          []columnar.Spec // in body order
	MissingValues    []string
	HasData          bool
	HasColumns       bool
	HasMissingValues bool
}

const (
	maxJSONBatchBytes = 4 << 20 // value bytes per batch
	maxSpoolMemory    = 4 << 20 // spooled rows kept in memory before a temp file
)

// NewJSON returns a Reader of the JSON body in r: either an object with
// the properties data (array of row objects), columns and missingValues
// (matched case-insensitively; others ignored), or a top-level array of
// rows. It reads the body up to the rows; when columns or missingValues
// may still follow the rows, the rows are spooled (in memory up to 4 MiB,
// then to a temporary file in Options.SpoolDir removed by Release) and the
// rest of the body is read first. It then calls prepare (when not nil) with what it found and
// converts the rows with the Options prepare returns; an error from prepare
// is returned as is. A body without data yields no batches.
func NewJSON(r io.Reader, opts Options, prepare func(JSONMeta) (Options, error)) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, bom) {
		br.Discard(3)
	}
	// Every byte the decoders see passes the depth limit first: the rows
	// spooled on the way were read through it too.
	dec := newJSONDecoder(LimitDepth(br))
	maxCols := opts.withDefaults().MaxColumns
	var meta JSONMeta
	src := &rowSource{dec: dec}
	var sp *spool
	fail := func(err error) (*Reader, error) {
		if sp != nil {
			sp.remove()
		}
		return nil, err
	}

	tok, err := dec.ReadToken()
	if err == io.EOF {
		return nil, &ParseError{Msg: "no data"}
	}
	if err != nil {
		return nil, jsonError(dec, 0, err)
	}
	switch tok.Kind() {
	case '[':
		meta.HasData = true
		src.topArray = true
	case '{':
	props:
		for more(dec) {
			tok, err := dec.ReadToken()
			if err != nil {
				return fail(jsonError(dec, 0, err))
			}
			key := tok.String()
			switch {
			case strings.EqualFold(key, "data") && !meta.HasData:
				tok, err := dec.ReadToken()
				if err != nil {
					return fail(jsonError(dec, 0, err))
				}
				if tok.Kind() == 'n' {
					continue
				}
				if tok.Kind() != '[' {
					return fail(&ParseError{Msg: "data must be an array"})
				}
				meta.HasData = true
				if meta.HasColumns && meta.HasMissingValues {
					src.inObject = true // nothing left to learn: stream the rows
					break props
				}
				if sp, err = spoolRows(dec, opts.withDefaults()); err != nil {
					return fail(err)
				}
			case strings.EqualFold(key, "columns") && !meta.HasColumns:
				if meta.Columns, meta.HasColumns, err = readColumns(dec, maxCols); err != nil {
					return fail(err)
				}
			case strings.EqualFold(key, "missingValues") && !meta.HasMissingValues:
				if meta.MissingValues, meta.HasMissingValues, err = readStrings(dec); err != nil {
					return fail(err)
				}
			default:
				if err := dec.SkipValue(); err != nil {
					return fail(jsonError(dec, 0, err))
				}
			}
		}
		if !src.inObject {
			if err := finishObject(dec); err != nil {
				return fail(err)
			}
		}
	default:
		return nil, &ParseError{Msg: "expected a JSON object or array"}
	}
	if sp != nil {
		rd, err := sp.reader()
		if err != nil {
			return fail(err)
		}
		src = &rowSource{dec: newJSONDecoder(rd), spooled: true}
	}

	if prepare != nil {
		if opts, err = prepare(meta); err != nil {
			return fail(err)
		}
	}
	opts = opts.withDefaults()
	j := &jsonReader{
		src: src, cv: newConverter(opts), opts: opts, spool: sp,
		index: make(map[string]int), exact: make(map[string]int),
	}
	rd := &Reader{}
	j.r = rd
	rd.next = j.next
	rd.stop = j.stop
	if meta.HasData {
		if err := j.sample(); err != nil {
			j.stop()
			return nil, err
		}
	} else {
		j.eof = true
	}
	rd.buildSchema()
	return rd, nil
}

// newJSONDecoder reads JSON as encoding/json did before it: a name
// repeated in an object is allowed (a row's later value replaces the
// earlier) and invalid UTF-8 in a string becomes U+FFFD.
func newJSONDecoder(r io.Reader) *jsonDecoder {
	t := &readTracker{r: r}
	return &jsonDecoder{Decoder: jsontext.NewDecoder(t, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)), src: t}
}

// jsonDecoder is a jsontext.Decoder that knows its reader's error: the
// decoder wraps it, in some paths inside a SyntacticError, and jsonError
// must tell a body cut by the size cap or the depth limit from a
// malformed one.
type jsonDecoder struct {
	*jsontext.Decoder
	src *readTracker
}

// readTracker keeps the first error of r other than io.EOF.
type readTracker struct {
	r   io.Reader
	err error
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

// more reports whether the object or array being read has another
// member: false at its end; true when the next read fails, so that the
// caller's read reports the error where it reads a member.
func more(dec *jsonDecoder) bool {
	k := dec.PeekKind()
	return k != '}' && k != ']'
}

// jsonError reports a decoder error: malformed JSON or JSON nested too
// deep is a ParseError with the byte offset; an error of the underlying
// reader (the size cap, a broken connection, corrupt compression) passes
// through so the caller can tell a body that is too large from one that is
// malformed.
func jsonError(dec *jsonDecoder, row int64, err error) error {
	if rerr := dec.src.err; rerr != nil && !errors.Is(rerr, io.ErrUnexpectedEOF) {
		if errors.Is(rerr, ErrTooDeep) {
			return &ParseError{Row: row, Msg: strings.TrimPrefix(rerr.Error(), "ingest: ")}
		}
		return readError(rerr)
	}
	var syn *jsontext.SyntacticError
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &ParseError{Row: row, Msg: fmt.Sprintf("malformed JSON at byte %d: unexpected end of JSON input", dec.InputOffset())}
	case errors.As(err, &syn):
		msg := "syntax error"
		if syn.Err != nil {
			msg = strings.TrimPrefix(syn.Err.Error(), "jsontext: ")
		}
		return &ParseError{Row: row, Msg: fmt.Sprintf("malformed JSON at byte %d: %s", syn.ByteOffset, msg)}
	}
	return readError(err)
}

// finishObject reads the closing brace of the top-level object and checks
// that nothing follows it.
func finishObject(dec *jsonDecoder) error {
	if _, err := dec.ReadToken(); err != nil {
		return jsonError(dec, 0, err)
	}
	return checkEOF(dec)
}

func checkEOF(dec *jsonDecoder) error {
	if _, err := dec.ReadToken(); err != io.EOF {
		return &ParseError{Msg: fmt.Sprintf("unexpected data after the top-level value at byte %d", dec.InputOffset())}
	}
	return nil
}

// tokenText is the text of a scalar token (strings unescaped, numbers
// as written), whether it is null, and false for a delimiter.
func tokenText(tok jsontext.Token) (s string, null, ok bool) {
	switch tok.Kind() {
	case '"', '0', 't', 'f':
		return tok.String(), false, true
	case 'n':
		return "", true, true
	}
	return "", false, false
}

// readColumns reads the columns property: name → {dataType, role,
// imputation, aggregation}, property names in any case.
// More than maxCols columns is a ParseError, found at the first extra one.
func readColumns(dec *jsonDecoder, maxCols int) ([]columnar.Spec, bool, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, false, jsonError(dec, 0, err)
	}
	if tok.Kind() == 'n' {
		return nil, false, nil
	}
	if tok.Kind() != '{' {
		return nil, false, &ParseError{Msg: "columns must be an object"}
	}
	specs := []columnar.Spec{}
	for more(dec) {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false, jsonError(dec, 0, err)
		}
		if len(specs) == maxCols {
			return nil, false, &ParseError{Msg: "columns: " + tooManyColumns(maxCols)}
		}
		spec := columnar.Spec{Name: tok.String()}
		if tok, err = dec.ReadToken(); err != nil {
			return nil, false, jsonError(dec, 0, err)
		}
		switch tok.Kind() {
		case 'n':
		case '{':
			for more(dec) {
				k, err := dec.ReadToken()
				if err != nil {
					return nil, false, jsonError(dec, 0, err)
				}
				key := k.String()
				var dst *string
				switch {
				case strings.EqualFold(key, "dataType"):
					dst = &spec.DataType
				case strings.EqualFold(key, "role"):
					dst = &spec.Role
				case strings.EqualFold(key, "imputation"):
					dst = &spec.Imputation
				case strings.EqualFold(key, "aggregation"):
					dst = &spec.Aggregation
				default:
					if err := dec.SkipValue(); err != nil {
						return nil, false, jsonError(dec, 0, err)
					}
					continue
				}
				v, err := dec.ReadToken()
				if err != nil {
					return nil, false, jsonError(dec, 0, err)
				}
				s, _, ok := tokenText(v)
				if !ok {
					return nil, false, &ParseError{Column: spec.Name, Msg: fmt.Sprintf("columns: %s must be a string", key)}
				}
				*dst = s
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, false, jsonError(dec, 0, err)
			}
		default:
			return nil, false, &ParseError{Column: spec.Name, Msg: "columns: column metadata must be an object"}
		}
		specs = append(specs, spec)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false, jsonError(dec, 0, err)
	}
	return specs, true, nil
}

// readStrings reads the missingValues property: an array of strings
// (numbers and booleans are taken as their text, nulls are skipped).
func readStrings(dec *jsonDecoder) ([]string, bool, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, false, jsonError(dec, 0, err)
	}
	if tok.Kind() == 'n' {
		return nil, false, nil
	}
	if tok.Kind() != '[' {
		return nil, false, &ParseError{Msg: "missingValues must be an array of strings"}
	}
	out := []string{}
	for more(dec) {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false, jsonError(dec, 0, err)
		}
		s, null, ok := tokenText(tok)
		if !ok {
			return nil, false, &ParseError{Msg: "missingValues must be an array of strings"}
		}
		if !null {
			out = append(out, s)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false, jsonError(dec, 0, err)
	}
	return out, true, nil
}

// spoolPattern names spool files (os.CreateTemp's pattern).
const spoolPattern = "vatic-ingest-*.json"

// RemoveSpools removes the spool files (JSON rows, Parquet bodies) left in
// dir (Options.SpoolDir) by a process that ended without releasing its
// Readers, and reports how many it removed. Call it only when no other
// process spools into dir.
func RemoveSpools(dir string) (int, error) {
	var left []string
	for _, pattern := range []string{spoolPattern, parquetSpoolPattern} {
		files, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return 0, err
		}
		left = append(left, files...)
	}
	n := 0
	for _, f := range left {
		switch err := os.Remove(f); {
		case err == nil:
			n++
		case !errors.Is(err, fs.ErrNotExist):
			return n, fmt.Errorf("ingest: remove spool: %w", err)
		}
	}
	return n, nil
}

// spool keeps rows read before the metadata that follows them: in memory
// up to maxSpoolMemory, then in a temporary file in dir.
type spool struct {
	dir  string
	mem  bytes.Buffer
	f    *os.File
	w    *bufio.Writer
	rows int64
}

func (s *spool) write(raw []byte) error {
	if s.f == nil && s.mem.Len()+len(raw) > maxSpoolMemory {
		f, err := os.CreateTemp(s.dir, spoolPattern)
		if err != nil {
			return fmt.Errorf("ingest: spool rows: %w", err)
		}
		s.f = f
		s.w = bufio.NewWriterSize(f, 256<<10)
		if _, err := s.w.Write(s.mem.Bytes()); err != nil {
			return fmt.Errorf("ingest: spool rows: %w", err)
		}
		s.mem = bytes.Buffer{}
	}
	var err error
	if s.f != nil {
		if _, err = s.w.Write(raw); err == nil {
			err = s.w.WriteByte('\n')
		}
	} else {
		s.mem.Write(raw)
		s.mem.WriteByte('\n')
	}
	if err != nil {
		return fmt.Errorf("ingest: spool rows: %w", err)
	}
	return nil
}

func (s *spool) reader() (io.Reader, error) {
	if s.f == nil {
		return &s.mem, nil
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("ingest: spool rows: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("ingest: spool rows: %w", err)
	}
	return bufio.NewReaderSize(s.f, 256<<10), nil
}

func (s *spool) remove() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}

// spoolRows copies the rows of the data array (after its '[') to a spool
// in opts.SpoolDir. It applies opts.MaxColumns and opts.CheckName to the
// rows' keys as it goes, so that a body with too many columns is refused
// before the rest is spooled (readRow checks them again as it reads the
// spool).
func spoolRows(dec *jsonDecoder, opts Options) (*spool, error) {
	sp := &spool{dir: opts.SpoolDir}
	keys := map[string]bool{}
	for more(dec) {
		raw, err := dec.ReadValue() // valid until the next read
		if err != nil {
			sp.remove()
			return nil, jsonError(dec, sp.rows+1, err)
		}
		sp.rows++
		err = rowKeys(raw, func(key string) error {
			k := key
			for i := 0; i < len(k); i++ {
				if c := k[i]; c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
					k = strings.ToLower(k)
					break
				}
			}
			if keys[k] {
				return nil
			}
			if len(keys) == opts.MaxColumns {
				return &ParseError{Row: sp.rows, Msg: tooManyColumns(opts.MaxColumns)}
			}
			if opts.CheckName != nil {
				if err := opts.CheckName(key); err != nil {
					return err
				}
			}
			keys[k] = true
			return nil
		})
		if err == nil {
			err = sp.write(raw)
		}
		if err != nil {
			sp.remove()
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil { // ']'
		sp.remove()
		return nil, jsonError(dec, sp.rows+1, err)
	}
	return sp, nil
}

// rowKeys calls fn with each key of raw when raw is an object (valid JSON,
// as a decoder returned it), stopping at fn's first error.
func rowKeys(raw []byte, fn func(key string) error) error {
	if len(raw) == 0 || raw[0] != '{' {
		return nil // not a row: readRow says so
	}
	depth, key := 0, false
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{', '[':
			depth++
			key = depth == 1
		case '}', ']':
			depth--
		case ',':
			key = depth == 1
		case '"':
			j, escaped := i+1, false
			for raw[j] != '"' {
				if raw[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if key {
				k := string(raw[i+1 : j])
				if escaped {
					// The decoder validated raw: the one error left is
					// invalid UTF-8, mangled as readRow mangles it.
					u, _ := jsontext.AppendUnquote(nil, raw[i:j+1])
					k = string(u)
				}
				if err := fn(k); err != nil {
					return err
				}
				key = false
			}
			i = j
		}
	}
	return nil
}

// rowSource yields row objects from the data array of a body, a top-level
// array, or a spool of row values.
type rowSource struct {
	dec      *jsonDecoder
	topArray bool // rows are the top-level array
	inObject bool // rows are the data array inside the top-level object
	spooled  bool // rows are a stream of values
}

// finish reads what follows the rows and checks the end of the body.
func (s *rowSource) finish() error {
	switch {
	case s.spooled:
		return nil
	case s.topArray:
		if _, err := s.dec.ReadToken(); err != nil { // ']'
			return jsonError(s.dec, 0, err)
		}
		return checkEOF(s.dec)
	}
	if _, err := s.dec.ReadToken(); err != nil { // ']'
		return jsonError(s.dec, 0, err)
	}
	for more(s.dec) {
		if _, err := s.dec.ReadToken(); err != nil { // key
			return jsonError(s.dec, 0, err)
		}
		if err := s.dec.SkipValue(); err != nil {
			return jsonError(s.dec, 0, err)
		}
	}
	return finishObject(s.dec)
}

// cell is one non-missing value of a row in sparse form.
type cell struct {
	row, col int32
	s, e     int32
}

type jsonReader struct {
	r     *Reader
	src   *rowSource
	cv    *converter
	opts  Options
	spool *spool
	index map[string]int // lower-case name → column
	exact map[string]int // name as a row spelled it → column

	rowNum int64 // rows read so far
	eof    bool

	// The batch being built, sparse: values in vals, cells per value.
	vals  []byte
	cells []cell
	nrows int

	fs   fieldSet
	lo   int // next row of fs to emit
	keep bool
	key  []byte // an escaped name, unquoted
}

// column returns the index of the column named name, adding it if new:
// a name CheckName refuses, or one column more than MaxColumns, is an
// error.
func (j *jsonReader) column(row int64, name string, typ columnar.DataType) (int, bool, error) {
	k := strings.ToLower(name)
	if i, ok := j.index[k]; ok {
		return i, false, nil
	}
	if len(j.r.cols) == j.opts.MaxColumns {
		return 0, false, &ParseError{Row: row, Msg: tooManyColumns(j.opts.MaxColumns)}
	}
	if j.opts.CheckName != nil {
		if err := j.opts.CheckName(name); err != nil {
			return 0, false, err
		}
	}
	i := len(j.r.cols)
	j.index[k] = i
	c := ColumnInfo{Name: name, DataType: typ}
	if t, ok := j.opts.Declared[k]; ok && t != "" {
		c.DataType, c.Declared = t, true
	}
	j.r.cols = append(j.r.cols, c)
	return i, true, nil
}

// readRow appends one row to the sparse batch. It reports false at the end
// of the rows, and newCol when the row brought a column not seen before
// (added as String, or with its declared type; while sampling, untyped).
func (j *jsonReader) readRow(sampling bool) (ok, newCol bool, err error) {
	dec := j.src.dec
	if j.src.spooled && dec.PeekKind() == jsontext.KindInvalid {
		// The spool's rows are a stream of values: its end is io.EOF.
		if _, err := dec.ReadToken(); err != io.EOF {
			return false, false, jsonError(dec, j.rowNum+1, err)
		}
		j.eof = true
		return false, false, nil
	}
	if !more(dec) {
		j.eof = true
		return false, false, j.src.finish()
	}
	row := j.rowNum + 1
	tok, err := dec.ReadToken()
	if err != nil {
		return false, false, jsonError(dec, row, err)
	}
	if tok.Kind() != '{' {
		return false, false, &ParseError{Row: row, Msg: "row must be an object"}
	}
	start := len(j.cells)
	for more(dec) {
		// Names and values are read raw (valid until the next read): a
		// name is looked up as spelled, without a string, and a value's
		// text goes straight into the batch.
		raw, err := dec.ReadValue()
		if err != nil {
			return false, false, jsonError(dec, row, err)
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			j.key, _ = jsontext.AppendUnquote(j.key[:0], raw)
			name = j.key
		}
		col, known := j.exact[string(name)]
		key := ""
		if !known {
			key = string(name)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return false, false, jsonError(dec, row, err)
		}
		if v[0] == '{' || v[0] == '[' {
			if known {
				key = j.r.cols[col].Name
			}
			return false, false, &ParseError{Row: row, Column: key, Msg: "nested object or array value"}
		}
		if !known {
			typ := columnar.String
			if sampling {
				typ = ""
			}
			var added bool
			if col, added, err = j.column(row, key, typ); err != nil {
				return false, false, err
			}
			newCol = newCol || added
			// Spellings are remembered up to a few per column: a body
			// that spells a name a new way in every row must not grow
			// the map with its rows (the lower-case lookup in column
			// stays bounded by the columns).
			if len(j.exact) < 4*len(j.r.cols) {
				j.exact[key] = col
			}
		}
		// A repeated key replaces the earlier value.
		for i := start; i < len(j.cells); i++ {
			if j.cells[i].col == int32(col) {
				j.cells = append(j.cells[:i], j.cells[i+1:]...)
				break
			}
		}
		vs := len(j.vals)
		switch v[0] {
		case 'n':
			continue // missing; the key still names a column
		case '"':
			j.vals, _ = jsontext.AppendUnquote(j.vals, v)
		default: // a number as written, true or false
			j.vals = append(j.vals, v...)
		}
		j.cells = append(j.cells, cell{row: int32(j.nrows), col: int32(col), s: int32(vs), e: int32(len(j.vals))})
	}
	if _, err := dec.ReadToken(); err != nil {
		return false, false, jsonError(dec, row, err)
	}
	j.rowNum++
	j.nrows++
	return true, newCol, nil
}

// materialize turns the sparse batch into j.fs with ncol columns.
func (j *jsonReader) materialize(ncol int) {
	j.fs.reset(j.vals, ncol)
	n := 2 * j.nrows * ncol
	if cap(j.fs.refs) < n {
		j.fs.refs = make([]int32, n)
	}
	j.fs.refs = j.fs.refs[:n]
	clear(j.fs.refs)
	for _, c := range j.cells {
		k := 2 * (int(c.row)*ncol + int(c.col))
		j.fs.refs[k], j.fs.refs[k+1] = c.s, c.e
	}
	j.fs.rows = j.nrows
	j.lo = 0
}

// sample reads up to SampleRows rows, infers the column types and keeps
// the rows as the first batch.
func (j *jsonReader) sample() error {
	for j.nrows < j.opts.SampleRows && len(j.vals) < maxSampleBytes {
		ok, _, err := j.readRow(true)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	ncol := len(j.r.cols)
	j.materialize(ncol)
	types := j.cv.inferTypes(&j.fs, 0, j.fs.rows)
	for i := range j.r.cols {
		if !j.r.cols[i].Declared {
			j.r.cols[i].DataType = types[i]
		}
	}
	j.keep = true
	return nil
}

func (j *jsonReader) next() (arrow.RecordBatch, error) {
	for {
		if j.keep && j.lo < j.fs.rows {
			return j.emit()
		}
		if j.eof {
			return nil, nil
		}
		// Read the next batch. A row may add columns; earlier rows of the
		// batch get nulls there.
		j.keep = false
		j.vals, j.cells, j.nrows = j.vals[:0], j.cells[:0], 0
		for !j.eof && j.nrows < j.opts.BatchRows && len(j.vals) < maxJSONBatchBytes {
			if _, _, err := j.readRow(false); err != nil {
				return nil, err
			}
		}
		j.materialize(len(j.r.cols))
		j.keep = true
	}
}

// emit converts the next BatchRows rows of j.fs.
func (j *jsonReader) emit() (arrow.RecordBatch, error) {
	lo := j.lo
	hi := min(j.fs.rows, lo+j.opts.BatchRows)
	j.lo = hi
	ncol := j.fs.ncol
	cols := make([]arrow.Array, ncol)
	release := func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}
	changed := false
	for c := range cols {
		ci := &j.r.cols[c]
		arr, bad := j.cv.buildColumn(&j.fs, c, lo, hi, ci.DataType)
		if bad >= 0 {
			if ci.Declared {
				release()
				return nil, &ParseError{Row: j.r.rows + int64(bad-lo) + 1, Column: ci.Name, Msg: mismatch(trimSpace(j.fs.field(bad, c)), ci.DataType)}
			}
			ci.DataType = columnar.String
			changed = true
			arr = j.cv.buildString(&j.fs, c, lo, hi)
		}
		cols[c] = arr
	}
	if changed || j.r.schema == nil || len(j.r.schema.Fields()) != len(cols) {
		j.r.buildSchema()
	}
	rec := array.NewRecordBatch(j.r.schema, cols, int64(hi-lo))
	release()
	j.r.rows += int64(hi - lo)
	for i := lo; i < hi; i++ {
		for c := range ncol {
			j.r.bytes += int64(len(j.fs.field(i, c)))
		}
	}
	return rec, nil
}

func (j *jsonReader) stop() {
	if j.spool != nil {
		j.spool.remove()
		j.spool = nil
	}
}
