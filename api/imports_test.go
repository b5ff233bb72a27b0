package api_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/remote"
)

// importJSON is an import object as the API answers it.
type importJSON struct {
	ImportID      string                               `json:"importId"`
	Type          string                               `json:"type"`
	Status        string                               `json:"status"`
	DataSetName   string                               `json:"dataSetName"`
	Parameters    map[string]any                       `json:"parameters"`
	RequestedDate string                               `json:"requestedDate"`
	StatusHistory []struct{ Date, Status string }      `json:"statusHistory"`
	Messages      []struct{ Severity, Message string } `json:"messages"`
	Columns       map[string]columnJSON                `json:"columns"`
	Links         []linkJSON                           `json:"links"`
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// goldenImport compares an import body with ids normalised too.
func goldenImport(t *testing.T, name string, body []byte) {
	t.Helper()
	golden(t, name, uuidRE.ReplaceAll(body, []byte("<id>")))
}

// files serves test files on loopback: path → body, with optional content
// type and encoding, and basic auth when user is set.
type files struct {
	mu             sync.Mutex
	bodies         map[string]fileEntry
	user, password string
}

type fileEntry struct {
	body                  []byte
	contentType, encoding string
}

func serveFiles(t *testing.T) (*files, string) {
	f := &files{bodies: map[string]fileEntry{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		e, ok := f.bodies[r.URL.Path]
		user, pass := f.user, f.password
		f.mu.Unlock()
		if user != "" {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		if e.contentType != "" {
			w.Header().Set("Content-Type", e.contentType)
		}
		if e.encoding != "" {
			w.Header().Set("Content-Encoding", e.encoding)
		}
		_, _ = w.Write(e.body)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *files) put(path string, body []byte, contentType, encoding string) {
	f.mu.Lock()
	f.bodies[path] = fileEntry{body, contentType, encoding}
	f.mu.Unlock()
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// postImport posts an import request and checks the immediate answer.
func postImport(t *testing.T, s *testServer, kind string, body any) importJSON {
	t.Helper()
	b, _ := json.Marshal(body)
	res := s.do(t, "POST", "/v1/imports/"+kind, string(b), "Content-Type", "application/json")
	if res.status != 200 {
		t.Fatalf("POST /imports/%s %s = %d %s", kind, b, res.status, res.body)
	}
	if got := res.header.Get("Nexosis-Import-Status"); got != "Requested" {
		t.Errorf("POST /imports/%s Nexosis-Import-Status = %q, want Requested", kind, got)
	}
	return decode[importJSON](t, res)
}

// waitImport polls an import until it ends and returns it.
func waitImport(t *testing.T, s *testServer, id string) importJSON {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := s.do(t, "GET", "/v1/imports/"+id, nil)
		if res.status != 200 {
			t.Fatalf("GET /imports/%s = %d %s", id, res.status, res.body)
		}
		imp := decode[importJSON](t, res)
		if want := strings.ToUpper(imp.Status[:1]) + imp.Status[1:]; res.header.Get("Nexosis-Import-Status") != want {
			t.Errorf("GET /imports/%s Nexosis-Import-Status = %q, want %q", id, res.header.Get("Nexosis-Import-Status"), want)
		}
		if imp.Status != "requested" && imp.Status != "started" {
			return imp
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %s still %s after 30s", id, imp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestImportURL(t *testing.T) {
	s := newServer(t)
	f, base := serveFiles(t)
	csv := "day,sales\n2017-01-01,10\n2017-01-02,20\n2017-01-03,30\n"
	f.put("/sales.csv", []byte(csv), "", "")
	f.put("/sales.csv.gz", gz(t, csv), "application/gzip", "")
	f.put("/sales-encoded", gz(t, csv), "text/csv", "gzip")
	f.put("/noext", []byte(csv), "application/octet-stream", "")
	f.put("/typed", []byte(csv), "text/csv; charset=utf-8", "")
	f.put("/rows.json", []byte(`{"columns":{"sales":{"dataType":"numericMeasure"}},"data":[{"day":"2017-01-01","sales":1},{"day":"2017-01-02","sales":2}]}`), "", "")
	f.put("/array", []byte(`[{"day":"2017-01-01","sales":"1"}]`), "", "")

	for _, c := range []struct {
		name, path, contentType string
		rows                    int64
	}{
		{"csv by extension", "/sales.csv", "", 3},
		{"gzip file sniffed", "/sales.csv.gz", "", 3},
		{"content-encoding gzip", "/sales-encoded", "", 3},
		{"sniffed csv", "/noext", "", 3},
		{"csv by content type", "/typed", "", 3},
		{"json by extension with its metadata", "/rows.json", "", 2},
		{"json by contentType field", "/array", "JSON", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "imp-" + strings.ReplaceAll(c.name, " ", "-")
			req := map[string]any{"dataSetName": name, "url": base + c.path}
			if c.contentType != "" {
				req["contentType"] = c.contentType
			}
			imp := postImport(t, s, "url", req)
			if imp.Type != "url" || imp.Status != "requested" || imp.DataSetName != name || len(imp.Columns) != 0 ||
				imp.Parameters["url"] != base+c.path || len(imp.StatusHistory) != 1 {
				t.Errorf("POST /imports/url = %+v", imp)
			}
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "completed" {
				t.Fatalf("import ended %s: %+v", done.Status, done.Messages)
			}
			var seq []string
			for _, h := range done.StatusHistory {
				seq = append(seq, h.Status)
			}
			if strings.Join(seq, ",") != "requested,started,completed" {
				t.Errorf("statusHistory = %v, want requested,started,completed", seq)
			}
			if len(done.Columns) == 0 {
				t.Errorf("completed import has no columns")
			}
			d := s.get(t, name, "")
			if d.RowCount != c.rows || len(d.Data) != int(c.rows) {
				t.Errorf("dataset %s after import: rowCount %d, %d rows, want %d", name, d.RowCount, len(d.Data), c.rows)
			}
		})
	}
	t.Run("json metadata applied", func(t *testing.T) {
		d := s.get(t, "imp-json-by-extension-with-its-metadata", "")
		if d.Columns["sales"].DataType != "numericMeasure" {
			t.Errorf("sales = %+v, want numericMeasure from the file's columns", d.Columns["sales"])
		}
	})
}

// TestImportFormatAsPut checks that an import reads a file served as
// application/vnd.ms-excel (how Windows labels .csv files) as CSV, as PUT
// /data does, even when its first bytes look like JSON (a bracketed
// header); before ingest.FormatOf, imports sniffed such a file as JSON,
// and PUT refused the bare content types csv and json.
func TestImportFormatAsPut(t *testing.T) {
	s := newServer(t)
	f, base := serveFiles(t)
	csv := "[day],sales\n2017-01-01,10\n2017-01-02,20\n"
	f.put("/export", []byte(csv), "application/vnd.ms-excel", "")
	imp := postImport(t, s, "url", map[string]any{"dataSetName": "excel", "url": base + "/export"})
	if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
		t.Fatalf("import ended %s: %+v", done.Status, done.Messages)
	}
	d := s.get(t, "excel", "")
	if _, ok := d.Columns["[day]"]; !ok || d.RowCount != 2 {
		t.Errorf("dataset after import: %d rows, columns %v; want 2 rows with column [day]", d.RowCount, d.Columns)
	}
	// PUT reads the same body the same way.
	res := s.do(t, "PUT", "/v1/data/excel-put", csv, "Content-Type", "application/vnd.ms-excel")
	if res.status != 201 {
		t.Fatalf("PUT as application/vnd.ms-excel = %d %s", res.status, res.body)
	}
	if d := s.get(t, "excel-put", ""); d.RowCount != 2 {
		t.Errorf("dataset after PUT: %d rows, want 2", d.RowCount)
	}
	// And PUT takes the import's bare contentType values as content types.
	s.put(t, "bare-csv", "csv", csv)
	s.put(t, "bare-json", "JSON", `[{"day":"2017-01-01","sales":"1"}]`)
	if d := s.get(t, "bare-json", ""); d.RowCount != 1 {
		t.Errorf("dataset after PUT as JSON: %d rows, want 1", d.RowCount)
	}
}

func TestImportIntoExistingDatasetUpserts(t *testing.T) {
	s := newServer(t)
	f, base := serveFiles(t)
	s.putCSV(t, "shop", "day,sales\n2017-01-01,1\n2017-01-02,2\n")
	f.put("/more.csv", []byte("day,sales\n2017-01-02,20\n2017-01-03,3\n"), "", "")
	imp := postImport(t, s, "url", map[string]any{"dataSetName": "SHOP", "url": base + "/more.csv",
		"columns": map[string]any{"sales": map[string]string{"Aggregation": "Mean"}}})
	if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
		t.Fatalf("import = %+v", done)
	}
	d := s.get(t, "shop", "")
	if got := strings.Join(rowsOf(d.Data, "sales"), ","); got != "1,20,3" {
		t.Errorf("sales after upserting import = %s, want 1,20,3", got)
	}
	if d.Columns["sales"].Aggregation != "mean" {
		t.Errorf("sales aggregation = %q, want mean from the import's columns", d.Columns["sales"].Aggregation)
	}
}

func TestImportGolden(t *testing.T) {
	s := newServer(t)
	f, base := serveFiles(t)
	f.put("/g.csv", []byte("day,sales\n2017-01-01,12.5\n2017-01-02,14\n"), "", "")
	b, _ := json.Marshal(map[string]any{"dataSetName": "g", "url": base + "/g.csv"})
	res := s.do(t, "POST", "/v1/imports/url", string(b))
	goldenImport(t, "import_url_requested", bytes.ReplaceAll(res.body, []byte(base), []byte("http://files.test")))
	imp := decode[importJSON](t, res)
	waitImport(t, s, imp.ImportID)
	res = s.do(t, "GET", "/v1/imports/"+imp.ImportID, nil)
	goldenImport(t, "import_url_completed", bytes.ReplaceAll(res.body, []byte(base), []byte("http://files.test")))
	res = s.do(t, "GET", "/v1/imports?dataSetName=g", nil)
	goldenImport(t, "import_list", bytes.ReplaceAll(res.body, []byte(base), []byte("http://files.test")))
}

func TestImportAliasesAndCredentials(t *testing.T) {
	s := newServer(t)
	f, base := serveFiles(t)
	f.user, f.password = "reader", "s3cret"
	f.put("/a.csv", []byte("a,b\n1,x\n"), "", "")
	for _, path := range []string{"url", "Url", "URL"} {
		imp := postImport(t, s, path, map[string]any{"DataSetName": "a-" + path, "Url": base + "/a.csv",
			"Auth": map[string]any{"Basic": map[string]string{"UserId": "reader", "Password": "s3cret"}}})
		if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
			t.Errorf("POST /imports/%s with basic auth = %+v", path, done)
		}
		if strings.Contains(fmt.Sprint(imp.Parameters), "s3cret") {
			t.Errorf("parameters show the password: %v", imp.Parameters)
		}
	}
	// The Java client posts every kind to /imports/s3.
	imp := postImport(t, s, "s3", map[string]any{"dataSetName": "java", "url": base + "/a.csv",
		"auth": map[string]any{"basic": map[string]string{"userId": "reader", "password": "s3cret"}}})
	if imp.Type != "url" {
		t.Errorf("POST /imports/s3 with a url: type = %s, want url", imp.Type)
	}
	// Without credentials the source answers 401 and the import says so.
	imp = postImport(t, s, "url", map[string]any{"dataSetName": "nope", "url": base + "/a.csv"})
	done := waitImport(t, s, imp.ImportID)
	if done.Status != "failed" || len(done.Messages) == 0 || !strings.Contains(done.Messages[len(done.Messages)-1].Message, "401") {
		t.Errorf("import without credentials = %+v, want failed naming 401", done)
	}
	if res := s.do(t, "GET", "/v1/data/nope", nil); res.status != 404 {
		t.Errorf("dataset of a failed first import exists: %d", res.status)
	}
	// A URL's query and user-info are not shown, but are used.
	f.user = ""
	imp = postImport(t, s, "url", map[string]any{"dataSetName": "q", "url": base + "/a.csv?sig=secret-token"})
	if imp.Parameters["url"] != base+"/a.csv" {
		t.Errorf("parameters.url = %v, want the URL without its query", imp.Parameters["url"])
	}
	if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
		t.Errorf("import with a query string = %+v", done)
	}
}

func TestImportFailures(t *testing.T) {
	f, base := serveFiles(t)
	f.put("/bad.csv", []byte("a,b\n1,2\n3\n"), "", "")
	f.put("/bad.json", []byte(`{"data":[{"a":1},`), "application/json", "")
	closed := func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/x.csv"
	}()
	hang, _ := net.Listen("tcp", "127.0.0.1:0")
	t.Cleanup(func() { hang.Close() })
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Read the request, answer headers and a few bytes, then
				// never send the rest of the body.
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Length: 100\r\n\r\na,b\n"))
				_, _ = io.Copy(io.Discard, c) // until the client gives up
			}()
		}
	}()
	s := newServer(t, withRemote(remote.Options{IdleTimeout: 300 * time.Millisecond}))
	s.putCSV(t, "keep", "a,b\n1,2\n")
	before := s.snapshot(t, "keep")
	for _, c := range []struct {
		name, url, want string
	}{
		{"404 from the source", base + "/missing.csv", "404"},
		{"jagged csv names the line", base + "/bad.csv", "line 3"},
		{"malformed json", base + "/bad.json", "JSON"},
		{"unreachable", closed, "could not be reached"},
		{"idle source times out", "http://" + hang.Addr().String() + "/slow.csv", "timed out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := postImport(t, s, "url", map[string]any{"dataSetName": "keep", "url": c.url})
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "failed" || len(done.Messages) == 0 {
				t.Fatalf("import = %+v, want failed with a message", done)
			}
			last := done.Messages[len(done.Messages)-1]
			if last.Severity != "error" || !strings.Contains(last.Message, c.want) {
				t.Errorf("failure message = %+v, want an error mentioning %q", last, c.want)
			}
			if after := s.snapshot(t, "keep"); after != before {
				t.Errorf("dataset changed by a failed import:\n%s\nwant\n%s", after, before)
			}
		})
	}
	t.Run("private addresses are refused by default", func(t *testing.T) {
		g := newServer(t, withGuard())
		imp := postImport(t, g, "url", map[string]any{"dataSetName": "x", "url": base + "/bad.csv"})
		done := waitImport(t, g, imp.ImportID)
		if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, "private") {
			t.Errorf("import from loopback with the guard on = %+v", done)
		}
	})
	t.Run("import timeout", func(t *testing.T) {
		slow := newServer(t, withImportTimeout(200*time.Millisecond), withRemote(remote.Options{IdleTimeout: 10 * time.Second}))
		imp := postImport(t, slow, "url", map[string]any{"dataSetName": "x", "url": "http://" + hang.Addr().String() + "/slow.csv"})
		done := waitImport(t, slow, imp.ImportID)
		if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, "did not finish") {
			t.Errorf("import past its timeout = %+v", done)
		}
	})
}

