package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
)

const (
	defaultBlockBytes = 1 << 20
	// maxRecordBytes bounds one CSV record, so that an unterminated quote
	// cannot make the splitter buffer the whole input.
	maxRecordBytes = 256 << 20
)

// The CSV pipeline:
//
//	splitter ──chunks──▶ workers (splitCSV + typed builders) ──┐
//	    └──────────── order (bounded) ──────────────────────────┴─▶ Next
//
// The splitter reads blocks, cuts each at its last record boundary and
// counts its newlines, so every chunk knows its first physical line. Each
// chunk goes both to the work queue and, in input order, to the order
// queue, whose capacity bounds the chunks in flight. Next takes chunks from
// the order queue, waits for their worker, and emits them in order. A chunk
// parsed before a column was widened to String is rebuilt by Next from its
// fields, which stay with the chunk until it is emitted.

// chunk is one block of CSV records and, once parsed, its arrays.
type chunk struct {
	data      []byte
	firstLine int64
	types     []columnar.DataType // the types it is parsed with
	fs        fieldSet
	cols      []arrow.Array
	widened   []bool
	err       *ParseError
	errRow    int   // 0-based row within the chunk of err, -1 when unknown
	readErr   error // terminal read error; the chunk has no data
	nlines    int   // newlines in data, to size the field arrays
	done      chan struct{}
	// plainFor, when not nil, is the leading set (Reader.Lines) a worker
	// found every record of the chunk plain for, when it parsed numbers
	// under a NumberHint with that set: Lines need not look again.
	plainFor *[256]bool
}

type csvPipe struct {
	r       io.Reader
	cv      *converter
	names   []string
	decl    []bool
	block   int
	maxRecs int
	workers int

	mu    sync.Mutex
	types []columnar.DataType // current types, for chunks not yet cut

	order chan *chunk
	work  chan *chunk
	quit  chan struct{}
	wg    sync.WaitGroup

	// held is the chunk of the batch Next emitted last, kept until the
	// next one (a verbatim reader's Lines reads its text); nil otherwise.
	held *chunk

	// hint is a verbatim reader's NumberHint (Reader.ParseNumbers), read
	// by each worker as it starts a chunk; base is the all-utf8 schema and
	// hinted the last schema of a chunk with float64 columns.
	hint   atomic.Pointer[NumberHint]
	base   *arrow.Schema
	hinted *arrow.Schema
}

