package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/vaticml/vatic/columnar"
)

// ImportKind is where an import reads from; the values are the seed's
// (REFERENCE §2.6, §9 #3).
type ImportKind string

// The import kinds.
const (
	ImportURL         ImportKind = "url"
	ImportObjectStore ImportKind = "objectstore" // S3 and S3-compatible stores
	ImportBlobStore   ImportKind = "blobstore"   // Azure blob storage
)

// Status is the lifecycle state of an import or a modelling session.
type Status string

// The statuses of REFERENCE §1.8.
const (
	StatusRequested Status = "requested"
	StatusStarted   Status = "started"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// ImportSpec is what an import reads and where it writes.
type ImportSpec struct {
	Kind        ImportKind
	DataSetName string
	ContentType string // "csv", "json", "arrow", "parquet" or "" to detect
	Columns     []columnar.Spec

	URL                  string // url
	Bucket, Path, Region string // objectstore
	Container, Blob      string // blobstore

	// Secrets are kept in memory only, never in the catalog.
	Secrets ImportSecrets
}

// ImportSecrets are an import's credentials. URL holds the full URL when it
// carries user-info or a query string (a signature, a token): only its
// redacted form is stored.
type ImportSecrets struct {
	URL                          string
	User, Password               string // url, basic auth
	AccessKeyID, SecretAccessKey string // objectstore
	ConnectionString             string // blobstore
}

func (s ImportSecrets) empty() bool { return s == ImportSecrets{} }

// RemoteObject is an opened remote file.
type RemoteObject struct {
	Body            io.ReadCloser
	Name            string // file or object name, for format detection
	ContentType     string
	ContentEncoding string
}

// Fetcher opens the file an import names. Errors it returns are shown to
// the user as the import's failure message when they are *Error; anything
// else is logged and shown generically.
type Fetcher interface {
	Fetch(ctx context.Context, spec ImportSpec) (*RemoteObject, error)
}

// Param is one entry of an import's parameters; a nil Value is JSON null.
type Param struct {
	Name  string
	Value *string
}

// StatusChange is one entry of a status history.
type StatusChange struct {
	Date   time.Time
	Status Status
}

// Message is one entry of a messages list (REFERENCE §1.11).
type Message struct {
	Severity string // informational, warning, error
	Text     string
}

// Import is an import as the API shows it.
type Import struct {
	ID          string
	Kind        ImportKind
	Status      Status
	DataSetName string
	Parameters  []Param
	Requested   time.Time
	StatusDate  time.Time
	History     []StatusChange
	Messages    []Message
	// Columns is the dataset's metadata once the import has completed, and
	// empty before (REFERENCE §2.6, §9 #19).
	Columns []columnar.Column
	// Supplied is the column metadata the request supplied, as given (nil
	// when none): what the original service echoed as columns (§9 #19).
	Supplied []columnar.Spec
}

// CreateImport validates spec, records the import as requested and hands
// it to the import workers. It answers at once.
func (e *Engine) CreateImport(ctx context.Context, spec ImportSpec) (Import, error) {
	if e.imports == nil {
		return Import{}, &Error{Kind: Unavailable, Msg: "Imports are not available on this server"}
	}
	if err := validateImport(&spec); err != nil {
		return Import{}, err
	}
	if n := e.opts.MaxColumns; len(spec.Columns) > n {
		return Import{}, Validation("columns", fmt.Sprintf("More than %d columns; the column limit is %d", n, n))
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Import{}, fmt.Errorf("import id: %w", err)
	}
	now := e.now()
	imp := Import{
		ID: id.String(), Kind: spec.Kind, Status: StatusRequested, DataSetName: spec.DataSetName,
		Parameters: importParams(spec), Requested: now, StatusDate: now,
		History: []StatusChange{{Date: now, Status: StatusRequested}}, Messages: []Message{},
		Supplied: spec.Columns,
	}
	if spec.Kind == ImportURL && RedactURL(spec.URL) != spec.URL {
		spec.Secrets.URL = spec.URL
	}
	if !spec.Secrets.empty() {
		e.imports.keep(imp.ID, spec.Secrets)
	}
	if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.insertImport(ctx, imp, spec) }); err != nil {
		e.imports.forget(imp.ID)
		return Import{}, err
	}
	e.imports.notify()
	return imp, nil
}

