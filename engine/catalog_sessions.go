package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// This file holds the SQL of the session tables of the catalog.

func (e *Engine) insertSession(ctx context.Context, s Session, rec sessionRecord) error {
	defer e.sessionChanged(ctx, s.ID)
	req, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	cols, err := json.Marshal(s.Columns)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.sessions
		(id, type, domain, status, data_source, target, name, event_name, callback_url, webhook_token, is_estimate, requested, status_date, request, columns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, string(s.Type), s.Domain, string(s.Status), s.DataSourceName, s.TargetColumn, s.Name, nullable(s.EventName),
		s.CallbackURL, s.WebhookToken, s.IsEstimate, s.Requested, s.StatusDate, string(req), string(cols)); err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	for _, h := range s.History {
		if err := e.addSessionStatus(ctx, s.ID, h.Date, h.Status); err != nil {
			return err
		}
	}
	return e.addSessionMessages(ctx, s.ID, s.Messages...)
}

func (e *Engine) addSessionStatus(ctx context.Context, id string, at time.Time, s Status) error {
	defer e.sessionChanged(ctx, id)
	return e.addStatus(ctx, "session_history", "session_id", id, at, s)
}

func (e *Engine) addSessionMessages(ctx context.Context, id string, msgs ...Message) error {
	defer e.sessionChanged(ctx, id)
	return e.addMessages(ctx, "session_messages", "session_id", id, msgs...)
}

// setSessionStatus moves a session to s, recording the change.
func (e *Engine) setSessionStatus(ctx context.Context, id string, s Status, msgs ...Message) error {
	return e.store.Tx(ctx, func(ctx context.Context) error {
		defer e.sessionChanged(ctx, id)
		now := e.now()
		if _, err := e.store.Exec(ctx, `UPDATE catalog.sessions SET status = ?, status_date = ? WHERE id = ?`, string(s), now, id); err != nil {
			return fmt.Errorf("set session status: %w", err)
		}
		if err := e.addSessionMessages(ctx, id, msgs...); err != nil {
			return err
		}
		return e.addSessionStatus(ctx, id, now, s)
	})
}

// claimRequestedSession marks the oldest requested session started,
// records the change in its history and returns the session (without its
// history and messages, which a run does not read); ok is false when none
// waits. It is the one place a session is handed to a worker, so claiming
// can move to a shared database. The query that picks the session reads
// it, so the worker needs no other read. (One UPDATE … WHERE id =
// (SELECT …) RETURNING took longer in DuckDB than the SELECT and an
// UPDATE by id.)
func (e *Engine) claimRequestedSession(ctx context.Context) (s Session, ok bool, err error) {
	err = e.store.Tx(ctx, func(ctx context.Context) error {
		rows, err := e.store.Rows(ctx, `SELECT `+sessionColumns+` FROM catalog.sessions
			WHERE status = 'requested' AND NOT deleted ORDER BY requested, id LIMIT 1`)
		if err != nil {
			return fmt.Errorf("claim session: %w", err)
		}
		defer rows.Close()
		if !rows.Next() {
			return rows.Err()
		}
		if s, err = scanSession(rows); err != nil {
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		now := e.now()
		if _, err := e.store.Exec(ctx, `UPDATE catalog.sessions SET status = 'started', status_date = ? WHERE id = ?`, now, s.ID); err != nil {
			return fmt.Errorf("claim session: %w", err)
		}
		s.Status, ok = StatusStarted, true
		return e.addSessionStatus(ctx, s.ID, now, StatusStarted)
	})
	return s, ok, err
}

// unfinishedSessions lists sessions a previous process left requested,
// started or being cancelled, and deleted ones awaiting their purge.
func (e *Engine) unfinishedSessions(ctx context.Context) (started, pending, deleted []string, err error) {
	rows, err := e.store.Rows(ctx, `SELECT id, status, deleted FROM catalog.sessions
		WHERE deleted OR status IN ('started', 'cancellationPending') ORDER BY requested, id`)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read unfinished sessions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, st string
		var del bool
		if err := rows.Scan(&id, &st, &del); err != nil {
			return nil, nil, nil, err
		}
		switch {
		case del:
			deleted = append(deleted, id)
		case Status(st) == StatusStarted:
			started = append(started, id)
		default:
			pending = append(pending, id)
		}
	}
	return started, pending, deleted, rows.Err()
}

