package remote_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// fetchCase is one Fetch and what it should give.
type fetchCase struct {
	name string
	spec engine.ImportSpec
	want engine.RemoteObject // Body unused
	body string
	// wantErr, when set, is a part of the message of the remote.Error the
	// fetch fails with.
	wantErr string
}

// runFetch drives a Fetcher through cases: a success gives the object's
// bytes and fields; a remote.Error reaches the engine as an *engine.Error
// of kind Invalid carrying its message, which the import shows.
func runFetch(t *testing.T, f *remote.Fetcher, cases []fetchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := f.Fetch(t.Context(), tc.spec)
			if tc.wantErr != "" {
				wantFetchError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Fetch(%s) = %v", tc.name, err)
			}
			defer obj.Body.Close()
			b, err := io.ReadAll(obj.Body)
			if err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			if string(b) != tc.body {
				t.Errorf("Fetch(%s) body = %q, want %q", tc.name, b, tc.body)
			}
			got := engine.RemoteObject{Name: obj.Name, ContentType: obj.ContentType, ContentEncoding: obj.ContentEncoding}
			if got != tc.want {
				t.Errorf("Fetch(%s) = %+v, want %+v", tc.name, got, tc.want)
			}
		})
	}
}

// wantFetchError checks that err is an *engine.Error of kind Invalid whose
// message is the remote.Error's (containing part), and that the chain keeps
// the remote.Error.
func wantFetchError(t *testing.T, err error, part string) {
	t.Helper()
	var ee *engine.Error
	if !errors.As(err, &ee) {
		t.Fatalf("Fetch error = %#v, want an *engine.Error", err)
	}
	var re *remote.Error
	if !errors.As(err, &re) {
		t.Fatalf("Fetch error = %v, want it to wrap the *remote.Error", err)
	}
	if ee.Kind != engine.Invalid || ee.Msg != re.Msg {
		t.Errorf("Fetch error = kind %v %q, want kind %v %q", ee.Kind, ee.Msg, engine.Invalid, re.Msg)
	}
	if !strings.Contains(ee.Msg, part) {
		t.Errorf("Fetch error message = %q, want it to contain %q", ee.Msg, part)
	}
	if kind, msg, _ := engine.Classify(err); kind != engine.Invalid || msg != re.Msg {
		t.Errorf("Classify(Fetch error) = %v %q, want %v %q", kind, msg, engine.Invalid, re.Msg)
	}
}

func TestFetchURL(t *testing.T) {
	gz := gzipS3(t, `[{"a":1}]`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data/sales.csv":
			w.Header().Set("Content-Type", "text/csv")
			io.WriteString(w, "a,b\n1,2\n")
		case "/private/rows.json.gz":
			if u, p, ok := r.BasicAuth(); !ok || u != "ann" || p != "s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := remote.New(remote.Options{AllowPrivate: true, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	t.Cleanup(c.Close)
	f := remote.NewFetcher(c)
	// Without AllowPrivate the loopback server is refused by the guard.
	guarded := remote.New(remote.Options{ConnectTimeout: 5 * time.Second})
	t.Cleanup(guarded.Close)

	runFetch(t, f, []fetchCase{
		{name: "csv", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: srv.URL + "/data/sales.csv"},
			body: "a,b\n1,2\n", want: engine.RemoteObject{Name: "sales.csv", ContentType: "text/csv"}},
		// Unlike the stores', a URL's Content-Encoding: gzip is decoded by
		// net/http, which asked for it: the engine gets the plain bytes.
		{name: "basic auth from the secrets", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: srv.URL + "/private/rows.json.gz",
			Secrets: engine.ImportSecrets{User: "ann", Password: "s3cret"}},
			body: `[{"a":1}]`, want: engine.RemoteObject{Name: "rows.json.gz", ContentType: "application/json"}},
		{name: "wrong password", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: srv.URL + "/private/rows.json.gz",
			Secrets: engine.ImportSecrets{User: "ann", Password: "guess"}}, wantErr: "answered 401"},
		{name: "missing", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: srv.URL + "/nothing.csv"}, wantErr: "answered 404"},
		{name: "not http", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: "ftp://example.com/a.csv"}, wantErr: "http or https"},
	})
	runFetch(t, remote.NewFetcher(guarded), []fetchCase{
		{name: "private address", spec: engine.ImportSpec{Kind: engine.ImportURL, URL: srv.URL + "/data/sales.csv"}, wantErr: "loopback"},
	})
}

