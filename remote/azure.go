package remote

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/vaticml/vatic/engine"
)

// AzureRequest names a blob in Azure blob storage (REFERENCE §5.2).
type AzureRequest struct {
	// ConnectionString is an Azure storage connection string: account-key
	// form (AccountName=…;AccountKey=…[;BlobEndpoint=…|;EndpointSuffix=…]),
	// SAS form (BlobEndpoint=…;SharedAccessSignature=…), or
	// UseDevelopmentStorage=true for a local emulator. Setting names are
	// case-insensitive.
	ConnectionString string
	// Container is the container name.
	Container string
	// Blob is the blob name, including any folders ("mpg/auto-mpg.json").
	Blob string
}

// Well-known development storage (Azurite) account, documented by
// Microsoft; it is not a secret.
const (
	devStoreAccount = "devstoreaccount1"
	devStoreKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	devStorePort    = "10000"
)

// Azure's SDK retries three times with delays growing from 800ms; a
// failing import should fail in seconds, so retries are few and short.
const (
	azureMaxRetries    = 2
	azureRetryDelay    = 200 * time.Millisecond
	azureMaxRetryDelay = time.Second
)

// OpenAzure starts downloading req.Blob from req.Container. The request
// for the blob is made before it returns, so a missing container or blob,
// refused credentials or an unreachable endpoint fail here, as an *Error
// whose message never contains the account key or the signature.
func (c *Client) OpenAzure(ctx context.Context, req AzureRequest) (*Object, error) {
	conn, err := parseAzureConnectionString(req.ConnectionString)
	if err != nil {
		return nil, err
	}
	if req.Container == "" {
		return nil, &Error{Msg: "The Azure import needs a container name."}
	}
	if req.Blob == "" {
		return nil, &Error{Msg: "The Azure import needs a blob name."}
	}
	client, err := conn.client(c)
	if err != nil {
		return nil, err
	}
	shown := fmt.Sprintf("the Azure blob %s/%s", req.Container, req.Blob)
	resp, err := client.DownloadStream(ctx, req.Container, req.Blob, nil)
	if err != nil {
		return nil, azureError(err, req, conn)
	}
	size := int64(-1)
	if resp.ContentLength != nil {
		size = *resp.ContentLength
	}
	return &Object{
		Body:            c.idle(resp.Body, shown),
		Name:            path.Base(req.Blob),
		ContentType:     deref(resp.ContentType),
		ContentEncoding: deref(resp.ContentEncoding),
		Size:            size,
	}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// azureError turns an SDK failure into an *Error with a safe message.
func azureError(err error, req AzureRequest, conn azureConn) *Error {
	redactURLErrors(err)
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return connectError("the Azure endpoint "+conn.shown, err)
	}
	const prefix = "The remote file could not be read: "
	switch {
	case bloberror.HasCode(err, bloberror.ContainerNotFound):
		return &Error{Msg: fmt.Sprintf(prefix+"container %q was not found (404).", req.Container), Err: err}
	case bloberror.HasCode(err, bloberror.BlobNotFound):
		return &Error{Msg: fmt.Sprintf(prefix+"blob %q was not found in container %q (404).", req.Blob, req.Container), Err: err}
	case re.StatusCode == http.StatusNotFound:
		return &Error{Msg: fmt.Sprintf(prefix+"%s/%s was not found (404).", req.Container, req.Blob), Err: err}
	case re.StatusCode == http.StatusForbidden || re.StatusCode == http.StatusUnauthorized:
		return &Error{Msg: fmt.Sprintf(prefix+"access to %s/%s was denied (%d); check the connection string.", req.Container, req.Blob, re.StatusCode), Err: err}
	case bloberror.HasCode(err, bloberror.InvalidResourceName, bloberror.OutOfRangeInput):
		return &Error{Msg: fmt.Sprintf(prefix+"the container or blob name is not valid (%d).", re.StatusCode), Err: err}
	}
	code := re.ErrorCode
	if code == "" {
		code = http.StatusText(re.StatusCode)
	}
	return &Error{Msg: fmt.Sprintf(prefix+"Azure answered %d (%s).", re.StatusCode, code), Err: err}
}