func TestImportLimits(t *testing.T) {
	f, base := serveFiles(t)
	big := "a,b\n" + strings.Repeat("1,x\n", 1000)
	f.put("/big.csv", []byte(big), "", "")
	f.put("/big.csv.gz", gz(t, big), "application/gzip", "")
	s := newServer(t, withImportMax(1000), withRemote(remote.Options{MaxRedirects: 2}))
	for _, c := range []struct{ name, path, want string }{
		{"download over the limit", "/big.csv", "larger than the import limit"},
		{"decompressed over the limit", "/big.csv.gz", "size limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := postImport(t, s, "url", map[string]any{"dataSetName": "big", "url": base + c.path})
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, c.want) {
				t.Errorf("import = %+v, want failed mentioning %q", done, c.want)
			}
		})
	}
	t.Run("redirects are followed up to the limit", func(t *testing.T) {
		hops := 0
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/ok.csv" {
				_, _ = w.Write([]byte("a\n1\n"))
				return
			}
			hops++
			http.Redirect(w, r, srv.URL+r.URL.Path[:len(r.URL.Path)-1], http.StatusFound)
		}))
		defer srv.Close()
		// /ok.csv/// redirects three times: one too many for a limit of 2.
		imp := postImport(t, s, "url", map[string]any{"dataSetName": "r", "url": srv.URL + "/ok.csv///"})
		if done := waitImport(t, s, imp.ImportID); done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, "redirect") {
			t.Errorf("import past the redirect limit = %+v", done)
		}
		imp = postImport(t, s, "url", map[string]any{"dataSetName": "r", "url": srv.URL + "/ok.csv//"})
		if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
			t.Errorf("import within the redirect limit = %+v", done)
		}
	})
}