func TestFetchObjectStore(t *testing.T) {
	srv, c := newS3Store(t)
	srv.CreateBucket(t, "data")
	srv.Put(t, "data", "2018/sales.csv", []byte("a,b\n1,2\n"), "text/csv")
	srv.PutObject(t, "data", "rows.json.gz", strings.NewReader("zipped"), 6,
		map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"})
	srv.RequireAuth(true)
	f := remote.NewFetcher(c)
	keys := engine.ImportSecrets{AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}
	spec := func(path string, s engine.ImportSecrets) engine.ImportSpec {
		return engine.ImportSpec{Kind: engine.ImportObjectStore, Bucket: "data", Path: path, Region: "us-east-1", Secrets: s}
	}
	runFetch(t, f, []fetchCase{
		{name: "csv with keys", spec: spec("2018/sales.csv", keys),
			body: "a,b\n1,2\n", want: engine.RemoteObject{Name: "sales.csv", ContentType: "text/csv"}},
		{name: "encoding kept", spec: spec("rows.json.gz", keys),
			body: "zipped", want: engine.RemoteObject{Name: "rows.json.gz", ContentType: "application/json", ContentEncoding: "gzip"}},
		{name: "missing key", spec: spec("nothing.csv", keys), wantErr: "nothing.csv"},
		{name: "unknown access key", spec: spec("2018/sales.csv", engine.ImportSecrets{AccessKeyID: "SOMEONEELSE", SecretAccessKey: "x"}), wantErr: "access denied (403)"},
		{name: "anonymous on a private bucket", spec: spec("2018/sales.csv", engine.ImportSecrets{}), wantErr: "access denied (403)"},
	})
}

func TestFetchBlobStore(t *testing.T) {
	az := remotetest.StartAzurite(t)
	az.CreateContainer(t, "data")
	az.Put(t, "data", "mpg/auto mpg.csv", []byte("a,b\n1,2\n"), "text/csv", "")
	az.Put(t, "data", "rows.json.gz", []byte("zipped"), "application/json", "gzip")
	c := remote.New(remote.Options{AllowPrivate: true, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	t.Cleanup(c.Close)
	f := remote.NewFetcher(c)
	spec := func(blob, conn string) engine.ImportSpec {
		return engine.ImportSpec{Kind: engine.ImportBlobStore, Container: "data", Blob: blob, Secrets: engine.ImportSecrets{ConnectionString: conn}}
	}
	runFetch(t, f, []fetchCase{
		{name: "csv", spec: spec("mpg/auto mpg.csv", az.ConnectionString),
			body: "a,b\n1,2\n", want: engine.RemoteObject{Name: "auto mpg.csv", ContentType: "text/csv"}},
		{name: "encoding kept", spec: spec("rows.json.gz", az.ConnectionString),
			body: "zipped", want: engine.RemoteObject{Name: "rows.json.gz", ContentType: "application/json", ContentEncoding: "gzip"}},
		{name: "missing blob", spec: spec("nothing.csv", az.ConnectionString), wantErr: "nothing.csv"},
		{name: "bad connection string", spec: spec("mpg/auto mpg.csv", "not a connection string"), wantErr: "connection string"},
	})
}

// An import kind Fetch does not know is a programmer error, not the
// user's: a plain error, which the engine shows generically.
func TestFetchUnknownKind(t *testing.T) {
	c := remote.New(remote.Options{})
	t.Cleanup(c.Close)
	obj, err := remote.NewFetcher(c).Fetch(t.Context(), engine.ImportSpec{Kind: "ftp"})
	if err == nil || obj != nil {
		t.Fatalf("Fetch(kind ftp) = %v, %v, want an error", obj, err)
	}
	if !strings.Contains(err.Error(), `"ftp"`) {
		t.Errorf("Fetch(kind ftp) error = %q, want it to name the kind", err)
	}
	if kind, _, _ := engine.Classify(err); kind != engine.Internal {
		t.Errorf("Classify(Fetch(kind ftp) error) = %v, want %v", kind, engine.Internal)
	}
}
