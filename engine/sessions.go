package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// More statuses of REFERENCE §1.8, used by sessions only.
const (
	StatusCancelled           Status = "cancelled"
	StatusCancellationPending Status = "cancellationPending"
	StatusEstimated           Status = "estimated"
)

// SessionType is the kind of session (REFERENCE §2.3).
type SessionType string

// The session types.
const (
	SessionForecast SessionType = "forecast"
	SessionImpact   SessionType = "impact"
	SessionModel    SessionType = "model"
)

// Prediction domains of model sessions (REFERENCE §6.3).
const (
	DomainRegression     = "regression"
	DomainClassification = "classification"
	DomainAnomalies      = "anomalies"
)

// SessionRequest is a POST /sessions/* body merged with its query
// (REFERENCE §6 "parameter passing"), before validation: every field is
// the client's text.
type SessionRequest struct {
	Type             SessionType
	DataSourceName   string
	TargetColumn     string
	PredictionDomain string
	Name             string
	CallbackURL      string
	Columns          []columnar.Spec
	// ExtraParameters are the request's extraParameters as text (JSON
	// booleans become "true"/"false").
	ExtraParameters map[string]string
	MissingValues   []string
	IsEstimate      bool
	// StartDate, EndDate and ResultInterval are a forecast session's
	// window and bucket size as the client wrote them (REFERENCE §6.1).
	StartDate, EndDate, ResultInterval string
	// EventName names an impact session's event (REFERENCE §6.2).
	EventName string
}

// Algorithm names a contestant's algorithm (REFERENCE §2.2).
type Algorithm struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ExtraParam is one entry of a session's extraParameters; Value is a bool
// or a string.
type ExtraParam struct {
	Name  string
	Value any
}

// Session is a session as the API shows it (REFERENCE §2.3).
type Session struct {
	ID                  string
	Type                SessionType
	Status              Status
	Domain              string
	EventName           string
	SupportsImportance  bool
	PredictionIntervals []string
	ModelID             string
	Requested           time.Time
	StatusDate          time.Time
	History             []StatusChange
	Extra               []ExtraParam
	Messages            []Message
	Name                string
	DataSourceName      string
	TargetColumn        string
	CallbackURL         string
	WebhookToken        string
	Algorithm           *Algorithm
	Metrics             map[string]float64 // the champion's test metrics once completed
	// Progress is the approximate completion percentage while started.
	Progress      int
	MissingValues []string
	IsEstimate    bool
	Columns       []columnar.Column
	// Window is a forecast session's window; nil for other sessions.
	Window *ForecastWindow

	sourceIsView bool // the data source is a view
}

// sessionRecord is what the catalog keeps of a request to run it again.
type sessionRecord struct {
	Request SessionRequest `json:"request"`
	// View says the data source is a view.
	View bool `json:"view"`
	// Window is a forecast session's validated window.
	Window *ForecastWindow `json:"window,omitempty"`
}

// CreateSession validates a session request and records it: an estimate
// is stored as estimated and never runs (REFERENCE §6.4); anything else is
// requested and handed to the session workers. It answers at once.
func (e *Engine) CreateSession(ctx context.Context, req SessionRequest) (Session, error) {
	s, rec, err := e.planSession(ctx, req)
	if err != nil {
		return Session{}, err
	}
	if !s.IsEstimate {
		n, err := e.countSessions(ctx)
		if err != nil {
			return Session{}, err
		}
		if n >= e.opts.Allotments.Sessions {
			return Session{}, &Error{Kind: QuotaExceeded, Msg: fmt.Sprintf("Usage Alert - You have 0 Sessions left for this cycle (%d allotted).", e.opts.Allotments.Sessions)}
		}
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Session{}, fmt.Errorf("session id: %w", err)
	}
	now := e.now()
	s.ID, s.Requested, s.StatusDate = id.String(), now, now
	s.Status = StatusRequested
	s.History = []StatusChange{{Date: now, Status: StatusRequested}}
	if s.IsEstimate {
		s.Status = StatusEstimated
		s.History = append(s.History, StatusChange{Date: now, Status: StatusEstimated})
	}
	if s.CallbackURL != "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return Session{}, err
		}
		s.WebhookToken = hex.EncodeToString(b)
	}
	if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.insertSession(ctx, s, rec) }); err != nil {
		return Session{}, err
	}
	if !s.IsEstimate {
		if e.opts.Notifier != nil && s.CallbackURL != "" {
			e.opts.Notifier.Notify(s) // before a worker can start it
		}
		e.sessions.notify()
	}
	return s, nil
}

