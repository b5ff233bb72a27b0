package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// sessionKinds maps the path of POST /sessions/{kind} to a session type.
var sessionKinds = map[string]engine.SessionType{
	"forecast": engine.SessionForecast, "impact": engine.SessionImpact, "model": engine.SessionModel,
}

// createSession answers POST /sessions/{forecast|impact|model}. Every
// parameter may come in the body or the query (REFERENCE §6 "parameter
// passing"): they merge, the body wins, names match in any case, and
// dataSetName is an alias of dataSourceName.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	kind, ok := sessionKinds[strings.ToLower(p.ByName("kind"))]
	if !ok {
		return &engine.Error{Kind: engine.NotFound, Msg: "Resource not found"}
	}
	req, err := s.readSessionRequest(w, r)
	if err != nil {
		return err
	}
	req.Type = kind
	sess, err := s.engine.CreateSession(r.Context(), req)
	if err != nil {
		return err
	}
	setSessionStatus(w, sess)
	if sess.WebhookToken != "" {
		w.Header().Set("Nexosis-Webhook-Token", sess.WebhookToken)
	}
	if sess.IsEstimate {
		w.Header().Set("Nexosis-Request-Cost", "0.01 USD")
	}
	return writeJSON(w, http.StatusOK, toSessionJSON(baseURL(r), sess, sessionLinksFull, s.opts.Compat))
}

// readSessionRequest merges a session request's query and body.
func (s *Server) readSessionRequest(w http.ResponseWriter, r *http.Request) (engine.SessionRequest, error) {
	var body map[string]json.RawMessage
	if err := decodeJSON(w, r, s.opts.MaxRequestBytes, &body); err != nil {
		return engine.SessionRequest{}, err
	}
	fields := map[string]json.RawMessage{}
	for k, v := range body {
		fields[strings.ToLower(k)] = v
	}
	q := params(r.URL.Query())
	str := func(names ...string) (string, error) {
		for _, n := range names {
			if raw, ok := fields[strings.ToLower(n)]; ok && string(raw) != "null" {
				var v string
				if err := json.Unmarshal(raw, &v); err != nil {
					return "", engine.Validation(n, "Value for "+n+" must be a string")
				}
				if v != "" {
					return v, nil
				}
			}
		}
		for _, n := range names {
			if v := q.get(n); v != "" {
				return v, nil
			}
		}
		return "", nil
	}
	var req engine.SessionRequest
	var err error
	for _, f := range []struct {
		dst   *string
		names []string
	}{
		{&req.DataSourceName, []string{"dataSourceName", "dataSetName"}},
		{&req.TargetColumn, []string{"targetColumn"}},
		{&req.PredictionDomain, []string{"predictionDomain"}},
		{&req.Name, []string{"name"}},
		{&req.CallbackURL, []string{"callbackUrl"}},
		{&req.StartDate, []string{"startDate"}},
		{&req.EndDate, []string{"endDate"}},
		{&req.ResultInterval, []string{"resultInterval"}},
		{&req.EventName, []string{"eventName"}},
	} {
		if *f.dst, err = str(f.names...); err != nil {
			return req, err
		}
	}
	if req.Columns, err = decodeSpecs(fields["columns"]); err != nil {
		return req, err
	}
	if req.ExtraParameters, err = decodeExtra(fields["extraparameters"]); err != nil {
		return req, err
	}
	if raw, ok := fields["missingvalues"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &req.MissingValues); err != nil {
			return req, engine.Validation("missingValues", "Value for missingValues must be an array of strings")
		}
	} else {
		req.MissingValues = q.list("missingValues")
	}
	est, err := boolField(fields["isestimate"], "isEstimate")
	if err != nil {
		return req, err
	}
	if est == nil {
		b, err := q.boolean("isEstimate")
		if err != nil {
			return req, err
		}
		est = &b
	}
	req.IsEstimate = *est
	return req, nil
}

// boolField reads a JSON boolean that may arrive as a string ("True" from
// .NET); nil when absent.
func boolField(raw json.RawMessage, name string) (*bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, engine.Validation(name, "Value for "+name+" must be true or false")
	}
	switch x := v.(type) {
	case bool:
		return &x, nil
	case string:
		if b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(x))); err == nil {
			return &b, nil
		}
	}
	return nil, engine.Validation(name, "Value for "+name+" must be true or false")
}