// TestImportDataSetSizeQuota: an import that would take the account's
// datasets past -allot-dataset-size fails with the quota's message and
// writes nothing, like PUT /data.
func TestImportDataSetSizeQuota(t *testing.T) {
	f, base := serveFiles(t)
	f.put("/big.csv", []byte("a,b\n"+strings.Repeat("1,x\n", 100)), "", "")
	f.put("/small.csv", []byte("a,b\n1,x\n"), "", "")
	s := newServer(t, withAllotments(engine.Allotments{DataSetSize: 100}))
	imp := postImport(t, s, "url", map[string]any{"dataSetName": "big", "url": base + "/big.csv"})
	done := waitImport(t, s, imp.ImportID)
	if want := "You have 100 bytes of DataSetSize left; this upload needs 400."; done.Status != "failed" || len(done.Messages) == 0 ||
		!strings.HasPrefix(done.Messages[len(done.Messages)-1].Message, want) {
		t.Errorf("import past the size allotment = %+v, want failed saying %q", done, want)
	}
	if res := s.do(t, "GET", "/v1/data/big", nil); res.status != 404 {
		t.Errorf("GET big after the refused import = %d, want 404", res.status)
	}
	imp = postImport(t, s, "url", map[string]any{"dataSetName": "small", "url": base + "/small.csv"})
	if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
		t.Errorf("import within the size allotment = %+v, want completed", done)
	}
}