// redactURLErrors removes the query (which holds a SAS signature) from any
// *url.Error in err's chain, so that logging Error.Err leaks nothing.
func redactURLErrors(err error) {
	for err != nil {
		if ue, ok := err.(*url.Error); ok {
			ue.URL = engine.RedactURL(ue.URL)
		}
		switch e := err.(type) {
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				redactURLErrors(inner)
			}
			return
		default:
			return
		}
	}
}

// azureConn is a parsed connection string.
type azureConn struct {
	serviceURL string // blob endpoint, ending in "/", without query
	shown      string // serviceURL as shown to the user
	account    string // with key: the account name
	key        string // with key: base64 account key
	sas        string // without key: the signature's query string
}

// client builds an SDK client whose every request goes through c's
// guarded transport.
func (a azureConn) client(c *Client) (*azblob.Client, error) {
	opts := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: c.HTTPClient(),
		Retry: policy.RetryOptions{
			MaxRetries:    azureMaxRetries,
			RetryDelay:    azureRetryDelay,
			MaxRetryDelay: azureMaxRetryDelay,
			ShouldRetry:   azureShouldRetry,
		},
		Telemetry:       policy.TelemetryOptions{ApplicationID: "vatic-import"},
		PerCallPolicies: []policy.Policy{identityEncoding{}},
	}}
	if a.key != "" {
		cred, err := azblob.NewSharedKeyCredential(a.account, a.key)
		if err != nil {
			return nil, azureConnError("AccountKey is not valid base64")
		}
		client, err := azblob.NewClientWithSharedKeyCredential(a.serviceURL, cred, opts)
		if err != nil {
			return nil, azureConnError("BlobEndpoint is not usable")
		}
		return client, nil
	}
	client, err := azblob.NewClientWithNoCredential(a.serviceURL+"?"+a.sas, opts)
	if err != nil {
		return nil, azureConnError("BlobEndpoint is not usable")
	}
	return client, nil
}

// azureShouldRetry retries what the SDK would (transport errors and the
// transient statuses), except a refused destination, which cannot change.
func azureShouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return !errors.Is(err, ErrForbiddenAddress)
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// identityEncoding asks for the blob as stored. Without an explicit
// Accept-Encoding, net/http would ask for gzip itself and then silently
// decompress a blob stored with Content-Encoding gzip, hiding the
// encoding and the size that Object reports.
type identityEncoding struct{}

func (identityEncoding) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Header.Get("Accept-Encoding") == "" {
		req.Raw().Header.Set("Accept-Encoding", "identity")
	}
	return req.Next()
}

func azureConnError(reason string) *Error {
	return &Error{Msg: "The Azure connection string is not valid: " + reason + "."}
}

