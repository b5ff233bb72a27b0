package api

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// predictBatchRows is the most rows of a predict body decoded, scored and
// rendered at a time: large enough that the per-batch costs (the model's
// matrix, one spooled batch) vanish, small enough that a batch's columns
// stay in the caches.
const predictBatchRows = 16384

// predict answers POST /models/{id}/predict (REFERENCE §8.3): rows as JSON
// ({"data": [...], "extraParameters": {...}}) or CSV (Content-Type
// text/csv); the answer is JSON, or CSV of the data rows when the client
// accepts text/csv. predictionInterval comes from extraParameters, else
// from the query (the only place a CSV body leaves for it), as session
// parameters do (REFERENCE §6 "parameter passing": the body wins).
//
// The body streams, batch by batch, up to Options.MaxBodyBytes; the engine
// scores every batch before anything is answered, so a bad value anywhere
// is a 400, never a truncated 200.
func (s *Server) predict(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	q := params(r.URL.Query())
	query := predictParams{interval: q.get("predictionInterval"), scores: q.get("includeClassScores")}
	var src predictSource
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch strings.ToLower(mt) {
	case "text/csv":
		src = &bodyPredictSource{s.engine.NewPredictBody(body, engine.PredictCSVBody, predictBatchRows), query}
	case mediaArrowStream:
		src = &bodyPredictSource{s.engine.NewPredictBody(body, engine.PredictArrowBody, predictBatchRows), query}
	case mediaParquet:
		src = &bodyPredictSource{s.engine.NewPredictBody(body, engine.PredictParquetBody, predictBatchRows), query}
	default:
		ahead := newAheadReader(engine.LimitJSONDepth(body))
		src = newJSONPredictSource(ahead, query, s.engine.MaxColumns())
		defer ahead.close()
	}
	defer src.close()
	// JSON and CSV answers are rendered by the engine as it scores each
	// batch; Arrow IPC and Parquet answers are written from its batches.
	f := acceptedFormat(r)
	var text engine.PredictText
	switch f {
	case formatCSV:
		text = csvAnswer
	case formatArrow, formatParquet:
	default:
		text = cellsOnly{jsonAnswer}
	}
	s.engine.HintPredict(r.Context(), p.ByName("id"), src, text)
	// The first batch is read before the model is looked up: a body that
	// is not a predict body at all is a 400 whatever the model.
	first, err := src.Next()
	if err != nil && err != io.EOF {
		return err
	}
	ahead := &readAhead{PredictSource: src, first: first, err: err, pending: true}
	out, err := s.engine.PredictStream(r.Context(), p.ByName("id"), ahead, text)
	if ahead.pending && first.Rec != nil {
		// The engine refused the request before it took the batch.
		first.Rec.Release()
	}
	if err != nil {
		return err
	}
	defer out.Close()
	if text == nil {
		w.Header().Set("Content-Type", f.mediaType())
		bw, err := newBatchWriter(w, f, out.Schema())
		if err != nil {
			return err
		}
		for {
			rec, err := out.Next()
			if err == io.EOF {
				if err := out.Commit(); err != nil {
					return err
				}
				return bw.Close()
			}
			if err != nil {
				return err
			}
			err = bw.Write(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	var head, tail []byte
	if f == formatCSV {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		for j, f := range out.Schema().Fields() {
			if j > 0 {
				head = append(head, ',')
			}
			head = appendCSVCell(head, []byte(f.Name))
		}
		head = append(head, '\n')
	} else {
		mj := toModelJSON(baseURL(r), out.Model, false)
		mj.Columns, mj.Links = nil, []link{}
		msgs := make([]message, len(out.Messages))
		for i, m := range out.Messages {
			msgs[i] = message{m.Severity, m.Text}
		}
		if tail, err = jsonMarshal(struct {
			Messages []message `json:"messages"`
			modelJSON
		}{msgs, mj}); err != nil {
			return err
		}
		// {"data":[rows], then the model's properties.
		head, tail = []byte(`{"data":[`), append([]byte{']', ','}, tail[1:]...)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	// A bufio.Writer's error sticks: Flush reports a failed Write.
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(head)
	if err := out.WriteRows(bw); err != nil {
		return err
	}
	bw.Write(tail)
	if err := out.Commit(); err != nil {
		return err
	}
	return bw.Flush()
}

// aheadReader reads r in a goroutine, a few chunks ahead of its reader,
// so that receiving a JSON body (and checking its depth) runs beside
// decoding it, which is the one thing of a JSON predict that is not done
// in parallel. close must be called before the handler returns: it waits
// for the goroutine, which must not read the request body after that.
type aheadReader struct {
	chunks chan aheadChunk
	free   chan []byte
	done   chan struct{}
	exited chan struct{}
	cur    aheadChunk
	off    int
}

type aheadChunk struct {
	b   []byte
	err error
}

func newAheadReader(r io.Reader) *aheadReader {
	const chunks, size = 4, 256 << 10
	a := &aheadReader{chunks: make(chan aheadChunk, chunks), free: make(chan []byte, chunks),
		done: make(chan struct{}), exited: make(chan struct{})}
	for range chunks {
		a.free <- make([]byte, size)
	}
	go func() {
		defer close(a.exited)
		for {
			var buf []byte
			select {
			case buf = <-a.free:
			case <-a.done:
				return
			}
			select {
			case <-a.done:
				return
			default:
			}
			n, err := r.Read(buf)
			a.chunks <- aheadChunk{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	return a
}

func (a *aheadReader) Read(p []byte) (int, error) {
	for a.off == len(a.cur.b) {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.cur.b != nil {
			a.free <- a.cur.b[:cap(a.cur.b)]
		}
		a.cur, a.off = <-a.chunks, 0
	}
	n := copy(p, a.cur.b[a.off:])
	a.off += n
	return n, nil
}

// close stops the goroutine and waits for it.
func (a *aheadReader) close() {
	close(a.done)
	<-a.exited
}

// predictParams are a predict request's parameters as text: from the
// query, then from a JSON body's extraParameters.
type predictParams struct {
	interval, scores string
}

// override applies a body's extraParameters: a non-empty
// predictionInterval, and includeClassScores whatever its value (the
// empty string then means "not given").
func (p *predictParams) override(extra map[string]string) {
	for k, v := range extra {
		if strings.EqualFold(k, "predictionInterval") && v != "" {
			p.interval = v
		}
	}
	for k, v := range extra {
		if strings.EqualFold(k, "includeClassScores") {
			p.scores = v
		}
	}
}

// options reads the parameters; a string "True" (.NET) reads as a
// boolean (REFERENCE §8.3).
func (p predictParams) options() (engine.PredictOptions, error) {
	o := engine.PredictOptions{PredictionInterval: p.interval}
	if p.scores != "" {
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(p.scores)))
		if err != nil {
			return o, engine.Validation("includeClassScores", "Value for includeClassScores must be true or false")
		}
		o.IncludeClassScores = b
	}
	return o, nil
}

// readAhead is a source whose first batch (or io.EOF) was read already.
type readAhead struct {
	engine.PredictSource
	first   engine.PredictBatch
	err     error
	pending bool // first not handed out yet
}

func (r *readAhead) Next() (engine.PredictBatch, error) {
	if r.pending {
		r.pending = false
		return r.first, r.err
	}
	if r.err != nil {
		return engine.PredictBatch{}, r.err
	}
	return r.PredictSource.Next()
}

// HintNumbers passes the engine's hint on to a source that takes it (a
// CSV body).
func (r *readAhead) HintNumbers(numeric func(header []string) []bool, parse func(field []byte) (float64, bool)) {
	if h, ok := r.PredictSource.(engine.NumberHinter); ok {
		h.HintNumbers(numeric, parse)
	}
}

// predictSource is an engine.PredictSource that holds resources.
type predictSource interface {
	engine.PredictSource
	close()
}

// bodyPredictSource is a CSV, Arrow IPC or Parquet predict body
// (engine.PredictBody) with the query's parameters: these bodies have no
// room for extraParameters.
type bodyPredictSource struct {
	*engine.PredictBody
	query predictParams
}

func (c *bodyPredictSource) Options() (engine.PredictOptions, bool, error) {
	o, err := c.query.options()
	return o, true, err
}

func (c *bodyPredictSource) close() { c.Close() }

// renderCell appends value i of a typed array (neither utf8 nor float64,
// which columnCells renders itself) as the answer shows it; "" for null.
func renderCell(dst []byte, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return dst
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Timestamp:
		return appendRowTime(dst, a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit))
	}
	return append(dst, arr.ValueStr(i)...)
}

// columnCells renders one column of a batch, column-wise: cell i is
// buf[ends[i-1]:ends[i]]. quote turns a value's text into its
// representation.
//
// An echoed typed value is written as the rows endpoints write it; a
// prediction in its shortest form ('g'), as predict always has.
func columnCells(buf []byte, ends []int, arr arrow.Array, echo bool, quote func(dst []byte, s []byte) []byte) ([]byte, []int) {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.String:
		nulls := a.NullN() > 0
		for i := range n {
			if !nulls || a.IsValid(i) {
				buf = quote(buf, unsafeBytes(a.Value(i)))
			} else {
				buf = quote(buf, nil)
			}
			ends = append(ends, len(buf))
		}
	case *array.Float64:
		// Numbers need no quoting in CSV, and only the quotes in JSON.
		var tmp []byte
		nulls := a.NullN() > 0
		for i := range n {
			tmp = tmp[:0]
			switch {
			case nulls && a.IsNull(i):
			case echo:
				tmp = appendNumber(tmp, a.Value(i))
			default:
				tmp = strconv.AppendFloat(tmp, a.Value(i), 'g', -1, 64)
			}
			buf = quote(buf, tmp)
			ends = append(ends, len(buf))
		}
	default:
		var tmp []byte
		for i := range n {
			tmp = renderCell(tmp[:0], arr, i)
			buf = quote(buf, tmp)
			ends = append(ends, len(buf))
		}
	}
	return buf, ends
}

// textRows renders predict answers for the engine (engine.PredictText):
// JSON row objects ({"column": "text", …}) or CSV lines, quoted as
// encoding/csv quotes. Text cells that need no escaping or quoting (the
// usual echo of a number's text) and predictions are written straight
// into the rows; any other column is rendered column-wise first
// (columnCells), then its cells are copied into the rows.
type textRows struct {
	json  bool
	quote func(dst []byte, s []byte) []byte
	// special marks the bytes that make a text cell need escaping (JSON)
	// or quoting (CSV) wherever they are.
	special *[256]bool
	cells   sync.Pool // *batchCells, one per batch being rendered
	// lineCells holds *lineCells, one per batch LineRows renders.
	lineCells sync.Pool
}

// cellsOnly is a PredictText that is not an engine.LineText: a JSON
// answer's rows are objects rendered cell by cell, never the body's lines,
// and the engine reads a CSV body's numeric columns as numbers (leaving
// no text in the batch to echo) only for an answer that echoes lines.
type cellsOnly struct{ engine.PredictText }

var (
	jsonAnswer = &textRows{json: true, quote: appendJSONBytes, special: byteSet(func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' })}
	csvAnswer  = &textRows{quote: appendCSVCell, special: byteSet(func(c byte) bool { return c == '\n' || c == '\r' || c == '"' || c == ',' })}
)

func byteSet(in func(byte) bool) *[256]bool {
	var set [256]bool
	for c := range set {
		set[c] = in(byte(c))
	}
	return &set
}

// How textRows.Rows writes a column's cells.
const (
	cellsRendered = iota // copied from columnCells' rendering
	cellsPlain           // utf8 with no special byte: copied from the array
	cellsNumber          // a float64 prediction: formatted in place
)

// batchCells is the rendering state of one batch.
type batchCells struct {
	kinds []int
	strs  []*array.String
	nums  []*array.Float64
	keys  [][]byte
	// The cells of rendered columns: cell i of column j is
	// bufs[j][ends[j][i-1]:ends[j][i]].
	bufs [][]byte
	ends [][]int
}

// Lead is the comma before every JSON row object but the first; CSV
// lines end with their line break instead.
func (t *textRows) Lead() int {
	if t.json {
		return 1
	}
	return 0
}

func (t *textRows) Rows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int) ([]byte, []int, []int, []int) {
	c, _ := t.cells.Get().(*batchCells)
	if c == nil {
		c = &batchCells{}
	}
	defer t.cells.Put(c)
	ncol, n := int(rec.NumCols()), int(rec.NumRows())
	if len(c.bufs) < ncol {
		c.kinds, c.strs, c.nums = make([]int, ncol), make([]*array.String, ncol), make([]*array.Float64, ncol)
		c.bufs, c.ends = make([][]byte, ncol), make([][]int, ncol)
	}
	size := 0
	for j := range ncol {
		c.kinds[j] = cellsRendered
		switch a := rec.Column(j).(type) {
		case *array.String:
			if data := a.ValueBytes(); !t.hasSpecial(data) {
				c.kinds[j], c.strs[j] = cellsPlain, a
				size += len(data) + 3*n
				continue
			}
		case *array.Float64:
			if j >= echoed {
				c.kinds[j], c.nums[j] = cellsNumber, a
				size += 26 * n
				continue
			}
		}
		c.bufs[j], c.ends[j] = columnCells(c.bufs[j][:0], c.ends[j][:0], rec.Column(j), j < echoed, t.quote)
		size += len(c.bufs[j]) + n
	}
	c.keys = c.keys[:0]
	if t.json {
		for _, f := range rec.Schema().Fields() {
			k := append(appendJSONString(nil, f.Name), ':')
			c.keys = append(c.keys, k)
			size += len(k) * n
		}
	}
	null := t.quote(nil, nil)
	dst = slices.Grow(dst, size+3*n)
	for i := range n {
		if t.json {
			dst = append(dst, ',', '{')
		}
		for j := range ncol {
			if j == echoed {
				marks = append(marks, len(dst))
			}
			if j == echoed+1 {
				cuts = append(cuts, len(dst))
			}
			if j > 0 {
				dst = append(dst, ',')
			}
			if t.json {
				dst = append(dst, c.keys[j]...)
			}
			switch c.kinds[j] {
			case cellsPlain:
				a := c.strs[j]
				switch {
				case a.IsNull(i):
					dst = append(dst, null...)
				case t.json:
					dst = append(append(append(dst, '"'), a.Value(i)...), '"')
				default:
					v := a.Value(i)
					// Only a cell's start can still call for quotes:
					// white space, or the line "\.".
					if v != "" && (v[0] <= ' ' || v[0] >= utf8.RuneSelf || v[0] == '\\') {
						dst = appendCSVCell(dst, unsafeBytes(v))
					} else {
						dst = append(dst, v...)
					}
				}
			case cellsNumber:
				a := c.nums[j]
				switch {
				case a.IsNull(i):
					dst = append(dst, null...)
				case t.json:
					dst = append(strconv.AppendFloat(append(dst, '"'), a.Value(i), 'g', -1, 64), '"')
				default:
					dst = strconv.AppendFloat(dst, a.Value(i), 'g', -1, 64)
				}
			default:
				start := 0
				if i > 0 {
					start = c.ends[j][i-1]
				}
				dst = append(dst, c.bufs[j][start:c.ends[j][i]]...)
			}
		}
		if ncol == echoed+1 {
			cuts = append(cuts, len(dst))
		}
		if t.json {
			dst = append(dst, '}')
		} else {
			dst = append(dst, '\n')
		}
		ends = append(ends, len(dst))
	}
	clear(c.strs)
	clear(c.nums)
	return dst, marks, cuts, ends
}

// LineRows is Rows for a batch whose echoed cells are the input's lines
// (engine.LineText): each row is its line, then the prediction cells as
// Rows renders them. A CSV body's plain lines are its cells joined by
// commas, with no cell that Rows would quote, so the answer is the same
// bytes, without rendering every echoed cell again. A JSON answer has
// keys in its rows and renders them with Rows.
func (t *textRows) LineRows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int, lines *engine.Lines) ([]byte, []int, []int, []int) {
	n := int(rec.NumRows())
	if t.json || echoed == 0 || len(lines.Ends) != n {
		return t.Rows(dst, marks, cuts, ends, rec, echoed)
	}
	ncol := int(rec.NumCols())
	pred := array.NewRecordBatch(arrow.NewSchema(rec.Schema().Fields()[echoed:], nil), rec.Columns()[echoed:ncol], int64(n))
	defer pred.Release()
	lc, _ := t.lineCells.Get().(*lineCells)
	if lc == nil {
		lc = &lineCells{}
	}
	defer t.lineCells.Put(lc)
	// Rows with no echoed column marks each row's start (its cells'
	// start) and cuts after its first cell.
	lc.buf, lc.marks, lc.cuts, lc.ends = t.Rows(lc.buf[:0], lc.marks[:0], lc.cuts[:0], lc.ends[:0], pred, 0)
	dst = slices.Grow(dst, len(lines.Data)+n+len(lc.buf))
	from, start := 0, 0
	for i, end := range lc.ends {
		to := int(lines.Ends[i])
		dst = append(dst, lines.Data[from:to]...)
		from = to
		marks = append(marks, len(dst))
		dst = append(dst, ',')
		cuts = append(cuts, len(dst)+lc.cuts[i]-start)
		dst = append(dst, lc.buf[start:end]...)
		ends = append(ends, len(dst))
		start = end
	}
	return dst, marks, cuts, ends
}

// lineCells is LineRows' rendering of a batch's prediction cells.
type lineCells struct {
	buf               []byte
	marks, cuts, ends []int
}

// hasSpecial reports whether data holds a byte that needs escaping or
// quoting. It tests eight bytes at a time (the byte tests of "Bit
// Twiddling Hacks", exact for whether any byte matches), the rest through
// the table.
func (t *textRows) hasSpecial(data []byte) bool {
	k := 0
	for ; k+8 <= len(data); k += 8 {
		x := binary.LittleEndian.Uint64(data[k:])
		if t.json {
			if hasLess(x, 0x20) || hasByte(x, '"') || hasByte(x, '\\') {
				return true
			}
		} else if hasByte(x, ',') || hasByte(x, '"') || hasByte(x, '\n') || hasByte(x, '\r') {
			return true
		}
	}
	for _, b := range data[k:] {
		if t.special[b] {
			return true
		}
	}
	return false
}

const lowBits, highBits = 0x0101010101010101, 0x8080808080808080

// hasLess reports whether a byte of x is less than n (n ≤ 128).
func hasLess(x uint64, n byte) bool { return (x-lowBits*uint64(n))&^x&highBits != 0 }

// hasByte reports whether a byte of x is b.
func hasByte(x uint64, b byte) bool { return hasLess(x^(lowBits*uint64(b)), 1) }

func (t *textRows) Missing(fields []arrow.Field, had int) []byte {
	var b []byte
	for k, f := range fields[had:] {
		if had > 0 || k > 0 {
			b = append(b, ',')
		}
		if t.json {
			b = append(appendJSONString(b, f.Name), ':')
		}
		b = t.quote(b, nil)
	}
	if had == 0 && len(b) > 0 {
		// The prediction's cells follow.
		b = append(b, ',')
	}
	return b
}

// appendJSONBytes appends s as a JSON string.
func appendJSONBytes(dst, s []byte) []byte { return appendJSONString(dst, unsafeString(s)) }

// appendCSVCell appends a field, quoted when encoding/csv's Writer would
// quote it: it holds a comma, a quote, a line break, starts with a space,
// or is `\.`.
func appendCSVCell(dst, s []byte) []byte {
	if !csvCellNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for {
		k := bytes.IndexByte(s, '"')
		if k < 0 {
			break
		}
		dst = append(append(dst, s[:k+1]...), '"')
		s = s[k+1:]
	}
	return append(append(dst, s...), '"')
}

func csvCellNeedsQuotes(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if string(s) == `\.` {
		return true
	}
	for _, c := range s {
		if c == '\n' || c == '\r' || c == '"' || c == ',' {
			return true
		}
	}
	r, _ := utf8.DecodeRune(s)
	return unicode.IsSpace(r)
}

// unsafeString views b as a string without copying; b must not change
// while the string is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// unsafeBytes views s as bytes without copying; they must not be changed.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