// planSession validates a request against its data source and works out
// the session as it will be shown (REFERENCE §6.3, MODELLING §5.1).
func (e *Engine) planSession(ctx context.Context, req SessionRequest) (Session, sessionRecord, error) {
	details := map[string][]string{}
	add := func(field, msg string) { details[field] = append(details[field], msg) }
	if strings.TrimSpace(req.DataSourceName) == "" {
		add("dataSourceName", "The dataSourceName field is required.")
	}
	domain := strings.ToLower(strings.TrimSpace(req.PredictionDomain))
	if req.Type == SessionModel {
		switch domain {
		case DomainRegression:
		case DomainClassification:
			if _, ok := parseBool(req.ExtraParameters, "balance", true); !ok {
				add("balance", "Value for balance must be true or false")
			}
		case DomainAnomalies:
			if _, ok := parseBool(req.ExtraParameters, "containsAnomalies", true); !ok {
				add("containsAnomalies", "Value for containsAnomalies must be true or false")
			}
		case "":
			add("predictionDomain", "The predictionDomain field is required: regression, classification or anomalies.")
		default:
			add("predictionDomain", fmt.Sprintf("Value '%s' for predictionDomain must be regression, classification or anomalies.", req.PredictionDomain))
		}
	}
	var window *ForecastWindow
	switch req.Type {
	case SessionModel:
	case SessionForecast:
		domain = string(SessionForecast)
		window = forecastWindow(req, add)
	case SessionImpact:
		domain = string(SessionImpact)
		window = forecastWindow(req, add)
		if strings.TrimSpace(req.EventName) == "" {
			add("eventName", "The eventName field is required.")
		}
	default:
		add("type", fmt.Sprintf("%s sessions are not available on this server yet.", req.Type))
	}
	if req.CallbackURL != "" {
		u, err := url.Parse(req.CallbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add("callbackUrl", "Value for callbackUrl must be an absolute http or https URL")
		}
	}
	if len(details) > 0 {
		return Session{}, sessionRecord{}, validationErr(details)
	}
	if window != nil {
		if err := checkRange(&window.Start, &window.End); err != nil {
			return Session{}, sessionRecord{}, err
		}
		// The window alone can exceed the horizon limit; a gap before it is
		// known only once the data is read (planForecast).
		iv, limit := window.Interval, e.opts.MaxForecastBuckets
		if h := bucketSteps(window.bucket(window.Start), window.bucket(window.End), iv) + 1; h > limit {
			return Session{}, sessionRecord{}, validationErr(map[string][]string{"endDate": {
				fmt.Sprintf("The forecast window holds %d %s buckets; at most %d can be forecast (the server's -max-forecast-buckets).", h, iv, limit)}})
		}
	}
	if err := validSpecs(req.Columns); err != nil {
		return Session{}, sessionRecord{}, err
	}
	cols, isView, rows, err := e.sourceColumns(ctx, req.DataSourceName)
	if err != nil {
		return Session{}, sessionRecord{}, err
	}
	if rows == 0 {
		// Before any check of the metadata: the column types of a source
		// without rows may not even be known yet.
		return Session{}, sessionRecord{}, noDataError(req.DataSourceName)
	}
	if err := applyOverrides(cols, req.Columns, "session's data source"); err != nil {
		return Session{}, sessionRecord{}, err
	}
	var target string
	var ignored string // an anomalies session's unused target
	if domain == DomainAnomalies {
		cols, ignored, err = anomalyColumns(cols, req.TargetColumn)
		target = sqlgen.AnomalyColumn
	} else {
		target, err = chooseTarget(cols, req.TargetColumn)
	}
	if err != nil {
		return Session{}, sessionRecord{}, err
	}
	src := req.DataSourceName
	if i := columnIndex(cols, target); i >= 0 {
		target = cols[i].Name
	}
	fillFeatures(cols)
	s := Session{
		Type: req.Type, Domain: domain, DataSourceName: src, TargetColumn: target,
		Name: req.Name, CallbackURL: req.CallbackURL, Columns: cols, IsEstimate: req.IsEstimate,
		MissingValues: req.MissingValues, PredictionIntervals: predictionIntervals(), sourceIsView: isView,
		Extra: []ExtraParam{}, Messages: []Message{}, Window: window,
	}
	if window != nil {
		if s.Type == SessionImpact {
			s.EventName = req.EventName
			s.Extra = impactExtra(s)
		}
		if s.Name == "" {
			s.Name = "Forecast on " + src
			if s.Type == SessionImpact {
				s.Name = "Impact on " + src
			}
		}
		if err := checkForecastData(&s); err != nil {
			return Session{}, sessionRecord{}, err
		}
		if s.Type == SessionImpact {
			if err := e.checkImpactDates(ctx, &s); err != nil {
				return Session{}, sessionRecord{}, err
			}
		}
		return s, sessionRecord{Request: req, View: isView, Window: window}, nil
	}
	s.Extra = sessionExtra(s, req)
	if s.Domain != DomainRegression {
		s.PredictionIntervals = []string{}
	}
	if s.Name == "" {
		s.Name = map[string]string{DomainRegression: "Regression on ", DomainClassification: "Classification on ", DomainAnomalies: "Anomalies on "}[s.Domain] + src
	}
	if ignored != "" {
		s.Messages = append(s.Messages, Message{"warning", anomalyWarning})
	}
	if s.Domain == DomainAnomalies {
		if err := checkAnomalyData(&s, rows); err != nil {
			return Session{}, sessionRecord{}, err
		}
		return s, sessionRecord{Request: req, View: isView}, nil
	}
	if err := e.checkModelData(ctx, &s); err != nil {
		return Session{}, sessionRecord{}, err
	}
	return s, sessionRecord{Request: req, View: isView}, nil
}

