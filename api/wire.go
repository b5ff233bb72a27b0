package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// link is one entry of a links array (REFERENCE §1.7).
type link struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

// message is one entry of a messages array (REFERENCE §1.11).
type message struct {
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// columnsJSON renders column metadata as an object in column order, with
// the defaults of REFERENCE §2.1 filled in: imputation and aggregation for
// non-date columns, role omitted when none is assigned.
type columnsJSON []columnar.Column

type columnJSON struct {
	DataType    columnar.DataType    `json:"dataType"`
	Role        columnar.Role        `json:"role,omitempty"`
	Imputation  columnar.Imputation  `json:"imputation,omitempty"`
	Aggregation columnar.Aggregation `json:"aggregation,omitempty"`
}

func (cs columnsJSON) MarshalJSON() ([]byte, error) {
	o := &orderedObject{}
	for _, c := range cs {
		out := columnJSON{DataType: c.DataType, Role: c.Role, Imputation: c.Imputation, Aggregation: c.Aggregation}
		if out.DataType == "" {
			out.DataType = columnar.String
		}
		imp, agg := columnar.Defaults(out.DataType)
		if out.Imputation == "" {
			out.Imputation = imp
		}
		if out.Aggregation == "" {
			out.Aggregation = agg
		}
		o.set(c.Name, out)
	}
	return o.MarshalJSON()
}

// datasetJSON is a dataset summary (REFERENCE §2.4).
type datasetJSON struct {
	DataSetName   string      `json:"dataSetName"`
	DataSetSize   int64       `json:"dataSetSize"`
	DateCreated   string      `json:"dateCreated"`
	LastModified  string      `json:"lastModified"`
	RowCount      int64       `json:"rowCount"`
	ColumnCount   int         `json:"columnCount"`
	IsTimeSeries  bool        `json:"isTimeSeries"`
	Columns       columnsJSON `json:"columns"`
	MissingValues []string    `json:"missingValues,omitempty"`
	Messages      []message   `json:"messages"`
	Links         []link      `json:"links"`
}

func toDatasetJSON(d engine.Dataset, links []link) datasetJSON {
	return datasetJSON{
		DataSetName:   d.Name,
		DataSetSize:   d.Size,
		DateCreated:   formatEventTime(d.Created),
		LastModified:  formatEventTime(d.Modified),
		RowCount:      d.RowCount,
		ColumnCount:   len(d.Columns),
		IsTimeSeries:  d.IsTimeSeries(),
		Columns:       d.Columns,
		MissingValues: d.MissingValues,
		Messages:      []message{},
		Links:         links,
	}
}

// page is the paging envelope (REFERENCE §1.5).
type page struct {
	PageNumber int    `json:"pageNumber"`
	TotalPages int    `json:"totalPages"`
	PageSize   int    `json:"pageSize"`
	TotalCount int64  `json:"totalCount"`
	Links      []link `json:"links"`
}

// newPage computes the envelope and its self/first/prev/next/last links;
// the links repeat the request's query with page and pageSize replaced.
func newPage(r *http.Request, number, size int, total int64) page {
	p := page{PageNumber: number, PageSize: size, TotalCount: total}
	if size > 0 {
		p.TotalPages = int((total + int64(size) - 1) / int64(size))
	}
	p.Links = []link{{"self", pageHref(r, number, size)}}
	if p.TotalPages == 0 {
		return p
	}
	p.Links = append(p.Links, link{"first", pageHref(r, 0, size)})
	if number > 0 {
		p.Links = append(p.Links, link{"prev", pageHref(r, min(number-1, p.TotalPages-1), size)})
	}
	if number+1 < p.TotalPages {
		p.Links = append(p.Links, link{"next", pageHref(r, number+1, size)})
	}
	p.Links = append(p.Links, link{"last", pageHref(r, p.TotalPages-1, size)})
	return p
}

func pageHref(r *http.Request, number, size int) string {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		if !strings.EqualFold(k, "page") && !strings.EqualFold(k, "pageSize") {
			q[k] = vs
		}
	}
	q.Set("page", strconv.Itoa(number))
	q.Set("pageSize", strconv.Itoa(size))
	// The escaped path: resource names may hold spaces and other
	// characters that an href must carry escaped.
	return baseURL(r) + strings.TrimPrefix(r.URL.EscapedPath(), "/v1") + "?" + q.Encode()
}

// baseURL is the public base address of the API (…/v1) as the caller
// reached it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
		scheme = p
	}
	host := r.Host
	if h := r.Header.Get("X-Forwarded-Host"); h != "" {
		host = h
	}
	return scheme + "://" + host + "/v1"
}

// pathEscape escapes a resource name for an href.
func pathEscape(name string) string { return url.PathEscape(name) }

// writeJSON writes v as the response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := jsonMarshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// queryEscape escapes a value for an href's query string.
func queryEscape(s string) string { return url.QueryEscape(s) }

// jsonMarshal is json.Marshal without HTML escaping.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
