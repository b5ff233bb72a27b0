package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Client drives the Nexosis API v1 of one server. It is safe for
// concurrent use.
type Client struct {
	// BaseURL is the API base, ending in the version segment
	// (http://127.0.0.1:8080/v1).
	BaseURL string
	// APIKey is sent in the api-key header of every request.
	APIKey string
	// HTTP is the client used; nil means [NewHTTPClient].
	HTTP *http.Client
}

// NewHTTPClient returns an HTTP client without timeouts (requests are bounded
// by their context) and without transparent response compression, so that
// what is measured is what the server sends.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.Proxy = nil
	return &http.Client{Transport: t}
}

// HTTPError is a response with an unexpected status.
type HTTPError struct {
	Method, URL string
	Status      int
	Body        string // the start of the response body
	// RetryAfter is the Retry-After header in seconds (0 when absent).
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("bench: %s %s: status %d: %s", e.Method, e.URL, e.Status, strings.TrimSpace(e.Body))
}

// maxErrorBody bounds how much of an unexpected response is kept.
const maxErrorBody = 4 << 10

// PutResult is what the server answered to an import.
type PutResult struct {
	// RowCount is the rowCount field of the answer, or -1 when absent.
	RowCount int64
	// Body is the start of the JSON answer.
	Body []byte
}

// PutCSV uploads the file at path as the rows of dataset name
// (PUT /data/{name}, Content-Type: text/csv) and waits for the answer.
// The file is streamed as the body with a known length, never read whole.
// With gzip set the file must already be gzip-compressed and is sent with
// Content-Encoding: gzip. Any 2xx answer is a success.
func (c *Client) PutCSV(ctx context.Context, name, path string, gzip bool) (PutResult, error) {
	return c.PutFile(ctx, name, path, MediaCSV, gzip)
}

// PutFile is [Client.PutCSV] for a file of any media type the server
// reads (text/csv, application/json, Arrow IPC, Parquet), sent as the
// Content-Type.
func (c *Client) PutFile(ctx context.Context, name, path, contentType string, gzip bool) (PutResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return PutResult{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return PutResult{}, err
	}
	req, err := c.newRequest(ctx, http.MethodPut, c.dataURL(name), f)
	if err != nil {
		return PutResult{}, err
	}
	req.ContentLength = st.Size()
	req.Header.Set("Content-Type", contentType)
	if gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.do(req)
	if err != nil {
		return PutResult{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return PutResult{}, fmt.Errorf("bench: read answer to PUT %s: %w", name, err)
	}
	res := PutResult{RowCount: -1, Body: body}
	var summary struct {
		RowCount *int64 `json:"rowCount"`
	}
	if json.Unmarshal(body, &summary) == nil && summary.RowCount != nil {
		res.RowCount = *summary.RowCount
	}
	return res, nil
}

// GetStats reads the statistics of every column of dataset name
// (GET /data/{name}/stats) and returns the stats object of each column.
func (c *Client) GetStats(ctx context.Context, name string) (map[string]json.RawMessage, error) {
	var body struct {
		Columns map[string]json.RawMessage `json:"columns"`
	}
	if err := c.getJSON(ctx, c.dataURL(name)+"/stats", "stats of "+name, &body); err != nil {
		return nil, err
	}
	if len(body.Columns) == 0 {
		return nil, fmt.Errorf("bench: stats of %s: no columns", name)
	}
	return body.Columns, nil
}

// GetAllCSV reads every row of dataset name as CSV (GET /data/{name} with
// Accept: text/csv and no paging parameters), counting lines as they
// stream in. It returns the number of data rows (lines after the header)
// and of body bytes.
func (c *Client) GetAllCSV(ctx context.Context, name string) (rows, n int64, err error) {
	rows, n, _, err = c.getCSV(ctx, c.dataURL(name), name)
	return rows, n, err
}

// GetViewCSV reads every row of view name as CSV (GET /views/{name} with
// Accept: text/csv and no paging parameters), as GetAllCSV does, and also
// returns the header line.
func (c *Client) GetViewCSV(ctx context.Context, name string) (rows, n int64, header string, err error) {
	return c.getCSV(ctx, c.viewURL(name), name)
}

func (c *Client) getCSV(ctx context.Context, u, name string) (rows, n int64, header string, err error) {
	req, err := c.newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, "", err
	}
	req.Header.Set("Accept", "text/csv")
	resp, err := c.do(req)
	if err != nil {
		return 0, 0, "", err
	}
	defer resp.Body.Close()
	if err := checkMediaType(resp, "GET "+name, MediaCSV); err != nil {
		return 0, 0, "", err
	}
	hr := &headerReader{r: resp.Body}
	lines, n, err := CountLines(hr)
	if err != nil {
		return 0, n, "", fmt.Errorf("bench: read CSV of %s after %d bytes: %w", name, n, err)
	}
	return max(lines-1, 0), n, hr.header(), nil
}