// validateImport checks and normalises an import request (REFERENCE §5).
func validateImport(s *ImportSpec) error {
	details := map[string][]string{}
	need := func(field, v string) {
		if strings.TrimSpace(v) == "" {
			details[field] = append(details[field], "The "+field+" field is required.")
		}
	}
	need("dataSetName", s.DataSetName)
	if s.DataSetName != "" {
		if err := validName(s.DataSetName); err != nil {
			details["dataSetName"] = append(details["dataSetName"], "Value for dataSetName must be 1 to 255 characters of valid text without '/'")
		}
	}
	switch ct := strings.ToLower(strings.TrimSpace(s.ContentType)); ct {
	case "", "csv", "json", "arrow", "parquet":
		s.ContentType = ct
	default:
		details["contentType"] = append(details["contentType"], "Value for contentType must be csv, json, arrow or parquet")
	}
	switch s.Kind {
	case ImportURL:
		need("url", s.URL)
		if s.URL != "" && !strings.HasPrefix(strings.ToLower(s.URL), "http://") && !strings.HasPrefix(strings.ToLower(s.URL), "https://") {
			details["url"] = append(details["url"], "Value for url must be an absolute http or https URL")
		}
	case ImportObjectStore:
		need("bucket", s.Bucket)
		need("path", s.Path)
		if (s.Secrets.AccessKeyID == "") != (s.Secrets.SecretAccessKey == "") {
			details["secretAccessKey"] = append(details["secretAccessKey"], "accessKeyId and secretAccessKey must be given together")
		}
	case ImportBlobStore:
		need("connectionString", s.Secrets.ConnectionString)
		need("container", s.Container)
		need("blob", s.Blob)
	default:
		details["type"] = append(details["type"], "Imports read from url, s3 (objectstore) or azure (blobstore)")
	}
	if len(details) == 0 {
		return validSpecs(s.Columns)
	}
	return validationErr(details)
}

// validSpecs checks the values of supplied column metadata on their own
// (how they combine with a dataset is checked when the import runs).
func validSpecs(specs []columnar.Spec) error {
	reasons := map[string][]string{}
	for _, s := range specs {
		check := func(field, v string, ok bool) {
			if v != "" && !ok {
				reasons[s.Name] = append(reasons[s.Name], fmt.Sprintf("Value '%s' is not a valid %s", v, field))
			}
		}
		_, ok := columnar.ParseDataType(s.DataType)
		check("dataType", s.DataType, ok)
		_, ok = columnar.ParseRole(s.Role)
		check("role", s.Role, ok)
		_, ok = columnar.ParseImputation(s.Imputation)
		check("imputation", s.Imputation, ok)
		_, ok = columnar.ParseAggregation(s.Aggregation)
		check("aggregation", s.Aggregation, ok)
		if err := validColumnName(s.Name); err != nil {
			reasons[shownName(s.Name)] = append(reasons[shownName(s.Name)], badColumnNameReason)
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return nil
}

// importParams are the parameters an import shows: never a credential
// (REFERENCE §2.6).
func importParams(s ImportSpec) []Param {
	str := func(v string) *string { return &v }
	switch s.Kind {
	case ImportURL:
		return []Param{{"url", str(RedactURL(s.URL))}}
	case ImportObjectStore:
		var region *string
		if s.Region != "" {
			region = str(s.Region)
		}
		return []Param{{"bucket", str(s.Bucket)}, {"path", str(s.Path)}, {"region", region}}
	case ImportBlobStore:
		return []Param{{"connectionString", str("redacted")}, {"container", str(s.Container)}, {"blob", str(s.Blob)}}
	}
	return nil
}

// RedactURL drops a URL's user-info, query and fragment, which may hold
// credentials or signatures: the one rule for every URL Vatic stores, shows
// or logs (imports, calendars, webhooks). It cuts the text rather than
// parsing it, so it also redacts a URL that does not parse.
func RedactURL(raw string) string {
	s := raw
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		host := rest
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			host = rest[:j]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			s = s[:i+3] + rest[at+1:]
		}
	}
	return s
}

// Import returns one import by id.
func (e *Engine) Import(ctx context.Context, id string) (Import, error) {
	iid, err := parseID("importId", id)
	if err != nil {
		return Import{}, err
	}
	imps, _, err := e.listImports(ctx, importFilter{ID: iid, Limit: 1})
	if err != nil {
		return Import{}, err
	}
	if len(imps) == 0 {
		return Import{}, NotFoundError("import", id)
	}
	return imps[0], nil
}

