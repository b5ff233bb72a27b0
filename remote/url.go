package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/vaticml/vatic/engine"
)

// URLRequest names a file on an HTTP(S) server.
type URLRequest struct {
	URL      string
	User     string // basic auth, optional
	Password string
}

// OpenURL starts downloading the file at req.URL. A status other than 2xx
// is an *Error naming it.
func (c *Client) OpenURL(ctx context.Context, req URLRequest) (*Object, error) {
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Msg: "the url must be an absolute http or https URL", Err: err}
	}
	shown := engine.RedactURL(req.URL)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Msg: "the url is not valid", Err: err}
	}
	if req.User != "" || req.Password != "" {
		hreq.SetBasicAuth(req.User, req.Password)
	}
	hreq.Header.Set("Accept", "text/csv, application/json;q=0.9, */*;q=0.5")
	hreq.Header.Set("User-Agent", "Vatic-Import/1")
	resp, err := c.HTTPClient().Do(hreq)
	if err != nil {
		if strings.Contains(err.Error(), "redirects") {
			return nil, &Error{Msg: fmt.Sprintf("%s redirected more than %d times", shown, c.opts.MaxRedirects), Err: err}
		}
		return nil, connectError(shown, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		return nil, &Error{Msg: fmt.Sprintf("The remote file could not be read: %s answered %d (%s).", shown, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	return &Object{
		Body:            c.idle(resp.Body, shown),
		Name:            path.Base(resp.Request.URL.Path),
		ContentType:     resp.Header.Get("Content-Type"),
		ContentEncoding: resp.Header.Get("Content-Encoding"),
		Size:            resp.ContentLength,
	}, nil
}
