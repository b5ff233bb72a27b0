package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
	"github.com/vaticml/vatic/stats/classify"
)

// PredictBatch is a batch of submitted rows, one Arrow column per input
// column, named by the record's schema. Text inputs (CSV, JSON) arrive as
// utf8 columns holding each value's text as sent, so that the answer echoes
// it exactly; typed columns (float64, bool, timestamp, utf8) from binary
// formats are read by their type.
type PredictBatch struct {
	Rec arrow.RecordBatch
	// Literal marks, per column (nil when none), the values that were JSON
	// numbers or booleans rather than strings: a literal true or false
	// counts as 1 or 0 in a numeric column, and a literal is never a
	// missing-value token.
	Literal [][]bool
	// Lines, when not nil, are the batch's rows as the body wrote them (a
	// CSV body whose lines are plain: see ingest.Reader.Lines). An answer
	// rendered by a LineText that echoes exactly the batch's columns, in
	// order, copies them instead of rendering each cell again.
	Lines *Lines
	// Text says the batch's columns are text as sent whatever their
	// arrays' types (a CSV body read with a NumberHinter's numbers): the
	// answer echoes them as text.
	Text bool
}

// Lines holds rows of text: row i is Data[Ends[i-1]:Ends[i]] (from 0 for
// the first).
type Lines struct {
	Data []byte
	Ends []int32
}

// linesPool recycles the Lines of rendered batches.
var linesPool sync.Pool

func getLines() *Lines {
	if l, ok := linesPool.Get().(*Lines); ok {
		l.Data, l.Ends = l.Data[:0], l.Ends[:0]
		return l
	}
	return &Lines{}
}

func putLines(l *Lines) {
	if l != nil {
		linesPool.Put(l)
	}
}

// PredictOptions are the parameters of a predict request (REFERENCE §8.3).
type PredictOptions struct {
	// PredictionInterval is the extraParameters (or query) value as given;
	// "" means the median.
	PredictionInterval string
	// IncludeClassScores asks a classification model for one
	// <target>:<class> score per class besides the class; a regression
	// model refuses it.
	IncludeClassScores bool
}

// PredictSource streams a predict body's rows.
type PredictSource interface {
	// Next returns the next batch of rows, and io.EOF after the last. The
	// engine releases the batch's record.
	Next() (PredictBatch, error)
	// Options returns the request's parameters. final says they cannot
	// change any more: a JSON body's extraParameters may follow its rows,
	// so they are final only once read or once Next has returned io.EOF.
	Options() (opts PredictOptions, final bool, err error)
}

// DefaultPredictMemory is Options.PredictMemory's default, 64 MiB: a
// 100 000-row answer of 20 echoed numbers (about 21 MB as CSV, 40 MB as
// JSON) stays in memory. At 8 MiB the rest of it went through a
// temporary file, written and read back: 24 and 34 MB allocated per
// request (BenchmarkPredictLinearCSV, JSON) against 19 and 23 at 64 MiB.
const DefaultPredictMemory = 64 << 20

// PredictText renders a prediction's answer as rows of text (JSON
// objects, CSV lines). PredictStream calls it from the goroutines that
// score the batches, so that each batch is rendered in parallel, once,
// and the spool keeps the answer's bytes: it must be safe for concurrent
// use.
type PredictText interface {
	// Rows appends the rows of rec to dst: its first echoed columns echo
	// the input, the others are the prediction. Every row starts with a
	// separator of Lead bytes and ends with one closing byte. For row i
	// it appends to marks where its echoed cells end, to cuts where the
	// cells after the first prediction column start (a classifier's class
	// scores, left out, up to the closing byte, when not asked for) and
	// to ends where the row ends (offsets in dst).
	Rows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int) ([]byte, []int, []int, []int)
	// Missing renders as nulls the echoed columns fields[had:], which a
	// batch rendered with had echoed columns lacks because later rows
	// brought them: the bytes inserted at each of its rows' marks.
	Missing(fields []arrow.Field, had int) []byte
	// Lead is the length of the separator each row starts with, which
	// the answer's first row leaves out.
	Lead() int
}

// LineText is a PredictText that also renders a batch whose input rows
// came as plain lines (PredictBatch.Lines): LineRows appends what Rows
// would, given that the echoed cells of row i, as Rows would render
// them, are exactly lines' row i. PredictStream calls it only for a batch
// whose columns are the answer's echoed columns, in the same order. It
// must take the echoed cells from lines alone: given a LineText,
// PredictStream may have a CSV body's numeric columns read as numbers
// (NumberHinter), and a batch of numbers has nulls standing in for them
// among the record's echoed columns.
type LineText interface {
	PredictText
	LineRows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int, lines *Lines) ([]byte, []int, []int, []int)
}

