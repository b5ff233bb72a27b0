package remotetest

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3 is an in-memory S3-compatible store (gofakes3) served on a loopback
// httptest.Server, so clients need remote.Options.AllowPrivate. It runs in
// process and needs nothing outside the Go module cache: no network, no
// containers, no downloads.
//
// What gofakes3 enforces: nothing about authentication. It accepts
// anonymous requests and requests signed with any key and any signature,
// V2 or V4; it only rejects a V4 request whose X-Amz-Date is more than 15
// minutes off. RequireAuth adds a coarse check on top (see there). Buckets
// must be created before objects are put in them; a missing bucket or key
// answers the real S3 error codes (NoSuchBucket, NoSuchKey, 404).
type S3 struct {
	// Endpoint is the store's base URL, http://127.0.0.1:port, fit for
	// remote.Options.S3Endpoint.
	Endpoint string
	// AccessKey and SecretKey are the keys tests should sign with. Until
	// RequireAuth is on, any keys (or none) are accepted.
	AccessKey, SecretKey string

	backend     *s3mem.Backend
	server      *httptest.Server
	requireAuth atomic.Bool
}

// NewS3 starts an empty store; it is closed when the test ends.
func NewS3(t testing.TB) *S3 {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(backend)
	s := &S3{
		AccessKey: "VATICTESTACCESSKEY",
		SecretKey: "vatic/test/secret/key/0123456789abcdef",
		backend:   backend,
	}
	s.server = httptest.NewServer(s.authMiddleware(faker.Server()))
	s.Endpoint = s.server.URL
	t.Cleanup(s.server.Close)
	return s
}

// RequireAuth turns the store's access check on or off (off by default).
// When on, a request must carry an AWS V4 Authorization header or
// presigned query naming AccessKey: none answers 403 AccessDenied, another
// key 403 InvalidAccessKeyId. The signature itself is not verified, so a
// wrong SecretKey still passes. Safe to call while requests are served.
func (s *S3) RequireAuth(on bool) { s.requireAuth.Store(on) }

// CreateBucket creates an empty bucket.
func (s *S3) CreateBucket(t testing.TB, name string) {
	t.Helper()
	if err := s.backend.CreateBucket(name); err != nil {
		t.Fatalf("remotetest: CreateBucket(%q) = %v", name, err)
	}
}

// Put stores body under bucket/key with a Content-Type ("" for none). The
// bucket must exist.
func (s *S3) Put(t testing.TB, bucket, key string, body []byte, contentType string) {
	t.Helper()
	var meta map[string]string
	if contentType != "" {
		meta = map[string]string{"Content-Type": contentType}
	}
	s.PutObject(t, bucket, key, bytes.NewReader(body), int64(len(body)), meta)
}

// PutObject stores size bytes read from r under bucket/key. meta holds the
// headers the store answers with on GET, as S3 keeps them: Content-Type,
// Content-Encoding, Content-Disposition, X-Amz-Meta-*. The store keeps the
// object in memory.
func (s *S3) PutObject(t testing.TB, bucket, key string, r io.Reader, size int64, meta map[string]string) {
	t.Helper()
	m := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	for k, v := range meta {
		m[http.CanonicalHeaderKey(k)] = v
	}
	if _, err := s.backend.PutObject(bucket, key, m, r, size, nil); err != nil {
		t.Fatalf("remotetest: PutObject(%q, %q) = %v", bucket, key, err)
	}
}

// authMiddleware implements RequireAuth.
func (s *S3) authMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.requireAuth.Load() {
			if code, msg := s.checkAuth(r); code != "" {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				_ = xml.NewEncoder(w).Encode(struct {
					XMLName xml.Name `xml:"Error"`
					Code    string
					Message string
				}{Code: code, Message: msg})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// checkAuth returns an S3 error code when r does not name AccessKey.
func (s *S3) checkAuth(r *http.Request) (code, msg string) {
	// V4 header: "AWS4-HMAC-SHA256 Credential=AKID/date/region/s3/aws4_request, ...".
	cred := ""
	if h := r.Header.Get("Authorization"); h != "" {
		_, after, ok := strings.Cut(h, "Credential=")
		if !ok {
			return "AccessDenied", "Only AWS V4 signatures are accepted."
		}
		cred = after
	} else {
		cred = r.URL.Query().Get("X-Amz-Credential")
	}
	if cred == "" {
		return "AccessDenied", "Access Denied"
	}
	key, _, _ := strings.Cut(cred, "/")
	if key != s.AccessKey {
		return "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."
	}
	return "", ""
}
