package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// This file holds the SQL of the contest and model tables of the catalog.

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("engine: marshal %T: %v", v, err)) // only plain maps, slices and structs reach here
	}
	return string(b)
}

// finiteMetrics drops non-finite values, which JSON cannot carry
// (MODELLING §0).
func finiteMetrics(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[k] = v
		}
	}
	return out
}

// clearSessionOutputs removes what a session run writes, so a run that
// starts again starts clean.
func (e *Engine) clearSessionOutputs(ctx context.Context, id string) error {
	for _, q := range []string{
		`DELETE FROM catalog.contestants WHERE session_id = ?`,
		`DELETE FROM catalog.selection WHERE session_id = ?`,
		`DELETE FROM catalog.session_features WHERE session_id = ?`,
		`DELETE FROM catalog.session_classes WHERE session_id = ?`,
	} {
		if _, err := e.store.Exec(ctx, q, id); err != nil {
			return fmt.Errorf("clear session outputs: %w", err)
		}
	}
	if err := e.deleteVocabularies(ctx, vocabularyFilter{Session: id}); err != nil {
		return fmt.Errorf("clear session outputs: %w", err)
	}
	return e.dropResults(ctx, id)
}

// saveContestants stores a session's contestants in line-up order, in
// one statement (a forecast has dozens).
func (e *Engine) saveContestants(ctx context.Context, id string, cs []Contestant) error {
	if len(cs) == 0 {
		return nil
	}
	args := make([]any, 0, 8*len(cs))
	for i, c := range cs {
		args = append(args, id, c.ID, i, mustJSON(c.Algorithm), mustJSON(c.Properties), mustJSON(finiteMetrics(c.Metrics)), mustJSON(finiteMetrics(c.Importance)), nullable(c.Message))
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.contestants VALUES `+valuesList(len(cs), 8), args...); err != nil {
		return fmt.Errorf("save contestants: %w", err)
	}
	return nil
}

// saveSelection stores a session's data variants in one statement.
func (e *Engine) saveSelection(ctx context.Context, id string, sets []SelectionSet) error {
	if len(sets) == 0 {
		return nil
	}
	args := make([]any, 0, 4*len(sets))
	for i, s := range sets {
		args = append(args, id, i, mustJSON(s.Properties), mustJSON(finiteMetrics(s.Metrics)))
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.selection VALUES `+valuesList(len(sets), 4), args...); err != nil {
		return fmt.Errorf("save selection: %w", err)
	}
	return nil
}

