package api

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// modelJSON is a model summary (REFERENCE §2.7).
type modelJSON struct {
	Columns          columnsJSON        `json:"columns,omitempty"`
	ModelID          string             `json:"modelId"`
	SessionID        string             `json:"sessionId"`
	PredictionDomain string             `json:"predictionDomain"`
	DataSourceName   string             `json:"dataSourceName"`
	CreatedDate      string             `json:"createdDate"`
	Algorithm        engine.Algorithm   `json:"algorithm"`
	ModelName        string             `json:"modelName"`
	LastUsedDate     string             `json:"lastUsedDate,omitempty"`
	Metrics          map[string]float64 `json:"metrics"`
	Links            []link             `json:"links"`
}

func toModelJSON(base string, m engine.Model, detail bool) modelJSON {
	out := modelJSON{Columns: m.Columns, ModelID: m.ID, SessionID: m.SessionID, PredictionDomain: m.Domain,
		DataSourceName: m.DataSourceName, CreatedDate: formatEventTime(m.Created), Algorithm: m.Algorithm,
		ModelName: m.Name, Metrics: m.Metrics}
	if m.LastUsed != nil {
		out.LastUsedDate = formatEventTime(*m.LastUsed)
	}
	if out.Metrics == nil {
		out.Metrics = map[string]float64{}
	}
	train := link{"train", base + "/sessions/" + m.SessionID}
	if detail {
		out.Links = []link{{"self", base + "/models/" + m.ID}, train}
	} else {
		out.Links = []link{train}
	}
	return out
}

// modelQuery reads the selectors of GET and DELETE /models (REFERENCE
// §8.1, §8.5).
func modelQuery(q params) (engine.ModelQuery, error) {
	var out engine.ModelQuery
	var err error
	out.ModelID = q.get("modelId")
	out.DataSourceName = q.get("dataSourceName")
	if out.DataSourceName == "" {
		out.DataSourceName = q.get("dataSetName")
	}
	out.PartialModelName = q.get("partialModelName")
	if out.CreatedAfter, err = firstDate(q, "createdAfterDate", "createdAfter"); err != nil {
		return out, err
	}
	out.CreatedBefore, err = firstDate(q, "createdBeforeDate", "createdBefore")
	return out, err
}

// listModels answers GET /models.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	mq, err := modelQuery(q)
	if err != nil {
		return err
	}
	mq.SortBy, mq.Desc, mq.DescGiven, mq.Page, mq.PageSize = q.get("sortBy"), desc, q.has("sortOrder"), pg, size
	items, total, err := s.engine.ListModels(r.Context(), mq)
	if err != nil {
		return err
	}
	base := baseURL(r)
	out := make([]modelJSON, len(items))
	for i, m := range items {
		out[i] = toModelJSON(base, m, false)
	}
	return writeList(w, r, pg, size, total, out)
}

// getModel answers GET /models/{id}.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	m, err := s.engine.Model(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toModelJSON(baseURL(r), m, true))
}