// PredictStream scores the rows of src with a saved model (REFERENCE §8.3,
// MODELLING §14), batch by batch: the session's preparation is replayed
// column-wise (imputation with training statistics, the same one-hot
// levels), every feature column must be present in some row, and each
// value must read as its column's type. A predictionInterval must be one
// of the model session's availablePredictionIntervals, checked as GET
// /sessions/{id}/results checks it.
//
// Nothing of the answer is returned before every row has been read and
// scored, so a bad value in the last batch is still an error, not a
// truncated answer: the answer batches are spooled (in memory up to a few
// MiB, then in a temporary file under Options.TempDir) and replayed by the
// returned PredictOutput, which the caller must Close. The quota is
// counted on the rows as they arrive; the usage record commits while the
// answer is written, and the caller calls PredictOutput.Commit before the
// answer's last byte.
//
// With text nil the answer is Arrow batches (PredictOutput.Next);
// otherwise each batch is rendered by text as it is scored and the answer
// is those bytes (PredictOutput.WriteRows).
func (e *Engine) PredictStream(ctx context.Context, id string, src PredictSource, text PredictText) (*PredictOutput, error) {
	m, err := e.Model(ctx, id)
	if err != nil {
		return nil, err
	}
	if opts, final, err := src.Options(); err != nil {
		return nil, err
	} else if final {
		if err := checkPredictOptions(m, opts); err != nil {
			return nil, err
		}
	}
	lm, err := e.loadModel(ctx, m)
	if err != nil {
		return nil, err
	}
	used, err := e.predictions.get(ctx, e.countPredictions)
	if err != nil {
		return nil, err
	}
	p := &predictor{e: e, m: m, lm: lm, seen: map[string]int{}, tokens: missingTokens(lm.pipeline.Missing)}
	if h, ok := src.(NumberHinter); ok {
		if _, lines := text.(LineText); lines {
			h.HintNumbers(p.numericColumns, p.parseNumber)
		}
	}
	keep := int(max(e.opts.PredictMemory, 0))
	sp := &predictSpool{dir: e.opts.TempDir, limit: keep}
	ts := &textSpool{dir: e.opts.TempDir, limit: keep}
	ok := false
	defer func() {
		if !ok {
			sp.close()
			ts.close()
		}
	}()
	// Batches are scored (and rendered) in parallel, up to one per
	// processor, and spooled in order; the first failed batch in body
	// order is the error.
	type job struct {
		rec  arrow.RecordBatch
		text *textBatch
		err  error
		done chan struct{}
	}
	var queue []*job
	workers := runtime.GOMAXPROCS(0)
	// drain spools the finished batches at the head of the queue, waiting
	// for them while more than keep are queued.
	drain := func(keep int) error {
		for len(queue) > keep {
			j := queue[0]
			<-j.done
			queue = queue[1:]
			if j.err != nil {
				return j.err
			}
			if j.text != nil {
				if err := ts.add(j.text); err != nil {
					return err
				}
				continue
			}
			err := sp.add(j.rec)
			j.rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	defer func() {
		for _, j := range queue {
			<-j.done
			if j.rec != nil {
				j.rec.Release()
			}
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n := b.Rec.NumRows()
		if n == 0 {
			b.Rec.Release()
			continue
		}
		if used+p.rows+n > e.opts.Allotments.Predictions {
			b.Rec.Release()
			putLines(b.Lines)
			left := max(e.opts.Allotments.Predictions-used, 0)
			return nil, &Error{Kind: QuotaExceeded, Msg: fmt.Sprintf("Usage Alert - You have %d Predictions left for this cycle.", left)}
		}
		names, err := p.register(b.Rec.Schema(), b.Text)
		if err != nil {
			b.Rec.Release()
			putLines(b.Lines)
			return nil, err
		}
		j := &job{done: make(chan struct{})}
		queue = append(queue, j)
		go func(first int64, echo []arrow.Field) {
			defer close(j.done)
			defer putLines(b.Lines)
			var stood bool
			j.rec, stood, j.err = p.score(b, names, first, echo)
			b.Rec.Release()
			lines := echoesLines(b, names, echo)
			if _, lt := text.(LineText); j.err == nil && stood && (!lt || lines == nil) {
				// The hint (HintNumbers) promises lines for every batch
				// with numbers in place of text.
				j.err = fmt.Errorf("engine: predict batch at row %d has numbers for text and no lines to echo", first)
			}
			if j.err != nil || text == nil {
				return
			}
			j.text = renderText(text, j.rec, len(echo), lines)
			j.rec.Release()
			j.rec = nil
		}(p.rows, p.echo)
		p.rows += n
		if err := drain(workers); err != nil {
			return nil, err
		}
	}
	if err := drain(0); err != nil {
		return nil, err
	}
	opts, _, err := src.Options()
	if err != nil {
		return nil, err
	}
	if err := checkPredictOptions(m, opts); err != nil {
		return nil, err
	}
	if p.rows == 0 {
		return nil, Validation("data", "The data field is required.")
	}
	if err := p.checkMissing(); err != nil {
		return nil, err
	}
	// The usage record (the model's lastUsed and the prediction count)
	// commits while the caller writes the answer, instead of before its
	// first byte: PredictOutput.Commit waits for it, and the caller calls
	// Commit before the answer's last byte, so a complete answer still
	// means its predictions are counted. It runs on its own context: a
	// client that leaves mid-answer was still predicted for. The running
	// count takes the rows now, so that the answer's account headers,
	// written with its first bytes, include them, and gives them back if
	// the record fails.
	now := e.now()
	touched := make(chan error, 1)
	e.predictions.add(p.rows)
	go func(rows int64) {
		err := e.touchModel(context.WithoutCancel(ctx), m.ID, now, rows)
		if err != nil {
			e.predictions.add(-rows)
		}
		touched <- err
	}(p.rows)
	m.LastUsed = &now
	ok = true
	schema := p.schema(opts.IncludeClassScores)
	// Batches are rendered with every class score: whether the answer
	// has them may be known only now (a JSON body's extraParameters).
	cut := lm.classifier != nil && !opts.IncludeClassScores
	return &PredictOutput{Model: m, Messages: []Message{}, schema: schema, echoed: len(p.echo), spool: sp, text: text, texts: ts, cut: cut, touched: touched}, nil
}

// HintPredict gives src, when it is a NumberHinter and text a LineText,
// the numeric columns of model id before src's first batch is read, so
// that every batch of a CSV body can come as numbers (PredictStream
// hints it too, but only once the first batch has been read, by when the
// first chunks are parsed as text). Only a model loaded by an earlier
// request gives this hint; PredictStream reports an unknown model, after
// the body's own errors.
func (e *Engine) HintPredict(ctx context.Context, id string, src PredictSource, text PredictText) {
	h, ok := src.(NumberHinter)
	if _, lines := text.(LineText); !ok || !lines {
		return
	}
	// Only a model in the cache: looking it up would cost every request
	// a catalog query before its body is read.
	mid, err := parseID("modelId", id)
	if err != nil {
		return
	}
	lm, ok := e.models.get(mid)
	if !ok {
		return
	}
	p := &predictor{e: e, m: Model{ID: mid, Target: lm.target}, lm: lm, tokens: missingTokens(lm.pipeline.Missing)}
	h.HintNumbers(p.numericColumns, p.parseNumber)
}

// echoesLines returns b's lines when the answer's echoed columns echo
// are exactly b's columns (registered as names), in order: then each
// answer row starts with the input line. nil otherwise.
func echoesLines(b PredictBatch, names []string, echo []arrow.Field) *Lines {
	if b.Lines == nil || len(names) != len(echo) || len(b.Lines.Ends) != int(b.Rec.NumRows()) {
		return nil
	}
	for i, f := range echo {
		if f.Name != names[i] {
			return nil
		}
	}
	return b.Lines
}

// predictionCount caches the count of predictions made: a predict
// request checks its quota against it without a query.
type predictionCount struct {
	mu    sync.Mutex
	n     int64
	known bool
}

// get returns the count, read with count the first time.
func (c *predictionCount) get(ctx context.Context, count func(context.Context) (int64, error)) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known {
		n, err := count(ctx)
		if err != nil {
			return 0, err
		}
		c.n, c.known = n, true
	}
	return c.n, nil
}

// add counts n more predictions (fewer when n is negative: a usage record
// that failed to commit).
func (c *predictionCount) add(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += n
}

// MaxColumns is the most columns a dataset, and so a predict body, may
// have (Options.MaxColumns).
func (e *Engine) MaxColumns() int { return e.opts.MaxColumns }

// PredictFormat is the format of a predict body that ingest reads.
type PredictFormat int

// The formats of PredictBody.
const (
	PredictCSVBody     PredictFormat = iota // text/csv
	PredictArrowBody                        // Arrow IPC stream
	PredictParquetBody                      // Parquet file
)

// PredictBody reads a predict body with ingest's readers: CSV (a header
// line, then rows; Elm's predictRaw) with every column as its fields' text
// (ingest.Options.Verbatim), Arrow IPC and Parquet as typed columns
// (float64, bool, timestamp, utf8). It is a PredictSource but for
// Options, which the caller adds.
type PredictBody struct {
	r       io.Reader
	format  PredictFormat
	rows    int
	maxCols int
	tmp     string
	rd      *ingest.Reader
	// numeric and parse are a HintNumbers that came before the reader:
	// given to it once it has read the header.
	numeric func(header []string) []bool
	parse   func(field []byte) (float64, bool)
}

// NewPredictBody reads the body r in format f, in batches of at most
// batchRows rows. A Parquet body is spooled to Options.TempDir first.
func (e *Engine) NewPredictBody(r io.Reader, f PredictFormat, batchRows int) *PredictBody {
	return &PredictBody{r: r, format: f, rows: batchRows, maxCols: e.opts.MaxColumns, tmp: e.opts.TempDir}
}

// Next returns the next batch, io.EOF after the last.
func (c *PredictBody) Next() (PredictBatch, error) {
	if c.rd == nil {
		opts := ingest.Options{BatchRows: c.rows, MaxColumns: c.maxCols, SpoolDir: c.tmp}
		var rd *ingest.Reader
		var err error
		switch c.format {
		case PredictArrowBody:
			rd, err = ingest.NewArrowStream(c.r, opts)
		case PredictParquetBody:
			rd, err = ingest.NewParquet(c.r, opts)
		default:
			opts.Verbatim = true
			opts.Allocator = &predictMemory
			if c.numeric != nil {
				opts.Numbers = c.hint
			}
			rd, err = ingest.NewCSV(c.r, opts)
		}
		if err != nil {
			return PredictBatch{}, c.error(err)
		}
		c.rd = rd
	}
	if !c.rd.Next() {
		if err := c.rd.Err(); err != nil {
			return PredictBatch{}, c.error(err)
		}
		return PredictBatch{}, io.EOF
	}
	rec := c.rd.RecordBatch()
	rec.Retain()
	b := PredictBatch{Rec: rec, Text: c.format == PredictCSVBody}
	if c.format == PredictCSVBody {
		l := getLines()
		var ok bool
		if l.Data, l.Ends, ok = c.rd.Lines(l.Data, l.Ends, &csvLeading); ok {
			b.Lines = l
		} else {
			putLines(l)
		}
	}
	return b, nil
}

// NumberHinter is a PredictSource that can read numeric columns of a
// text body as numbers as it splits it, instead of as text for the
// engine to parse (a CSV PredictBody). PredictStream hints it only when
// the answer is a LineText; then a batch of numbers carries the Lines
// that echo its text.
type NumberHinter interface {
	// HintNumbers asks for the columns numeric marks in the header (nil:
	// none), read by parse; batches already read keep their text.
	HintNumbers(numeric func(header []string) []bool, parse func(field []byte) (float64, bool))
}

// HintNumbers implements NumberHinter for a CSV body; any other body
// ignores it. Before the first Next it waits for the header.
func (c *PredictBody) HintNumbers(numeric func(header []string) []bool, parse func(field []byte) (float64, bool)) {
	if c.format != PredictCSVBody {
		return
	}
	c.numeric, c.parse = numeric, parse
	if c.rd == nil {
		return
	}
	cols := c.rd.Columns()
	header := make([]string, len(cols))
	for j, col := range cols {
		header[j] = col.Name
	}
	if h := c.hint(header); h != nil {
		c.rd.ParseNumbers(h)
	}
}

// hint is the NumberHint of HintNumbers' functions for a header; nil
// when they mark no column.
func (c *PredictBody) hint(header []string) *ingest.NumberHint {
	mark := c.numeric(header)
	if mark == nil {
		return nil
	}
	return &ingest.NumberHint{Columns: mark, Leading: &csvLeading, Parse: c.parse}
}

// csvLeading marks the first bytes of a CSV cell that a CSV answer may
// quote (as encoding/csv does a value that starts with white space, and
// the line "\."): lines with such a cell are rendered cell by cell.
var csvLeading = func() (set [256]bool) {
	for c := range set {
		set[c] = c <= ' ' || c >= 0x80 || c == '\\'
	}
	return set
}()

// Close stops the reader and frees its buffers.
func (c *PredictBody) Close() {
	if c.rd != nil {
		c.rd.Release()
	}
}

// error words a reading error: an empty body is a missing data field,
// malformed input a 400 naming where; a failed read keeps its cause (a
// body over the limit is a 413).
func (c *PredictBody) error(err error) error {
	var pe *ingest.ParseError
	if !errors.As(err, &pe) {
		v := Validation("data", "The request body could not be read")
		v.Err = err
		return v
	}
	switch {
	case pe.Msg == "no data" && c.format == PredictCSVBody:
		return Validation("data", "The data field is required.")
	case strings.HasPrefix(pe.Msg, "more than ") && strings.Contains(pe.Msg, "column limit"):
		return Validation("data", fmt.Sprintf("The rows have more than %d columns; the column limit is %d", c.maxCols, c.maxCols))
	}
	what := [...]string{"CSV", "Arrow IPC stream", "Parquet file"}[c.format]
	v := Validation("data", "The "+what+" could not be read: "+pe.Error())
	v.Err = err
	return v
}

// checkPredictOptions checks a request's parameters against the model.
func checkPredictOptions(m Model, o PredictOptions) error {
	intervals := predictionIntervals()
	if m.Domain != DomainRegression {
		intervals = []string{}
	}
	if o.IncludeClassScores && m.Domain != DomainClassification {
		return Validation("includeClassScores", fmt.Sprintf("Class scores exist only for classification models; this model's prediction domain is %s.", m.Domain))
	}
	return CheckInterval(o.PredictionInterval, intervals)
}

// loadModel returns a model decoded, from the cache when it is there.
func (e *Engine) loadModel(ctx context.Context, m Model) (*loadedModel, error) {
	if lm, ok := e.models.get(m.ID); ok {
		return lm, nil
	}
	blob, err := e.modelBytes(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	lm, err := decodeModel(blob)
	if err != nil {
		return nil, err
	}
	lm.target = m.Target
	e.models.put(m.ID, lm)
	return lm, nil
}

// predictFloats recycles the float64 slices a predict batch is scored
// with: its numeric input columns and its encoded matrix, about 5 MB a
// batch of 16 384 rows × 20 features, given back as soon as the batch is
// predicted. predictMemory recycles the Arrow buffers of a CSV predict
// body's batches (ingest parses each into the released ones'). With
// textSpool.close giving the answer's text back to textBufs, they take a
// 100 000-row CSV predict from 92 to about 31 MB allocated
// (BenchmarkPredictLinearCSV), and the request from fresh pages, which
// cost more than the collector, to warm ones (columnar.Pool).
var (
	predictFloats columnar.Pool[float64]
	predictMemory columnar.PoolAllocator
)

// predictor scores the batches of one request. It keeps the input columns
// seen so far (their names follow a dataset's rules, at most MaxColumns)
// in first-seen order: the answer echoes them all, and rows without one
// echo it as missing.
type predictor struct {
	e      *Engine
	m      Model
	lm     *loadedModel
	tokens *tokenSet
	rows   int64          // rows registered so far: the next batch's first row index
	seen   map[string]int // strings.ToLower(name) → index in names
	names  []string
	// echo are the answer's echoed columns so far: every column seen but
	// the target, in first-seen order. A batch is scored with the prefix
	// registered before it; register only appends, so scoring goroutines
	// read their prefix while it grows.
	echo []arrow.Field
}

// register adds the columns of a batch that are new and returns the name
// each column is echoed under (its first-seen spelling). Batches are
// registered in body order, before they are scored.
func (p *predictor) register(schema *arrow.Schema, text bool) ([]string, error) {
	names := make([]string, schema.NumFields())
	for j, f := range schema.Fields() {
		k := strings.ToLower(f.Name)
		if at, ok := p.seen[k]; ok {
			names[j] = p.names[at]
			continue
		}
		if len(p.names) == p.e.opts.MaxColumns {
			max := p.e.opts.MaxColumns
			return nil, Validation("data", fmt.Sprintf("The rows have more than %d columns; the column limit is %d", max, max))
		}
		if err := checkDataColumnName(f.Name); err != nil {
			return nil, err
		}
		typ := f.Type
		if text {
			typ = arrow.BinaryTypes.String
		}
		p.seen[k] = len(p.names)
		p.names = append(p.names, f.Name)
		if !strings.EqualFold(f.Name, p.m.Target) {
			p.echo = append(p.echo, arrow.Field{Name: f.Name, Type: typ, Nullable: true})
		}
		names[j] = f.Name
	}
	return names, nil
}

// score scores one batch, whose first row is row first of the body, and
// returns the answer's record: the echoed columns echo (the input arrays
// themselves, or nulls for a column the batch lacks), then the
// prediction: a float64 column named after the target, or a
// classification model's class (utf8) and one float64 <target>:<class>
// score per class. names are the batch's columns' registered names. It
// only reads p, so batches are scored concurrently. stood reports that an
// echoed column of the record is nulls standing in for a float64 input
// column of a text body (numbers HintNumbers had parsed from text that
// the batch's Lines hold): the record's echo is then not the input's,
// and only the lines may be rendered.
func (p *predictor) score(b PredictBatch, names []string, first int64, echo []arrow.Field) (_ arrow.RecordBatch, stood bool, _ error) {
	rec := b.Rec
	n := int(rec.NumRows())
	schema := rec.Schema()
	byName := make(map[string]int, rec.NumCols())
	for j, f := range schema.Fields() {
		byName[strings.ToLower(f.Name)] = j
	}
	pl := p.lm.pipeline
	frame := make([]*frameColumn, len(pl.Columns))
	for i, pc := range pl.Columns {
		fc := &frameColumn{Name: pc.Name, Type: pc.Type}
		j, ok := byName[strings.ToLower(pc.Name)]
		var err error
		switch {
		case !ok:
			fillMissing(fc, n)
		default:
			var lit []bool
			if b.Literal != nil {
				lit = b.Literal[j]
			}
			err = p.column(fc, rec.Column(j), lit, first)
		}
		if err != nil {
			return nil, false, err
		}
		frame[i] = fc
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	xs, err := pl.encodeWordsInto(frame, idx, predictFloats.Get)
	for _, fc := range frame {
		predictFloats.Put(fc.Num)
	}
	if err != nil {
		return nil, false, err
	}
	if xs.Dense != nil {
		defer predictFloats.Put(xs.Dense.RawMatrix().Data)
	}
	// Classifiers, regression models and Isolation Forest read text's
	// words as the CSR block (issue 16: a batch of 16 384 rows × 1 000
	// words would be 131 MB dense).
	x := rowsMatrix(xs)
	mem := memory.DefaultAllocator
	fields := slices.Clip(echo)
	cols := make([]arrow.Array, len(echo))
	var blank arrow.Array
	defer func() {
		if blank != nil {
			blank.Release()
		}
	}()
	at := make(map[string]int, len(names))
	for j, name := range names {
		at[name] = j
	}
	for i, f := range echo {
		j, ok := at[f.Name]
		switch {
		case ok && arrow.TypeEqual(rec.Column(j).DataType(), f.Type):
			cols[i] = rec.Column(j)
			cols[i].Retain()
		case ok:
			// Nulls stand in, one array for every such column (all utf8).
			if blank == nil {
				blank = array.MakeArrayOfNull(mem, f.Type, n)
			}
			if arrow.TypeEqual(blank.DataType(), f.Type) {
				cols[i] = blank
				blank.Retain()
			} else {
				cols[i] = array.MakeArrayOfNull(mem, f.Type, n)
			}
			stood = true
		default:
			cols[i] = array.MakeArrayOfNull(mem, f.Type, n)
		}
	}
	lm := p.lm
	switch {
	case lm.classifier != nil:
		proba := mat.NewDense(n, len(lm.classes), nil)
		lm.classifier.Proba(x, proba)
		cb := array.NewStringBuilder(mem)
		cb.Reserve(n)
		for _, c := range classify.Predict(proba) {
			cb.Append(lm.classes[c])
		}
		fields, cols = append(fields, arrow.Field{Name: p.m.Target, Type: arrow.BinaryTypes.String, Nullable: true}), append(cols, cb.NewArray())
		cb.Release()
		for c, class := range lm.classes {
			scores := make([]float64, n)
			mat.Col(scores, c, proba)
			fields, cols = append(fields, arrow.Field{Name: p.m.Target + ":" + class, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), append(cols, float64Array(scores))
		}
	case lm.detector != nil:
		// The anomaly score of each row (MODELLING §8.5), under the
		// session's target name, anomaly.
		pred := make([]float64, n)
		lm.detector.Score(x, pred)
		fields, cols = append(fields, arrow.Field{Name: p.m.Target, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), append(cols, float64Array(pred))
	default:
		pred := make([]float64, n)
		lm.model.Predict(x, pred)
		fields, cols = append(fields, arrow.Field{Name: p.m.Target, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), append(cols, float64Array(pred))
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return out, stood, nil
}

// float64Array wraps a Go slice as an Arrow float64 array without copying.
func float64Array(v []float64) arrow.Array {
	data := array.NewData(arrow.PrimitiveTypes.Float64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(v))}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// fillMissing gives a column absent from a batch n missing values.
func fillMissing(fc *frameColumn, n int) {
	if fc.isText() {
		fc.Text, fc.OK = make([]string, n), make([]bool, n)
		return
	}
	fc.Num = predictFloats.Get(n)
	for i := range fc.Num {
		fc.Num[i] = math.NaN()
	}
}

// checkMissing reports the model's input columns that no row had.
func (p *predictor) checkMissing() error {
	var missing []string
	for _, pc := range p.lm.pipeline.Columns {
		if _, ok := p.seen[strings.ToLower(pc.Name)]; !ok {
			missing = append(missing, pc.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	details := map[string]any{}
	for _, m := range missing {
		details[m] = []string{"The model needs column " + m + "; no row has it."}
	}
	return &Error{Kind: Invalid, Msg: "Feature columns are missing from the data: " + strings.Join(missing, ", "), Details: details}
}

// schema is the answer's schema: every input column but the target, in
// first-seen order, then the prediction columns.
func (p *predictor) schema(scores bool) *arrow.Schema {
	fields := slices.Clone(p.echo)
	if p.lm.classifier == nil {
		return arrow.NewSchema(append(fields, arrow.Field{Name: p.m.Target, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), nil)
	}
	fields = append(fields, arrow.Field{Name: p.m.Target, Type: arrow.BinaryTypes.String, Nullable: true})
	if scores {
		for _, c := range p.lm.classes {
			fields = append(fields, arrow.Field{Name: p.m.Target + ":" + c, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// valueError is the 400 of a value that does not read as its column's
// type; row counts from 0 across the whole body.
func valueError(row int64, column, msg string) error {
	return &Error{Kind: Invalid, Msg: fmt.Sprintf("Row %d: %s", row, msg), Details: map[string]any{
		column: []string{fmt.Sprintf("row %d: %s", row, msg)}}}
}

// column reads one input array into a frame column of the model's type.
// Absent, null and blank values are missing (imputed), and so are a
// string's missing-value tokens.
func (p *predictor) column(fc *frameColumn, arr arrow.Array, lit []bool, first int64) error {
	n := arr.Len()
	if fc.isText() {
		fc.Text, fc.OK = make([]string, n), make([]bool, n)
		for i := range n {
			if s, ok := p.text(arr, lit, i); ok {
				// Cloned: the frame must not pin the body's buffers.
				fc.Text[i], fc.OK[i] = strings.Clone(s), true
			}
		}
		return nil
	}
	switch a := arr.(type) {
	case *array.String:
		if fc.Type.IsNumeric() {
			return p.numbers(fc, a, lit, first)
		}
	case *array.Float64:
		if fc.Type.IsNumeric() && a.NullN() == 0 {
			fc.Num = predictFloats.Get(n)
			copy(fc.Num, a.Float64Values())
			return nil
		}
		if fc.Type.IsNumeric() {
			fc.Num = predictFloats.Get(n)[:0]
			return appendArray(fc, arr)
		}
	case *array.Boolean:
		if fc.Type.IsNumeric() || fc.Type == columnar.Logical {
			fc.Num = predictFloats.Get(n)[:0]
			return appendArray(fc, arr)
		}
	case *array.Timestamp:
		if fc.Type == columnar.Date {
			fc.Num = predictFloats.Get(n)[:0]
			return appendArray(fc, arr)
		}
	}
	fc.Num = predictFloats.Get(n)
	for i := range n {
		if err := p.value(fc, arr, lit, i, first); err != nil {
			return err
		}
	}
	return nil
}

// value reads row i of arr into fc.Num[i] by the general rules (missing
// values, tokens, literals, the column's type); first is the body row of
// the batch's row 0, for the error.
func (p *predictor) value(fc *frameColumn, arr arrow.Array, lit []bool, i int, first int64) error {
	s, ok := p.text(arr, lit, i)
	if !ok {
		fc.Num[i] = math.NaN()
		return nil
	}
	v, err := parseValue(fc, s, lit != nil && lit[i])
	if err != nil {
		return valueError(first+int64(i), fc.Name, err.Error())
	}
	fc.Num[i] = v
	return nil
}

// numbers reads a text array into a numeric column: column's loop, with
// the common case (a decimal number) inlined.
func (p *predictor) numbers(fc *frameColumn, a *array.String, lit []bool, first int64) error {
	n := a.Len()
	fc.Num = predictFloats.Get(n)
	nulls := a.NullN() > 0
	for i := range n {
		if nulls && a.IsNull(i) {
			fc.Num[i] = math.NaN()
			continue
		}
		t := trimText(a.Value(i))
		if f, ok := ingest.ParseNumber(unsafe.Slice(unsafe.StringData(t), len(t))); ok && (p.tokens == nil || !p.tokens.has(t)) {
			fc.Num[i] = f
			continue
		}
		if err := p.value(fc, a, lit, i, first); err != nil {
			return err
		}
	}
	return nil
}

// numericColumns marks the columns of a text body's header that the model
// reads as numbers, for HintNumbers; nil, no hint, when the header has
// the target: the answer then echoes other columns than the body's, and
// renders its cells instead of copying lines.
func (p *predictor) numericColumns(header []string) []bool {
	numeric := map[string]bool{}
	for _, pc := range p.lm.pipeline.Columns {
		if pc.Type.IsNumeric() {
			numeric[strings.ToLower(pc.Name)] = true
		}
	}
	mark := make([]bool, len(header))
	any := false
	for j, h := range header {
		if strings.EqualFold(h, p.m.Target) {
			return nil
		}
		mark[j] = numeric[strings.ToLower(h)]
		any = any || mark[j]
	}
	if !any {
		return nil
	}
	return mark
}

// parseNumber reads a field as numbers reads a present value's text on
// its fast path: a number that is not a missing-value token. Anything
// else is false, and its column keeps its text for numbers to read.
func (p *predictor) parseNumber(field []byte) (float64, bool) {
	// A field that starts and ends with a printable ASCII byte, the common
	// one, has nothing to trim; and it is no token when none reads as a
	// number (a token equal to a number's text would read as one).
	if n := len(field); n > 0 && plainEdge(field[0]) && plainEdge(field[n-1]) && (p.tokens == nil || !p.tokens.numeric) {
		return ingest.ParseTrimmed(field)
	}
	t := trimText(unsafe.String(unsafe.SliceData(field), len(field)))
	f, ok := ingest.ParseNumber(unsafe.Slice(unsafe.StringData(t), len(t)))
	return f, ok && (p.tokens == nil || !p.tokens.has(t))
}

// text returns value i of arr as text, false when it is missing: null,
// blank, or a string equal to one of the pipeline's missing-value tokens.
func (p *predictor) text(arr arrow.Array, lit []bool, i int) (string, bool) {
	if arr.IsNull(i) {
		return "", false
	}
	var s string
	switch a := arr.(type) {
	case *array.String:
		s = a.Value(i)
	case *array.LargeString:
		s = a.Value(i)
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC().Format("2006-01-02T15:04:05.999999999Z07:00"), true
	default:
		s = arr.ValueStr(i)
	}
	t := trimText(s)
	if t == "" {
		return "", false
	}
	if p.tokens != nil && (lit == nil || !lit[i]) && p.tokens.has(t) {
		return "", false
	}
	return s, true
}

// trimText trims white space as strings.TrimSpace does, without its
// Unicode tables for ASCII text.
func trimText(s string) string {
	for len(s) > 0 && s[0] < utf8.RuneSelf && asciiSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] < utf8.RuneSelf && asciiSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && (s[0] >= utf8.RuneSelf || s[len(s)-1] >= utf8.RuneSelf) {
		return strings.TrimSpace(s)
	}
	return s
}

// plainEdge reports whether c, at either end of a text, leaves nothing
// for trimText to trim.
func plainEdge(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// tokenSet holds missing-value tokens, compared in any case after
// trimming white space.
type tokenSet struct {
	tokens  []string
	maxLen  int
	numeric bool // some token reads as a number ("-999")
}

func missingTokens(tokens []string) *tokenSet {
	if len(tokens) == 0 {
		return nil
	}
	ts := &tokenSet{}
	for _, t := range tokens {
		t = strings.TrimSpace(t)
		ts.tokens = append(ts.tokens, t)
		ts.maxLen = max(ts.maxLen, len(t))
		if _, ok := ingest.ParseNumber([]byte(t)); ok {
			ts.numeric = true
		}
	}
	return ts
}

// has reports whether t (trimmed) is a token.
func (ts *tokenSet) has(t string) bool {
	if len(t) > ts.maxLen {
		return false
	}
	for _, tok := range ts.tokens {
		if strings.EqualFold(t, tok) {
			return true
		}
	}
	return false
}

// parseValue reads a present value's text as a number of fc's type:
// numeric, logical (1/0) or date (seconds since the epoch). lit says the
// value was a JSON number or boolean.
func parseValue(fc *frameColumn, s string, lit bool) (float64, error) {
	switch fc.Type {
	case columnar.Logical:
		if b, ok := parseLogical(s); ok {
			return b2f(b), nil
		}
		return 0, fmt.Errorf("value %q of %s is not a logical value", s, fc.Name)
	case columnar.Date:
		if t, ok := columnar.ParseTime(s); ok {
			return float64(t.UnixNano()) / 1e9, nil
		}
		return 0, fmt.Errorf("value %q of %s is not a date", s, fc.Name)
	}
	// Read as an uploaded value is (decimal notation only).
	if t := trimText(s); t != "" {
		if f, ok := ingest.ParseNumber(unsafe.Slice(unsafe.StringData(t), len(t))); ok {
			return f, nil
		}
	}
	if lit && (s == "true" || s == "false") {
		return b2f(s == "true"), nil
	}
	return 0, fmt.Errorf("value %q of %s is not a number", s, fc.Name)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// PredictOutput is a prediction's answer: the model, and the rows as Arrow
// batches of one schema (Schema), replayed from the spool by Next. Close
// removes the spool.
type PredictOutput struct {
	Model    Model
	Messages []Message
	schema   *arrow.Schema
	echoed   int
	spool    *predictSpool
	next     int
	text     PredictText // nil: the answer is Arrow batches
	texts    *textSpool
	cut      bool // leave out the rendered class scores
	touched  chan error
	touchErr error
}

// Commit waits for the request's usage record (the model's lastUsed and
// the prediction count) to commit, and reports its error. The caller
// calls it before the answer's last byte leaves: an error then must not
// end in a complete answer.
func (o *PredictOutput) Commit() error {
	if o.touched != nil {
		o.touchErr = <-o.touched
		o.touched = nil
	}
	return o.touchErr
}

// Schema is the answer's schema: the echoed input columns, in first-seen
// order (utf8 for text bodies), then the prediction (float64, or a utf8
// class and, when asked for, one float64 <target>:<class> score per class).
func (o *PredictOutput) Schema() *arrow.Schema { return o.schema }

// Echoed is how many of Schema's columns, the first ones, echo the input;
// the rest are the prediction.
func (o *PredictOutput) Echoed() int { return o.echoed }

// Next returns the next batch of the answer conformed to Schema (a column
// a batch's rows did not have is all null), and io.EOF after the last.
// The caller releases it.
func (o *PredictOutput) Next() (arrow.RecordBatch, error) {
	rec, err := o.spool.read(o.next)
	if err != nil {
		return nil, err
	}
	o.next++
	defer rec.Release()
	byName := make(map[string]int, rec.NumCols())
	for j, f := range rec.Schema().Fields() {
		byName[strings.ToLower(f.Name)] = j
	}
	cols := make([]arrow.Array, o.schema.NumFields())
	for i, f := range o.schema.Fields() {
		if j, ok := byName[strings.ToLower(f.Name)]; ok {
			cols[i] = rec.Column(j)
			cols[i].Retain()
		} else {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, int(rec.NumRows()))
		}
	}
	out := array.NewRecordBatch(o.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// WriteRows writes the answer's rows as the PredictText given to
// PredictStream rendered them, but the first row's separator, with the
// cells of columns a batch lacked (brought by later rows) as nulls.
func (o *PredictOutput) WriteRows(w io.Writer) error {
	if o.text == nil {
		return errors.New("engine: the predict answer is Arrow batches, not text")
	}
	missing := map[int][]byte{} // by how many echoed columns a batch has
	skip := o.text.Lead()
	return o.texts.replay(func(b *textBatch) error {
		data, marks, cuts, ends := b.data, b.marks, b.cuts, b.ends
		if len(ends) == 0 {
			return nil
		}
		start := skip
		skip = 0
		if b.echoed == o.echoed && !o.cut {
			_, err := w.Write(data[start:ends[len(ends)-1]])
			return err
		}
		ins, ok := missing[b.echoed]
		if !ok {
			ins = o.text.Missing(o.schema.Fields()[:o.echoed], b.echoed)
			missing[b.echoed] = ins
		}
		for i, end := range ends {
			if i > 0 {
				start = ends[i-1]
			}
			if _, err := w.Write(data[start:marks[i]]); err != nil {
				return err
			}
			if _, err := w.Write(ins); err != nil {
				return err
			}
			if !o.cut {
				if _, err := w.Write(data[marks[i]:end]); err != nil {
					return err
				}
				continue
			}
			// Up to the first prediction cell, then the closing byte.
			if _, err := w.Write(data[marks[i]:cuts[i]]); err != nil {
				return err
			}
			if _, err := w.Write(data[end-1 : end]); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close frees the spooled batches and removes the spool file.
func (o *PredictOutput) Close() error {
	return errors.Join(o.spool.close(), o.texts.close(), o.Commit())
}
