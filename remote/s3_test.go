package remote_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// newS3Store starts a fake store and a client allowed to reach it on loopback.
func newS3Store(t testing.TB) (*remotetest.S3, *remote.Client) {
	t.Helper()
	srv := remotetest.NewS3(t)
	c := remote.New(remote.Options{S3Endpoint: srv.Endpoint, AllowPrivate: true, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	t.Cleanup(c.Close)
	return srv, c
}

// readS3Body reads and closes an object's body.
func readS3Body(t testing.TB, obj *remote.Object) []byte {
	t.Helper()
	defer obj.Body.Close()
	b, err := io.ReadAll(obj.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return b
}

// wantS3Error checks that err is a *remote.Error whose message contains
// every part of want.
func wantS3Error(t testing.TB, call string, err error, want ...string) *remote.Error {
	t.Helper()
	var rerr *remote.Error
	if !errors.As(err, &rerr) {
		t.Fatalf("%s error = %#v, want *remote.Error", call, err)
	}
	t.Logf("%s error: %s", call, rerr.Msg)
	for _, w := range want {
		if !strings.Contains(rerr.Msg, w) {
			t.Errorf("%s error = %q, want it to contain %q", call, rerr.Msg, w)
		}
	}
	return rerr
}

// gzipS3 returns s gzip-compressed.
func gzipS3(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestOpenS3(t *testing.T) {
	srv, c := newS3Store(t)
	srv.CreateBucket(t, "data")
	csv := []byte("a,b\n1,x\n2,\"y, z\"\r\n3,ü\n")
	gz := gzipS3(t, "a,b\n1,2\n")
	srv.Put(t, "data", "sales.csv", csv, "text/csv")
	srv.Put(t, "data", "2018/q1 reports/Location B.csv", csv, "")
	srv.PutObject(t, "data", "logs/rows.csv.gz", bytes.NewReader(gz), int64(len(gz)),
		map[string]string{"Content-Type": "text/csv", "Content-Encoding": "gzip"})

	tests := []struct {
		name, key   string
		body        []byte
		wantName    string
		contentType string
		encoding    string
	}{
		{"csv", "sales.csv", csv, "sales.csv", "text/csv", ""},
		{"slashes and spaces", "2018/q1 reports/Location B.csv", csv, "Location B.csv", "", ""},
		{"gzip kept as stored", "logs/rows.csv.gz", gz, "rows.csv.gz", "text/csv", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// No keys: anonymous, as for a public bucket.
			obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "data", Path: tt.key})
			if err != nil {
				t.Fatalf("OpenS3(%q) = %v", tt.key, err)
			}
			got := readS3Body(t, obj)
			if !bytes.Equal(got, tt.body) {
				t.Errorf("OpenS3(%q) body = %q, want %q", tt.key, got, tt.body)
			}
			if obj.Name != tt.wantName {
				t.Errorf("OpenS3(%q).Name = %q, want %q", tt.key, obj.Name, tt.wantName)
			}
			if obj.ContentEncoding != tt.encoding {
				t.Errorf("OpenS3(%q).ContentEncoding = %q, want %q", tt.key, obj.ContentEncoding, tt.encoding)
			}
			if tt.contentType != "" && obj.ContentType != tt.contentType {
				t.Errorf("OpenS3(%q).ContentType = %q, want %q", tt.key, obj.ContentType, tt.contentType)
			}
			if obj.Size != int64(len(tt.body)) {
				t.Errorf("OpenS3(%q).Size = %d, want %d", tt.key, obj.Size, len(tt.body))
			}
		})
	}
}

func TestOpenS3Errors(t *testing.T) {
	srv, c := newS3Store(t)
	srv.CreateBucket(t, "data")
	srv.Put(t, "data", "present.csv", []byte("a\n1\n"), "text/csv")

	tests := []struct {
		name string
		req  remote.S3Request
		want []string
	}{
		{"missing bucket", remote.S3Request{Bucket: "nobucket", Path: "present.csv"},
			[]string{"s3://nobucket/present.csv", "not found", "404"}},
		{"missing key", remote.S3Request{Bucket: "data", Path: "dir/absent file.csv"},
			[]string{"s3://data/dir/absent file.csv", "not found", "404"}},
		{"empty bucket", remote.S3Request{Path: "present.csv"}, []string{"bucket", "required"}},
		{"empty path", remote.S3Request{Bucket: "data"}, []string{"path", "required"}},
		{"key without secret", remote.S3Request{Bucket: "data", Path: "present.csv", AccessKeyID: "AKID"},
			[]string{"accessKeyId and secretAccessKey"}},
		{"secret without key", remote.S3Request{Bucket: "data", Path: "present.csv", SecretAccessKey: "s3cr3t"},
			[]string{"accessKeyId and secretAccessKey"}},
		{"bad region", remote.S3Request{Bucket: "data", Path: "present.csv", Region: "evil.example/"},
			[]string{"region", "not valid"}},
		{"bad bucket name", remote.S3Request{Bucket: "s3://data", Path: "present.csv"},
			[]string{"bucket name", "not valid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj, err := c.OpenS3(t.Context(), tt.req)
			if err == nil {
				obj.Body.Close()
				t.Fatalf("OpenS3(%+v) = nil error, want %q", tt.req, tt.want)
			}
			rerr := wantS3Error(t, "OpenS3", err, tt.want...)
			if tt.req.SecretAccessKey != "" && strings.Contains(rerr.Error(), tt.req.SecretAccessKey) {
				t.Errorf("OpenS3 error = %q, shows the secret", rerr.Error())
			}
		})
	}
}

func TestOpenS3Auth(t *testing.T) {
	srv, c := newS3Store(t)
	srv.CreateBucket(t, "private")
	srv.Put(t, "private", "p.csv", []byte("a\n1\n"), "text/csv")
	srv.RequireAuth(true)

	const secret = "do-not-show-this-secret"
	tests := []struct {
		name       string
		key, secr  string
		wantDenied bool
	}{
		{"anonymous", "", "", true},
		{"unknown key", "SOMEONEELSE", secret, true},
		{"right key", srv.AccessKey, srv.SecretKey, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := remote.S3Request{Bucket: "private", Path: "p.csv", Region: "eu-west-1", AccessKeyID: tt.key, SecretAccessKey: tt.secr}
			obj, err := c.OpenS3(t.Context(), req)
			if !tt.wantDenied {
				if err != nil {
					t.Fatalf("OpenS3 with keys = %v", err)
				}
				if got := string(readS3Body(t, obj)); got != "a\n1\n" {
					t.Errorf("OpenS3 with keys body = %q, want %q", got, "a\n1\n")
				}
				return
			}
			if err == nil {
				obj.Body.Close()
				t.Fatalf("OpenS3(%s) = nil error, want access denied", tt.name)
			}
			rerr := wantS3Error(t, "OpenS3", err, "s3://private/p.csv", "access denied", "403", "accessKeyId")
			if strings.Contains(rerr.Msg, secret) {
				t.Errorf("OpenS3 error = %q, shows the secret", rerr.Msg)
			}
		})
	}
}