// headerReader passes r through and keeps the start of what it read, up to
// the first newline (at most 64 kB).
type headerReader struct {
	r     io.Reader
	first []byte
	done  bool
}

func (h *headerReader) Read(p []byte) (int, error) {
	k, err := h.r.Read(p)
	if !h.done && k > 0 {
		if i := bytes.IndexByte(p[:k], '\n'); i >= 0 {
			h.first = append(h.first, p[:i]...)
			h.done = true
		} else {
			h.first = append(h.first, p[:k]...)
			h.done = len(h.first) >= 64<<10
		}
	}
	return k, err
}

func (h *headerReader) header() string {
	return strings.TrimSuffix(string(h.first), "\r")
}

// PutJSON sends body, encoded as JSON, with PUT to path under BaseURL
// (/data/stores, /views/v) and returns the start of the answer.
func (c *Client) PutJSON(ctx context.Context, path string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := c.newRequest(ctx, http.MethodPut, strings.TrimRight(c.BaseURL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}

// Delete removes dataset name (DELETE /data/{name}).
func (c *Client) Delete(ctx context.Context, name string) error {
	req, err := c.newRequest(ctx, http.MethodDelete, c.dataURL(name), nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (c *Client) dataURL(name string) string {
	return strings.TrimRight(c.BaseURL, "/") + "/data/" + url.PathEscape(name)
}

func (c *Client) viewURL(name string) string {
	return strings.TrimRight(c.BaseURL, "/") + "/views/" + url.PathEscape(name)
}

// getJSON GETs u and decodes its JSON answer into v; what names the
// answer in a decoding error.
func (c *Client) getJSON(ctx context.Context, u, what string, v any) error {
	req, err := c.newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("bench: decode %s: %w", what, err)
	}
	return nil
}

func (c *Client) newRequest(ctx context.Context, method, u string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("api-key", c.APIKey)
	req.Header.Set("User-Agent", "vatic-bench/1")
	return req, nil
}

// do sends req and turns a non-2xx answer into an *HTTPError.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return nil, &HTTPError{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, Body: string(b),
			RetryAfter: time.Duration(retry) * time.Second}
	}
	return resp, nil
}

var defaultHTTP = NewHTTPClient()

// CountLines reads r to the end and returns the number of lines (a last
// line without a newline counts) and of bytes read. CSV rows of the
// benchmark table hold no quoted newlines, so lines are rows.
func CountLines(r io.Reader) (lines, n int64, err error) {
	buf := make([]byte, 256<<10)
	var last byte
	for {
		k, err := r.Read(buf)
		if k > 0 {
			lines += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return lines, n, err
		}
	}
	if n > 0 && last != '\n' {
		lines++
	}
	return lines, n, nil
}

