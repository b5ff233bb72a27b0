package remote_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// A valid base64 key that is not the emulator's.
const wrongKey = "V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3Jvbmc="

func TestOpenAzure(t *testing.T) {
	az := remotetest.StartAzurite(t)
	az.CreateContainer(t, "data")
	csv := []byte("a,b\n1,x\n2,y\n")
	az.Put(t, "data", "rgb.csv", csv, "text/csv", "")
	az.Put(t, "data", "mpg/2018/auto mpg.csv", csv, "", "")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csv)
	zw.Close()
	az.Put(t, "data", "rgb.csv.gz", gz.Bytes(), "text/csv", "gzip")

	c := remote.New(remote.Options{AllowPrivate: true})
	t.Cleanup(c.Close)
	sasConn := az.SASConnectionString(t, "data")
	lowerConn := "blobendpoint=" + az.Endpoint + ";accountname=" + remotetest.AzuriteAccount + ";accountkey=" + remotetest.AzuriteKey

	t.Run("read", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name, conn, blob string
			want             []byte
			wantName, ctype  string
			wantEnc          string
		}{
			{name: "AccountKey", conn: az.ConnectionString, blob: "rgb.csv", want: csv, wantName: "rgb.csv", ctype: "text/csv"},
			{name: "SAS", conn: sasConn, blob: "rgb.csv", want: csv, wantName: "rgb.csv", ctype: "text/csv"},
			{name: "LowerCaseSettings", conn: lowerConn, blob: "rgb.csv", want: csv, wantName: "rgb.csv", ctype: "text/csv"},
			{name: "Folders", conn: az.ConnectionString, blob: "mpg/2018/auto mpg.csv", want: csv, wantName: "auto mpg.csv"},
			{name: "FoldersSAS", conn: sasConn, blob: "mpg/2018/auto mpg.csv", want: csv, wantName: "auto mpg.csv"},
			{name: "Gzip", conn: az.ConnectionString, blob: "rgb.csv.gz", want: gz.Bytes(), wantName: "rgb.csv.gz", ctype: "text/csv", wantEnc: "gzip"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				obj, err := c.OpenAzure(t.Context(), remote.AzureRequest{ConnectionString: tc.conn, Container: "data", Blob: tc.blob})
				if err != nil {
					t.Fatalf("OpenAzure(%q) = %v", tc.blob, err)
				}
				defer obj.Body.Close()
				got, err := io.ReadAll(obj.Body)
				if err != nil {
					t.Fatalf("reading %q: %v", tc.blob, err)
				}
				if !bytes.Equal(got, tc.want) {
					t.Errorf("body of %q = %q, want %q", tc.blob, got, tc.want)
				}
				if obj.Name != tc.wantName {
					t.Errorf("Name = %q, want %q", obj.Name, tc.wantName)
				}
				if tc.ctype != "" && obj.ContentType != tc.ctype {
					t.Errorf("ContentType = %q, want %q", obj.ContentType, tc.ctype)
				}
				if obj.ContentEncoding != tc.wantEnc {
					t.Errorf("ContentEncoding = %q, want %q", obj.ContentEncoding, tc.wantEnc)
				}
				if obj.Size != int64(len(tc.want)) {
					t.Errorf("Size = %d, want %d", obj.Size, len(tc.want))
				}
			})
		}
	})

	t.Run("failures", func(t *testing.T) {
		t.Parallel()
		badSAS := strings.Replace(sasConn, "sig=", "sig=AAAA", 1)
		wrongKeyConn := strings.Replace(az.ConnectionString, remotetest.AzuriteKey, wrongKey, 1)
		for _, tc := range []struct {
			name      string
			req       remote.AzureRequest
			want      string
			forbidden []string // must not appear in Msg or in Error chain
		}{
			{
				name: "NoContainer",
				req:  remote.AzureRequest{ConnectionString: az.ConnectionString, Container: "nope", Blob: "rgb.csv"},
				want: `The remote file could not be read: container "nope" was not found (404).`,
			},
			{
				name: "NoBlob",
				req:  remote.AzureRequest{ConnectionString: az.ConnectionString, Container: "data", Blob: "missing/x.csv"},
				want: `The remote file could not be read: blob "missing/x.csv" was not found in container "data" (404).`,
			},
			{
				name: "NoBlobSAS",
				req:  remote.AzureRequest{ConnectionString: sasConn, Container: "data", Blob: "missing.csv"},
				want: `The remote file could not be read: blob "missing.csv" was not found in container "data" (404).`,
			},
			{
				name:      "WrongKey",
				req:       remote.AzureRequest{ConnectionString: wrongKeyConn, Container: "data", Blob: "rgb.csv"},
				want:      "The remote file could not be read: access to data/rgb.csv was denied (403); check the connection string.",
				forbidden: []string{wrongKey, remotetest.AzuriteKey},
			},
			{
				name:      "WrongSignature",
				req:       remote.AzureRequest{ConnectionString: badSAS, Container: "data", Blob: "rgb.csv"},
				want:      "The remote file could not be read: access to data/rgb.csv was denied (403); check the connection string.",
				forbidden: []string{"sig=", remotetest.AzuriteKey},
			},
			{
				name:      "SASForOtherContainer",
				req:       remote.AzureRequest{ConnectionString: sasConn, Container: "other", Blob: "rgb.csv"},
				want:      "The remote file could not be read: access to other/rgb.csv was denied (403); check the connection string.",
				forbidden: []string{"sig="},
			},
			{
				name: "EmptyContainer",
				req:  remote.AzureRequest{ConnectionString: az.ConnectionString, Blob: "rgb.csv"},
				want: "The Azure import needs a container name.",
			},
			{
				name: "EmptyBlob",
				req:  remote.AzureRequest{ConnectionString: az.ConnectionString, Container: "data"},
				want: "The Azure import needs a blob name.",
			},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				obj, err := c.OpenAzure(t.Context(), tc.req)
				if err == nil {
					obj.Body.Close()
					t.Fatalf("OpenAzure(%s/%s) succeeded, want %q", tc.req.Container, tc.req.Blob, tc.want)
				}
				var re *remote.Error
				if !errors.As(err, &re) {
					t.Fatalf("OpenAzure(%s/%s) = %T %v, want *remote.Error", tc.req.Container, tc.req.Blob, err, err)
				}
				if re.Msg != tc.want {
					t.Errorf("OpenAzure(%s/%s) = %q, want %q", tc.req.Container, tc.req.Blob, re.Msg, tc.want)
				}
				checkNoSecrets(t, err, tc.forbidden...)
			})
		}
	})

	t.Run("large", func(t *testing.T) {
		t.Parallel()
		const size = 24<<20 + 12345
		big := make([]byte, size)
		rng := rand.NewChaCha8([32]byte{1})
		rng.Read(big)
		az.Put(t, "data", "big/large.bin", big, "application/octet-stream", "")
		want := sha256.Sum256(big)

		start := time.Now()
		obj, err := c.OpenAzure(t.Context(), remote.AzureRequest{ConnectionString: sasConn, Container: "data", Blob: "big/large.bin"})
		if err != nil {
			t.Fatalf("OpenAzure(big/large.bin) = %v", err)
		}
		defer obj.Body.Close()
		if obj.Size != size {
			t.Errorf("Size = %d, want %d", obj.Size, size)
		}
		h := sha256.New()
		n, err := io.Copy(h, obj.Body)
		if err != nil {
			t.Fatalf("reading big/large.bin after %d bytes: %v", n, err)
		}
		if n != size || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Errorf("big/large.bin: read %d bytes with sha256 %x, want %d bytes with %x", n, h.Sum(nil), size, want)
		}
		t.Logf("streamed %d MB in %v", size>>20, time.Since(start).Round(time.Millisecond))
	})

	t.Run("PrivateAddress", func(t *testing.T) {
		t.Parallel()
		guarded := remote.New(remote.Options{})
		t.Cleanup(guarded.Close)
		for _, tc := range []struct{ name, conn string }{
			{"AccountKey", az.ConnectionString},
			{"SAS", sasConn},
			{"DevelopmentStorage", "UseDevelopmentStorage=true"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				_, err := guarded.OpenAzure(t.Context(), remote.AzureRequest{ConnectionString: tc.conn, Container: "data", Blob: "rgb.csv"})
				var re *remote.Error
				if !errors.As(err, &re) {
					t.Fatalf("OpenAzure with AllowPrivate false = %T %v, want *remote.Error", err, err)
				}
				if !errors.Is(err, remote.ErrForbiddenAddress) {
					t.Errorf("OpenAzure with AllowPrivate false = %v, does not wrap ErrForbiddenAddress", err)
				}
				if !strings.Contains(re.Msg, "loopback, private, link-local, metadata or other special-purpose address") {
					t.Errorf("OpenAzure with AllowPrivate false = %q, want the private-address message", re.Msg)
				}
				checkNoSecrets(t, err, "sig=", remotetest.AzuriteKey)
				// A refused destination is not retried.
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("refusal took %v, want it immediate", d)
				}
			})
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		conn := "BlobEndpoint=http://" + addr + "/devstoreaccount1;SharedAccessSignature=sv=2020-02-10&sp=r&sig=c2VjcmV0"
		start := time.Now()
		_, err = c.OpenAzure(t.Context(), remote.AzureRequest{ConnectionString: conn, Container: "data", Blob: "rgb.csv"})
		var re *remote.Error
		if !errors.As(err, &re) {
			t.Fatalf("OpenAzure(closed port) = %T %v, want *remote.Error", err, err)
		}
		want := "the Azure endpoint http://" + addr + "/devstoreaccount1/ could not be reached"
		if re.Msg != want {
			t.Errorf("OpenAzure(closed port) = %q, want %q", re.Msg, want)
		}
		checkNoSecrets(t, err, "sig=", "c2VjcmV0")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("OpenAzure(closed port) took %v; retries should be few and short", d)
		}
	})
}

