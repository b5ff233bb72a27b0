package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Request names an object in an S3 bucket (REFERENCE §5.1).
type S3Request struct {
	Bucket string
	// Path is the object key, used exactly as given: it may contain "/"
	// and spaces, and a leading "/" is part of the key.
	Path string
	// Region is the bucket's AWS region; "" means us-east-1.
	Region string
	// AccessKeyID and SecretAccessKey sign the request; both empty means
	// an anonymous request (public buckets). They are never shown.
	AccessKeyID     string
	SecretAccessKey string
}

// defaultS3Region is the region used when a request names none.
const defaultS3Region = "us-east-1"

// awsS3Endpoint is the endpoint used when Options.S3Endpoint is empty;
// minio-go swaps it for the regional endpoint of S3Request.Region.
const awsS3Endpoint = "s3.amazonaws.com"

// regionRE accepts AWS-style region names (us-east-1, us-gov-west-1,
// cn-north-1) and the short names S3-compatible stores use; it keeps user
// input out of host names.
var regionRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// codeRE matches an S3 error code (NoSuchKey, XMinioInvalidObjectName).
var codeRE = regexp.MustCompile(`^[A-Za-z0-9.]{1,64}$`)

// OpenS3 starts downloading an object from S3, or from the S3-compatible
// store at Options.S3Endpoint. Credentials are the request's static keys or
// none: the server's own AWS identity (environment, shared config,
// instance role) is never used, so a user cannot read what only the server
// may read. The request is made once, without retries, through the guarded
// transport; a missing bucket or key, a refused access or an unreachable
// endpoint fails here, as an *Error, rather than while reading Body.
func (c *Client) OpenS3(ctx context.Context, req S3Request) (*Object, error) {
	switch {
	case req.Bucket == "":
		return nil, &Error{Msg: "the S3 bucket is required"}
	case req.Path == "":
		return nil, &Error{Msg: "the S3 path (object key) is required"}
	case (req.AccessKeyID == "") != (req.SecretAccessKey == ""):
		return nil, &Error{Msg: "accessKeyId and secretAccessKey must be given together"}
	}
	region := req.Region
	if region == "" {
		region = defaultS3Region
	}
	if !regionRE.MatchString(region) {
		return nil, &Error{Msg: fmt.Sprintf("the S3 region %q is not valid (for example us-east-1)", region)}
	}
	shown := "s3://" + req.Bucket + "/" + req.Path

	endpoint, secure, lookup, err := s3Endpoint(c.opts.S3Endpoint)
	if err != nil {
		// The endpoint is server configuration, not user input: say so.
		return nil, &Error{Msg: "the server's S3 endpoint setting is not valid", Err: err}
	}
	what := shown
	if c.opts.S3Endpoint != "" {
		what = shown + " at " + endpoint
	}

	creds := credentials.NewStaticV4(req.AccessKeyID, req.SecretAccessKey, "")
	core, err := minio.NewCore(endpoint, &minio.Options{
		Creds:        creds,
		Secure:       secure,
		Transport:    c.Transport(),
		Region:       region,
		BucketLookup: lookup,
		// One attempt: retries would multiply ConnectTimeout, and a
		// refused or missing object does not get better by asking again.
		MaxRetries: 1,
	})
	if err != nil {
		return nil, &Error{Msg: "the server's S3 endpoint setting is not valid", Err: err}
	}

	var opts minio.GetObjectOptions
	// Ask for the stored bytes: without this, net/http would request gzip
	// and silently decompress a gzip-encoded object, dropping its
	// Content-Encoding; decoding is ingest's job.
	opts.Set("Accept-Encoding", "identity")
	body, info, header, err := core.GetObject(ctx, req.Bucket, req.Path, opts)
	if err != nil {
		return nil, s3Error(shown, what, req.Bucket, err)
	}
	return &Object{
		Body:            c.idle(body, shown),
		Name:            path.Base(req.Path),
		ContentType:     header.Get("Content-Type"),
		ContentEncoding: header.Get("Content-Encoding"),
		Size:            info.Size, // -1 without Content-Length
	}, nil
}

// s3Endpoint parses Options.S3Endpoint: "" is AWS (virtual-host style,
// regional endpoint); otherwise host[:port] (HTTPS) or an http(s) URL
// without a path, addressed path-style as S3-compatible stores expect.
func s3Endpoint(raw string) (host string, secure bool, lookup minio.BucketLookupType, err error) {
	if raw == "" {
		return awsS3Endpoint, true, minio.BucketLookupAuto, nil
	}
	u := &url.URL{Scheme: "https", Host: raw}
	if strings.Contains(raw, "://") {
		u, err = url.Parse(raw)
		if err != nil {
			return "", false, 0, err
		}
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, 0, fmt.Errorf("S3 endpoint %q: scheme must be http or https", raw)
	case u.Host == "" || strings.ContainsAny(u.Host, "/?#@"):
		return "", false, 0, fmt.Errorf("S3 endpoint %q: want host[:port] or http(s)://host[:port]", raw)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", false, 0, fmt.Errorf("S3 endpoint %q: only a scheme, host and port are allowed", raw)
	}
	return u.Host, u.Scheme == "https", minio.BucketLookupPath, nil
}

// s3Error turns a minio-go failure into an *Error. shown names the object
// (s3://bucket/key), what adds the endpoint for connection failures. S3's
// own messages are not passed on: they are not ours to vouch for.
func s3Error(shown, what, bucket string, err error) *Error {
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) || (resp.Code == "" && resp.StatusCode == 0) {
		return connectError(what, err)
	}
	switch resp.Code {
	case minio.NoSuchBucket, minio.NoSuchKey, "NotFound":
		return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s was not found (404).", shown), Err: err}
	case minio.AccessDenied, "InvalidAccessKeyId", "SignatureDoesNotMatch", "AllAccessDisabled", "AccountProblem":
		return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s: access denied (403); check accessKeyId and secretAccessKey.", shown), Err: err}
	case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
		msg := fmt.Sprintf("The remote file could not be read: bucket %s is in another region; set region", bucket)
		if resp.Region != "" && regionRE.MatchString(resp.Region) {
			msg += " to " + resp.Region
		}
		return &Error{Msg: msg + ".", Err: err}
	case minio.InvalidBucketName:
		return &Error{Msg: fmt.Sprintf("The S3 bucket name %q is not valid.", bucket), Err: err}
	case minio.XMinioInvalidObjectName:
		return &Error{Msg: "The S3 path (object key) is not valid.", Err: err}
	}
	status := resp.StatusCode
	switch status {
	case http.StatusNotFound:
		return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s was not found (404).", shown), Err: err}
	case http.StatusForbidden, http.StatusUnauthorized:
		return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s: access denied (%d); check accessKeyId and secretAccessKey.", shown, status), Err: err}
	case 0:
		code := "error"
		if codeRE.MatchString(resp.Code) { // the store's text: show only a plain code
			code = resp.Code
		}
		return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s failed (%s).", shown, code), Err: err}
	}
	return &Error{Msg: fmt.Sprintf("The remote file could not be read: %s answered %d (%s).", shown, status, http.StatusText(status)), Err: err}
}