func TestImportBadRequests(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct {
		name, kind, body string
		status           int
		detail           string
	}{
		{"missing everything", "url", `{}`, 400, "dataSetName"},
		{"missing url", "url", `{"dataSetName":"x"}`, 400, "url"},
		{"not http", "url", `{"dataSetName":"x","url":"ftp://h/x.csv"}`, 400, "url"},
		{"bad content type", "url", `{"dataSetName":"x","url":"http://h/x","contentType":"xml"}`, 400, "contentType"},
		{"malformed json", "url", `{"dataSetName":`, 400, "body"},
		{"wrong type", "url", `{"dataSetName":5}`, 400, "dataSetName"},
		{"bad columns", "url", `{"dataSetName":"x","url":"http://h/x","columns":[1]}`, 400, "columns"},
		{"invalid column metadata", "url", `{"dataSetName":"x","url":"http://h/x","columns":{"a":{"dataType":"nope"}}}`, 400, "a"},
		{"s3 without bucket", "s3", `{"dataSetName":"x","path":"p"}`, 400, "bucket"},
		{"s3 key without secret", "objectstore", `{"dataSetName":"x","bucket":"b","path":"p","accessKeyId":"k"}`, 400, "secretAccessKey"},
		{"azure without container", "azure", `{"dataSetName":"x","connectionString":"c","blob":"b"}`, 400, "container"},
		{"blobstore without connection string", "BlobStore", `{"dataSetName":"x","container":"c","blob":"b"}`, 400, "connectionString"},
		{"unknown kind", "ftp", `{"dataSetName":"x"}`, 404, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := s.do(t, "POST", "/v1/imports/"+c.kind, c.body, "Content-Type", "application/json")
			typ := "RequestValidation"
			if c.status == 404 {
				typ = "NotFound"
			}
			if c.name == "invalid column metadata" {
				typ = "InvalidColumnMetadata"
			}
			wantError(t, "POST /imports/"+c.kind+" "+c.body, res, c.status, typ, c.detail)
		})
	}
	wantError(t, "GET /imports/not-a-guid", s.do(t, "GET", "/v1/imports/not-a-guid", nil), 400, "RequestValidation", "importId")
	res := s.do(t, "GET", "/v1/imports/0163c4d5-2e6f-4a70-8b91-c2d3e4f5a617", nil)
	e := wantError(t, "GET unknown import", res, 404, "NotFound", "itemType")
	if e.ErrorDetails["itemType"] != "import" {
		t.Errorf("itemType = %v, want import", e.ErrorDetails["itemType"])
	}
}