// deleteModel answers DELETE /models/{id}.
func (s *Server) deleteModel(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.engine.DeleteModel(r.Context(), p.ByName("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteModels answers DELETE /models (REFERENCE §8.5).
func (s *Server) deleteModels(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	mq, err := modelQuery(params(r.URL.Query()))
	if err != nil {
		return err
	}
	if err := s.engine.DeleteModels(r.Context(), mq); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// predict answers POST /models/{id}/predict (REFERENCE §8.3): rows as JSON
// ({"data": [...], "extraParameters": {...}}) or CSV (Content-Type
// text/csv); the answer is JSON, or CSV of the data rows when the client
// accepts text/csv. predictionInterval comes from extraParameters, else
// from the query (the only place a CSV body leaves for it), as session
// parameters do (REFERENCE §6 "parameter passing": the body wins).
func (s *Server) predict(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxPredictBytes)
	var req engine.PredictRequest
	var extra map[string]string
	var err error
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if strings.EqualFold(mt, "text/csv") {
		req.Rows, err = readPredictCSV(body)
	} else {
		req.Rows, extra, err = readPredictJSON(engine.LimitJSONDepth(body))
	}
	if err != nil {
		return err
	}
	for k, v := range extra {
		if strings.EqualFold(k, "predictionInterval") && v != "" {
			req.PredictionInterval = v
		}
	}
	if req.PredictionInterval == "" {
		req.PredictionInterval = params(r.URL.Query()).get("predictionInterval")
	}
	// includeClassScores: extraParameters, else the query; a string
	// "True" (.NET) reads as a boolean (REFERENCE §8.3).
	scores := params(r.URL.Query()).get("includeClassScores")
	for k, v := range extra {
		if strings.EqualFold(k, "includeClassScores") {
			scores = v
		}
	}
	if scores != "" {
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(scores)))
		if err != nil {
			return engine.Validation("includeClassScores", "Value for includeClassScores must be true or false")
		}
		req.IncludeClassScores = b
	}
	out, err := s.engine.Predict(r.Context(), p.ByName("id"), req)
	if err != nil {
		return err
	}
	if wantsCSV(r) {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		cw := csv.NewWriter(w)
		_ = cw.Write(out.Columns)
		for _, row := range out.Rows {
			_ = cw.Write(row)
		}
		cw.Flush()
		return nil
	}
	mj := toModelJSON(baseURL(r), out.Model, false)
	mj.Columns, mj.Links = nil, []link{}
	msgs := make([]message, len(out.Messages))
	for i, m := range out.Messages {
		msgs[i] = message{m.Severity, m.Text}
	}
	tail, err := jsonMarshal(struct {
		Messages []message `json:"messages"`
		modelJSON
	}{msgs, mj})
	if err != nil {
		return err
	}
	// The rows are written as they are rendered, not through
	// encoding/json, which would validate and copy the whole body again.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"data":`)
	predictRows{out.Columns, out.Rows}.writeTo(bw)
	tail[0] = ','
	bw.Write(tail)
	return bw.Flush()
}

// predictRows renders predicted rows as objects of strings, in column
// order; a column a row did not have is written as "".
type predictRows struct {
	cols []string
	rows [][]string
}

func (p predictRows) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	p.writeTo(&b)
	return b.Bytes(), nil
}

// writeTo writes the rows as a JSON array, reusing one buffer per row.
func (p predictRows) writeTo(w io.Writer) {
	keys := make([][]byte, len(p.cols))
	for j, c := range p.cols {
		keys[j] = append(appendJSONString(nil, c), ':')
	}
	var b []byte
	w.Write([]byte{'['})
	for i, row := range p.rows {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, v := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, keys[j]...)
			b = appendJSONString(b, v)
		}
		b = append(b, '}')
		w.Write(b)
	}
	w.Write([]byte{']'})
}

// readPredictJSON reads {"data": [{column: value, …}, …], "extraParameters":
// {…}}, keeping each row's column order; numbers keep their text. The
// extraParameters come back as text, as a session's do.
func readPredictJSON(r io.Reader) ([]engine.PredictRow, map[string]string, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	dec.UseNumber()
	bad := func(msg string) *engine.Error { return engine.Validation("data", msg) }
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, nil, bad("The data field is required.")
	}
	if err != nil || tok != json.Delim('{') {
		return nil, nil, because(bad("The request body must be a JSON object with a data array"), err)
	}
	var rows []engine.PredictRow
	var extra map[string]string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, because(bad("The request body is not valid JSON"), err)
		}
		key, _ := tok.(string)
		if !strings.EqualFold(key, "data") {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, because(bad("The request body is not valid JSON"), err)
			}
			if strings.EqualFold(key, "extraParameters") {
				if extra, err = decodeExtra(raw); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil, nil, because(bad("Value for data must be an array of objects"), err)
		}
		var layout []string
		for dec.More() {
			row, err := readPredictRow(dec, len(rows), layout)
			if err != nil {
				return nil, nil, err
			}
			layout = row.Names
			rows = append(rows, row)
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, because(bad("The request body is not valid JSON"), err)
		}
	}
	return rows, extra, nil
}

