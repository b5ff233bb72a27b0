package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// joinJSON is a join of a view definition (REFERENCE §2.5), read in any
// property case and written in the reference's.
type joinJSON struct {
	DataSet *struct {
		Name string `json:"name"`
	} `json:"dataSet,omitempty"`
	Calendar *struct {
		Name     string `json:"name,omitempty"`
		URL      string `json:"url,omitempty"`
		TimeZone string `json:"timeZone,omitempty"`
		Timezone string `json:"timezone,omitempty"` // the docs' spelling, read only
	} `json:"calendar,omitempty"`
	ColumnOptions json.RawMessage `json:"columnOptions,omitempty"`
	Joins         []joinJSON      `json:"joins,omitempty"`
}

type viewRequest struct {
	DataSetName string          `json:"dataSetName"`
	Joins       []joinJSON      `json:"joins"`
	Columns     json.RawMessage `json:"columns"`
}

// putView answers PUT /views/{name} (REFERENCE §4.1): 201 with Location and
// the definition with its effective columns, for a new view or a
// replacement.
func (s *Server) putView(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	var req viewRequest
	if err := decodeJSON(w, r, s.opts.MaxRequestBytes, &req); err != nil {
		return err
	}
	cols, err := decodeSpecs(req.Columns)
	if err != nil {
		return err
	}
	joins, err := toJoins(req.Joins)
	if err != nil {
		return err
	}
	v, _, err := s.engine.PutView(r.Context(), engine.ViewSpec{Name: p.ByName("name"), DataSetName: req.DataSetName, Joins: joins, Columns: cols})
	if err != nil {
		return err
	}
	href := baseURL(r) + "/views/" + pathEscape(v.Name)
	w.Header().Set("Location", href)
	return writeJSON(w, http.StatusCreated, toViewJSON(v))
}

func toJoins(in []joinJSON) ([]engine.ViewJoin, error) {
	var out []engine.ViewJoin
	for _, j := range in {
		var vj engine.ViewJoin
		if j.DataSet != nil {
			vj.DataSet = j.DataSet.Name
		}
		if j.Calendar != nil {
			tz := j.Calendar.TimeZone
			if tz == "" {
				tz = j.Calendar.Timezone
			}
			vj.Calendar = &engine.CalendarRef{Name: j.Calendar.Name, URL: j.Calendar.URL, TimeZone: tz}
		}
		opts, err := decodeColumnOptions(j.ColumnOptions)
		if err != nil {
			return nil, err
		}
		vj.ColumnOptions = opts
		if vj.Joins, err = toJoins(j.Joins); err != nil {
			return nil, err
		}
		out = append(out, vj)
	}
	return out, nil
}

// decodeColumnOptions reads columnOptions keeping the column order.
func decodeColumnOptions(raw json.RawMessage) ([]engine.JoinOption, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	bad := engine.Validation("columnOptions", "Value for columnOptions must be an object of column name to options")
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var out []engine.JoinOption
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		name, _ := tok.(string)
		var o struct{ JoinInterval, Alias, JoinTo *string }
		if err := dec.Decode(&o); err != nil {
			return nil, engine.Validation("columnOptions", "The options of column "+name+" must be an object of strings")
		}
		deref := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		out = append(out, engine.JoinOption{Column: name, JoinInterval: deref(o.JoinInterval), Alias: deref(o.Alias), JoinTo: deref(o.JoinTo)})
	}
	return out, nil
}

// viewJSON is a view definition (REFERENCE §2.5).
type viewJSON struct {
	ViewName     string           `json:"viewName"`
	DataSetName  string           `json:"dataSetName"`
	IsTimeSeries bool             `json:"isTimeSeries"`
	Columns      columnsJSON      `json:"columns"`
	Joins        []*orderedObject `json:"joins,omitempty"`
	Links        []link           `json:"links"`
}

func toViewJSON(v engine.View) viewJSON {
	return viewJSON{ViewName: v.Name, DataSetName: v.DataSetName, IsTimeSeries: v.IsTimeSeries(), Columns: v.Columns,
		Joins: joinsJSON(v.Joins), Links: []link{}}
}

func joinsJSON(js []engine.ViewJoin) []*orderedObject {
	var out []*orderedObject
	for _, j := range js {
		o := &orderedObject{}
		if j.DataSet != "" {
			o.set("dataSet", map[string]string{"name": j.DataSet})
		}
		if c := j.Calendar; c != nil {
			cal := &orderedObject{}
			for _, kv := range [][2]string{{"name", c.Name}, {"url", c.URL}, {"timeZone", c.TimeZone}} {
				if kv[1] != "" {
					cal.set(kv[0], kv[1])
				}
			}
			o.set("calendar", cal)
		}
		opts := &orderedObject{}
		for _, c := range j.ColumnOptions {
			co := &orderedObject{}
			for _, kv := range [][2]string{{"joinInterval", strings.ToLower(c.JoinInterval)}, {"alias", c.Alias}, {"joinTo", c.JoinTo}} {
				if kv[1] != "" {
					co.set(kv[0], kv[1])
				}
			}
			opts.set(c.Column, co)
		}
		o.set("columnOptions", opts)
		if nested := joinsJSON(j.Joins); len(nested) > 0 {
			o.set("joins", nested)
		}
		out = append(out, o)
	}
	return out
}

// listViews answers GET /views (REFERENCE §4.2).
func (s *Server) listViews(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, _, err := q.listing()
	if err != nil {
		return err
	}
	items, total, err := s.engine.ListViews(r.Context(), engine.ViewQuery{
		PartialName: q.get("partialName"), DataSetName: q.get("dataSetName"), Page: pg, PageSize: size,
	})
	if err != nil {
		return err
	}
	out := make([]viewJSON, 0, len(items))
	for _, v := range items {
		out = append(out, toViewJSON(v))
	}
	return writeList(w, r, pg, size, total, out)
}

// getView answers GET /views/{name} (REFERENCE §4.3): the definition with
// a page of its rows (timestamps in the 7-digit Z format), or, by Accept,
// the rows as CSV, an Arrow IPC stream or a Parquet file, every row unless
// page or pageSize is given (readRowsParams).
func (s *Server) getView(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	rp, err := readRowsParams(r)
	if err != nil {
		return err
	}
	v, rows, err := s.engine.ReadViewRows(r.Context(), p.ByName("name"), rp.query)
	if err != nil {
		return err
	}
	defer rows.Release()
	head, err := jsonMarshal(toViewJSON(v))
	if err != nil {
		return err
	}
	// The definition's fields, then data, then the paging envelope whose
	// links replace the definition's (empty) ones.
	head = bytes.TrimSuffix(head, []byte(`,"links":[]}`))
	return s.writeRowsBody(w, r, rows, rp.format, appendRowTime, head, newPage(r, rp.page, rp.size, rows.Total))
}

// deleteView answers DELETE /views/{name} (REFERENCE §4.4); the JS client
// sends cascade as options.
func (s *Server) deleteView(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	q := params(r.URL.Query())
	cascade, err := engine.ParseCascade(append(q.all("cascade"), q.all("options")...))
	if err != nil {
		return err
	}
	if err := s.engine.DeleteView(r.Context(), p.ByName("name"), cascade); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