func validationErr(details map[string][]string) *Error {
	d := make(map[string]any, len(details))
	for k, v := range details {
		d[k] = v
	}
	return &Error{Kind: Invalid, Msg: "Request is invalid", Details: d}
}

// sourceColumns resolves a data source: a dataset, else a view of that
// name (REFERENCE §6: dataSourceName names either). rows is how many rows
// it has: a view has its base dataset's, since joins never add or remove
// base rows.
func (e *Engine) sourceColumns(ctx context.Context, name string) (cols []columnar.Column, isView bool, rows int64, err error) {
	d, ok, err := e.loadDataset(ctx, name)
	if err != nil {
		return nil, false, 0, err
	}
	if ok {
		return append([]columnar.Column(nil), d.Columns...), false, d.RowCount, nil
	}
	if _, ok, err := e.loadView(ctx, name); err != nil {
		return nil, false, 0, err
	} else if !ok {
		return nil, false, 0, NotFoundError("dataSource", name)
	}
	v, err := e.View(ctx, name)
	if err != nil {
		return nil, false, 0, err
	}
	base, err := e.Dataset(ctx, v.DataSetName)
	if err != nil {
		return nil, false, 0, err
	}
	return append([]columnar.Column(nil), v.Columns...), true, base.RowCount, nil
}

// noDataError is the reference's NoData for a session whose data source
// has no rows (REFERENCE §6.1, §6.3); errorDetails names the source under
// dataSetName, the key of NoData in §1.10 and the session's alias of
// dataSourceName.
func noDataError(source string) *Error {
	return &Error{Kind: NoData, Msg: "No data was found in data source " + source,
		Details: map[string]any{"dataSetName": source}}
}

// chooseTarget applies the request's targetColumn (which takes the target
// role from any other column) or finds the column whose role is target.
func chooseTarget(cols []columnar.Column, requested string) (string, error) {
	if requested != "" {
		i := columnIndex(cols, requested)
		if i < 0 {
			return "", MetadataError(map[string][]string{requested: {"Target column " + requested + " is not in the data source."}})
		}
		for j := range cols {
			if j != i && cols[j].Role == columnar.RoleTarget {
				cols[j].Role = columnar.RoleFeature
			}
		}
		cols[i].Role = columnar.RoleTarget
		return cols[i].Name, nil
	}
	if t := columnWithRole(cols, columnar.RoleTarget); t != "" {
		return t, nil
	}
	return "", MetadataError(map[string][]string{"targetColumn": {"A target column is required: name it with targetColumn or give a column the role target."}})
}