// readPredictRow reads one row object. Flat rows (the rule) are scanned
// by scanFlatRow, sharing the previous row's layout when the columns are
// the same; anything else is read token by token, which also words the
// errors.
func readPredictRow(dec *json.Decoder, index int, layout []string) (engine.PredictRow, error) {
	bad := engine.Validation("data", fmt.Sprintf("Row %d must be an object of column values", index))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return engine.PredictRow{}, because(bad, err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return engine.PredictRow{}, bad
	}
	if row, ok := scanFlatRow(raw, layout); ok {
		return row, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var row engine.PredictRow
	if _, err := d.Token(); err != nil {
		return row, bad
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return row, bad
		}
		name, _ := tok.(string)
		var v any
		if err := d.Decode(&v); err != nil {
			return row, bad
		}
		switch v.(type) {
		case nil, string, bool, json.Number:
		default:
			return row, engine.Validation(name, fmt.Sprintf("Row %d: the value of %s must be a string, number, boolean or null", index, name))
		}
		row.Names, row.Values = append(row.Names, name), append(row.Values, v)
	}
	return row, nil
}

// scanFlatRow reads an object whose values are all strings, numbers,
// booleans or null from raw, which the decoder has already checked is
// valid JSON; ok is false for anything else (a nested value, a duplicate
// key). Numbers keep their text (json.Number). When the keys are those of
// layout, in order, the row shares layout.
func scanFlatRow(raw []byte, layout []string) (engine.PredictRow, bool) {
	var row engine.PredictRow
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return row, false
	}
	i = skipSpace(raw, i+1)
	same := layout != nil
	for i < len(raw) && raw[i] != '}' {
		key, next, ok := scanString(raw, i)
		if !ok {
			return row, false
		}
		i = skipSpace(raw, next)
		if i >= len(raw) || raw[i] != ':' {
			return row, false
		}
		i = skipSpace(raw, i+1)
		if i >= len(raw) {
			return row, false
		}
		var v any
		switch c := raw[i]; {
		case c == '"':
			v, i, ok = scanString(raw, i)
			if !ok {
				return row, false
			}
		case c == 't' && bytes.HasPrefix(raw[i:], []byte("true")):
			v, i = true, i+4
		case c == 'f' && bytes.HasPrefix(raw[i:], []byte("false")):
			v, i = false, i+5
		case c == 'n' && bytes.HasPrefix(raw[i:], []byte("null")):
			v, i = nil, i+4
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ' ' && raw[j] != '\t' && raw[j] != '\n' && raw[j] != '\r' {
				j++
			}
			v, i = json.Number(raw[i:j]), j
		default:
			return row, false // a nested object or array
		}
		n := len(row.Values)
		if same && (n >= len(layout) || layout[n] != key) {
			same = false
		}
		if !same && slices.Contains(row.Names, key) {
			return row, false
		}
		row.Names, row.Values = append(row.Names, key), append(row.Values, v)
		i = skipSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	if same && len(row.Values) == len(layout) {
		row.Names = layout
	}
	return row, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the JSON string starting at b[i] ('"'), unescaping it
// only when it holds escapes; it returns the index after the closing quote.
func scanString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if !escaped {
				return string(b[i+1 : j]), j + 1, true
			}
			var s string
			if err := json.Unmarshal(b[i:j+1], &s); err != nil {
				return "", j + 1, false
			}
			return s, j + 1, true
		}
	}
	return "", len(b), false
}

// readPredictCSV reads a header line and rows of values (Elm's predictRaw).
func readPredictCSV(r io.Reader) ([]engine.PredictRow, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, engine.Validation("data", "The data field is required.")
	}
	if err != nil {
		return nil, because(engine.Validation("data", "The CSV header could not be read: "+err.Error()), err)
	}
	var rows []engine.PredictRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, because(engine.Validation("data", fmt.Sprintf("Line %d could not be read: %v", line, err)), err)
		}
		if len(rec) != len(header) {
			return nil, engine.Validation("data", fmt.Sprintf("Line %d has %d values; the header names %d columns", line, len(rec), len(header)))
		}
		row := engine.PredictRow{Names: header, Values: make([]any, len(rec))}
		for i, v := range rec {
			row.Values[i] = v
		}
		rows = append(rows, row)
	}
}
