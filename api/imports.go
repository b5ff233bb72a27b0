package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// importRequest is the body of POST /imports/{kind} (REFERENCE §5);
// property names match in any case (Go's decoder folds case).
type importRequest struct {
	DataSetName string          `json:"dataSetName"`
	ContentType string          `json:"contentType"`
	Columns     json.RawMessage `json:"columns"`

	URL  string `json:"url"`
	Auth *struct {
		Basic *struct {
			UserID   string `json:"userId"`
			Password string `json:"password"`
		} `json:"basic"`
	} `json:"auth"`

	Bucket          string `json:"bucket"`
	Path            string `json:"path"`
	Region          string `json:"region"`
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`

	ConnectionString string `json:"connectionString"`
	Container        string `json:"container"`
	Blob             string `json:"blob"`
}

// importKinds maps the path's kind, in any case, to the engine's: the
// reference's and the seed's spellings (REFERENCE §5, §9 #3).
var importKinds = map[string]engine.ImportKind{
	"url": engine.ImportURL,
	"s3":  engine.ImportObjectStore, "objectstore": engine.ImportObjectStore,
	"azure": engine.ImportBlobStore, "blobstore": engine.ImportBlobStore,
}

// createImport answers POST /imports/{url|s3|objectstore|azure|blobstore}
// with the requested import (200, Nexosis-Import-Status: Requested).
func (s *Server) createImport(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	kind, ok := importKinds[strings.ToLower(p.ByName("kind"))]
	if !ok {
		return &engine.Error{Kind: engine.NotFound, Msg: "Resource not found"}
	}
	var req importRequest
	if err := decodeJSON(w, r, s.opts.MaxRequestBytes, &req); err != nil {
		return err
	}
	// The Java client posts every import kind to /imports/s3: a body that
	// names a url or a connection string and no bucket means that kind.
	if kind == engine.ImportObjectStore && req.Bucket == "" {
		switch {
		case req.URL != "":
			kind = engine.ImportURL
		case req.ConnectionString != "":
			kind = engine.ImportBlobStore
		}
	}
	cols, err := decodeSpecs(req.Columns)
	if err != nil {
		return err
	}
	spec := engine.ImportSpec{
		Kind: kind, DataSetName: req.DataSetName, ContentType: req.ContentType, Columns: cols,
		URL: req.URL, Bucket: req.Bucket, Path: req.Path, Region: req.Region,
		Container: req.Container, Blob: req.Blob,
		Secrets: engine.ImportSecrets{
			AccessKeyID: req.AccessKeyID, SecretAccessKey: req.SecretAccessKey, ConnectionString: req.ConnectionString,
		},
	}
	if req.Auth != nil && req.Auth.Basic != nil {
		spec.Secrets.User, spec.Secrets.Password = req.Auth.Basic.UserID, req.Auth.Basic.Password
	}
	imp, err := s.engine.CreateImport(r.Context(), spec)
	if err != nil {
		return err
	}
	w.Header().Set("Nexosis-Import-Status", pascal(string(imp.Status)))
	return writeJSON(w, http.StatusOK, toImportJSON(r, imp, s.opts.Compat))
}

// getImport answers GET /imports/{id}.
func (s *Server) getImport(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	imp, err := s.engine.Import(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Nexosis-Import-Status", pascal(string(imp.Status)))
	return writeJSON(w, http.StatusOK, toImportJSON(r, imp, s.opts.Compat))
}

// listImports answers GET /imports (REFERENCE §5.4).
func (s *Server) listImports(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	after, err := q.date("requestedAfterDate")
	if err != nil {
		return err
	}
	before, err := q.date("requestedBeforeDate")
	if err != nil {
		return err
	}
	name := q.get("dataSetName")
	if name == "" {
		name = q.get("dataSourceName")
	}
	items, total, err := s.engine.ListImports(r.Context(), engine.ImportQuery{
		DataSetName: name, RequestedAfter: after, RequestedBefore: before,
		SortBy: q.get("sortBy"), Desc: desc, DescGiven: q.has("sortOrder"), Page: pg, PageSize: size,
	})
	if err != nil {
		return err
	}
	out := make([]importJSON, 0, len(items))
	for _, imp := range items {
		out = append(out, toImportJSON(r, imp, s.opts.Compat))
	}
	return writeList(w, r, pg, size, total, out)
}

// importJSON is an import (REFERENCE §2.6).
type importJSON struct {
	ImportID      string         `json:"importId"`
	Type          string         `json:"type"`
	Status        string         `json:"status"`
	DataSetName   string         `json:"dataSetName"`
	Parameters    *orderedObject `json:"parameters"`
	RequestedDate string         `json:"requestedDate"`
	StatusHistory []statusJSON   `json:"statusHistory"`
	Messages      []message      `json:"messages"`
	Columns       json.Marshaler `json:"columns"` // see Compat.importColumns
	Links         []link         `json:"links"`
}

type statusJSON struct {
	Date   string `json:"date"`
	Status string `json:"status"`
}

func toImportJSON(r *http.Request, imp engine.Import, c Compat) importJSON {
	params := &orderedObject{}
	for _, p := range imp.Parameters {
		params.set(p.Name, p.Value)
	}
	out := importJSON{
		ImportID: imp.ID, Type: c.importType(imp.Kind), Status: string(imp.Status), DataSetName: imp.DataSetName,
		Parameters: params, RequestedDate: formatEventTime(imp.Requested),
		StatusHistory: make([]statusJSON, len(imp.History)), Messages: make([]message, len(imp.Messages)),
		Columns: c.importColumns(imp),
	}
	for i, h := range imp.History {
		out.StatusHistory[i] = statusJSON{Date: formatEventTime(h.Date), Status: string(h.Status)}
	}
	for i, m := range imp.Messages {
		out.Messages[i] = message{Severity: m.Severity, Message: m.Text}
	}
	base := baseURL(r)
	out.Links = []link{
		{"self", base + "/imports/" + imp.ID},
		{"data", base + "/data/" + pathEscape(imp.DataSetName)},
	}
	return out
}

// pascal renders a status for the status headers (REFERENCE §9 #2).
func pascal(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// decodeJSON reads a small JSON request body into v. An empty body or the
// literal "" is an empty request (REFERENCE §1.3); malformed JSON or a
// wrong type is RequestValidation naming the field, and so is JSON nested
// deeper than engine.MaxJSONDepth (refused as it is read, see tooDeep).
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body, err := io.ReadAll(engine.LimitJSONDepth(http.MaxBytesReader(w, r.Body, limit)))
	if err != nil {
		// A body over the limit stays in the chain: writeError answers 413.
		return because(engine.Validation("body", "The request body could not be read"), err)
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || string(body) == `""` || string(body) == "null" {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return engine.Validation(te.Field, "Value for "+te.Field+" must be a JSON "+te.Type.Kind().String())
		}
		return engine.Validation("body", "The request body is not valid JSON: "+err.Error())
	}
	return nil
}

// decodeSpecs reads a column metadata object, keeping the column order;
// property names inside match in any case.
func decodeSpecs(raw json.RawMessage) ([]columnar.Spec, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	bad := engine.Validation("columns", "Value for columns must be an object of column name to metadata")
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var out []columnar.Spec
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		name, _ := tok.(string)
		var m struct {
			DataType, Role, Imputation, Aggregation *string
		}
		if err := dec.Decode(&m); err != nil {
			return nil, engine.Validation("columns", "The metadata of column "+name+" must be an object of strings")
		}
		deref := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		out = append(out, columnar.Spec{Name: name, DataType: deref(m.DataType), Role: deref(m.Role),
			Imputation: deref(m.Imputation), Aggregation: deref(m.Aggregation)})
	}
	return out, nil
}