// fillFeatures gives every column without a role the role feature, so
// that a session (and the model it builds) reports the metadata it runs
// with: REFERENCE §2.1 inference rule 4 uses every column that is not the
// target, timestamp, key or none as a feature, and has session responses
// fill those roles in while datasets keep them absent. Text columns are
// features too; the session warns that it does not use them yet.
func fillFeatures(cols []columnar.Column) {
	for i := range cols {
		if cols[i].Role == "" {
			cols[i].Role = columnar.RoleFeature
		}
	}
}

// minModelRows is the fewest rows with a target value a model session
// accepts: the 20 % test split needs at least 2 rows and every candidate's
// internal 5-fold validation needs rows in each fold.
const minModelRows = 20

// checkModelData checks that a regression session can run: a numeric
// target, at least one feature, enough rows with a target value.
func (e *Engine) checkModelData(ctx context.Context, s *Session) error {
	ti := columnIndex(s.Columns, s.TargetColumn)
	t := s.Columns[ti]
	kind := s.Domain
	switch {
	case s.Domain == DomainClassification && t.DataType != columnar.Date && t.DataType != columnar.Text:
		// Any label type: string, numeric or logical (MODELLING §7.1).
	case s.Domain == DomainClassification:
		return MetadataError(map[string][]string{t.Name: {fmt.Sprintf("The target of a classification must hold labels (string, numeric or logical); %s is %s.", t.Name, t.DataType)}})
	case t.DataType != columnar.Numeric && t.DataType != columnar.NumericMeasure:
		return MetadataError(map[string][]string{t.Name: {fmt.Sprintf("The target of a regression must be numeric; %s is %s.", t.Name, t.DataType)}})
	}
	features := 0
	for _, c := range s.Columns {
		if c.Name != t.Name && isFeature(c) {
			features++
		}
	}
	if features == 0 {
		return MetadataError(map[string][]string{t.Name: {fmt.Sprintf("A %s needs at least one feature column besides the target.", kind)}})
	}
	n, err := e.countTargetRows(ctx, s.DataSourceName, s.sourceIsView, t.Name)
	if err != nil {
		return err
	}
	if n < minModelRows {
		return &Error{Kind: Invalid, Msg: fmt.Sprintf("The data source has %d rows with a value for %s; a %s needs at least %d.", n, t.Name, kind, minModelRows),
			Details: map[string]any{"dataSourceName": []string{fmt.Sprintf("%d rows with a target value; at least %d are needed", n, minModelRows)}}}
	}
	return nil
}

// isFeature says whether a model session uses a column as input: features
// and columns without a role (MODELLING §1.1), text included (§10).
func isFeature(c columnar.Column) bool {
	return c.Role == columnar.RoleFeature || c.Role == ""
}

// Session returns a session by id.
func (e *Engine) Session(ctx context.Context, id string) (Session, error) {
	u, err := parseID("sessionId", id)
	if err != nil {
		return Session{}, err
	}
	ss, _, err := e.listSessions(ctx, sessionFilter{ID: u, Limit: 1})
	if err != nil {
		return Session{}, err
	}
	if len(ss) == 0 {
		return Session{}, NotFoundError("session", id)
	}
	return ss[0], nil
}

// parseID checks a GUID parameter (REFERENCE §6.7: "Value for sessionId
// must be a valid GUID").
func parseID(field, id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", Validation(field, "Value for "+field+" must be a valid GUID")
	}
	return u.String(), nil
}

// SessionQuery selects sessions (REFERENCE §6.5, §6.6).
type SessionQuery struct {
	DataSourceName  string
	EventName       string
	ModelID         string
	Type            string
	RequestedAfter  *time.Time
	RequestedBefore *time.Time
	SortBy          string
	Desc, DescGiven bool
	Page, PageSize  int
}