// saveImportance stores the finite feature importances in one statement;
// it reports whether there are any (supportsFeatureImportance).
func (e *Engine) saveImportance(ctx context.Context, id string, features []string, imp []float64) (bool, error) {
	var args []any
	for i, f := range features {
		if i < len(imp) && !math.IsNaN(imp[i]) && !math.IsInf(imp[i], 0) {
			args = append(args, id, f, imp[i])
		}
	}
	if len(args) == 0 {
		return false, nil
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.session_features VALUES `+valuesList(len(args)/3, 3), args...); err != nil {
		return false, fmt.Errorf("save feature importance: %w", err)
	}
	return true, nil
}

// sessionEnd is what a completed session records on its catalog row.
type sessionEnd struct {
	modelID  string // the saved model; "" for a forecast or impact session
	champion Contestant
	supports bool      // supportsFeatureImportance
	messages []Message // the run's, after those the session was created with
}

// completeSession records a finished contest on a session and marks it
// completed: one UPDATE of its row (the champion and the status), then its
// messages and the status change. Run it in the transaction that stores
// the session's outputs, so a session is completed exactly when its
// results are there.
func (e *Engine) completeSession(ctx context.Context, id string, end sessionEnd) error {
	defer e.sessionChanged(ctx, id)
	now, c := e.now(), end.champion
	if _, err := e.store.Exec(ctx, `UPDATE catalog.sessions SET model_id = ?, algorithm = ?, metrics = ?, champion = ?, feature_importance = ?,
		status = ?, status_date = ? WHERE id = ?`,
		end.modelID, mustJSON(c.Algorithm), mustJSON(finiteMetrics(c.Metrics)), c.ID, end.supports, string(StatusCompleted), now, id); err != nil {
		return fmt.Errorf("complete session: %w", err)
	}
	if err := e.addSessionMessages(ctx, id, end.messages...); err != nil {
		return err
	}
	return e.addSessionStatus(ctx, id, now, StatusCompleted)
}

// sessionChampion returns the contestant id of a session's champion.
func (e *Engine) sessionChampion(ctx context.Context, id string) (string, error) {
	rows, err := e.store.Rows(ctx, `SELECT coalesce(champion, '') FROM catalog.sessions WHERE id = ?`, id)
	if err != nil {
		return "", err
	}
	var c string
	return c, scanOne(rows, &c)
}

// Contestant is one contestant of a session's contest (REFERENCE §2.8).
type Contestant struct {
	ID         string
	Algorithm  Algorithm
	Properties []string
	Metrics    map[string]float64
	Importance map[string]float64
	Message    string
}

// loadContestants returns a session's contestants in line-up order.
func (e *Engine) loadContestants(ctx context.Context, id string) ([]Contestant, error) {
	rows, err := e.store.Rows(ctx, `SELECT id, algorithm, properties, metrics, importance, message FROM catalog.contestants WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Contestant
	for rows.Next() {
		var c Contestant
		var algo, props, metrics, imp string
		var msg sql.NullString
		if err := rows.Scan(&c.ID, &algo, &props, &metrics, &imp, &msg); err != nil {
			return nil, err
		}
		c.Message = msg.String
		for _, p := range []struct {
			raw string
			dst any
		}{{algo, &c.Algorithm}, {props, &c.Properties}, {metrics, &c.Metrics}, {imp, &c.Importance}} {
			if err := json.Unmarshal([]byte(p.raw), p.dst); err != nil {
				return nil, fmt.Errorf("contestant %s: %w", c.ID, err)
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SelectionSet is one entry of /contest/selection.
type SelectionSet struct {
	Properties []string
	Metrics    map[string]float64
}

func (e *Engine) loadSelection(ctx context.Context, id string) ([]SelectionSet, error) {
	rows, err := e.store.Rows(ctx, `SELECT properties, metrics FROM catalog.selection WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SelectionSet{}
	for rows.Next() {
		var s SelectionSet
		var props, metrics string
		if err := rows.Scan(&props, &metrics); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(props), &s.Properties); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(metrics), &s.Metrics); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// FeatureScore is one feature's importance.
type FeatureScore struct {
	Feature string
	Value   float64
}

// loadImportance returns a page of a session's feature importances, by
// descending importance, and how many there are.
func (e *Engine) loadImportance(ctx context.Context, id string, limit, offset int) ([]FeatureScore, int, error) {
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM catalog.session_features WHERE session_id = ?`, id)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := scanOne(rows, &total); err != nil {
		return nil, 0, err
	}
	rows, err = e.store.Rows(ctx, `SELECT feature, importance FROM catalog.session_features WHERE session_id = ?
		ORDER BY importance DESC, feature LIMIT ? OFFSET ?`, id, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []FeatureScore{}
	for rows.Next() {
		var f FeatureScore
		if err := rows.Scan(&f.Feature, &f.Value); err != nil {
			return nil, 0, err
		}
		out = append(out, f)
	}
	return out, total, rows.Err()
}

func (e *Engine) insertModel(ctx context.Context, m Model, blob []byte) error {
	defer e.modelsChanged(ctx, m.ID)
	cols, err := columnsJSON(m.Columns)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.models VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
		m.ID, m.SessionID, m.Domain, m.DataSourceName, m.Name, m.Created, m.Target, mustJSON(m.Algorithm), mustJSON(finiteMetrics(m.Metrics)), cols, blob); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// modelFilter selects models.
type modelFilter struct {
	ID            string
	DataSource    string
	PartialName   string
	After, Before *time.Time
	SortBy        string
	Desc          bool
	Limit, Offset int
}

// modelOrder maps the sort keys of GET /models (lower-cased; "" the
// default) to columns.
var modelOrder = map[string]string{"": "created", "id": "id", "modelname": "lower(name)", "datasourcename": "lower(data_source)",
	"type": "domain", "predictiondomain": "domain", "createddate": "created", "lastuseddate": "last_used"}

// list is the catalog query of f.
func (f modelFilter) list() *listSQL {
	l := &listSQL{table: "models", orderBy: modelOrder, sortBy: f.SortBy, desc: f.Desc, limit: f.Limit, offset: f.Offset, count: f.ID == "",
		columns: `id, session_id, domain, data_source, name, created, last_used, target, algorithm, metrics, columns`}
	if f.ID != "" {
		l.and("id = ?", f.ID)
	}
	if f.DataSource != "" {
		l.and("lower(data_source) = lower(?)", f.DataSource)
	}
	if f.PartialName != "" {
		l.and("contains(lower(name), lower(?))", f.PartialName)
	}
	if f.After != nil {
		l.and("created >= ?", f.After.UTC())
	}
	if f.Before != nil {
		l.and("created <= ?", f.Before.UTC())
	}
	return l
}

// lookup reports whether f selects one model by id and nothing else: the
// lookups the cache answers.
func (f modelFilter) lookup() bool {
	return f.ID != "" && f.DataSource == "" && f.PartialName == "" && f.After == nil && f.Before == nil && f.Offset == 0
}

// listModels returns the models matching f and how many match (0 for a
// lookup by id). A lookup by id comes from the cache when it may
// (catalogCache).
func (e *Engine) listModels(ctx context.Context, f modelFilter) ([]Model, int, error) {
	if !f.lookup() || !e.cached(ctx) {
		return e.queryModels(ctx, f)
	}
	if m, ok := e.cache.model(f.ID); ok {
		return []Model{m}, 0, nil
	}
	gen := e.cache.begin()
	ms, total, err := e.queryModels(ctx, f)
	if err == nil && len(ms) == 1 {
		e.cache.putModel(gen, ms[0])
	}
	return ms, total, err
}

// queryModels reads the models matching f from the catalog.
func (e *Engine) queryModels(ctx context.Context, f modelFilter) ([]Model, int, error) {
	rows, total, err := e.list(ctx, f.list())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Model
	for rows.Next() {
		var m Model
		var last sql.NullTime
		var algo, metrics, cols string
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Domain, &m.DataSourceName, &m.Name, &m.Created, &last, &m.Target, &algo, &metrics, &cols); err != nil {
			return nil, 0, err
		}
		m.Created = m.Created.UTC()
		if last.Valid {
			t := last.Time.UTC()
			m.LastUsed = &t
		}
		if err := json.Unmarshal([]byte(algo), &m.Algorithm); err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(metrics), &m.Metrics); err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(cols), &m.Columns); err != nil {
			return nil, 0, err
		}
		out = append(out, m)
	}
	return out, total, rows.Err()
}

func (e *Engine) modelBytes(ctx context.Context, id string) ([]byte, error) {
	rows, err := e.store.Rows(ctx, `SELECT bytes FROM catalog.models WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	var b []byte
	return b, scanOne(rows, &b)
}

// deleteModelRows removes models by id, and the vocabularies of their
// sessions when those sessions are gone too (dropUnusedVocabularies).
func (e *Engine) deleteModelRows(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	defer e.modelsChanged(ctx, slices.Clone(ids)...)
	return e.store.Tx(ctx, func(ctx context.Context) error {
		rows, err := e.store.Rows(ctx, `DELETE FROM catalog.models WHERE list_contains(from_json(?, '["VARCHAR"]'), id) RETURNING session_id`, stringList(ids))
		if err != nil {
			return fmt.Errorf("delete models: %w", err)
		}
		defer rows.Close()
		var sessions []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return fmt.Errorf("delete models: %w", err)
			}
			sessions = append(sessions, s)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("delete models: %w", err)
		}
		rows.Close()
		return e.dropUnusedVocabularies(ctx, sessions)
	})
}

// touchModel records a prediction of rows rows by model id at time at: the
// model's lastUsed and the account's prediction count. lastUsed only moves
// forward (greatest), so two predicts committing out of order leave the
// later time, in the catalog as in the cache (modelTouched).
//
// The cached entry moves only once the transaction has committed: a
// transaction's after-commit hooks also run after a rollback, which is
// harmless for the drops every other writer registers but would leave
// this write-through ahead of the catalog.
func (e *Engine) touchModel(ctx context.Context, id string, at time.Time, rows int64) error {
	err := e.store.Tx(ctx, func(ctx context.Context) error {
		if _, err := e.store.Exec(ctx, `UPDATE catalog.models SET last_used = greatest(last_used, ?) WHERE id = ?`, at, id); err != nil {
			return err
		}
		// The row exists since migration 0009.
		_, err := e.store.Exec(ctx, `UPDATE catalog.usage SET count = count + ? WHERE what = 'predictions'`, rows)
		return err
	})
	if err == nil {
		e.modelTouched(ctx, id, at)
	}
	return err
}

func (e *Engine) countPredictions(ctx context.Context) (int64, error) {
	rows, err := e.store.Rows(ctx, `SELECT coalesce(sum(count), 0) FROM catalog.usage WHERE what = 'predictions'`)
	if err != nil {
		return 0, err
	}
	var n int64
	return n, scanOne(rows, &n)
}

// countTargetRows counts the rows of a data source with a target value.
func (e *Engine) countTargetRows(ctx context.Context, source string, isView bool, target string) (int64, error) {
	q, err := countValuesSQL(source, isView, target)
	if err != nil {
		return 0, err
	}
	rows, err := e.store.Rows(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("count rows of %q: %w", source, err)
	}
	var n int64
	return n, scanOne(rows, &n)
}
