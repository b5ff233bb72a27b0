package api

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.engine.Ping(r.Context()); err != nil {
		return &engine.Error{Kind: engine.Unavailable, Msg: "The database is not available", Err: err}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err := io.WriteString(w, "ok\n")
	return err
}

// listDatasets answers GET /data (REFERENCE §3.1).
func (s *Server) listDatasets(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	partial := q.get("partialName")
	if !utf8.ValidString(partial) || strings.ContainsRune(partial, 0) {
		return engine.Validation("partialName", "Value for partialName must be valid text")
	}
	items, total, err := s.engine.ListDatasets(r.Context(), engine.ListQuery{
		PartialName: partial, SortBy: q.get("sortBy"), Desc: desc, Page: pg, PageSize: size,
	})
	if err != nil {
		return err
	}
	out := make([]datasetJSON, 0, len(items))
	for _, d := range items {
		out = append(out, toDatasetJSON(d, []link{{"data", baseURL(r) + "/data/" + pathEscape(d.Name)}}))
	}
	return writeList(w, r, pg, size, total, out)
}

// putDataset answers PUT /data/{name} (REFERENCE §3.2) with JSON, CSV, an
// Arrow IPC stream or Parquet, optionally gzip- or zstd-encoded, streamed
// into the engine.
func (s *Server) putDataset(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	name := p.ByName("name")
	req := engine.PutRequest{
		Name:            name,
		Body:            http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes),
		ContentEncoding: r.Header.Get("Content-Encoding"),
		TimestampColumn: params(r.URL.Query()).get("timestampColumn"),
		Format:          engine.FormatHints{ContentType: r.Header.Get("Content-Type")},
	}
	// A content type that names none of the formats is refused before
	// anything else; the engine decides the format.
	if err := engine.CheckFormat(req.Format); err != nil {
		return err
	}
	d, _, err := s.engine.PutDataset(r.Context(), req)
	if err != nil {
		return err
	}
	href := baseURL(r) + "/data/" + pathEscape(d.Name)
	w.Header().Set("Location", href)
	return writeJSON(w, http.StatusCreated, toDatasetJSON(d, []link{{"self", href}}))
}

// getDataset answers GET /data/{name} (REFERENCE §3.3): a page of rows as
// JSON, or, by Accept, as CSV, an Arrow IPC stream or a Parquet file,
// which hold every row unless page or pageSize is given (readRowsParams).
func (s *Server) getDataset(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	name := p.ByName("name")
	return s.cachedPage(w, r, name, func(w http.ResponseWriter, r *http.Request) error { return s.renderDataset(w, r, name) })
}

// renderDataset renders the answer of getDataset.
func (s *Server) renderDataset(w http.ResponseWriter, r *http.Request, name string) error {
	rp, err := readRowsParams(r)
	if err != nil {
		return err
	}
	formatDates, err := params(r.URL.Query()).boolean("formatDates")
	if err != nil {
		return err
	}
	rows, err := s.engine.ReadRows(r.Context(), name, rp.query)
	if err != nil {
		return err
	}
	defer rows.Release()
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	tf := timeFormat(appendStoredTime)
	if formatDates {
		tf = appendRowTime
	}
	d := rows.Dataset
	base := baseURL(r)
	self := base + "/data/" + pathEscape(d.Name)
	enc := queryEscape(d.Name)
	pgEnv := newPage(r, rp.page, rp.size, rows.Total)
	links := []link{pgEnv.Links[0],
		{"sessions", base + "/sessions?dataSourceName=" + enc},
		{"imports", base + "/imports?dataSetName=" + enc},
		{"views", base + "/views?dataSetName=" + enc},
		{"models", base + "/models?dataSourceName=" + enc},
		{"vocabularies", base + "/vocabulary?dataSource=" + enc},
		{"stats", self + "/stats"},
	}
	pgEnv.Links = append(links, pgEnv.Links[1:]...)
	head := toDatasetJSON(d, nil)
	var b bytes.Buffer
	b.WriteString(`{"dataSetName":`)
	b.Write(appendJSONString(nil, d.Name))
	b.WriteString(`,"dataSetSize":` + strconv.FormatInt(d.Size, 10))
	b.WriteString(`,"isTimeSeries":` + strconv.FormatBool(head.IsTimeSeries))
	b.WriteString(`,"dateCreated":"` + head.DateCreated + `","lastModified":"` + head.LastModified + `"`)
	b.WriteString(`,"rowCount":` + strconv.FormatInt(d.RowCount, 10))
	b.WriteString(`,"columnCount":` + strconv.Itoa(head.ColumnCount))
	cols, err := head.Columns.MarshalJSON()
	if err != nil {
		return err
	}
	b.WriteString(`,"columns":`)
	b.Write(cols)
	if len(d.MissingValues) > 0 {
		mv, _ := jsonMarshal(d.MissingValues)
		b.WriteString(`,"missingValues":`)
		b.Write(mv)
	}
	b.WriteString(`,"messages":[]`)
	return s.writeRowsBody(w, r, rows, rp.format, tf, b.Bytes(), pgEnv)
}