// SessionSortKeys are the sortBy values of GET /sessions.
var SessionSortKeys = []string{"id", "dataSourceName", "name", "type", "status", "requestedDate", "currentStatusDate"}

func (q SessionQuery) filter() (sessionFilter, error) {
	f := sessionFilter{DataSource: q.DataSourceName, Event: q.EventName, After: q.RequestedAfter, Before: q.RequestedBefore}
	if q.ModelID != "" {
		id, err := parseID("modelId", q.ModelID)
		if err != nil {
			return f, err
		}
		f.Model = id
	}
	if q.Type != "" {
		t := strings.ToLower(q.Type)
		if t != string(SessionForecast) && t != string(SessionImpact) && t != string(SessionModel) {
			return f, Validation("type", "Value for type must be forecast, impact or model")
		}
		f.Type = t
	}
	return f, dateOrder("requestedAfterDate", "requestedBeforeDate", q.RequestedAfter, q.RequestedBefore)
}

// ListSessions returns a page of sessions, newest first unless sorted,
// and how many match.
func (e *Engine) ListSessions(ctx context.Context, q SessionQuery) ([]Session, int, error) {
	sortBy, desc, err := listOrder(SessionSortKeys, q.SortBy, q.Desc, q.DescGiven)
	if err != nil {
		return nil, 0, err
	}
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	f.SortBy, f.Desc = sortBy, desc
	f.Limit, f.Offset = q.PageSize, q.Page*q.PageSize
	return e.listSessions(ctx, f)
}

// DeleteSession removes a session, its results and contest (REFERENCE
// §6.9). The model it built stays: models have their own delete; so do the
// vocabularies of its text columns while that model remains, since the
// model encodes text with them (dropUnusedVocabularies). A session
// still running is cancelled first: it disappears at once and its worker
// stops at its next step.
func (e *Engine) DeleteSession(ctx context.Context, id string) error {
	sid, err := parseID("sessionId", id)
	if err != nil {
		return err
	}
	ss, _, err := e.listSessions(ctx, sessionFilter{ID: sid, Limit: 1})
	if err != nil {
		return err
	}
	if len(ss) == 0 {
		return NotFoundError("session", id)
	}
	return e.removeSessions(ctx, []Session{ss[0]})
}

// DeleteSessions removes the sessions matching q (REFERENCE §6.6); at
// least one selector is required.
func (e *Engine) DeleteSessions(ctx context.Context, q SessionQuery) error {
	if q.DataSourceName == "" && q.EventName == "" && q.Type == "" && q.RequestedAfter == nil && q.RequestedBefore == nil && q.ModelID == "" {
		return &Error{Kind: ParametersRequired, Msg: "Some session selection parameters are required.", Details: map[string]any{}}
	}
	f, err := q.filter()
	if err != nil {
		return err
	}
	ss, _, err := e.listSessions(ctx, f)
	if err != nil {
		return err
	}
	return e.removeSessions(ctx, ss)
}

// removeSessions deletes finished sessions at once; running ones are
// hidden and cancelled, and their worker purges them when it stops.
func (e *Engine) removeSessions(ctx context.Context, ss []Session) error {
	for _, s := range ss {
		if s.Status == StatusStarted || s.Status == StatusRequested {
			// Hide it first (no worker claims a hidden session), then
			// cancel: a worker that holds it purges it when it stops.
			if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.hideSession(ctx, s.ID) }); err != nil {
				return err
			}
			e.sessions.callback(s.ID) // cancellationPending
			if e.sessions.cancel(s.ID) {
				continue // its worker ends it cancelled and purges it
			}
			if err := e.setSessionStatus(ctx, s.ID, StatusCancelled); err != nil {
				return err
			}
			e.sessions.callback(s.ID)
		}
		if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.purgeSession(ctx, s.ID) }); err != nil {
			return err
		}
	}
	return nil
}

// removeSessionsWhere removes the sessions matching f (a dataset or view
// delete's cascade).
func (e *Engine) removeSessionsWhere(ctx context.Context, f sessionFilter) error {
	ss, _, err := e.listSessions(ctx, f)
	if err != nil {
		return err
	}
	return e.removeSessions(ctx, ss)
}
