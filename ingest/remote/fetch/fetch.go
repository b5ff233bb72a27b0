// Package fetch adapts remote to the engine: it implements engine.Fetcher
// with a remote.Client, turning the engine's import specs into remote
// requests and remote's user-safe errors into engine errors whose message
// the import shows. It is the only package that knows both.
package fetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/ingest/remote"
)

// Fetcher opens import sources through a remote.Client.
type Fetcher struct{ c *remote.Client }

// New returns a Fetcher on c.
func New(c *remote.Client) *Fetcher { return &Fetcher{c: c} }

var _ engine.Fetcher = (*Fetcher)(nil)

// Fetch opens the file spec names.
func (f *Fetcher) Fetch(ctx context.Context, spec engine.ImportSpec) (*engine.RemoteObject, error) {
	var obj *remote.Object
	var err error
	switch spec.Kind {
	case engine.ImportURL:
		obj, err = f.c.OpenURL(ctx, remote.URLRequest{URL: spec.URL, User: spec.Secrets.User, Password: spec.Secrets.Password})
	case engine.ImportObjectStore:
		obj, err = f.c.OpenS3(ctx, remote.S3Request{Bucket: spec.Bucket, Path: spec.Path, Region: spec.Region,
			AccessKeyID: spec.Secrets.AccessKeyID, SecretAccessKey: spec.Secrets.SecretAccessKey})
	case engine.ImportBlobStore:
		obj, err = f.c.OpenAzure(ctx, remote.AzureRequest{ConnectionString: spec.Secrets.ConnectionString,
			Container: spec.Container, Blob: spec.Blob})
	default:
		return nil, fmt.Errorf("fetch: unknown import kind %q", spec.Kind)
	}
	if err != nil {
		var re *remote.Error
		if errors.As(err, &re) {
			return nil, &engine.Error{Kind: engine.Invalid, Msg: re.Msg, Err: err}
		}
		return nil, err
	}
	return &engine.RemoteObject{Body: obj.Body, Name: obj.Name, ContentType: obj.ContentType, ContentEncoding: obj.ContentEncoding}, nil
}
