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
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/ingest"
)

// Dataset is a stored dataset: its catalog entry and column metadata.
type Dataset struct {
	Name          string
	Created       time.Time
	Modified      time.Time
	RowCount      int64
	Size          int64 // bytes of the rows' text as uploaded (approximate after replacements and deletes)
	Columns       []columnar.Column
	MissingValues []string
}

// Column finds a column by name, case-insensitively.
func (d Dataset) Column(name string) (columnar.Column, bool) {
	i := columnIndex(d.Columns, name)
	if i < 0 {
		return columnar.Column{}, false
	}
	return d.Columns[i], true
}

// ColumnWithRole returns the name of the first column with role r, or "".
func (d Dataset) ColumnWithRole(r columnar.Role) string {
	for _, c := range d.Columns {
		if c.Role == r {
			return c.Name
		}
	}
	return ""
}

// IsTimeSeries reports whether the dataset has a timestamp column.
func (d Dataset) IsTimeSeries() bool { return d.ColumnWithRole(columnar.RoleTimestamp) != "" }

func columnIndex(cols []columnar.Column, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// FormatHints is what is known of an upload's format before it is read.
type FormatHints = ingest.FormatHints

// PutRequest is one PUT /data/{name}: a body to add to (or create) a dataset.
type PutRequest struct {
	Name            string
	Body            io.Reader
	ContentEncoding string // gzip, zstd, identity or "" (sniffed)
	// Format is what is known of the body's format: ingest.FormatOf
	// decides, from the first bytes of the decompressed body when the
	// hints do not (the zero value).
	Format FormatHints
	// TimestampColumn names the column that gets role timestamp (CSV only).
	TimestampColumn string
	// Columns is metadata supplied beside the body (an import request's);
	// a JSON body's own columns are applied after it.
	Columns []columnar.Spec
	// MaxDecodedBytes overrides Options.MaxDecodedBytes when positive.
	MaxDecodedBytes int64
}

// stagePrefix names upsert staging tables.
const stagePrefix = "vatic_stage_"

// maxNameLen bounds dataset and column names.
const maxNameLen = 255

// validName checks a dataset name.
func validName(name string) error {
	if strings.TrimSpace(name) == "" || len(name) > maxNameLen || !utf8.ValidString(name) || strings.ContainsAny(name, "\x00/") {
		return Validation("dataSetName", "Value for dataSetName must be 1 to 255 characters of valid text without '/'")
	}
	return nil
}

// PutDataset adds the rows and metadata of req to a dataset, creating it if
// needed (REFERENCE §3.2): rows whose key (else timestamp) matches an
// existing row replace it, others are appended. Everything happens in one
// transaction: on any error the dataset is exactly as it was. created
// reports whether the dataset is new.
func (e *Engine) PutDataset(ctx context.Context, req PutRequest) (d Dataset, created bool, err error) {
	if err := validName(req.Name); err != nil {
		return d, false, err
	}
	unlock := e.lock(req.Name)
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

	p := &putPlan{e: e, old: old, exists: exists, req: req}
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
	switch format {
	case ingest.FormatJSON:
		rd, err = ingest.NewJSON(src, p.baseOptions(), p.prepareJSON)
	default:
		if err = p.applyTimestampParam(); err == nil {
			rd, err = ingest.NewCSV(src, p.ingestOptions())
		}
	}
	if err != nil {
		return d, false, classifyBody(err)
	}
	defer rd.Release()

	err = e.store.Tx(ctx, func(ctx context.Context) error { return p.apply(ctx, rd) })
	if err != nil {
		if perr := rd.Err(); perr != nil {
			return d, false, classifyBody(perr)
		}
		return d, false, classifyIngest(err)
	}
	e.log.InfoContext(ctx, "dataset written", LogDataset, p.d.Name, LogRows, rd.Rows(), LogBytes, rd.Bytes(), LogElapsed, time.Since(start))
	return p.d, !exists, nil
}

// CheckFormat refuses hints that declare a content type that is neither
// CSV nor JSON (ingest.FormatOf), as PutDataset would once it reads the
// body: a handler calls it to refuse such a request before anything else.
func CheckFormat(h FormatHints) error {
	if _, err := ingest.FormatOf(h, nil); err != nil {
		return unsupportedContentType(h.ContentType)
	}
	return nil
}

func unsupportedContentType(ct string) *Error {
	return Validation("Content-Type", "Content type '"+ct+"' is not supported; send application/json or text/csv")
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
	stage     string                 // quoted staging table, when upserting
	// increasing holds the (lower-cased) date columns whose uploaded values
	// were strictly increasing, hence unique.
	increasing map[string]bool
	// zeroOne holds the numeric columns whose uploaded values were all 0/1.
	zeroOne map[string]bool
}

type tableColumn struct {
	Name string
	Type columnar.DataType // storage class
}

func (p *putPlan) baseOptions() ingest.Options {
	return ingest.Options{
		Allocator: p.e.opts.Allocator,
		BatchRows: p.e.opts.BatchRows,
		Workers:   p.e.opts.ImportWorkers,
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

// column returns the merged metadata entry for name, adding it if absent.
func (p *putPlan) column(name string) *columnar.Column {
	if i := columnIndex(p.cols, name); i >= 0 {
		return &p.cols[i]
	}
	p.cols = append(p.cols, columnar.Column{Name: name})
	return &p.cols[len(p.cols)-1]
}

func (p *putPlan) markDeclared(name string) {
	if p.declared == nil {
		p.declared = map[string]bool{}
	}
	p.declared[strings.ToLower(name)] = true
}

// applyTimestampParam applies ?timestampColumn= of a CSV upload.
func (p *putPlan) applyTimestampParam() error {
	name := strings.TrimSpace(p.req.TimestampColumn)
	if name == "" {
		return nil
	}
	if err := validColumnName(name); err != nil {
		return Validation("timestampColumn", "Value for timestampColumn must be a column name")
	}
	for i := range p.cols {
		if p.cols[i].Role == columnar.RoleTimestamp && !strings.EqualFold(p.cols[i].Name, name) {
			p.cols[i].Role = ""
		}
	}
	c := p.column(name)
	if c.DataType != "" && c.DataType != columnar.Date {
		return MetadataError(map[string][]string{c.Name: {"Timestamp columns must have data type date"}})
	}
	c.DataType, c.Role = columnar.Date, columnar.RoleTimestamp
	p.markDeclared(name)
	return p.validate()
}

func validColumnName(name string) error {
	_, err := columnar.QuoteIdent(name)
	if err != nil || len(name) > maxNameLen {
		return errors.New("invalid column name")
	}
	return nil
}

// prepareJSON merges the metadata of a JSON body before its rows are read.
func (p *putPlan) prepareJSON(meta ingest.JSONMeta) (ingest.Options, error) {
	if !meta.HasData && !meta.HasColumns && !meta.HasMissingValues {
		return ingest.Options{}, &Error{Kind: NoData, Msg: "No data was sent", Details: map[string]any{"dataSetName": p.req.Name}}
	}
	if meta.HasMissingValues {
		p.missing = meta.MissingValues
	}
	if err := p.mergeSpecs(meta.Columns); err != nil {
		return ingest.Options{}, err
	}
	return p.ingestOptions(), nil
}

// mergeSpecs applies supplied column metadata and validates the result.
func (p *putPlan) mergeSpecs(specs []columnar.Spec) error {
	if len(specs) == 0 {
		return nil
	}
	reasons := map[string][]string{}
	for _, s := range specs {
		if err := validColumnName(s.Name); err != nil {
			reasons[s.Name] = append(reasons[s.Name], "Column names must be 1 to 255 characters of valid text")
			continue
		}
		if msgs := p.mergeSpec(s); len(msgs) > 0 {
			reasons[s.Name] = append(reasons[s.Name], msgs...)
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return p.validate()
}

// mergeSpec applies one column's supplied metadata and returns the reasons
// it is invalid, if any. Metadata sent for a column replaces that column's
// (REFERENCE §2.1, §3.2): its imputation and aggregation become what the
// spec says, absent ones unset so that the defaults of the (possibly new)
// data type show — the Python client changes a numeric column with
// mode/median to numericMeasure and expects mean/mean. A given dataType
// replaces the column's type; an absent one keeps the stored or inferred
// type. Role is the exception, kept when the spec omits it: a role is
// structural (one key, one timestamp, one target, and the key is fixed
// once rows exist), so a spec that only retypes a column or picks its
// strategies must not silently turn a time series into a plain dataset or
// drop its target; an explicit "none" removes the role. Columns no spec
// names keep all their metadata.
func (p *putPlan) mergeSpec(s columnar.Spec) []string {
	var msgs []string
	c := p.column(s.Name)
	stored, inTable := p.tableCols[strings.ToLower(s.Name)]
	if s.DataType != "" {
		t, ok := columnar.ParseDataType(s.DataType)
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid dataType", s.DataType))
		case inTable && stored.Type != t.Storage() && (c.Role == columnar.RoleKey || strings.EqualFold(s.Role, "key")):
			msgs = append(msgs, "The data type of the key column cannot be changed")
		default:
			c.DataType = t
			p.markDeclared(s.Name)
		}
	}
	if s.Role != "" {
		r, ok := columnar.ParseRole(s.Role)
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid role", s.Role))
		case r == columnar.RoleKey && c.Role != columnar.RoleKey && p.old.RowCount > 0:
			msgs = append(msgs, "A key column can only be set when the dataset is created")
		case r != columnar.RoleKey && c.Role == columnar.RoleKey && p.old.RowCount > 0:
			msgs = append(msgs, "The key column of a dataset with rows cannot be changed")
		default:
			c.Role = r
		}
	}
	c.Imputation, c.Aggregation = "", ""
	if s.Imputation != "" {
		if v, ok := columnar.ParseImputation(s.Imputation); ok {
			c.Imputation = v
		} else {
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid imputation", s.Imputation))
		}
	}
	if s.Aggregation != "" {
		if v, ok := columnar.ParseAggregation(s.Aggregation); ok {
			c.Aggregation = v
		} else {
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid aggregation", s.Aggregation))
		}
	}
	return msgs
}

// validate checks the merged metadata as a whole.
func (p *putPlan) validate() error {
	reasons := map[string][]string{}
	seen := map[columnar.Role]string{}
	for _, c := range p.cols {
		switch c.Role {
		case columnar.RoleTarget, columnar.RoleTimestamp, columnar.RoleKey:
			if other, dup := seen[c.Role]; dup {
				reasons[c.Name] = append(reasons[c.Name], fmt.Sprintf("Only one column may have role %s; %s has it too", c.Role, other))
			}
			seen[c.Role] = c.Name
		}
		if c.Role == columnar.RoleTimestamp && c.DataType != "" && c.DataType != columnar.Date {
			reasons[c.Name] = append(reasons[c.Name], "Timestamp columns must have data type date")
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return nil
}

// apply runs inside the transaction: settles the table's columns, streams
// the rows in (through a staging table when upserting), infers roles of a
// new dataset and saves the catalog entry.
func (p *putPlan) apply(ctx context.Context, rd *ingest.Reader) error {
	e := p.e
	table, err := sqlgen.Table(p.old.Name)
	if err != nil {
		return Validation("dataSetName", "Value for dataSetName is not a valid name")
	}
	if err := p.settleDeclaredColumns(ctx, table); err != nil {
		return err
	}
	match := ""
	if p.old.RowCount > 0 {
		if match = columnWithRole(p.cols, columnar.RoleKey); match == "" {
			match = columnWithRole(p.cols, columnar.RoleTimestamp)
		}
	}
	target := table
	if match != "" {
		// The staging table lives in schema main and is dropped before the
		// transaction ends, so no other connection ever sees it.
		p.stage = "main." + columnar.MustQuoteIdent(stagePrefix+randomID())
		target = p.stage
		defer func() { _, _ = e.store.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+p.stage) }()
	}
	created := map[string]bool{table: len(p.tableCols) > 0}
	var rows int64
	seg := newSegment(rd)
	defer func() { seg.discard() }()
	for ; seg != nil; seg = seg.next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		schema := seg.Schema()
		if !created[target] {
			if err := e.store.CreateTable(ctx, target, schema); err != nil {
				return fmt.Errorf("create %s: %w", target, err)
			}
			created[target] = true
			if target == table {
				p.noteTable(schema)
			}
		} else if err := p.ensureColumns(ctx, target, schema); err != nil {
			return err
		}
		n, err := e.store.Append(ctx, target, seg)
		rows += n
		if err != nil {
			if perr := rd.Err(); perr != nil {
				return perr
			}
			return fmt.Errorf("append to %s: %w", target, err)
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if p.stage != "" && rows > 0 {
		if !created[table] {
			if err := e.store.CreateTable(ctx, table, rd.Schema()); err != nil {
				return err
			}
			p.noteTable(rd.Schema())
		} else if err := p.ensureColumns(ctx, table, rd.Schema()); err != nil {
			return err
		}
		del, err := sqlgen.ReplaceMatching(p.old.Name, p.stage, match)
		if err != nil {
			return err
		}
		if _, err := e.store.Exec(ctx, del); err != nil {
			return fmt.Errorf("replace rows of %s: %w", table, err)
		}
		ins, err := sqlgen.InsertFrom(p.old.Name, p.stage)
		if err != nil {
			return err
		}
		if _, err := e.store.Exec(ctx, ins); err != nil {
			return fmt.Errorf("insert rows into %s: %w", table, err)
		}
	}
	for _, ci := range rd.Columns() {
		if ci.Increasing {
			if p.increasing == nil {
				p.increasing = map[string]bool{}
			}
			p.increasing[strings.ToLower(ci.Name)] = true
		}
		if ci.ZeroOne {
			if p.zeroOne == nil {
				p.zeroOne = map[string]bool{}
			}
			p.zeroOne[strings.ToLower(ci.Name)] = true
		}
		c := p.column(ci.Name)
		if _, stored := p.tableCols[strings.ToLower(ci.Name)]; !stored && !p.declared[strings.ToLower(ci.Name)] {
			// No value of this column has been seen (a header-only upload):
			// its type stays open for the first rows to decide.
			continue
		}
		if !p.declared[strings.ToLower(ci.Name)] || c.DataType == "" {
			if c.DataType == "" || c.DataType.Storage() != ci.DataType.Storage() {
				c.DataType = ci.DataType
			}
		}
	}
	if err := p.validate(); err != nil {
		return err
	}
	d := p.old
	d.Columns = p.cols
	d.MissingValues = p.missing
	now := e.now()
	if !p.exists {
		d.Created = now
	}
	d.Modified = now
	if len(p.tableCols) > 0 || created[table] {
		q, args, err := sqlgen.Count(d.Name, sqlgen.Range{})
		if err != nil {
			return err
		}
		r, err := e.store.Rows(ctx, q, args...)
		if err != nil {
			return err
		}
		if err := scanOne(r, &d.RowCount); err != nil {
			return err
		}
	}
	d.Size += rd.Bytes()
	if err := e.checkDataSetSize(ctx, d, rd.Bytes()); err != nil {
		return err
	}
	if p.old.RowCount == 0 && d.RowCount > 0 {
		if err := p.inferRoles(ctx, &d); err != nil {
			return err
		}
	}
	p.d = d
	return e.saveDataset(ctx, d)
}

// checkDataSetSize refuses a write that takes the account's datasets past
// the DataSetSize allotment (429 QuotaExceeded, in the words of the
// dataset-count quota). It runs inside the write's transaction, after the
// rows are in, so it measures the bytes actually added (d.Size, as the
// dataset summary reports it) rather than trusting a Content-Length that
// gzip, JSON syntax or upserts make approximate; refusing rolls the whole
// write back. The cost is that a refused body is read in full first; the
// body limits bound it. A write that adds no bytes (metadata only) always
// passes, even when a lowered allotment is already exceeded. Two writes to
// different datasets committing at once may each pass alone and exceed it
// together by at most one write.
func (e *Engine) checkDataSetSize(ctx context.Context, d Dataset, added int64) error {
	limit := e.opts.Allotments.DataSetSize
	if added <= 0 || limit == unlimited {
		return nil
	}
	others, err := e.datasetBytes(ctx, d.Name)
	if err != nil {
		return err
	}
	if others+d.Size <= limit {
		return nil
	}
	current := others + d.Size - added // in use before this write
	left := max(limit-current, 0)
	return &Error{Kind: QuotaExceeded,
		Msg:     fmt.Sprintf("You have %d bytes of DataSetSize left; this upload needs %d. %d of %d bytes are in use.", left, added, current, limit),
		Details: map[string]any{"dataSetSize": map[string]int64{"allotted": limit, "current": current}}}
}

func columnWithRole(cols []columnar.Column, r columnar.Role) string {
	return Dataset{Columns: cols}.ColumnWithRole(r)
}

// noteTable records the columns of a table just created.
func (p *putPlan) noteTable(schema *arrow.Schema) {
	if p.tableCols == nil {
		p.tableCols = map[string]tableColumn{}
	}
	for _, f := range schema.Fields() {
		p.tableCols[strings.ToLower(f.Name)] = tableColumn{Name: f.Name, Type: columnar.FieldDataType(f).Storage()}
	}
}

// settleDeclaredColumns gives the data table the columns whose type the
// caller declared: it creates the table for a new dataset that has typed
// columns, adds missing columns, and converts columns whose declared
// storage differs from the stored one (failing if a value cannot convert).
func (p *putPlan) settleDeclaredColumns(ctx context.Context, table string) error {
	var fields []arrow.Field
	for _, c := range p.cols {
		if c.DataType != "" {
			fields = append(fields, columnar.Field(c.Name, c.DataType))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	schema := arrow.NewSchema(fields, nil)
	if len(p.tableCols) == 0 {
		if err := p.e.store.CreateTable(ctx, table, schema); err != nil {
			return fmt.Errorf("create %s: %w", table, err)
		}
		p.noteTable(schema)
		return nil
	}
	return p.ensureColumns(ctx, table, schema)
}

// ensureColumns adds the fields of schema missing from table and converts
// columns whose storage differs. For the data table it keeps tableCols
// current.
func (p *putPlan) ensureColumns(ctx context.Context, table string, schema *arrow.Schema) error {
	isData := table != p.stage
	for _, f := range schema.Fields() {
		want := columnar.FieldDataType(f)
		key := strings.ToLower(f.Name)
		var have tableColumn
		var ok bool
		if isData {
			have, ok = p.tableCols[key]
		} else {
			have, ok = p.stageColumn(ctx, f.Name)
		}
		var q string
		var err error
		switch {
		case !ok:
			q, err = sqlgen.AddColumn(table, f.Name, want)
		case have.Type != want.Storage():
			q, err = sqlgen.ConvertColumn(table, have.Name, have.Type, want)
		default:
			continue
		}
		if err != nil {
			return err
		}
		if _, err := p.e.store.Exec(ctx, q); err != nil {
			if ok {
				return MetadataError(map[string][]string{have.Name: {fmt.Sprintf("The values of column %s cannot be read as %s", have.Name, want)}})
			}
			return fmt.Errorf("alter %s: %w", table, err)
		}
		if isData {
			name := f.Name
			if ok {
				name = have.Name
			}
			p.tableCols[key] = tableColumn{Name: name, Type: want.Storage()}
		}
	}
	return nil
}

// stageColumn looks a column up in the staging table.
func (p *putPlan) stageColumn(ctx context.Context, name string) (tableColumn, bool) {
	cols, err := p.e.stageColumns(ctx, strings.Trim(strings.TrimPrefix(p.stage, "main."), `"`))
	if err != nil {
		return tableColumn{}, false
	}
	c, ok := cols[strings.ToLower(name)]
	return c, ok
}

// inferRoles applies the role rules of a dataset's first rows (REFERENCE
// §2.1, MODELLING §13 rule 7): a lone date column with unique values becomes
// the timestamp when no timestamp or key was given; a time series with
// exactly one other numeric column gets it as target, typed numericMeasure
// when it is the only other column and its type was inferred.
func (p *putPlan) inferRoles(ctx context.Context, d *Dataset) error {
	if d.ColumnWithRole(columnar.RoleTimestamp) == "" && d.ColumnWithRole(columnar.RoleKey) == "" {
		var dates []int
		for i, c := range d.Columns {
			if c.DataType == columnar.Date && c.Role == "" {
				dates = append(dates, i)
			}
		}
		if len(dates) == 1 && p.increasing[strings.ToLower(d.Columns[dates[0]].Name)] {
			// Uploaded in strictly increasing order: unique without asking
			// storage for a distinct count over the whole column.
			d.Columns[dates[0]].Role = columnar.RoleTimestamp
		} else if len(dates) == 1 {
			q, err := sqlgen.IsUnique(d.Name, d.Columns[dates[0]].Name)
			if err != nil {
				return err
			}
			r, err := p.e.store.Rows(ctx, q)
			if err != nil {
				return err
			}
			var unique bool
			if err := scanOne(r, &unique); err != nil {
				return err
			}
			if unique {
				d.Columns[dates[0]].Role = columnar.RoleTimestamp
			}
		}
	}
	// Inferred numeric columns of only 0 and 1 get mode/mode defaults
	// (MODELLING §12.3, §13 rule 4) unless the caller chose strategies.
	for i, c := range d.Columns {
		if c.DataType == columnar.Numeric && p.zeroOne[strings.ToLower(c.Name)] &&
			!p.declared[strings.ToLower(c.Name)] && c.Imputation == "" && c.Aggregation == "" {
			d.Columns[i].Imputation, d.Columns[i].Aggregation = columnar.ImputeMode, columnar.AggMode
		}
	}
	if !d.IsTimeSeries() || d.ColumnWithRole(columnar.RoleTarget) != "" {
		return nil
	}
	var numeric []int
	for i, c := range d.Columns {
		if c.DataType.IsNumeric() && (c.Role == "" || c.Role == columnar.RoleFeature) {
			numeric = append(numeric, i)
		}
	}
	if len(numeric) == 1 {
		c := &d.Columns[numeric[0]]
		c.Role = columnar.RoleTarget
		if len(d.Columns) == 2 && !p.declared[strings.ToLower(c.Name)] {
			c.DataType = columnar.NumericMeasure
		}
	}
	return nil
}

// segment streams the batches of an ingest reader that share one schema,
// so that each becomes one Append; when the schema changes (a column widened
// or a JSON column appeared) the segment ends and next starts another with
// the batch that changed it.
type segment struct {
	rd      *ingest.Reader
	schema  *arrow.Schema
	pending arrow.RecordBatch // first batch of this segment, not yet served
	cur     arrow.RecordBatch
	changed arrow.RecordBatch // batch that ended this segment
	done    bool
	refs    int64
}

// newSegment starts the first segment, or returns nil for a reader with no
// rows.
func newSegment(rd *ingest.Reader) *segment {
	if !rd.Next() {
		return nil
	}
	b := rd.RecordBatch()
	b.Retain()
	return &segment{rd: rd, schema: b.Schema(), pending: b, refs: 1}
}

// next returns the segment after s, or nil at the end of the stream.
func (s *segment) next() *segment {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.pending != nil {
		s.pending.Release()
		s.pending = nil
	}
	if s.changed == nil {
		// The consumer may have stopped early; drain nothing more.
		return nil
	}
	n := &segment{rd: s.rd, schema: s.changed.Schema(), pending: s.changed, refs: 1}
	s.changed = nil
	return n
}

// discard releases the batches s still holds, when the import stops early;
// a nil segment is a no-op.
func (s *segment) discard() {
	if s == nil {
		return
	}
	for _, b := range []arrow.RecordBatch{s.cur, s.pending, s.changed} {
		if b != nil {
			b.Release()
		}
	}
	s.cur, s.pending, s.changed = nil, nil, nil
}

func (s *segment) Schema() *arrow.Schema { return s.schema }

func (s *segment) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.pending != nil {
		s.cur, s.pending = s.pending, nil
		return true
	}
	if s.done || s.changed != nil {
		return false
	}
	if !s.rd.Next() {
		s.done = true
		return false
	}
	b := s.rd.RecordBatch()
	b.Retain()
	if !b.Schema().Equal(s.schema) {
		s.changed = b
		return false
	}
	s.cur = b
	return true
}

func (s *segment) RecordBatch() arrow.RecordBatch { return s.cur }

// Record is RecordBatch under arrow's older name.
func (s *segment) Record() arrow.RecordBatch { return s.cur }

func (s *segment) Err() error { return s.rd.Err() }

func (s *segment) Retain() { s.refs++ }

// Release drops a reference; the batches are released by next.
func (s *segment) Release() { s.refs-- }

var _ array.RecordReader = (*segment)(nil)