// decodeExtra reads extraParameters: an object of booleans, strings or
// numbers, kept as text.
func decodeExtra(raw json.RawMessage) (map[string]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, engine.Validation("extraParameters", "Value for extraParameters must be an object")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = x
		case bool:
			out[k] = strconv.FormatBool(x)
		case float64:
			out[k] = strconv.FormatFloat(x, 'g', -1, 64)
		case nil:
		default:
			return nil, engine.Validation("extraParameters", "Value of extraParameters."+k+" must be a boolean, string or number")
		}
	}
	return out, nil
}

// setSessionStatus sets both status headers (REFERENCE §1.9).
func setSessionStatus(w http.ResponseWriter, sess engine.Session) {
	st := pascal(string(sess.Status))
	w.Header().Set("Nexosis-Session-Status", st)
	w.Header().Set("service-session-status", st)
}

// getSession answers GET and HEAD /sessions/{id}.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	sess, err := s.engine.Session(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	setSessionStatus(w, sess)
	if r.Method == http.MethodHead {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return writeJSON(w, http.StatusOK, toSessionJSON(baseURL(r), sess, sessionLinksFull, s.opts.Compat))
}

// sessionQuery reads the selectors of GET and DELETE /sessions with their
// aliases (REFERENCE §6.5, §6.6).
func sessionQuery(q params) (engine.SessionQuery, error) {
	var out engine.SessionQuery
	var err error
	first := func(names ...string) string {
		for _, n := range names {
			if v := q.get(n); v != "" {
				return v
			}
		}
		return ""
	}
	out.DataSourceName = first("dataSourceName", "dataSetName")
	out.EventName = q.get("eventName")
	out.ModelID = q.get("modelId")
	out.Type = first("type", "sessionType")
	if out.RequestedAfter, err = firstDate(q, "requestedAfterDate", "requestedAfter", "startDate"); err != nil {
		return out, err
	}
	if out.RequestedBefore, err = firstDate(q, "requestedBeforeDate", "requestedBefore", "endDate"); err != nil {
		return out, err
	}
	return out, nil
}

// listSessions answers GET /sessions.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	sq, err := sessionQuery(q)
	if err != nil {
		return err
	}
	sq.SortBy, sq.Desc, sq.DescGiven, sq.Page, sq.PageSize = q.get("sortBy"), desc, q.has("sortOrder"), pg, size
	items, total, err := s.engine.ListSessions(r.Context(), sq)
	if err != nil {
		return err
	}
	base := baseURL(r)
	out := make([]sessionJSON, len(items))
	for i, it := range items {
		out[i] = toSessionJSON(base, it, sessionLinksItem, s.opts.Compat)
	}
	return writeList(w, r, pg, size, total, out)
}