// streamError logs an error met after the response started: the status is
// already sent, so the client sees a truncated body.
func (s *Server) streamError(r *http.Request, err error) error {
	if err != nil {
		markTruncated(r)
		s.log.WarnContext(r.Context(), "response truncated", engine.LogRequestID, requestID(r), engine.LogErr, err)
	}
	return nil
}

// deleteDataset answers DELETE /data/{name} (REFERENCE §3.4).
func (s *Server) deleteDataset(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	q := params(r.URL.Query())
	start, end, err := q.dateRange()
	if err != nil {
		return err
	}
	cascade, err := engine.ParseCascade(q.all("cascade"))
	if err != nil {
		return err
	}
	if err := s.engine.DeleteDataset(r.Context(), p.ByName("name"), engine.DeleteQuery{Start: start, End: end, Cascade: cascade}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// datasetStats answers GET /data/{name}/stats (REFERENCE §3.5).
func (s *Server) datasetStats(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.stats(w, r, p.ByName("name"), "")
}

// columnStats answers GET /data/{name}/stats/{column} (REFERENCE §3.6).
func (s *Server) columnStats(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.stats(w, r, p.ByName("name"), p.ByName("column"))
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request, name, column string) error {
	var as columnar.DataType
	if v := params(r.URL.Query()).get("dataType"); v != "" {
		t, ok := columnar.ParseDataType(v)
		if !ok {
			return engine.Validation("dataType", "Value for dataType must be one of string, numeric, numericMeasure, logical, date, text")
		}
		as = t
	}
	return s.heavy(w, r, func() error {
		d, cols, err := s.engine.Stats(r.Context(), name, column, as)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, statsJSON{DataSetName: d.Name, Columns: cols})
	})
}

// statsJSON is the statistics envelope: columns is a map keyed by column
// name (REFERENCE §2.10, §9 #8) whose objects carry both the recorded keys
// (row_count, errors, non_numeric, …) and the newer ones (totalCount,
// lastCalculated, distribution, …). The engine rounds the numbers to 6
// decimals; non-finite ones are omitted.
type statsJSON struct {
	DataSetName string           `json:"dataSetName"`
	Columns     statsColumnsJSON `json:"columns"`
}

type statsColumnsJSON []engine.ColumnStats

func (cs statsColumnsJSON) MarshalJSON() ([]byte, error) {
	o := &orderedObject{}
	for _, c := range cs {
		o.set(c.Name, columnStatsJSON(c))
	}
	return o.MarshalJSON()
}

// orderedObject is a JSON object with keys in insertion order; non-finite
// numbers are omitted (JSON has none).
type orderedObject struct {
	keys []string
	vals []any
}

func (o *orderedObject) set(k string, v any) {
	if f, ok := v.(float64); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(appendJSONString(nil, k))
		b.WriteByte(':')
		v, err := jsonMarshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func columnStatsJSON(c engine.ColumnStats) *orderedObject {
	o := &orderedObject{}
	o.set("totalCount", c.Total)
	o.set("row_count", float64(c.Total))
	o.set("missingCount", c.Missing)
	o.set("errorCount", c.Errors)
	o.set("errors", float64(c.Errors))
	o.set("non_numeric", float64(c.NonNumeric))
	o.set("distinctCount", c.Distinct)
	if n := c.Numbers; n != nil {
		o.set("min", n.Min)
		o.set("max", n.Max)
		o.set("mean", n.Mean)
		o.set("median", n.Median)
	}
	switch c.ModeKind {
	case "number":
		if f, err := strconv.ParseFloat(c.Mode, 64); err == nil {
			o.set("mode", f)
		}
	case "logical":
		o.set("mode", c.Mode == "true")
	case "string":
		o.set("mode", c.Mode)
	}
	if n := c.Numbers; n != nil {
		o.set("stddev", n.StdDev)
		o.set("variance", n.Variance)
	}
	suggested := c.Suggested
	if suggested == "" {
		suggested = c.DataType
	}
	o.set("suggestedType", suggested)
	o.set("lastCalculated", formatEventTime(c.Calculated))
	var dist []*orderedObject
	if len(c.Values) > 0 {
		for _, v := range c.Values {
			e := &orderedObject{}
			e.set("value", v.Value)
			e.set("count", v.N)
			dist = append(dist, e)
		}
	} else if c.Numbers != nil {
		for _, bk := range c.Numbers.Buckets {
			e := &orderedObject{}
			e.set("min", bk.Min)
			e.set("max", bk.Max)
			e.set("count", bk.Count)
			dist = append(dist, e)
		}
	}
	if dist == nil {
		dist = []*orderedObject{}
	}
	o.set("distribution", dist)
	return o
}
