package remote

// This file adapts the clients to the engine: Fetcher implements
// engine.Fetcher with a Client, turning the engine's import specs into
// requests and the clients' user-safe errors into engine errors whose
// message the import shows.

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaticml/vatic/engine"
)

// Fetcher opens import sources through a Client.
type Fetcher struct{ c *Client }

// NewFetcher returns a Fetcher on c.
func NewFetcher(c *Client) *Fetcher { return &Fetcher{c: c} }

var _ engine.Fetcher = (*Fetcher)(nil)

// Fetch opens the file spec names.
func (f *Fetcher) Fetch(ctx context.Context, spec engine.ImportSpec) (*engine.RemoteObject, error) {
	var obj *Object
	var err error
	switch spec.Kind {
	case engine.ImportURL:
		obj, err = f.c.OpenURL(ctx, URLRequest{URL: spec.URL, User: spec.Secrets.User, Password: spec.Secrets.Password})
	case engine.ImportObjectStore:
		obj, err = f.c.OpenS3(ctx, S3Request{Bucket: spec.Bucket, Path: spec.Path, Region: spec.Region,
			AccessKeyID: spec.Secrets.AccessKeyID, SecretAccessKey: spec.Secrets.SecretAccessKey})
	case engine.ImportBlobStore:
		obj, err = f.c.OpenAzure(ctx, AzureRequest{ConnectionString: spec.Secrets.ConnectionString,
			Container: spec.Container, Blob: spec.Blob})
	default:
		return nil, fmt.Errorf("fetch: unknown import kind %q", spec.Kind)
	}
	if err != nil {
		var re *Error
		if errors.As(err, &re) {
			return nil, &engine.Error{Kind: engine.Invalid, Msg: re.Msg, Err: err}
		}
		return nil, err
	}
	return &engine.RemoteObject{Body: obj.Body, Name: obj.Name, ContentType: obj.ContentType, ContentEncoding: obj.ContentEncoding}, nil
}
