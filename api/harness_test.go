package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaticml/vatic/api"
	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/webhook"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// serverOptions configure newServer.
type serverOptions struct {
	dir          string // database directory; default t.TempDir()
	maxBodyBytes int64
	allotments   engine.Allotments
	clock        func() time.Time
	batchRows    int
	remote       remote.Options // import sources; AllowPrivate is forced on (tests serve on loopback)
	guarded      bool           // keep the private-address guard on
	importTime   time.Duration
	importMax    int64
	sessionTime  time.Duration
	compat       api.Compat
	maxColumns   int
	pageCache    int64
	predictMem   int64
	wrapStore    func(engine.Store) engine.Store // the engine's store, wrapped (failure injection)
}

type option func(*serverOptions)

func withMaxBody(n int64) option                { return func(o *serverOptions) { o.maxBodyBytes = n } }
func withAllotments(a engine.Allotments) option { return func(o *serverOptions) { o.allotments = a } }
func withClock(c func() time.Time) option       { return func(o *serverOptions) { o.clock = c } }
func withDir(dir string) option                 { return func(o *serverOptions) { o.dir = dir } }
func withRemote(r remote.Options) option        { return func(o *serverOptions) { o.remote = r } }
func withGuard() option                         { return func(o *serverOptions) { o.guarded = true } }
func withImportTimeout(d time.Duration) option  { return func(o *serverOptions) { o.importTime = d } }
func withImportMax(n int64) option              { return func(o *serverOptions) { o.importMax = n } }
func withSessionTimeout(d time.Duration) option { return func(o *serverOptions) { o.sessionTime = d } }
func withCompat(c api.Compat) option            { return func(o *serverOptions) { o.compat = c } }
func withMaxColumns(n int) option               { return func(o *serverOptions) { o.maxColumns = n } }
func withPredictMemory(n int64) option          { return func(o *serverOptions) { o.predictMem = n } }

// withStoreWrapper gives the engine wrap(store) instead of the DuckDB store.
func withStoreWrapper(wrap func(engine.Store) engine.Store) option {
	return func(o *serverOptions) { o.wrapStore = wrap }
}

// withPageCache turns the page cache on (off by default, so that the
// tests proving a failed write changed nothing read the table itself).
func withPageCache(n int64) option { return func(o *serverOptions) { o.pageCache = n } }

// testServer is the real stack: a DuckDB file, an engine, the API and an
// httptest server.
type testServer struct {
	URL    string
	Dir    string
	srv    *httptest.Server
	store  *duckstore.Store
	eng    *engine.Engine
	closed bool
}

// newServer builds the whole stack on a database file in a fresh (or the
// given) directory; t.Cleanup closes it.
func newServer(t testing.TB, opts ...option) *testServer {
	t.Helper()
	var o serverOptions
	for _, f := range opts {
		f(&o)
	}
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	ctx := t.Context()
	store, err := duckstore.Open(ctx, filepath.Join(o.dir, "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatalf("duckstore.Open: %v", err)
	}
	o.remote.AllowPrivate = !o.guarded
	sources := remote.New(o.remote)
	t.Cleanup(sources.Close)
	// Webhook links point at the test server, known once it listens.
	var base atomic.Pointer[string]
	unknown := "http://127.0.0.1:0/v1"
	base.Store(&unknown)
	hooks := webhook.New(sources.Transport(), webhook.Options{Backoff: 10 * time.Millisecond})
	t.Cleanup(hooks.Close)
	apiOpts := api.Options{
		Keys:           map[string]api.Plan{"test-key": api.PlanPaid, "community-key": api.PlanCommunity},
		MaxBodyBytes:   o.maxBodyBytes,
		Compat:         o.compat,
		PageCacheBytes: o.pageCache,
	}
	var es engine.Store = store
	if o.wrapStore != nil {
		es = o.wrapStore(es)
	}
	eng, err := engine.New(ctx, es, engine.Options{
		Clock: o.clock, Allotments: o.allotments, BatchRows: o.batchRows, MaxDecodedBytes: o.maxBodyBytes, MaxColumns: o.maxColumns,
		Fetcher: remote.NewFetcher(sources), ImportTimeout: o.importTime, ImportMaxBytes: o.importMax,
		Notifier: api.NewCallbacks(apiOpts, func() string { return *base.Load() }, hooks), SessionTimeout: o.sessionTime,
		PredictMemory: o.predictMem,
	})
	if err != nil {
		store.Close()
		t.Fatalf("engine.New: %v", err)
	}
	h := api.New(eng, apiOpts)
	s := &testServer{Dir: o.dir, srv: httptest.NewServer(h), store: store, eng: eng}
	s.URL = s.srv.URL
	listening := s.URL + "/v1"
	base.Store(&listening)
	t.Cleanup(s.Close)
	return s
}

// Close shuts the stack down in the documented order; it is idempotent.
func (s *testServer) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.srv.Close()
	s.eng.Close()
	s.store.Close()
}