// hideSession marks a running session deleted; its worker purges it.
func (e *Engine) hideSession(ctx context.Context, id string) error {
	defer e.sessionChanged(ctx, id)
	now := e.now()
	if _, err := e.store.Exec(ctx, `UPDATE catalog.sessions SET deleted = true, status = 'cancellationPending', status_date = ? WHERE id = ?`, now, id); err != nil {
		return fmt.Errorf("hide session: %w", err)
	}
	return e.addSessionStatus(ctx, id, now, StatusCancellationPending)
}

// purgeSession removes a session, its contest and its results tables.
// Its vocabularies stay while a model it built remains
// (dropUnusedVocabularies).
func (e *Engine) purgeSession(ctx context.Context, id string) error {
	defer e.sessionChanged(ctx, id)
	for _, q := range []string{
		`DELETE FROM catalog.sessions WHERE id = ?`,
		`DELETE FROM catalog.session_history WHERE session_id = ?`,
		`DELETE FROM catalog.session_messages WHERE session_id = ?`,
		`DELETE FROM catalog.contestants WHERE session_id = ?`,
		`DELETE FROM catalog.selection WHERE session_id = ?`,
		`DELETE FROM catalog.session_features WHERE session_id = ?`,
		`DELETE FROM catalog.session_classes WHERE session_id = ?`,
	} {
		if _, err := e.store.Exec(ctx, q, id); err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
	}
	if err := e.dropUnusedVocabularies(ctx, []string{id}); err != nil {
		return err
	}
	return e.dropResults(ctx, id)
}

// dropResults drops a session's tables in schema results.
func (e *Engine) dropResults(ctx context.Context, id string) error {
	for _, t := range []string{sqlgen.SnapshotTable(id), sqlgen.PredictionsTable(id), sqlgen.ForecastTable(id), sqlgen.ClassesTable(id), sqlgen.ClassScoresTable(id), sqlgen.DistancesTable(id)} {
		q, err := sqlgen.DropResults(t)
		if err != nil {
			return err
		}
		if _, err := e.store.Exec(ctx, q); err != nil {
			return fmt.Errorf("drop results of session %s: %w", id, err)
		}
	}
	return nil
}

