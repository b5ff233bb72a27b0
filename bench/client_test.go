package bench_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/vaticml/vatic/bench"
)

func TestCountLines(t *testing.T) {
	f := func(in string, wantLines int64) {
		t.Helper()
		// OneByteReader makes every line end fall on a read boundary.
		for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
			lines, n, err := bench.CountLines(r)
			if err != nil || lines != wantLines || n != int64(len(in)) {
				t.Errorf("CountLines(%q) = %d, %d, %v, want %d, %d, nil", in, lines, n, err, wantLines, len(in))
			}
		}
	}
	f("", 0)
	f("\n", 1)
	f("a", 1)
	f("a,b\n", 1)
	f("a,b\n1,2\n3,4\n", 3)
	f("a,b\n1,2\n3,4", 3)
	f("a,b\r\n1,2\r\n", 2)
	f(strings.Repeat("x,y\n", 100_000), 100_000)

	boom := errors.New("boom")
	if _, _, err := bench.CountLines(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("CountLines(failing reader) error = %v, want %v", err, boom)
	}
}

// fakeAPI answers the three calls of the driver like the contract says.
func fakeAPI(t testing.TB, csvBody string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/data/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("api-key") != "k" {
			http.Error(w, `{"statusCode":401}`, http.StatusUnauthorized)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		if r.ContentLength <= 0 || r.Header.Get("Content-Type") != "text/csv" {
			http.Error(w, "want a sized text/csv body", http.StatusBadRequest)
			return
		}
		lines, _, err := bench.CountLines(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"dataSetName":%q,"rowCount":%d}`, r.PathValue("name"), lines-1)
	})
	mux.HandleFunc("GET /v1/data/{name}/stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"dataSetName":"x","columns":{"a":{"totalCount":2},"b":{"totalCount":2}}}`)
	})
	mux.HandleFunc("GET /v1/data/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "text/csv" || r.URL.RawQuery != "" {
			http.Error(w, "want Accept: text/csv and no query", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		io.WriteString(w, csvBody)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestClient(t *testing.T) {
	const data = "a,b\n1,2\n3,4\n5,6\n"
	srv := fakeAPI(t, data)
	c := &bench.Client{BaseURL: srv.URL + "/v1/", APIKey: "k"}
	dir := t.TempDir()
	plain := filepath.Join(dir, "x.csv")
	os.WriteFile(plain, []byte(data), 0o644)
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	io.WriteString(zw, data)
	zw.Close()
	gz := filepath.Join(dir, "x.csv.gz")
	os.WriteFile(gz, zbuf.Bytes(), 0o644)

	for _, tc := range []struct {
		path string
		gzip bool
	}{{plain, false}, {gz, true}} {
		res, err := c.PutCSV(t.Context(), "my data", tc.path, tc.gzip)
		if err != nil || res.RowCount != 3 {
			t.Errorf("PutCSV(%s, gzip=%v) = %d, %v, want 3, nil", tc.path, tc.gzip, res.RowCount, err)
		}
	}

	cols, err := c.GetStats(t.Context(), "my data")
	if err != nil || len(cols) != 2 {
		t.Errorf("GetStats = %d columns, %v, want 2, nil", len(cols), err)
	}

	rows, n, err := c.GetAllCSV(t.Context(), "my data")
	if err != nil || rows != 3 || n != int64(len(data)) {
		t.Errorf("GetAllCSV = %d, %d, %v, want 3, %d, nil", rows, n, err, len(data))
	}

	bad := &bench.Client{BaseURL: srv.URL + "/v1", APIKey: "wrong"}
	_, err = bad.PutCSV(t.Context(), "x", plain, false)
	var he *bench.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusUnauthorized || !strings.Contains(he.Body, "401") {
		t.Errorf("PutCSV with a wrong key: error %v, want an HTTPError 401 carrying the body", err)
	}
}