func TestListImports(t *testing.T) {
	var now time.Time
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
	now = time.Date(2018, 5, 3, 9, 0, 0, 0, time.UTC)
	s := newServer(t, withClock(clock))
	f, base := serveFiles(t)
	f.put("/x.csv", []byte("a\n1\n"), "", "")
	var ids []string
	for i, name := range []string{"alpha", "beta", "alpha", "gamma"} {
		imp := postImport(t, s, "url", map[string]any{"dataSetName": name, "url": fmt.Sprintf("%s/x.csv?n=%d", base, i)})
		waitImport(t, s, imp.ImportID)
		ids = append(ids, imp.ImportID)
	}
	list := func(query string) []string {
		t.Helper()
		res := s.do(t, "GET", "/v1/imports"+query, nil)
		if res.status != 200 {
			t.Fatalf("GET /imports%s = %d %s", query, res.status, res.body)
		}
		var out struct {
			Items []importJSON `json:"items"`
			pageJSON
		}
		if err := json.Unmarshal(res.body, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it.DataSetName)
		}
		return got
	}
	f2 := func(query, want string) {
		t.Helper()
		if got := strings.Join(list(query), ","); got != want {
			t.Errorf("GET /imports%s = %s, want %s", query, got, want)
		}
	}
	f2("", "gamma,alpha,beta,alpha") // newest first by default
	f2("?sortBy=requestedDate&sortOrder=asc", "alpha,beta,alpha,gamma")
	f2("?sortBy=dataSetName", "alpha,alpha,beta,gamma")
	f2("?sortBy=DATASETNAME&sortOrder=DESC", "gamma,beta,alpha,alpha")
	f2("?dataSetName=ALPHA", "alpha,alpha")
	f2("?dataSourceName=beta", "beta")
	f2("?pageSize=2&page=1", "beta,alpha")
	// The clock ticks once per import creation and per status change.
	imp := waitImport(t, s, ids[1])
	at := imp.RequestedDate
	f2("?requestedAfterDate="+strings.ReplaceAll(at, "+", "%2B"), "gamma,alpha,beta")
	f2("?requestedBeforeDate="+strings.ReplaceAll(at, "+", "%2B"), "beta,alpha")
	f2("?requestedAfterDate=2030-01-01", "")
	wantError(t, "bad sortBy", s.do(t, "GET", "/v1/imports?sortBy=size", nil), 400, "RequestValidation", "sortBy")
	wantError(t, "bad date", s.do(t, "GET", "/v1/imports?requestedAfterDate=soon", nil), 400, "RequestValidation", "requestedAfterDate")
}