// countSessions counts the sessions that use the session quota: every
// stored session but estimates.
func (e *Engine) countSessions(ctx context.Context) (int64, error) {
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM catalog.sessions WHERE NOT is_estimate`)
	if err != nil {
		return 0, err
	}
	var n int64
	return n, scanOne(rows, &n)
}

// sessionFilter selects sessions for listSessions.
type sessionFilter struct {
	ID            string
	DataSource    string
	Event         string
	Model         string
	Type          string
	After, Before *time.Time
	SortBy        string
	Desc          bool
	Limit, Offset int
	Hidden        bool // include sessions hidden by a delete (callbacks only)
}

// sessionOrder maps the sort keys of GET /sessions (lower-cased; "" the
// default) to columns.
var sessionOrder = map[string]string{"": "requested", "id": "id", "datasourcename": "lower(data_source)", "name": "lower(name)",
	"type": "type", "status": "status", "requesteddate": "requested", "currentstatusdate": "status_date"}

// list is the catalog query of f.
func (f sessionFilter) list() *listSQL {
	l := &listSQL{table: "sessions", orderBy: sessionOrder, sortBy: f.SortBy, desc: f.Desc, limit: f.Limit, offset: f.Offset, count: f.ID == "",
		columns: sessionColumns}
	if !f.Hidden {
		l.and("NOT deleted")
	}
	if f.ID != "" {
		l.and("id = ?", f.ID)
	}
	if f.DataSource != "" {
		l.and("lower(data_source) = lower(?)", f.DataSource)
	}
	if f.Event != "" {
		l.and("lower(event_name) = lower(?)", f.Event)
	}
	if f.Model != "" {
		l.and("model_id = ?", f.Model)
	}
	if f.Type != "" {
		l.and("type = ?", f.Type)
	}
	if f.After != nil {
		l.and("requested >= ?", f.After.UTC())
	}
	if f.Before != nil {
		l.and("requested <= ?", f.Before.UTC())
	}
	return l
}

// lookup reports whether f selects one visible session by id and nothing
// else: the lookups the cache answers.
func (f sessionFilter) lookup() bool {
	return f.ID != "" && !f.Hidden && f.DataSource == "" && f.Event == "" && f.Model == "" && f.Type == "" &&
		f.After == nil && f.Before == nil && f.Offset == 0
}

// listSessions returns the sessions matching f (not hidden ones unless
// f.Hidden) with their histories, messages and columns, and how many match
// (0 for a lookup by id). A lookup by id comes from the cache when it may
// (catalogCache); the progress of a started session is always current.
func (e *Engine) listSessions(ctx context.Context, f sessionFilter) ([]Session, int, error) {
	var out []Session
	var total int
	var err error
	if !f.lookup() || !e.cached(ctx) {
		out, total, err = e.querySessions(ctx, f)
	} else if s, ok := e.cache.session(f.ID); ok {
		out = []Session{s}
	} else {
		gen := e.cache.begin()
		if out, _, err = e.querySessions(ctx, f); err == nil && len(out) == 1 {
			e.cache.putSession(gen, out[0])
		}
	}
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		if out[i].Status == StatusStarted {
			out[i].Progress = e.sessions.progressOf(out[i].ID)
		}
	}
	return out, total, nil
}

// querySessions reads the sessions matching f from the catalog (without
// their progress).
func (e *Engine) querySessions(ctx context.Context, f sessionFilter) ([]Session, int, error) {
	rows, total, err := e.list(ctx, f.list())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Session
	var ids []string
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, 0, err
		}
		out, ids = append(out, s), append(ids, s.ID)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	if err := e.loadJobLogs(ctx, "session", ids,
		func(i int, h StatusChange) { out[i].History = append(out[i].History, h) },
		func(i int, m Message) { out[i].Messages = append(out[i].Messages, m) }); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// sessionColumns are the columns of catalog.sessions scanSession reads,
// in its order.
const sessionColumns = `id, type, domain, status, data_source, target, name, event_name, callback_url, webhook_token, is_estimate,
		requested, status_date, request, columns, model_id, algorithm, metrics, feature_importance`

func scanSession(rows *sql.Rows) (Session, error) {
	var s Session
	var typ, status, req, cols string
	var event, model, algo, metrics sql.NullString
	if err := rows.Scan(&s.ID, &typ, &s.Domain, &status, &s.DataSourceName, &s.TargetColumn, &s.Name, &event, &s.CallbackURL,
		&s.WebhookToken, &s.IsEstimate, &s.Requested, &s.StatusDate, &req, &cols, &model, &algo, &metrics, &s.SupportsImportance); err != nil {
		return s, err
	}
	s.Type, s.Status, s.EventName, s.ModelID = SessionType(typ), Status(status), event.String, model.String
	s.Requested, s.StatusDate = s.Requested.UTC(), s.StatusDate.UTC()
	s.History, s.Messages = []StatusChange{}, []Message{}
	var rec sessionRecord
	if err := json.Unmarshal([]byte(req), &rec); err != nil {
		return s, fmt.Errorf("session %s request: %w", s.ID, err)
	}
	s.MissingValues, s.sourceIsView = rec.Request.MissingValues, rec.View
	if err := json.Unmarshal([]byte(cols), &s.Columns); err != nil {
		return s, fmt.Errorf("session %s columns: %w", s.ID, err)
	}
	if algo.Valid {
		s.Algorithm = &Algorithm{}
		if err := json.Unmarshal([]byte(algo.String), s.Algorithm); err != nil {
			return s, err
		}
	}
	if metrics.Valid {
		if err := json.Unmarshal([]byte(metrics.String), &s.Metrics); err != nil {
			return s, err
		}
	}
	s.Window = rec.Window
	s.PredictionIntervals = predictionIntervals()
	if (s.Type == SessionForecast || s.Type == SessionImpact) && s.Status == StatusCompleted {
		s.PredictionIntervals = forecastIntervals()
	}
	if s.Domain == DomainClassification || s.Domain == DomainAnomalies {
		s.PredictionIntervals = []string{}
	}
	s.Extra = sessionExtra(s, rec.Request)
	return s, nil
}

// columnsJSON is a column list as the catalog stores it.
func columnsJSON(cols []columnar.Column) (string, error) {
	b, err := json.Marshal(cols)
	return string(b), err
}