// response is what a request got back.
type response struct {
	status int
	header http.Header
	body   []byte
}

// hdr is a list of header name/value pairs; an empty value removes a
// default header (api-key).
type hdr []string

// do sends a request with api-key: test-key unless headers say otherwise.
// body may be nil, a string or []byte.
func (s *testServer) do(t testing.TB, method, path string, body any, headers ...string) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader:
		rd = b
	default:
		t.Fatalf("do: unsupported body type %T", body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, rd)
	if err != nil {
		t.Fatalf("NewRequest(%s %s): %v", method, path, err)
	}
	req.Header.Set("api-key", "test-key")
	if len(headers)%2 != 0 {
		t.Fatalf("do: odd header list %q", headers)
	}
	for i := 0; i < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	// Keep Go's transport from adding (and transparently undoing) gzip.
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	checkContract(t, req, res.StatusCode, res.Header, b)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// put uploads body with a content type and wants 201.
func (s *testServer) put(t testing.TB, name, contentType, body string, headers ...string) response {
	t.Helper()
	res := s.do(t, http.MethodPut, "/v1/data/"+name, body, append([]string{"Content-Type", contentType}, headers...)...)
	if res.status != http.StatusCreated {
		t.Fatalf("PUT /v1/data/%s = %d %s, want 201", name, res.status, res.body)
	}
	return res
}

func (s *testServer) putCSV(t testing.TB, name, body string, headers ...string) datasetJSON {
	t.Helper()
	return decode[datasetJSON](t, s.put(t, name, "text/csv", body, headers...))
}

func (s *testServer) putJSON(t testing.TB, name, body string, headers ...string) datasetJSON {
	t.Helper()
	return decode[datasetJSON](t, s.put(t, name, "application/json", body, headers...))
}

// get reads a dataset's rows with query (without "?") and wants 200.
func (s *testServer) get(t testing.TB, name, query string) rowsJSON {
	t.Helper()
	path := "/v1/data/" + name
	if query != "" {
		path += "?" + query
	}
	res := s.do(t, http.MethodGet, path, nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s = %d %s, want 200", path, res.status, res.body)
	}
	return decode[rowsJSON](t, res)
}

// snapshot returns everything a GET shows of a dataset, modification time
// included: used to prove a failed request changed nothing.
func (s *testServer) snapshot(t testing.TB, name string) string {
	t.Helper()
	r := s.get(t, name, "pageSize=1000")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decode[T any](t testing.TB, res response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.body, &v); err != nil {
		t.Fatalf("decode %T from %d %q: %v", v, res.status, res.body, err)
	}
	return v
}

// Wire shapes, decoded loosely for assertions.

type linkJSON struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

type columnJSON struct {
	DataType    string `json:"dataType"`
	Role        string `json:"role,omitempty"`
	Imputation  string `json:"imputation,omitempty"`
	Aggregation string `json:"aggregation,omitempty"`
}

type datasetJSON struct {
	DataSetName   string                `json:"dataSetName"`
	DataSetSize   int64                 `json:"dataSetSize"`
	DateCreated   string                `json:"dateCreated"`
	LastModified  string                `json:"lastModified"`
	RowCount      int64                 `json:"rowCount"`
	ColumnCount   int                   `json:"columnCount"`
	IsTimeSeries  bool                  `json:"isTimeSeries"`
	Columns       map[string]columnJSON `json:"columns"`
	MissingValues []string              `json:"missingValues"`
	Links         []linkJSON            `json:"links"`
}