// An import cut off by a shutdown runs again from the start at the next
// start; one that needed credentials fails instead (they are not kept).
func TestImportRestart(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte("a,b\n1,x\n2,y\n"))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { once.Do(func() { close(release) }) })

	s := newServer(t, withDir(dir))
	plain := postImport(t, s, "url", map[string]any{"dataSetName": "r1", "url": srv.URL + "/x.csv"})
	secret := postImport(t, s, "url", map[string]any{"dataSetName": "r2", "url": srv.URL + "/y.csv",
		"auth": map[string]any{"basic": map[string]string{"userId": "u", "password": "p"}}})
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := decode[importJSON](t, s.do(t, "GET", "/v1/imports/"+plain.ImportID, nil))
		b := decode[importJSON](t, s.do(t, "GET", "/v1/imports/"+secret.ImportID, nil))
		if a.Status == "started" && b.Status == "started" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("imports did not start: %s %s", a.Status, b.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Close()
	once.Do(func() { close(release) })

	s = newServer(t, withDir(dir))
	a := waitImport(t, s, plain.ImportID)
	if a.Status != "completed" || s.get(t, "r1", "").RowCount != 2 {
		t.Errorf("import after restart = %+v, want completed with 2 rows", a)
	}
	if !strings.Contains(fmt.Sprint(a.Messages), "restarted") {
		t.Errorf("messages = %v, want a note about the restart", a.Messages)
	}
	b := waitImport(t, s, secret.ImportID)
	if b.Status != "failed" || !strings.Contains(fmt.Sprint(b.Messages), "credentials") {
		t.Errorf("import with credentials after restart = %+v, want failed about credentials", b)
	}
}
