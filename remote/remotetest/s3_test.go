package remotetest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vaticml/vatic/remote/remotetest"
)

func TestS3(t *testing.T) {
	srv := remotetest.NewS3(t)
	srv.CreateBucket(t, "data")
	srv.Put(t, "data", "dir/a b.csv", []byte("a\n1\n"), "text/csv")

	v4 := func(key string) string {
		return "AWS4-HMAC-SHA256 Credential=" + key + "/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"
	}
	tests := []struct {
		name, path, auth string
		requireAuth      bool
		status           int
		body             string // substring
	}{
		{"anonymous get", "/data/dir/a%20b.csv", "", false, 200, "a\n1\n"},
		{"any signature", "/data/dir/a%20b.csv", v4("WHOEVER"), false, 200, "a\n1\n"},
		{"missing bucket", "/nobucket/x.csv", "", false, 404, "NoSuchBucket"},
		{"missing key", "/data/x.csv", "", false, 404, "NoSuchKey"},
		{"auth: anonymous", "/data/dir/a%20b.csv", "", true, 403, "AccessDenied"},
		{"auth: other key", "/data/dir/a%20b.csv", v4("WHOEVER"), true, 403, "InvalidAccessKeyId"},
		{"auth: our key", "/data/dir/a%20b.csv", v4(srv.AccessKey), true, 200, "a\n1\n"},
	}
	for _, tt := range tests { // sequential: RequireAuth is store-wide
		t.Run(tt.name, func(t *testing.T) {
			srv.RequireAuth(tt.requireAuth)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.Endpoint+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("GET %s = %v", tt.path, err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
				t.Errorf("GET %s = %d %q, want %d containing %q", tt.path, resp.StatusCode, body, tt.status, tt.body)
			}
		})
	}
}