// deleteSessions answers DELETE /sessions (REFERENCE §6.6).
func (s *Server) deleteSessions(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	sq, err := sessionQuery(params(r.URL.Query()))
	if err != nil {
		return err
	}
	if err := s.engine.DeleteSessions(r.Context(), sq); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteSession answers DELETE /sessions/{id} (REFERENCE §6.9).
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.engine.DeleteSession(r.Context(), p.ByName("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// sessionResults answers GET /sessions/{id}/results (REFERENCE §6.10):
// the session, its metrics and a page of result rows, as JSON or CSV.
func (s *Server) sessionResults(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	pg, size, page, err := resultPaging(r)
	if err != nil {
		return err
	}
	sess, rows, err := s.engine.SessionResultsAt(r.Context(), p.ByName("id"), page, params(r.URL.Query()).get("predictionInterval"))
	if err != nil {
		return err
	}
	defer rows.Release()
	metrics := metricsOf(sess)
	base := baseURL(r)
	return s.writeSessionRows(w, r, sess, rows, pg, size, resultLinks(base, sess), func(sj sessionJSON) any {
		return struct {
			Metrics map[string]float64 `json:"metrics"`
			sessionJSON
		}{metrics, sj}
	})
}

// metricsOf is a session's champion metrics as results show them: {}
// before there are any.
func metricsOf(sess engine.Session) map[string]float64 {
	if sess.Metrics == nil {
		return map[string]float64{}
	}
	return sess.Metrics
}

// writeSessionRows answers a page of a session's rows (REFERENCE §6.10,
// §6.16): the session's fields, as head makes them into an object (nil
// keeps them alone), then data, then the paging envelope with links added
// to its own; as CSV, the rows only. The status headers are set either way.
func (s *Server) writeSessionRows(w http.ResponseWriter, r *http.Request, sess engine.Session, rows *engine.Rows, pg, size int, links []link, head func(sessionJSON) any) error {
	setSessionStatus(w, sess)
	sj := toSessionJSON(baseURL(r), sess, nil, s.opts.Compat)
	sj.Columns = nil
	var hv any = sj
	if head != nil {
		hv = head(sj)
	}
	hb, err := jsonMarshal(hv)
	if err != nil {
		return err
	}
	hb = bytes.TrimSuffix(hb, []byte(`,"links":null}`))
	pgEnv := newPage(r, pg, size, rows.Total)
	pgEnv.Links = append(pgEnv.Links, links...)
	return s.writeRowsBody(w, r, rows, acceptedFormat(r), appendRowTime, hb, pgEnv)
}

// resultLinks are the links of a results response besides paging.
func resultLinks(base string, sess engine.Session) []link {
	sid := base + "/sessions/" + sess.ID
	out := []link{{"data", dataLink(base, sess)}}
	if sess.Status == engine.StatusCompleted {
		out = append(out, link{"contest", sid + "/contest"})
		if sess.ModelID != "" {
			out = append(out, link{"model", base + "/models/" + sess.ModelID})
		}
		if sess.SupportsImportance {
			out = append(out, link{"featureImportance", sid + "/results/featureimportance"})
		}
		for _, rl := range resultRels {
			if sess.HasResult(rl.kind) {
				out = append(out, link{rl.rel, sid + "/results/" + string(rl.kind)})
			}
		}
	}
	if sess.UsesText() {
		out = append(out, vocabulariesLink(base, sess))
	}
	for _, p := range sess.PredictionIntervals {
		out = append(out, link{"prediction-interval:" + p, sid + "/results?predictionInterval=" + p})
	}
	return out
}

// resultRels are the link relations of the results a session may have
// (REFERENCE §6.10), in the reference's order.
var resultRels = []struct {
	rel  string
	kind engine.ResultKind
}{
	{"confusionMatrix", engine.ResultConfusionMatrix}, {"classScores", engine.ResultClassScores},
	{"outliers", engine.ResultOutliers}, {"anomalyScores", engine.ResultAnomalyScores},
	{"mahalanobisDistances", engine.ResultMahalanobisDistances},
}

// outliers answers GET /sessions/{id}/results/outliers (REFERENCE §6.16,
// §11.8): the session's fields, the smoothed training points under data
// and the paging envelope. A session without outliers answers 200 with
// empty data.
func (s *Server) outliers(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	pg, size, page, err := resultPaging(r)
	if err != nil {
		return err
	}
	sess, rows, err := s.engine.SessionOutliers(r.Context(), p.ByName("id"), page)
	if err != nil {
		return err
	}
	defer rows.Release()
	return s.writeSessionRows(w, r, sess, rows, pg, size, nil, nil)
}

// The handlers below answer results that only completed sessions of one
// domain have (REFERENCE §6.11–§6.14): the engine answers 404 with
// itemType session for every other session.

// confusionMatrix answers GET /sessions/{id}/results/confusionmatrix
// (REFERENCE §6.11): completed classification sessions only; the
// session's fields, classes, the matrix (row = actual, column =
// predicted) and paging fields all 0. page and pageSize are ignored.
func (s *Server) confusionMatrix(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	cm, err := s.engine.SessionConfusionMatrix(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	setSessionStatus(w, cm.Session)
	base := baseURL(r)
	sj := toSessionJSON(base, cm.Session, nil, s.opts.Compat)
	sj.Links = []link{{"self", base + "/sessions/" + cm.Session.ID + "/results/confusionmatrix"}}
	return writeJSON(w, http.StatusOK, struct {
		Classes         []string `json:"classes"`
		ConfusionMatrix [][]int  `json:"confusionMatrix"`
		PageNumber      int      `json:"pageNumber"`
		TotalPages      int      `json:"totalPages"`
		PageSize        int      `json:"pageSize"`
		TotalCount      int      `json:"totalCount"`
		sessionJSON
	}{Classes: cm.Classes, ConfusionMatrix: cm.Matrix, sessionJSON: sj})
}

// classScores answers GET /sessions/{id}/results/classscores (REFERENCE
// §6.12): completed classification sessions only; the session's fields,
// classes, metrics and a page of test rows with the champion's
// <target>:<class> scores, as JSON or CSV.
func (s *Server) classScores(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	pg, size, page, err := resultPaging(r)
	if err != nil {
		return err
	}
	sess, classes, rows, err := s.engine.SessionClassScores(r.Context(), p.ByName("id"), page)
	if err != nil {
		return err
	}
	defer rows.Release()
	metrics := metricsOf(sess)
	return s.writeSessionRows(w, r, sess, rows, pg, size, nil, func(sj sessionJSON) any {
		return struct {
			Classes []string           `json:"classes"`
			Metrics map[string]float64 `json:"metrics"`
			sessionJSON
		}{classes, metrics, sj}
	})
}

// anomalyScores answers GET /sessions/{id}/results/anomalyscores
// (REFERENCE §6.13): completed anomalies sessions only; the session's
// fields, metrics and a page of every row with its anomaly score.
func (s *Server) anomalyScores(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.anomalyRows(w, r, p, false)
}

// mahalanobisDistances answers GET
// /sessions/{id}/results/mahalanobisdistances (REFERENCE §6.14):
// completed anomalies sessions only; every row with anomaly and
// mahalanobis_distance.
func (s *Server) mahalanobisDistances(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.anomalyRows(w, r, p, true)
}

// anomalyRows answers the two anomaly results, as JSON or CSV.
func (s *Server) anomalyRows(w http.ResponseWriter, r *http.Request, p httprouter.Params, distances bool) error {
	pg, size, page, err := resultPaging(r)
	if err != nil {
		return err
	}
	sess, rows, err := s.engine.SessionAnomalyScores(r.Context(), p.ByName("id"), distances, page)
	if err != nil {
		return err
	}
	defer rows.Release()
	metrics := metricsOf(sess)
	return s.writeSessionRows(w, r, sess, rows, pg, size, nil, func(sj sessionJSON) any {
		return struct {
			Metrics map[string]float64 `json:"metrics"`
			sessionJSON
		}{metrics, sj}
	})
}

// featureImportance answers GET /sessions/{id}/results/featureimportance
// (REFERENCE §6.15), paged over features by descending importance.
func (s *Server) featureImportance(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, err := q.paging()
	if err != nil {
		return err
	}
	sess, fs, total, err := s.engine.FeatureImportance(r.Context(), p.ByName("id"), engine.Page{Page: pg, PageSize: size})
	if err != nil {
		return err
	}
	setSessionStatus(w, sess)
	imp := &orderedObject{}
	for _, f := range fs {
		imp.set(f.Feature, f.Value)
	}
	sj := toSessionJSON(baseURL(r), sess, nil, s.opts.Compat)
	sj.Columns = nil
	pgEnv := newPage(r, pg, size, int64(total))
	sj.Links = pgEnv.Links
	return writeJSON(w, http.StatusOK, struct {
		FeatureImportance *orderedObject `json:"featureImportance"`
		PageNumber        int            `json:"pageNumber"`
		TotalPages        int            `json:"totalPages"`
		PageSize          int            `json:"pageSize"`
		TotalCount        int64          `json:"totalCount"`
		sessionJSON
	}{imp, pgEnv.PageNumber, pgEnv.TotalPages, pgEnv.PageSize, pgEnv.TotalCount, sj})
}

// sessionJSON is a session (REFERENCE §2.3), fields in recorded order.
type sessionJSON struct {
	Columns             columnsJSON       `json:"columns,omitempty"`
	SessionID           string            `json:"sessionId"`
	Type                string            `json:"type"`
	Status              string            `json:"status"`
	EventName           string            `json:"eventName,omitempty"`
	PredictionDomain    string            `json:"predictionDomain"`
	SupportsImportance  bool              `json:"supportsFeatureImportance"`
	PredictionIntervals []string          `json:"availablePredictionIntervals"`
	ModelID             string            `json:"modelId,omitempty"`
	StartDate           string            `json:"startDate,omitempty"`
	EndDate             string            `json:"endDate,omitempty"`
	ResultInterval      string            `json:"resultInterval,omitempty"`
	RequestedDate       string            `json:"requestedDate"`
	StatusHistory       []statusJSON      `json:"statusHistory"`
	ExtraParameters     *orderedObject    `json:"extraParameters"`
	Messages            []message         `json:"messages"`
	Name                string            `json:"name"`
	DataSourceName      string            `json:"dataSourceName"`
	DataSetName         string            `json:"dataSetName"`
	TargetColumn        string            `json:"targetColumn"`
	Algorithm           *engine.Algorithm `json:"algorithm,omitempty"`
	Progress            *int              `json:"approximateCompletionPercentage,omitempty"`
	MissingValues       []string          `json:"missingValues,omitempty"`
	CallbackURL         *string           `json:"callbackUrl,omitempty"` // see Compat.callbackURL
	IsEstimate          bool              `json:"isEstimate"`
	Links               []link            `json:"links"`
}

// sessionLinks picks a session's links (REFERENCE §2.3 "Recommend").
type sessionLinks func(base string, sess engine.Session) []link

func dataLink(base string, sess engine.Session) string {
	return base + "/data/" + pathEscape(sess.DataSourceName)
}

// sessionLinksFull are the links of creation and the single GET.
func sessionLinksFull(base string, sess engine.Session) []link {
	sid := base + "/sessions/" + sess.ID
	out := []link{{"results", sid + "/results"}, {"data", dataLink(base, sess)}}
	if sess.ModelID != "" {
		out = append(out, link{"model", base + "/models/" + sess.ModelID})
	}
	if sess.Status == engine.StatusCompleted {
		out = append(out, link{"contest", sid + "/contest"})
	}
	if sess.SupportsImportance {
		out = append(out, link{"featureImportance", sid + "/results/featureimportance"})
	}
	if sess.UsesText() {
		out = append(out, vocabulariesLink(base, sess))
	}
	return append(out, link{"self", sid})
}

// vocabulariesLink lists the vocabularies a session builds of its text
// columns (REFERENCE §1.7); it is there from creation, as recorded, and
// lists none until the session has built them.
func vocabulariesLink(base string, sess engine.Session) link {
	return link{"vocabularies", base + "/vocabulary?createdFromSession=" + sess.ID}
}

// sessionLinksItem are the links of a list item.
func sessionLinksItem(base string, sess engine.Session) []link {
	sid := base + "/sessions/" + sess.ID
	return []link{{"results", sid + "/results"}, {"data", dataLink(base, sess)}, {"self", sid}}
}

func toSessionJSON(base string, sess engine.Session, links sessionLinks, c Compat) sessionJSON {
	out := sessionJSON{
		Columns: sess.Columns, SessionID: sess.ID, Type: string(sess.Type), Status: string(sess.Status),
		EventName: sess.EventName, PredictionDomain: sess.Domain, SupportsImportance: sess.SupportsImportance,
		PredictionIntervals: sess.PredictionIntervals, ModelID: sess.ModelID, RequestedDate: formatEventTime(sess.Requested),
		StatusHistory: make([]statusJSON, len(sess.History)), ExtraParameters: &orderedObject{},
		Messages: make([]message, len(sess.Messages)), Name: sess.Name, DataSourceName: sess.DataSourceName,
		DataSetName: sess.DataSourceName, TargetColumn: sess.TargetColumn, Algorithm: sess.Algorithm,
		MissingValues: sess.MissingValues, CallbackURL: c.callbackURL(sess.CallbackURL), IsEstimate: sess.IsEstimate,
	}
	if w := sess.Window; w != nil {
		out.StartDate, out.EndDate, out.ResultInterval = formatEventTime(w.Start), formatEventTime(w.End), w.Interval
	}
	if out.PredictionIntervals == nil {
		out.PredictionIntervals = []string{}
	}
	for _, e := range sess.Extra {
		out.ExtraParameters.set(e.Name, e.Value)
	}
	for i, h := range sess.History {
		out.StatusHistory[i] = statusJSON{Date: formatEventTime(h.Date), Status: string(h.Status)}
	}
	for i, m := range sess.Messages {
		out.Messages[i] = message{Severity: m.Severity, Message: m.Text}
	}
	if sess.Status == engine.StatusStarted {
		pct := sess.Progress
		out.Progress = &pct
	}
	if links != nil {
		out.Links = links(base, sess)
	}
	return out
}

// firstDate reads the first of several date parameter aliases given.
func firstDate(q params, names ...string) (*time.Time, error) {
	for _, n := range names {
		if q.has(n) {
			return q.date(n)
		}
	}
	return nil, nil
}