type pageJSON struct {
	PageNumber int        `json:"pageNumber"`
	TotalPages int        `json:"totalPages"`
	PageSize   int        `json:"pageSize"`
	TotalCount int64      `json:"totalCount"`
	Links      []linkJSON `json:"links"`
}

type rowsJSON struct {
	datasetJSON `json:"-"`          // both parts have links: see UnmarshalJSON
	Data        []map[string]string `json:"data"`
	pageJSON    `json:"-"`
}

// UnmarshalJSON splits the flat object into the embedded parts, whose
// links fields would otherwise collide.
func (r *rowsJSON) UnmarshalJSON(b []byte) error {
	type ds datasetJSON
	type pg pageJSON
	var data struct {
		Data []map[string]string `json:"data"`
	}
	if err := json.Unmarshal(b, (*ds)(&r.datasetJSON)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, (*pg)(&r.pageJSON)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &data); err != nil {
		return err
	}
	r.Data = data.Data
	return nil
}

func (r rowsJSON) MarshalJSON() ([]byte, error) {
	type ds datasetJSON
	type pg pageJSON
	return json.Marshal(struct {
		D    ds
		P    pg
		Data []map[string]string
	}{ds(r.datasetJSON), pg(r.pageJSON), r.Data})
}

type listJSON struct {
	Items []datasetJSON `json:"items"`
	pageJSON
}

type errorJSON struct {
	StatusCode   int            `json:"statusCode"`
	Message      string         `json:"message"`
	ErrorType    *string        `json:"errorType"`
	ErrorDetails map[string]any `json:"errorDetails"`
}

func (e errorJSON) typ() string {
	if e.ErrorType == nil {
		return "<none>"
	}
	return *e.ErrorType
}

// wantError checks status, errorType and that errorDetails has the key
// detail (when not ""), and returns the body.
func wantError(t testing.TB, what string, res response, status int, errorType, detail string) errorJSON {
	t.Helper()
	if res.status != status {
		t.Fatalf("%s = %d %s, want %d", what, res.status, res.body, status)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s Content-Type = %q, want application/json", what, ct)
	}
	e := decode[errorJSON](t, res)
	if e.StatusCode != status {
		t.Errorf("%s statusCode = %d, want %d", what, e.StatusCode, status)
	}
	if e.typ() != errorType {
		t.Errorf("%s errorType = %s, want %s (body %s)", what, e.typ(), errorType, res.body)
	}
	if e.Message == "" {
		t.Errorf("%s message is empty", what)
	}
	if detail != "" {
		if _, ok := e.ErrorDetails[detail]; !ok {
			t.Errorf("%s errorDetails = %v, want key %q", what, e.ErrorDetails, detail)
		}
	}
	return e
}

// rowsOf returns the values of column in the rows.
func rowsOf(rows []map[string]string, column string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[column]
	}
	return out
}

var (
	eventTime = regexp.MustCompile(`"20[2-9]\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?\+00:00"`)
	requestIP = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// normalize replaces event timestamps by "<time>" and the test server's
// address by http://vatic.test.
func normalize(b []byte) []byte {
	b = eventTime.ReplaceAll(b, []byte(`"<time>"`))
	return requestIP.ReplaceAll(b, []byte("http://vatic.test"))
}

// golden compares a JSON body, normalised and indented, with
// testdata/<name>.golden.json (rewritten with -update).
func golden(t testing.TB, name string, body []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, normalize(body), "", "  "); err != nil {
		t.Fatalf("golden %s: body is not JSON: %v\n%s", name, err, body)
	}
	out.WriteByte('\n')
	compareGolden(t, filepath.Join("testdata", name+".golden.json"), out.Bytes())
}

// goldenText compares a text body, normalised, with testdata/<file>.
func goldenText(t testing.TB, file string, body []byte) {
	t.Helper()
	compareGolden(t, filepath.Join("testdata", file), normalize(body))
}

func compareGolden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test ./api -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./api -update and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