// ImportURL posts POST /imports/url for dataset name and waits until the
// import ends; a failed import is an error with its messages. It reports
// the time from the request to the first answer that shows the import
// completed (polled every 50 ms: each poll is a request the server serves
// while importing, so polling harder would slow what it measures), and the
// dataset's rowCount read afterwards.
func (c *Client) ImportURL(ctx context.Context, name, fileURL string) (time.Duration, PutResult, error) {
	start := time.Now()
	body, _ := json.Marshal(map[string]string{"dataSetName": name, "url": fileURL})
	req, err := c.newRequest(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+"/imports/url", bytes.NewReader(body))
	if err != nil {
		return 0, PutResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return 0, PutResult{}, err
	}
	var imp struct {
		ImportID string `json:"importId"`
		Status   string `json:"status"`
		Messages []struct {
			Message string `json:"message"`
		} `json:"messages"`
	}
	err = json.NewDecoder(resp.Body).Decode(&imp)
	resp.Body.Close()
	if err != nil {
		return 0, PutResult{}, fmt.Errorf("bench: import answer: %w", err)
	}
	for imp.Status == "requested" || imp.Status == "started" {
		select {
		case <-ctx.Done():
			return 0, PutResult{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		req, err := c.newRequest(ctx, http.MethodGet, strings.TrimSuffix(c.BaseURL, "/")+"/imports/"+imp.ImportID, nil)
		if err != nil {
			return 0, PutResult{}, err
		}
		resp, err := c.do(req)
		if err != nil {
			return 0, PutResult{}, err
		}
		err = json.NewDecoder(resp.Body).Decode(&imp)
		resp.Body.Close()
		if err != nil {
			return 0, PutResult{}, fmt.Errorf("bench: import status: %w", err)
		}
	}
	elapsed := time.Since(start)
	if imp.Status != "completed" {
		return 0, PutResult{}, fmt.Errorf("bench: import %s ended %s: %+v", imp.ImportID, imp.Status, imp.Messages)
	}
	req, err = c.newRequest(ctx, http.MethodGet, c.dataURL(name)+"?pageSize=1", nil)
	if err != nil {
		return 0, PutResult{}, err
	}
	resp, err = c.do(req)
	if err != nil {
		return 0, PutResult{}, err
	}
	defer resp.Body.Close()
	var d struct {
		RowCount *int64 `json:"rowCount"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	out := PutResult{RowCount: -1, Body: b}
	if json.Unmarshal(b, &d) == nil && d.RowCount != nil {
		out.RowCount = *d.RowCount
	}
	return elapsed, out, nil
}

// Session is the part of a session object (GET /sessions/{id}) the
// harness reads.
type Session struct {
	SessionID     string         `json:"sessionId"`
	Status        string         `json:"status"`
	ModelID       string         `json:"modelId"`
	StatusHistory []StatusChange `json:"statusHistory"`
	Algorithm     *struct {
		Key  string `json:"key"`
		Name string `json:"name"`
	} `json:"algorithm"`
	Messages []struct {
		Severity string `json:"severity"`
		Message  string `json:"message"`
	} `json:"messages"`
}

// StatusChange is one entry of a session's statusHistory.
type StatusChange struct {
	Date   string `json:"date"`
	Status string `json:"status"`
}

// AlgorithmKey returns the key of the session's champion, or "".
func (s Session) AlgorithmKey() string {
	if s.Algorithm == nil {
		return ""
	}
	return s.Algorithm.Key
}

// ContestTime returns the time from the session's (last) started entry to
// its completed entry in statusHistory: the server's own account of how
// long the contest took, without queueing or polling.
func (s Session) ContestTime() (time.Duration, error) {
	var started, completed time.Time
	for _, h := range s.StatusHistory {
		if h.Status != "started" && h.Status != "completed" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, h.Date)
		if err != nil {
			return 0, fmt.Errorf("bench: session %s: statusHistory date %q: %w", s.SessionID, h.Date, err)
		}
		if h.Status == "started" {
			started = t
		} else {
			completed = t
		}
	}
	if started.IsZero() || completed.IsZero() {
		return 0, fmt.Errorf("bench: session %s: statusHistory %+v lacks started or completed", s.SessionID, s.StatusHistory)
	}
	return completed.Sub(started), nil
}

// ColumnMetadata is one column's entry in a request's column metadata
// (REFERENCE §2.1); empty fields are left out.
type ColumnMetadata struct {
	DataType string `json:"dataType,omitempty"`
	Role     string `json:"role,omitempty"`
}

// CreateModelSession starts a model session (POST /sessions/model) on data
// source name with the given target column and prediction domain
// (regression, classification, anomalies) and returns the answer.
func (c *Client) CreateModelSession(ctx context.Context, name, target, domain string) (Session, error) {
	return c.CreateModelSessionColumns(ctx, name, target, domain, nil)
}

// CreateModelSessionColumns is [Client.CreateModelSession] with column
// metadata for the session (nil: none), which overrides the data source's
// for that session only (REFERENCE §2.1 rule 8): a column's dataType text,
// for one, where inference would say string.
func (c *Client) CreateModelSessionColumns(ctx context.Context, name, target, domain string, columns map[string]ColumnMetadata) (Session, error) {
	body, _ := json.Marshal(struct {
		DataSourceName   string                    `json:"dataSourceName"`
		TargetColumn     string                    `json:"targetColumn"`
		PredictionDomain string                    `json:"predictionDomain"`
		Columns          map[string]ColumnMetadata `json:"columns,omitempty"`
	}{name, target, domain, columns})
	req, err := c.newRequest(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/sessions/model", bytes.NewReader(body))
	if err != nil {
		return Session{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.session(req)
}

// GetSession reads session id (GET /sessions/{id}).
func (c *Client) GetSession(ctx context.Context, id string) (Session, error) {
	req, err := c.newRequest(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+"/sessions/"+url.PathEscape(id), nil)
	if err != nil {
		return Session{}, err
	}
	return c.session(req)
}

func (c *Client) session(req *http.Request) (Session, error) {
	resp, err := c.do(req)
	if err != nil {
		return Session{}, err
	}
	defer resp.Body.Close()
	var s Session
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return Session{}, fmt.Errorf("bench: decode answer to %s %s: %w", req.Method, req.URL.Path, err)
	}
	return s, nil
}

// WaitSession polls session id every interval until it leaves requested,
// started and cancellationPending, and returns it. A session that ends
// other than completed is an error naming its messages.
func (c *Client) WaitSession(ctx context.Context, id string, every time.Duration) (Session, error) {
	for {
		s, err := c.GetSession(ctx, id)
		if err != nil {
			return Session{}, err
		}
		switch s.Status {
		case "requested", "started", "cancellationPending":
		case "completed":
			return s, nil
		default:
			var msgs []string
			for _, m := range s.Messages {
				msgs = append(msgs, m.Severity+": "+m.Message)
			}
			return s, fmt.Errorf("bench: session %s ended %s: %s", id, s.Status, strings.Join(msgs, "; "))
		}
		select {
		case <-ctx.Done():
			return Session{}, ctx.Err()
		case <-time.After(every):
		}
	}
}

// Predict posts body to POST /models/{id}/predict with the given
// Content-Type and Accept and returns the whole answer, read into memory
// (so that timing the call times the transfer, not the caller's parsing).
func (c *Client) Predict(ctx context.Context, modelID string, body []byte, contentType, accept string) ([]byte, error) {
	resp, err := c.PredictStream(ctx, modelID, bytes.NewReader(body), int64(len(body)), contentType, accept)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("bench: read answer to predict with model %s: %w", modelID, err)
	}
	return b, nil
}

// PredictStream posts size bytes of body to POST /models/{id}/predict and
// returns the answer unread, once its Content-Type is known to be accept;
// the caller closes its body. It is [Client.Predict] for bodies too large
// to hold, or to read, in memory.
func (c *Client) PredictStream(ctx context.Context, modelID string, body io.Reader, size int64, contentType, accept string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/models/"+url.PathEscape(modelID)+"/predict", body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", accept)
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	if err := checkMediaType(resp, "predict with model "+modelID, accept); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// MediaTypeError is an answer in another media type than the one asked
// for with Accept: a server that does not produce that format.
type MediaTypeError struct {
	What      string // the request: "GET name", "predict with model id"
	Got, Want string // Content-Type received, media type wanted
}

func (e *MediaTypeError) Error() string {
	return fmt.Sprintf("bench: %s: Content-Type %q, want %s", e.What, e.Got, e.Want)
}

// checkMediaType returns a *MediaTypeError unless resp's Content-Type is
// want (parameters aside).
func checkMediaType(resp *http.Response, what, want string) error {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != want {
		return &MediaTypeError{What: what, Got: resp.Header.Get("Content-Type"), Want: want}
	}
	return nil
}

// DeleteCascade removes dataset name with DELETE /data/{name}?cascade=…,
// one cascade parameter per value (session, model, view, vocabulary).
func (c *Client) DeleteCascade(ctx context.Context, name string, cascade ...string) error {
	q := url.Values{"cascade": cascade}
	req, err := c.newRequest(ctx, http.MethodDelete, c.dataURL(name)+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