// ImportQuery selects a page of imports.
type ImportQuery struct {
	DataSetName     string // exact, case-insensitive
	RequestedAfter  *time.Time
	RequestedBefore *time.Time
	SortBy          string // id, dataSetName, requestedDate, currentStatusDate
	Desc            bool
	DescGiven       bool // false: the default order, newest first
	Page, PageSize  int
}

// ImportSortKeys are the sortBy values of GET /imports (REFERENCE §1.6).
var ImportSortKeys = []string{"id", "dataSetName", "requestedDate", "currentStatusDate"}

// ListImports returns one page of imports and the number matching. The
// default order is newest first (REFERENCE §1.6).
func (e *Engine) ListImports(ctx context.Context, q ImportQuery) ([]Import, int, error) {
	sortBy, desc, err := listOrder(ImportSortKeys, q.SortBy, q.Desc, q.DescGiven)
	if err != nil {
		return nil, 0, err
	}
	if err := dateOrder("requestedAfterDate", "requestedBeforeDate", q.RequestedAfter, q.RequestedBefore); err != nil {
		return nil, 0, err
	}
	return e.listImports(ctx, importFilter{
		DataSet: q.DataSetName, After: q.RequestedAfter, Before: q.RequestedBefore,
		SortBy: sortBy, Desc: desc, Limit: q.PageSize, Offset: q.Page * q.PageSize,
	})
}

// importPool runs imports: workers claim requested imports from the
// catalog (the durable queue), so nothing waits only in memory but the
// credentials, which never reach the disk.
type importPool struct {
	jobPool
	e       *Engine
	timeout time.Duration
	secrets map[string]ImportSecrets // guarded by jobPool.mu
}

func (p *importPool) keep(id string, s ImportSecrets) {
	p.mu.Lock()
	p.secrets[id] = s
	p.mu.Unlock()
}

func (p *importPool) forget(id string) {
	p.mu.Lock()
	delete(p.secrets, id)
	p.mu.Unlock()
}

func (p *importPool) secret(id string) (ImportSecrets, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.secrets[id]
	return s, ok
}

// startImports recovers imports a previous process left unfinished and
// starts the workers. The base context outlives requests; Close cancels it.
func (e *Engine) startImports(ctx context.Context) error {
	o := e.opts
	p := &importPool{e: e, timeout: o.ImportTimeout, secrets: map[string]ImportSecrets{}}
	p.jobPool = newJobPool("import", e.log, o.ImportConcurrency)
	p.claimNext, p.runJob = e.claimRequestedImport, p.run
	p.maxRestarts, p.tx, p.addMessage = o.MaxRestarts, e.store.Tx, e.addImportMessage
	p.interrupted = func(ctx context.Context, id string) (int, error) { return e.countInterruption(ctx, "import", id) }
	p.fail = func(ctx context.Context, id string, m Message) error {
		return e.finishImport(ctx, id, StatusFailed, []Message{m}, nil)
	}
	if err := p.recover(ctx); err != nil {
		return err
	}
	e.imports = p // before the workers start: CreateImport and they use it
	p.start(ctx)
	return nil
}