// NewCSV returns a Reader of the CSV in r (RFC 4180, with a header line
// unless the first line looks like data). It reads a sample to detect the
// header and infer types, then parses the rest in Options.Workers
// goroutines. Errors in the sample are returned here; later ones by Err.
func NewCSV(r io.Reader, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	cv := newConverter(opts)
	block := opts.blockBytes
	if block <= 0 {
		block = defaultBlockBytes
	}

	// Read the sample: up to 4 MiB, more if the first record is longer.
	// A verbatim reader infers no types, so its sample need only hold the
	// header: one block, which the pipeline then takes as its first chunk
	// (a 4 MiB sample would be read before any parsing starts, then cut
	// into blocks by copying what follows each cut).
	sample := maxSampleBytes
	if opts.Verbatim {
		sample = block
	}
	first := (&csvPipe{block: block}).getChunk(0)
	buf := first.data
	eof := false
	var err error
	buf, eof, err = fill(r, buf, sample)
	if err != nil {
		return nil, err
	}
	buf = bytes.TrimPrefix(buf, bom)
	hdr := fieldSet{maxCols: opts.MaxColumns}
	for {
		_, _, serr := splitCSV(&hdr, buf, -1, 1, eof)
		if serr != nil {
			return nil, &ParseError{Line: int64(serr.line), Msg: serr.msg}
		}
		if hdr.rows == 1 || eof {
			break
		}
		if len(buf) >= maxRecordBytes {
			return nil, &ParseError{Line: 1, Msg: "record too long"}
		}
		if buf, eof, err = fill(r, buf, 2*len(buf)); err != nil {
			return nil, err
		}
	}
	if hdr.rows == 0 {
		return nil, &ParseError{Msg: "no data"}
	}
	hdrEnd, hdrLines, _ := splitCSV(&hdr, buf, -1, 1, eof)
	ncol := hdr.ncol
	if k := hdr.firstInvalidUTF8(); k >= 0 && !opts.Verbatim {
		return nil, &ParseError{Line: int64(hdr.lines[0]), Msg: "invalid UTF-8"}
	}

	// Header detection (REFERENCE §3.2).
	anyValue, anyName := false, false
	for j := range ncol {
		v, n := cv.classifyHeaderField(hdr.field(0, j))
		anyValue, anyName = anyValue || v, anyName || n
	}
	hasHeader := opts.Verbatim || !(anyValue && !anyName)
	names := make([]string, ncol)
	for j := range names {
		if hasHeader {
			names[j] = strings.TrimSpace(string(hdr.field(0, j)))
		}
		if names[j] == "" {
			names[j] = "column" + itoa(j+1)
		}
	}
	if opts.CheckName != nil {
		for _, n := range names {
			if err := opts.CheckName(n); err != nil {
				return nil, err
			}
		}
	}
	seen := make(map[string]bool, ncol)
	for _, n := range names {
		k := strings.ToLower(n)
		if seen[k] {
			return nil, &ParseError{Line: int64(hdr.lines[0]), Column: n, Msg: fmt.Sprintf("duplicate column name %q", n)}
		}
		seen[k] = true
	}
	dataStart, firstLine := 0, int64(1)
	if hasHeader {
		dataStart, firstLine = hdrEnd, int64(hdrLines)+1
	}

	// Infer types from the sample rows. A verbatim reader infers nothing:
	// its sample's records are split once, by the workers, which report a
	// syntax error in them as Err with the same line and row.
	var types []columnar.DataType
	if opts.Verbatim {
		types = make([]columnar.DataType, ncol)
		for j := range types {
			types[j] = columnar.String
		}
	} else {
		var sample fieldSet
		_, _, serr := splitCSV(&sample, buf[dataStart:], ncol, opts.SampleRows, eof)
		if serr != nil {
			return nil, csvError(serr, firstLine, names, int64(sample.rows))
		}
		types = cv.inferTypes(&sample, 0, sample.rows)
	}
	cols := make([]ColumnInfo, ncol)
	decl := make([]bool, ncol)
	for j, n := range names {
		cols[j] = ColumnInfo{Name: n, DataType: types[j]}
		if t, ok := opts.Declared[strings.ToLower(n)]; ok && t != "" {
			cols[j].DataType, cols[j].Declared, decl[j] = t, true, true
			types[j] = t
		}
	}

	p := &csvPipe{
		r: r, cv: cv, names: names, decl: decl, block: block,
		maxRecs: opts.BatchRows, workers: opts.Workers, types: types,
		order: make(chan *chunk, 2*opts.Workers),
		work:  make(chan *chunk, 2*opts.Workers),
		quit:  make(chan struct{}),
	}
	rd := &Reader{cols: cols}
	rd.buildSchema()
	rd.next = func() (arrow.RecordBatch, error) { return p.next(rd) }
	rd.stop = p.stop
	if opts.Verbatim {
		rd.lines = p.lines
		rd.hint = p.hint.Store
		p.base = rd.schema
		if opts.Numbers != nil {
			p.hint.Store(opts.Numbers(names))
		}
	}
	p.wg.Add(1 + p.workers)
	first.data = buf[dataStart:]
	go p.split(first, eof, firstLine)
	for range p.workers {
		go p.worker()
	}
	return rd, nil
}

// fill reads from r into buf until it holds n bytes or r ends. It grows
// buf as data arrives, so that a small input gets a small buffer.
func fill(r io.Reader, buf []byte, n int) ([]byte, bool, error) {
	for len(buf) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, max(2*cap(buf), 64<<10)))
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):min(n, cap(buf))])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, readError(err)
		}
	}
	return buf, false, nil
}

func readError(err error) error {
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("ingest: read: %w", err)
}

func csvError(e *csvSyntaxError, firstLine int64, names []string, row int64) *ParseError {
	pe := &ParseError{Line: firstLine + int64(e.line) - 1, Msg: e.msg}
	if e.field >= 0 && e.field < len(names) {
		pe.Column = names[e.field]
	}
	if row >= 0 {
		pe.Row = row + 1
	}
	return pe
}

// chunkPool recycles chunk buffers across Readers: a server parses many
// bodies, and a fresh set of blocks per body costs more than the parsing.
var chunkPool sync.Pool

func (p *csvPipe) getChunk(minCap int) *chunk {
	c, _ := chunkPool.Get().(*chunk)
	if c == nil {
		c = &chunk{}
	}
	if cap(c.data) < minCap {
		c.data = make([]byte, 0, minCap)
	}
	c.data = c.data[:0]
	c.cols, c.err, c.readErr, c.errRow, c.nlines, c.plainFor = c.cols[:0], nil, nil, -1, 0, nil
	c.done = make(chan struct{})
	return c
}

func (p *csvPipe) putChunk(c *chunk) {
	c.fs.data = nil
	if cap(c.data) > max(4*p.block, maxSampleBytes) {
		c.data = nil // do not keep buffers grown for one long record
	}
	chunkPool.Put(c)
}