func TestOpenS3PrivateAddress(t *testing.T) {
	srv := remotetest.NewS3(t)
	srv.CreateBucket(t, "data")
	srv.Put(t, "data", "a.csv", []byte("a\n"), "text/csv")
	c := remote.New(remote.Options{S3Endpoint: srv.Endpoint})
	defer c.Close()

	obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "data", Path: "a.csv"})
	if err == nil {
		obj.Body.Close()
		t.Fatal("OpenS3 on loopback without AllowPrivate = nil error, want refusal")
	}
	wantS3Error(t, "OpenS3", err, "s3://data/a.csv", "private", "address")
	if !errors.Is(err, remote.ErrForbiddenAddress) {
		t.Errorf("OpenS3 error = %v, want it to wrap ErrForbiddenAddress", err)
	}
}

func TestOpenS3Endpoint(t *testing.T) {
	srv := remotetest.NewS3(t)
	srv.CreateBucket(t, "data")
	srv.Put(t, "data", "a.csv", []byte("a\n"), "text/csv")
	closed := closedS3Addr(t)

	tests := []struct {
		name, endpoint string
		want           []string // error parts; nil means success
	}{
		{"url with trailing slash", srv.Endpoint + "/", nil},
		{"not listening", "http://" + closed, []string{"s3://data/a.csv", closed, "could not be reached"}},
		{"bare host is https", strings.TrimPrefix(srv.Endpoint, "http://"), []string{"could not be reached"}},
		{"unknown scheme", "ftp://" + closed, []string{"S3 endpoint", "not valid"}},
		{"path", srv.Endpoint + "/prefix", []string{"S3 endpoint", "not valid"}},
		{"user info", "http://me:pw@" + closed, []string{"S3 endpoint", "not valid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := remote.New(remote.Options{S3Endpoint: tt.endpoint, AllowPrivate: true, ConnectTimeout: 5 * time.Second})
			defer c.Close()
			obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "data", Path: "a.csv"})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("OpenS3 via %q = %v", tt.endpoint, err)
				}
				if got := string(readS3Body(t, obj)); got != "a\n" {
					t.Errorf("OpenS3 via %q body = %q, want %q", tt.endpoint, got, "a\n")
				}
				return
			}
			if err == nil {
				obj.Body.Close()
				t.Fatalf("OpenS3 via %q = nil error, want %q", tt.endpoint, tt.want)
			}
			wantS3Error(t, "OpenS3 via "+tt.endpoint, err, tt.want...)
			// A bare host means HTTPS: the request went out as https and
			// the plain-HTTP fake could not answer the TLS handshake.
			if tt.name == "bare host is https" {
				if cause := errors.Unwrap(err); cause == nil || !strings.Contains(cause.Error(), "https://") {
					t.Errorf("OpenS3 via %q cause = %v, want an https request", tt.endpoint, cause)
				}
			}
		})
	}
}

