package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

// FormatHints is what is known of an upload's format before it is read.
type FormatHints = ingest.FormatHints

// MaxJSONDepth is the deepest nesting of arrays and objects accepted in
// any JSON body (ingest.MaxJSONDepth, where the reason for the number is).
const MaxJSONDepth = ingest.MaxJSONDepth

// ErrJSONTooDeep is matched (errors.Is) by the read error of a
// LimitJSONDepth reader whose JSON nests deeper than MaxJSONDepth.
var ErrJSONTooDeep = ingest.ErrTooDeep

// LimitJSONDepth returns a reader of r that fails, with an error matching
// ErrJSONTooDeep, as soon as the JSON text read through it nests deeper
// than MaxJSONDepth. Request bodies the API decodes itself pass through
// it; PutDataset applies it to JSON bodies on its own.
func LimitJSONDepth(r io.Reader) io.Reader { return ingest.LimitDepth(r) }

// PutRequest is one PUT /data/{name}: a body to add to (or create) a dataset.
type PutRequest struct {
	Name            string
	Body            io.Reader
	ContentEncoding string // gzip, zstd, identity or "" (sniffed)
	// Format is what is known of the body's format: ingest.FormatOf
	// decides, from the first bytes of the decompressed body when the
	// hints do not (the zero value).
	Format FormatHints
	// TimestampColumn names the column that gets role timestamp (CSV,
	// Arrow and Parquet; a JSON body says it in its columns).
	TimestampColumn string
	// Columns is metadata supplied beside the body (an import request's);
	// a JSON body's own columns are applied after it.
	Columns []columnar.Spec
	// MaxDecodedBytes overrides Options.MaxDecodedBytes when positive.
	MaxDecodedBytes int64
}

// stagePrefix names upsert staging tables.
const stagePrefix = "vatic_stage_"

// PutDataset adds the rows and metadata of req to a dataset, creating it if
// needed (REFERENCE §3.2): rows whose key (else timestamp) matches an
// existing row replace it, others are appended. Everything happens in one
// transaction: on any error the dataset is exactly as it was. created
// reports whether the dataset is new.
func (e *Engine) PutDataset(ctx context.Context, req PutRequest) (d Dataset, created bool, err error) {
	return e.putDataset(ctx, req, nil)
}

// putDataset is PutDataset; also, when set, runs inside the write's
// transaction once the rows and the catalog entry are written, with the
// dataset as it will be, so what it records commits with the rows or not at
// all (an import's completion). Its error rolls the write back.
func (e *Engine) putDataset(ctx context.Context, req PutRequest, also func(ctx context.Context, d Dataset) error) (d Dataset, created bool, err error) {
	if err := validName(req.Name); err != nil {
		return d, false, err
	}
	unlock, err := e.lock(ctx, req.Name)
	if err != nil {
		return d, false, err
	}
	defer unlock()
	start := time.Now()

	old, exists, err := e.loadDataset(ctx, req.Name)
	if err != nil {
		return d, false, err
	}
	if !exists {
		if isView, err := e.viewNamed(ctx, req.Name); err != nil {
			return d, false, err
		} else if isView {
			return d, false, Validation("dataSetName", "A view named "+req.Name+" exists; views and datasets share names")
		}
		n, err := e.countDatasets(ctx)
		if err != nil {
			return d, false, err
		}
		if n >= e.opts.Allotments.DataSets {
			return d, false, &Error{Kind: QuotaExceeded, Msg: fmt.Sprintf("You have 0 DataSets left; %d of %d are in use.", n, e.opts.Allotments.DataSets),
				Details: map[string]any{"dataSetCount": map[string]int64{"allotted": e.opts.Allotments.DataSets, "current": n}}}
		}
		old = Dataset{Name: req.Name}
	}
	maxDecoded := e.opts.MaxDecodedBytes
	if req.MaxDecodedBytes > 0 {
		maxDecoded = req.MaxDecodedBytes
	}
	body, err := ingest.Decompress(req.Body, req.ContentEncoding, maxDecoded)
	if err != nil {
		return d, false, classifyBody(err)
	}
	defer body.Close()

	p := &putPlan{e: e, old: old, exists: exists, req: req, maxDecoded: maxDecoded}
	p.cols = slices.Clone(old.Columns)
	p.missing = old.MissingValues
	tableCols, err := e.tableColumns(ctx, old.Name)
	if err != nil {
		return d, false, err
	}
	p.tableCols = tableCols
	if err := p.mergeSpecs(req.Columns); err != nil {
		return d, false, err
	}

	var rd *ingest.Reader
	var src io.Reader = body
	format, err := ingest.FormatOf(req.Format, func() []byte {
		// Read ahead only when the hints do not decide: Peek swallows a
		// read error, and not every reader repeats it on the next Read.
		br := bufio.NewReaderSize(body, 4096)
		prefix, _ := br.Peek(512)
		src = br
		return prefix
	})
	if err != nil {
		return d, false, unsupportedContentType(req.Format.ContentType)
	}
	if format == ingest.FormatJSON {
		rd, err = ingest.NewJSON(src, p.baseOptions(), p.prepareJSON)
	} else if err = p.applyTimestampParam(); err == nil {
		switch format {
		case ingest.FormatArrow:
			rd, err = ingest.NewArrowStream(src, p.ingestOptions())
		case ingest.FormatParquet:
			// Read from a copy in TempDir: a Parquet file is read from
			// its end (ingest.NewParquet).
			rd, err = ingest.NewParquet(src, p.ingestOptions())
		default:
			rd, err = ingest.NewCSV(src, p.ingestOptions())
		}
	}
	if err != nil {
		return d, false, classifyBody(err)
	}
	defer rd.Release()

	err = e.store.Tx(ctx, func(ctx context.Context) error {
		if err := p.apply(ctx, rd); err != nil || also == nil {
			return err
		}
		return also(ctx, p.d)
	})
	if err != nil {
		if perr := rd.Err(); perr != nil {
			return d, false, classifyBody(perr)
		}
		return d, false, classifyIngest(err)
	}
	e.rowsIngested.Add(rd.Rows())
	e.log.InfoContext(ctx, "dataset written", LogDataset, p.d.Name, LogRows, rd.Rows(), LogBytes, rd.Bytes(), LogElapsed, time.Since(start))
	return p.d, !exists, nil
}