// send queues c in order and for a worker; false when stopped.
func (p *csvPipe) send(c *chunk, parse bool) bool {
	select {
	case p.order <- c:
	case <-p.quit:
		return false
	}
	if !parse {
		close(c.done)
		return true
	}
	select {
	case p.work <- c:
		return true
	case <-p.quit:
		return false
	}
}

func (p *csvPipe) split(cur *chunk, eof bool, line int64) {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.order)
	for {
		var err error
		if !eof && len(cur.data) < p.block {
			cur.data, eof, err = fill(p.r, cur.data, p.block)
			if err != nil {
				c := p.getChunk(0)
				c.readErr = err
				p.send(c, false)
				return
			}
		}
		if len(cur.data) == 0 && eof {
			return
		}
		limit := min(len(cur.data), p.block)
		cut, lines := cutRecords(cur.data[:limit], p.maxRecs)
		for cut == 0 && limit < len(cur.data) {
			// A record longer than a block: look further.
			limit = min(2*limit, len(cur.data))
			cut, lines = cutRecords(cur.data[:limit], p.maxRecs)
		}
		if cut == 0 {
			if eof {
				cut = len(cur.data)
			} else {
				if len(cur.data) >= maxRecordBytes {
					c := p.getChunk(0)
					c.readErr = &ParseError{Line: line, Msg: "record too long"}
					p.send(c, false)
					return
				}
				// No complete record yet: grow and read more.
				nb := make([]byte, len(cur.data), 2*cap(cur.data))
				copy(nb, cur.data)
				cur.data = nb
				cur.data, eof, err = fill(p.r, cur.data, cap(cur.data))
				if err != nil {
					c := p.getChunk(0)
					c.readErr = err
					p.send(c, false)
					return
				}
				continue
			}
		}
		next := p.getChunk(max(p.block, len(cur.data)-cut))
		next.data = append(next.data, cur.data[cut:]...)
		cur.data = cur.data[:cut]
		cur.firstLine = line
		cur.nlines = lines
		line += int64(lines)
		p.mu.Lock()
		cur.types = append(cur.types[:0], p.types...)
		p.mu.Unlock()
		if !p.send(cur, true) {
			return
		}
		cur = next
	}
}

func (p *csvPipe) worker() {
	defer p.wg.Done()
	for c := range p.work {
		select {
		case <-p.quit:
		default:
			p.parse(c)
		}
		close(c.done)
	}
}

// parse splits c and builds its arrays with the types it was cut with.
func (p *csvPipe) parse(c *chunk) {
	ncol := len(p.names)
	if need := 2 * ncol * (c.nlines + 1); cap(c.fs.refs) < need {
		c.fs.refs = make([]int32, 0, need+need/8)
		c.fs.lines = make([]int32, 0, c.nlines+1+c.nlines/8)
	}
	_, _, serr := splitCSV(&c.fs, c.data, ncol, math.MaxInt, true)
	if serr != nil {
		c.err = csvError(serr, c.firstLine, p.names, -1)
		c.errRow = c.fs.rows
		return
	}
	if !p.cv.verbatim && !utf8.Valid(c.data) {
		if k := c.fs.firstInvalidUTF8(); k >= 0 {
			c.err = &ParseError{Line: c.firstLine + int64(c.fs.lines[k/ncol]) - 1, Column: p.names[k%ncol], Msg: "invalid UTF-8"}
			c.errRow = k / ncol
			return
		}
	}
	rows := c.fs.rows
	if cap(c.widened) < ncol {
		c.widened = make([]bool, ncol)
	}
	c.widened = c.widened[:ncol]
	clear(c.widened)
	if p.cv.verbatim {
		// Every column is its fields' text, none missing; under a hint,
		// the hinted columns of a plain chunk are its numbers instead.
		if h := p.hint.Load(); h != nil && h.Leading != nil && len(h.Columns) == ncol && c.plain(h.Leading) {
			c.plainFor = h.Leading
			c.cols = append(c.cols[:0], p.cv.buildHinted(&c.fs, rows, h)...)
			return
		}
		c.cols = append(c.cols[:0], p.cv.buildStrings(&c.fs, rows, nil)...)
		return
	}
	badRow := math.MaxInt
	for j := range ncol {
		arr, bad := p.cv.buildColumn(&c.fs, j, 0, rows, c.types[j])
		if bad >= 0 {
			if p.decl[j] {
				if bad < badRow {
					badRow = bad
					c.err = &ParseError{
						Line:   c.firstLine + int64(c.fs.lines[bad]) - 1,
						Column: p.names[j],
						Msg:    mismatch(trimSpace(c.fs.field(bad, j)), c.types[j]),
					}
					c.errRow = bad
				}
				arr = nil
			} else {
				c.widened[j] = true
				arr = p.cv.buildString(&c.fs, j, 0, rows)
			}
		}
		c.cols = append(c.cols, arr)
	}
	if c.err != nil {
		c.releaseCols()
	}
}