// parseAzureConnectionString reads Name=value settings separated by ";".
// Names are case-insensitive and unknown names (QueueEndpoint, …) are
// ignored. Error messages name settings, never values.
func parseAzureConnectionString(s string) (azureConn, error) {
	if strings.TrimSpace(s) == "" {
		return azureConn{}, azureConnError("it is empty")
	}
	settings := map[string]string{}
	n := 0
	for part := range strings.SplitSeq(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue // "a=1;;b=2;" is common enough
		}
		n++
		raw, value, ok := strings.Cut(part, "=")
		raw = strings.TrimSpace(raw)
		if !ok || raw == "" {
			return azureConn{}, azureConnError(fmt.Sprintf("setting %d is not of the form Name=value", n))
		}
		name := strings.ToLower(raw)
		if _, dup := settings[name]; dup {
			return azureConn{}, azureConnError(fmt.Sprintf("setting %d (%s) appears twice", n, raw))
		}
		settings[name] = strings.TrimSpace(value)
	}
	if n == 0 {
		return azureConn{}, azureConnError("it is empty")
	}
	get := func(name string) (string, bool) {
		v, ok := settings[strings.ToLower(name)]
		return v, ok
	}

	if dev, ok := get("UseDevelopmentStorage"); ok {
		if !strings.EqualFold(dev, "true") {
			return azureConn{}, azureConnError("UseDevelopmentStorage must be true when given")
		}
		for name := range settings {
			if name != "usedevelopmentstorage" && name != "developmentstorageproxyuri" {
				return azureConn{}, azureConnError("UseDevelopmentStorage=true cannot be combined with other settings")
			}
		}
		scheme, host := "http", "127.0.0.1"
		if proxy, ok := get("DevelopmentStorageProxyUri"); ok {
			u, err := url.Parse(proxy)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
				return azureConn{}, azureConnError("DevelopmentStorageProxyUri must be an absolute http or https URL")
			}
			scheme, host = u.Scheme, u.Hostname()
		}
		endpoint := scheme + "://" + net.JoinHostPort(host, devStorePort) + "/" + devStoreAccount + "/"
		return azureConn{serviceURL: endpoint, shown: endpoint, account: devStoreAccount, key: devStoreKey}, nil
	}

	account, hasAccount := get("AccountName")
	if hasAccount && !validAccountName(account) {
		return azureConn{}, azureConnError("AccountName must be letters and digits")
	}
	var endpoint string
	if be, ok := get("BlobEndpoint"); ok {
		u, err := url.Parse(be)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return azureConn{}, azureConnError("BlobEndpoint must be an absolute http or https URL")
		case u.User != nil:
			return azureConn{}, azureConnError("BlobEndpoint must not contain a user name or password")
		case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
			return azureConn{}, azureConnError("BlobEndpoint must not contain a query; give the signature as SharedAccessSignature")
		}
		endpoint = strings.TrimRight(u.String(), "/") + "/"
	} else if hasAccount {
		scheme := "https"
		if p, ok := get("DefaultEndpointsProtocol"); ok {
			scheme = strings.ToLower(p)
			if scheme != "http" && scheme != "https" {
				return azureConn{}, azureConnError("DefaultEndpointsProtocol must be http or https")
			}
		}
		suffix := "core.windows.net"
		if sfx, ok := get("EndpointSuffix"); ok {
			if !validEndpointSuffix(sfx) {
				return azureConn{}, azureConnError("EndpointSuffix must be a host name such as core.windows.net")
			}
			suffix = sfx
		}
		endpoint = scheme + "://" + strings.ToLower(account) + ".blob." + suffix + "/"
	} else {
		return azureConn{}, azureConnError("it needs BlobEndpoint or AccountName")
	}

	conn := azureConn{serviceURL: endpoint, shown: engine.RedactURL(endpoint)}
	key, hasKey := get("AccountKey")
	sas, hasSAS := get("SharedAccessSignature")
	switch {
	case hasKey:
		if !hasAccount {
			return azureConn{}, azureConnError("AccountKey needs AccountName")
		}
		if key == "" {
			return azureConn{}, azureConnError("AccountKey is empty")
		}
		if _, err := base64.StdEncoding.DecodeString(key); err != nil {
			return azureConn{}, azureConnError("AccountKey is not valid base64")
		}
		conn.account, conn.key = account, key
	case hasSAS:
		sas = strings.TrimPrefix(sas, "?")
		q, err := url.ParseQuery(sas)
		if err != nil || q.Get("sig") == "" {
			return azureConn{}, azureConnError("SharedAccessSignature is not a signature (it has no sig parameter)")
		}
		conn.sas = sas
	default:
		return azureConn{}, azureConnError("it needs AccountKey or SharedAccessSignature")
	}
	return conn, nil
}

func validAccountName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// validEndpointSuffix accepts a DNS name, optionally with a port, so the
// suffix cannot smuggle a path, user info or another host into the URL.
func validEndpointSuffix(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if host == "" || (hasPort && port == "") || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return false
	}
	for _, r := range host {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