// CheckFormat refuses hints that declare a content type that names none
// of the formats (CSV, JSON, Arrow IPC stream, Parquet: ingest.FormatOf),
// as PutDataset would once it reads the body: a handler calls it to refuse
// such a request before anything else.
func CheckFormat(h FormatHints) error {
	if _, err := ingest.FormatOf(h, nil); err != nil {
		return unsupportedContentType(h.ContentType)
	}
	return nil
}

func unsupportedContentType(ct string) *Error {
	return Validation("Content-Type", "Content type '"+ct+"' is not supported; send text/csv, application/json, "+ingest.MediaArrowStream+" or "+ingest.MediaParquet)
}

// classifyBody classifies an error met while reading and decoding the
// request body: besides ingest's typed errors, anything else (a gzip header
// that is not one, a truncated stream, a connection that breaks) is the
// body's fault, so it is a RequestValidation naming the body, never a 500.
func classifyBody(err error) error {
	err = classifyIngest(err)
	var ee *Error
	if errors.As(err, &ee) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Kind: Invalid, Msg: "Request is invalid: the body could not be read: " + err.Error(),
		Details: map[string]any{"body": []string{err.Error()}}, Err: err}
}

// classifyIngest turns ingest's errors into engine errors.
func classifyIngest(err error) error {
	var pe *ingest.ParseError
	var ee *Error
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &pe):
		field := "body"
		if pe.Column != "" {
			field = pe.Column
		}
		return &Error{Kind: Invalid, Msg: "Request is invalid: " + pe.Error(), Details: map[string]any{field: []string{pe.Error()}}, Err: err}
	case errors.Is(err, ingest.ErrTooLarge):
		return &Error{Kind: TooLarge, Msg: "The data is larger than the size limit", Details: map[string]any{"body": []string{err.Error()}}, Err: err}
	case errors.Is(err, ingest.ErrUnsupportedEncoding):
		return &Error{Kind: UnsupportedMedia, Msg: "Request is invalid", Details: map[string]any{"Content-Encoding": []string{"Supported content encodings are gzip, zstd and identity"}}, Err: err}
	}
	return err
}

// putPlan carries one PutDataset from metadata to committed rows.
type putPlan struct {
	e         *Engine
	old       Dataset
	exists    bool
	req       PutRequest
	cols      []columnar.Column      // merged metadata, in order
	declared  map[string]bool        // lower-cased names whose data type the caller gave
	missing   []string               // missing-value tokens for this upload and after
	tableCols map[string]tableColumn // the data table's columns now (lower-cased name)
	d         Dataset                // the result
	stage     string                 // quoted, qualified staging table, when upserting
	stageName string                 // its unquoted name in schema main
	// increasing holds the (lower-cased) date columns whose uploaded values
	// were strictly increasing, hence unique.
	increasing map[string]bool
	// zeroOne holds the numeric columns whose uploaded values were all 0/1.
	zeroOne map[string]bool
	// maxDecoded caps the decompressed body, and what an Arrow IPC
	// stream's own compressed buffers expand to.
	maxDecoded int64
}

type tableColumn struct {
	Name    string
	Type    columnar.DataType // storage class
	SQLType string            // DuckDB's name of the type (DOUBLE, VARCHAR, …)
}

func (p *putPlan) baseOptions() ingest.Options {
	return ingest.Options{
		Allocator: p.e.opts.Allocator,
		BatchRows: p.e.opts.BatchRows,
		Workers:   p.e.opts.ImportWorkers,
		// The body's own columns are bounded as they are read; with the
		// dataset's, by checkWidth.
		MaxColumns:      p.e.opts.MaxColumns,
		CheckName:       checkDataColumnName,
		SpoolDir:        p.e.opts.TempDir,
		MaxDecodedBytes: p.maxDecoded,
	}
}

// ingestOptions declares the type of every column whose type is settled:
// given by the caller or stored.
func (p *putPlan) ingestOptions() ingest.Options {
	o := p.baseOptions()
	o.MissingValues = p.missing
	o.Declared = map[string]columnar.DataType{}
	for _, c := range p.cols {
		if c.DataType != "" {
			o.Declared[strings.ToLower(c.Name)] = c.DataType
		}
	}
	return o
}