func (c *chunk) releaseCols() {
	for _, a := range c.cols {
		if a != nil {
			a.Release()
		}
	}
	c.cols = c.cols[:0]
}

// next emits the next chunk in input order.
func (p *csvPipe) next(r *Reader) (arrow.RecordBatch, error) {
	if p.held != nil {
		p.putChunk(p.held)
		p.held = nil
	}
	for {
		c, ok := <-p.order
		if !ok {
			return nil, nil
		}
		<-c.done
		if c.readErr != nil {
			return nil, c.readErr
		}
		if c.err != nil {
			if c.errRow >= 0 {
				c.err.Row = r.rows + int64(c.errRow) + 1
			}
			err := c.err
			c.releaseCols()
			return nil, err
		}
		rows := c.fs.rows
		changed := false
		for j := range r.cols {
			switch {
			case c.widened[j] && r.cols[j].DataType != columnar.String:
				r.cols[j].DataType = columnar.String
				changed = true
			case !c.widened[j] && r.cols[j].DataType == columnar.String && c.types[j] != columnar.String:
				// Parsed before an earlier chunk widened this column.
				c.cols[j].Release()
				c.cols[j] = p.cv.buildString(&c.fs, j, 0, rows)
			}
		}
		if changed {
			p.mu.Lock()
			for j := range r.cols {
				p.types[j] = r.cols[j].DataType
			}
			p.mu.Unlock()
			r.buildSchema()
		}
		var rec arrow.RecordBatch
		if rows > 0 {
			rec = array.NewRecordBatch(p.schemaOf(r, c.cols), c.cols, int64(rows))
		}
		c.releaseCols()
		r.rows += int64(rows)
		r.bytes += int64(len(c.data))
		if rec != nil && p.cv.verbatim {
			p.held = c
			return rec, nil
		}
		p.putChunk(c)
		if rec != nil {
			return rec, nil
		}
	}
}

// stop ends the splitter and the workers, waits for them and frees the
// arrays of chunks that were never emitted.
func (p *csvPipe) stop() {
	close(p.quit)
	p.wg.Wait()
	for c := range p.order {
		c.releaseCols()
	}
	if p.held != nil {
		p.putChunk(p.held)
		p.held = nil
	}
}

// schemaOf is the schema of a batch of cols: the reader's, unless a
// number hint made some of a verbatim chunk's columns float64.
func (p *csvPipe) schemaOf(r *Reader, cols []arrow.Array) *arrow.Schema {
	if p.base == nil {
		return r.schema
	}
	typed := false
	for _, a := range cols {
		typed = typed || a.DataType().ID() != arrow.STRING
	}
	if !typed {
		return p.base
	}
	if s := p.hinted; s != nil {
		same := true
		for j, a := range cols {
			same = same && arrow.TypeEqual(s.Field(j).Type, a.DataType())
		}
		if same {
			return s
		}
	}
	fields := slices.Clone(p.base.Fields())
	for j, a := range cols {
		fields[j].Type = a.DataType()
	}
	p.hinted = arrow.NewSchema(fields, nil)
	return p.hinted
}

// plain reports whether every record of c is its fields' values joined
// by commas, none of them starting with a byte marked in leading: what
// Reader.Lines takes.
func (c *chunk) plain(leading *[256]bool) bool {
	if bytes.IndexByte(c.data, '"') >= 0 || bytes.IndexByte(c.data, '\r') >= 0 {
		return false
	}
	refs := c.fs.refs[:2*c.fs.rows*c.fs.ncol]
	for k := 0; k < len(refs); k += 2 {
		if refs[k] < refs[k+1] && leading[c.data[refs[k]]] {
			return false
		}
	}
	return true
}

// lines is Reader.Lines for a verbatim CSV: the held chunk's records.
func (p *csvPipe) lines(dst []byte, ends []int32, leading *[256]bool) ([]byte, []int32, bool) {
	c := p.held
	if c == nil || (c.plainFor != leading && !c.plain(leading)) {
		return dst, ends, false
	}
	fs := &c.fs
	ncol := fs.ncol
	refs := fs.refs
	for i := range fs.rows {
		r := refs[2*i*ncol : 2*(i+1)*ncol]
		dst = append(dst, c.data[r[0]:r[len(r)-1]]...)
		ends = append(ends, int32(len(dst)))
	}
	return dst, ends, true
}