func TestOpenAzureConnectionString(t *testing.T) {
	// No service is contacted: every string fails to parse. AllowPrivate
	// is off so that a string that wrongly parsed could not reach anything.
	c := remote.New(remote.Options{})
	t.Cleanup(c.Close)
	const key = "a2V5a2V5a2V5a2V5"
	for _, tc := range []struct{ name, conn, want string }{
		{"Empty", "", "it is empty"},
		{"Blank", " ; ", "it is empty"},
		{"NotSettings", "hello", "setting 1 is not of the form Name=value"},
		{"NoName", "AccountName=acct;=x", "setting 2 is not of the form Name=value"},
		{"NoCredentials", "AccountName=acct", "it needs AccountKey or SharedAccessSignature"},
		{"NoCredentialsEndpoint", "BlobEndpoint=https://acct.blob.core.windows.net/", "it needs AccountKey or SharedAccessSignature"},
		{"NoEndpoint", "AccountKey=" + key, "it needs BlobEndpoint or AccountName"},
		{"NoEndpointSAS", "SharedAccessSignature=sv=2020-02-10&sig=" + key, "it needs BlobEndpoint or AccountName"},
		{"KeyWithoutAccount", "BlobEndpoint=https://acct.blob.core.windows.net/;AccountKey=" + key, "AccountKey needs AccountName"},
		{"KeyNotBase64", "AccountName=acct;AccountKey=" + key + "!!", "AccountKey is not valid base64"},
		{"EmptyKey", "AccountName=acct;AccountKey=", "AccountKey is empty"},
		{"SASWithoutSig", "BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2020-02-10&sp=r", "SharedAccessSignature is not a signature"},
		{"SASBadQuery", "BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sig=%zz", "SharedAccessSignature is not a signature"},
		{"EndpointNotHTTP", "BlobEndpoint=ftp://acct.example/;SharedAccessSignature=sv=1&sig=" + key, "BlobEndpoint must be an absolute http or https URL"},
		{"EndpointRelative", "BlobEndpoint=acct.blob.core.windows.net;SharedAccessSignature=sv=1&sig=" + key, "BlobEndpoint must be an absolute http or https URL"},
		{"EndpointUser", "BlobEndpoint=https://u:p@acct.example/;SharedAccessSignature=sv=1&sig=" + key, "BlobEndpoint must not contain a user name or password"},
		{"EndpointQuery", "BlobEndpoint=https://acct.example/?sv=1&sig=" + key, "BlobEndpoint must not contain a query"},
		{"Protocol", "DefaultEndpointsProtocol=ftp;AccountName=acct;AccountKey=" + key, "DefaultEndpointsProtocol must be http or https"},
		{"AccountName", "AccountName=evil.example/x;AccountKey=" + key, "AccountName must be letters and digits"},
		{"Suffix", "AccountName=acct;AccountKey=" + key + ";EndpointSuffix=evil.example/x?", "EndpointSuffix must be a host name"},
		{"Duplicate", "AccountName=acct;AccountKey=" + key + ";accountkey=" + key, "setting 3 (accountkey) appears twice"},
		{"DevFalse", "UseDevelopmentStorage=false", "UseDevelopmentStorage must be true"},
		{"DevCombined", "UseDevelopmentStorage=true;AccountName=acct", "UseDevelopmentStorage=true cannot be combined"},
		{"DevProxy", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=ipv4.fiddler", "DevelopmentStorageProxyUri must be an absolute http or https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.OpenAzure(t.Context(), remote.AzureRequest{ConnectionString: tc.conn, Container: "data", Blob: "x.csv"})
			var re *remote.Error
			if !errors.As(err, &re) {
				t.Fatalf("OpenAzure(%q) = %T %v, want *remote.Error", tc.conn, err, err)
			}
			const prefix = "The Azure connection string is not valid: "
			if !strings.HasPrefix(re.Msg, prefix) || !strings.Contains(re.Msg, tc.want) {
				t.Errorf("OpenAzure(%q) = %q, want %q…%q", tc.conn, re.Msg, prefix, tc.want)
			}
			checkNoSecrets(t, err, key, "sig=")
		})
	}
}

// checkNoSecrets fails if any of secrets appears in err's message or in
// the message of anything it wraps.
func checkNoSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	var texts []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e))
	}
	for _, s := range secrets {
		for _, text := range texts {
			if strings.Contains(text, s) {
				t.Errorf("error %q reveals %q in %q", err, s, text)
				break
			}
		}
	}
}