// closedS3Addr returns a loopback address on which nothing listens.
func closedS3Addr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// hangingS3Addr returns the address of a TCP server that accepts
// connections and never answers.
func hangingS3Addr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestOpenS3Hanging(t *testing.T) {
	addr := hangingS3Addr(t)
	c := remote.New(remote.Options{S3Endpoint: "http://" + addr, AllowPrivate: true, ConnectTimeout: 300 * time.Millisecond})
	defer c.Close()

	start := time.Now()
	obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "data", Path: "a.csv"})
	if err == nil {
		obj.Body.Close()
		t.Fatal("OpenS3 on a silent server = nil error, want a timeout")
	}
	wantS3Error(t, "OpenS3", err, "s3://data/a.csv", "did not answer in time")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("OpenS3 on a silent server took %v, want about the 300ms ConnectTimeout", d)
	}
}

// TestOpenS3IdleBody checks that a store that sends headers and then stops
// fails the read after IdleTimeout instead of hanging the import.
func TestOpenS3IdleBody(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "a,b\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hs.Close()
	defer close(release)
	c := remote.New(remote.Options{S3Endpoint: hs.URL, AllowPrivate: true, IdleTimeout: 200 * time.Millisecond})
	defer c.Close()

	obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "data", Path: "a.csv"})
	if err != nil {
		t.Fatalf("OpenS3 = %v", err)
	}
	defer obj.Body.Close()
	_, err = io.ReadAll(obj.Body)
	wantS3Error(t, "reading a stalled body", err, "s3://data/a.csv", "timed out")
}

func TestOpenS3Large(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB object")
	}
	const size = 20 << 20
	srv, c := newS3Store(t)
	srv.CreateBucket(t, "big")
	put := sha256.New()
	src := io.TeeReader(io.LimitReader(rand.NewChaCha8([32]byte{1}), size), put)
	srv.PutObject(t, "big", "large.csv", src, size, map[string]string{"Content-Type": "text/csv"})

	obj, err := c.OpenS3(t.Context(), remote.S3Request{Bucket: "big", Path: "large.csv"})
	if err != nil {
		t.Fatalf("OpenS3 = %v", err)
	}
	defer obj.Body.Close()
	if obj.Size != size {
		t.Errorf("OpenS3.Size = %d, want %d", obj.Size, size)
	}
	got := sha256.New()
	n, err := io.CopyBuffer(got, obj.Body, make([]byte, 64<<10))
	if err != nil {
		t.Fatalf("reading body after %d bytes: %v", n, err)
	}
	if n != size {
		t.Errorf("read %d bytes, want %d", n, size)
	}
	if !bytes.Equal(got.Sum(nil), put.Sum(nil)) {
		t.Errorf("body sha256 = %x, want %x", got.Sum(nil), put.Sum(nil))
	}
}