// recover handles imports a previous process left unfinished: those that
// needed credentials fail (credentials are not kept), the others run again
// from the start unless interrupted too often (jobPool.restart). An
// import's rows and its completion commit in one transaction, so one that
// runs again has written nothing before.
func (p *importPool) recover(ctx context.Context) error {
	left, err := p.e.unfinishedImports(ctx)
	if err != nil {
		return err
	}
	for _, u := range left {
		if u.needsSecret {
			msg := "The server restarted before this import finished; its credentials are not kept, so request the import again."
			if err := p.e.finishImport(ctx, u.id, StatusFailed, []Message{{"error", msg}}, nil); err != nil {
				return err
			}
			continue
		}
		if u.status == StatusStarted {
			if _, err := p.restart(ctx, u.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// run performs one claimed import and records how it ended. A completed
// import records its end inside the write's transaction (runImport); a
// failed one wrote nothing, so its end is recorded on its own.
func (p *importPool) run(base context.Context, id string) {
	e := p.e
	start := time.Now()
	spec, err := e.importSpec(base, id)
	if err != nil {
		e.log.ErrorContext(base, "read import", "import_id", id, LogErr, err)
		return
	}
	if s, ok := p.secret(id); ok {
		spec.Secrets = s
		if s.URL != "" {
			spec.URL = s.URL
		}
	}
	ctx, cancel := context.WithTimeout(base, p.timeout)
	defer cancel()
	d, err := p.runImportSafely(ctx, id, spec)
	if err == nil {
		p.forget(id)
		e.log.InfoContext(base, "import completed", "import_id", id, LogDataset, d.Name, LogRows, d.RowCount, LogElapsed, time.Since(start))
		return
	}
	if base.Err() != nil {
		return // shutting down: the import stays started and runs again at the next start
	}
	p.forget(id)
	kind, msg, _ := Classify(err)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("The import did not finish within %s.", p.timeout)
	case kind == Internal:
		e.log.ErrorContext(ctx, "import failed", "import_id", id, LogDataset, spec.DataSetName, LogErr, err)
	}
	if ferr := e.finishImport(base, id, StatusFailed, []Message{{"error", msg}}, nil); ferr != nil {
		e.log.ErrorContext(base, "record import failure", "import_id", id, LogErr, ferr)
	}
}

// runImportSafely is runImport with a panic turned into an error, as
// runSafely does for sessions: a bug met by one import (a fetcher, a
// decoder on this goroutine) fails that import instead of taking the
// server down, and the write's transaction rolls back on the way
// (duckstore's Tx). Batches DuckDB pulls on its own threads are beyond
// this boundary; the readers there recover themselves (ingest's Parquet
// reader turns arrow-go's decoder panics into parse errors).
func (p *importPool) runImportSafely(ctx context.Context, id string, spec ImportSpec) (d Dataset, err error) {
	defer func() {
		if v := recover(); v != nil {
			p.e.log.ErrorContext(ctx, "import panicked", "import_id", id, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("import panicked: %v", v)
		}
	}()
	return p.runImport(ctx, id, spec)
}

// runImport fetches the remote file and writes it like PUT /data, marking
// import id completed in the same transaction as the rows: a crash leaves
// both or neither, so an import that runs again after a restart never
// adds its rows twice.
func (p *importPool) runImport(ctx context.Context, id string, spec ImportSpec) (Dataset, error) {
	e := p.e
	obj, err := e.fetcher.Fetch(ctx, spec)
	if err != nil {
		return Dataset{}, err
	}
	defer obj.Body.Close()
	req := PutRequest{
		Name: spec.DataSetName, Body: &downloadCap{r: obj.Body, left: e.opts.ImportMaxBytes, limit: e.opts.ImportMaxBytes}, Columns: spec.Columns,
		ContentEncoding: objectEncoding(obj), MaxDecodedBytes: e.opts.ImportMaxBytes,
		Format: FormatHints{ContentType: spec.ContentType, Name: obj.Name, Served: obj.ContentType},
	}
	d, _, err := e.putDataset(ctx, req, func(ctx context.Context, d Dataset) error {
		rows := "rows are"
		if d.RowCount == 1 {
			rows = "row is"
		}
		msgs := []Message{{"informational", fmt.Sprintf("%d %s in dataset %s after the import.", d.RowCount, rows, d.Name)}}
		return e.finishImport(ctx, id, StatusCompleted, msgs, d.Columns)
	})
	return d, err
}

// objectEncoding is the compression of an object as its source reports
// it; otherwise "" lets the decoder sniff the magic bytes, which is more
// reliable than a name (an HTTP client may already have decompressed a
// .csv.gz sent with Content-Encoding: gzip).
func objectEncoding(obj *RemoteObject) string {
	if enc := strings.ToLower(strings.TrimSpace(obj.ContentEncoding)); enc == "gzip" || enc == "x-gzip" || enc == "zstd" {
		return enc
	}
	return ""
}

// downloadCap fails a download that goes past limit bytes on the wire (the
// decoder caps the decompressed stream separately).
type downloadCap struct {
	r           io.Reader
	left, limit int64
}

func (d *downloadCap) Read(p []byte) (int, error) {
	if d.left <= 0 {
		return 0, &Error{Kind: TooLarge, Msg: fmt.Sprintf("The remote file is larger than the import limit of %d bytes.", d.limit)}
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.r.Read(p)
	d.left -= int64(n)
	return n, err
}
