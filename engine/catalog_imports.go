package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vaticml/vatic/columnar"
)

// This file holds the SQL of the import tables of the catalog.

func (e *Engine) insertImport(ctx context.Context, imp Import, spec ImportSpec) error {
	defer e.importChanged(ctx, imp.ID)
	params, err := json.Marshal(paramPairs(imp.Parameters))
	if err != nil {
		return err
	}
	cols, err := json.Marshal(spec.Columns)
	if err != nil {
		return err
	}
	var ct any
	if spec.ContentType != "" {
		ct = spec.ContentType
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.imports
		(id, kind, dataset, status, content_type, parameters, request_columns, needs_secret, requested, status_date)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		imp.ID, string(imp.Kind), imp.DataSetName, string(imp.Status), ct, string(params), string(cols),
		!spec.Secrets.empty() || RedactURL(spec.URL) != spec.URL, imp.Requested, imp.StatusDate); err != nil {
		return fmt.Errorf("insert import: %w", err)
	}
	return e.addImportStatus(ctx, imp.ID, imp.Requested, imp.Status)
}

func paramPairs(ps []Param) [][2]*string {
	out := make([][2]*string, len(ps))
	for i, p := range ps {
		name := p.Name
		out[i] = [2]*string{&name, p.Value}
	}
	return out
}

func (e *Engine) addImportStatus(ctx context.Context, id string, at time.Time, s Status) error {
	defer e.importChanged(ctx, id)
	return e.addStatus(ctx, "import_history", "import_id", id, at, s)
}

func (e *Engine) addImportMessage(ctx context.Context, id string, m Message) error {
	defer e.importChanged(ctx, id)
	return e.addMessages(ctx, "import_messages", "import_id", id, m)
}

// claimRequestedImport marks the oldest requested import started,
// records the change in its history and returns its id, or "" when none
// waits.
func (e *Engine) claimRequestedImport(ctx context.Context) (string, error) {
	var id string
	err := e.store.Tx(ctx, func(ctx context.Context) error {
		rows, err := e.store.Rows(ctx, `SELECT id FROM catalog.imports WHERE status = 'requested' ORDER BY requested, id LIMIT 1`)
		if err != nil {
			return err
		}
		if err := scanOne(rows, &id); err == sql.ErrNoRows {
			id = ""
			return nil
		} else if err != nil {
			return err
		}
		now := e.now()
		if _, err := e.store.Exec(ctx, `UPDATE catalog.imports SET status = 'started', status_date = ? WHERE id = ?`, now, id); err != nil {
			return err
		}
		return e.addImportStatus(ctx, id, now, StatusStarted)
	})
	return id, err
}

// finishImport records the end of an import: its final status, messages
// and, on success, the dataset's column metadata.
func (e *Engine) finishImport(ctx context.Context, id string, s Status, msgs []Message, cols []columnar.Column) error {
	return e.store.Tx(ctx, func(ctx context.Context) error {
		defer e.importChanged(ctx, id)
		var result any
		if cols != nil {
			b, err := json.Marshal(cols)
			if err != nil {
				return err
			}
			result = string(b)
		}
		now := e.now()
		if _, err := e.store.Exec(ctx, `UPDATE catalog.imports SET status = ?, status_date = ?, result_columns = coalesce(?, result_columns) WHERE id = ?`,
			string(s), now, result, id); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		for _, m := range msgs {
			if err := e.addImportMessage(ctx, id, m); err != nil {
				return err
			}
		}
		return e.addImportStatus(ctx, id, now, s)
	})
}

type unfinished struct {
	id          string
	status      Status
	needsSecret bool
}

// unfinishedImports lists imports a previous process left requested or
// started.
func (e *Engine) unfinishedImports(ctx context.Context) ([]unfinished, error) {
	rows, err := e.store.Rows(ctx, `SELECT id, status, needs_secret FROM catalog.imports
		WHERE status IN ('requested', 'started') ORDER BY requested, id`)
	if err != nil {
		return nil, fmt.Errorf("read unfinished imports: %w", err)
	}
	defer rows.Close()
	var out []unfinished
	for rows.Next() {
		var u unfinished
		var st string
		if err := rows.Scan(&u.id, &st, &u.needsSecret); err != nil {
			return nil, err
		}
		u.status = Status(st)
		out = append(out, u)
	}
	return out, rows.Err()
}

// importSpec rebuilds what an import reads from its catalog row (without
// credentials).
func (e *Engine) importSpec(ctx context.Context, id string) (ImportSpec, error) {
	var s ImportSpec
	var kind, params, cols string
	var ct sql.NullString
	rows, err := e.store.Rows(ctx, `SELECT kind, dataset, content_type, parameters, request_columns FROM catalog.imports WHERE id = ?`, id)
	if err != nil {
		return s, err
	}
	if err := scanOne(rows, &kind, &s.DataSetName, &ct, &params, &cols); err != nil {
		return s, err
	}
	s.Kind, s.ContentType = ImportKind(kind), ct.String
	if err := json.Unmarshal([]byte(cols), &s.Columns); err != nil {
		return s, fmt.Errorf("import %s columns: %w", id, err)
	}
	ps, err := decodeParams(params)
	if err != nil {
		return s, fmt.Errorf("import %s parameters: %w", id, err)
	}
	for _, p := range ps {
		v := ""
		if p.Value != nil {
			v = *p.Value
		}
		switch p.Name {
		case "url":
			s.URL = v
		case "bucket":
			s.Bucket = v
		case "path":
			s.Path = v
		case "region":
			s.Region = v
		case "container":
			s.Container = v
		case "blob":
			s.Blob = v
		}
	}
	return s, nil
}

func decodeParams(raw string) ([]Param, error) {
	var pairs [][2]*string
	if err := json.Unmarshal([]byte(raw), &pairs); err != nil {
		return nil, err
	}
	out := make([]Param, 0, len(pairs))
	for _, p := range pairs {
		if p[0] != nil {
			out = append(out, Param{Name: *p[0], Value: p[1]})
		}
	}
	return out, nil
}

// importFilter selects imports for listImports.
type importFilter struct {
	ID            string
	DataSet       string
	After, Before *time.Time
	SortBy        string // lower-cased sort key
	Desc          bool
	Limit, Offset int
}

// importOrder maps the sort keys of GET /imports (lower-cased; "" the
// default) to columns.
var importOrder = map[string]string{"": "requested", "id": "id", "datasetname": "lower(dataset)", "requesteddate": "requested", "currentstatusdate": "status_date"}

// list is the catalog query of f; it reads at least one import.
func (f importFilter) list() *listSQL {
	l := &listSQL{table: "imports", orderBy: importOrder, sortBy: f.SortBy, desc: f.Desc, limit: max(f.Limit, 1), offset: f.Offset, count: f.ID == "",
		columns: `id, kind, status, dataset, parameters, request_columns, result_columns, requested, status_date`}
	if f.ID != "" {
		l.and("id = ?", f.ID)
	}
	if f.DataSet != "" {
		l.and("lower(dataset) = lower(?)", f.DataSet)
	}
	if f.After != nil {
		l.and("requested >= ?", f.After.UTC())
	}
	if f.Before != nil {
		l.and("requested <= ?", f.Before.UTC())
	}
	return l
}

// lookup reports whether f selects one import by id and nothing else: the
// lookups the cache answers.
func (f importFilter) lookup() bool {
	return f.ID != "" && f.DataSet == "" && f.After == nil && f.Before == nil && f.Offset == 0
}

// listImports returns the imports matching f with their histories and
// messages, and how many match (0 for a lookup by id). A lookup by id
// comes from the cache when it may (catalogCache).
func (e *Engine) listImports(ctx context.Context, f importFilter) ([]Import, int, error) {
	if !f.lookup() || !e.cached(ctx) {
		return e.queryImports(ctx, f)
	}
	if imp, ok := e.cache.importEntry(f.ID); ok {
		return []Import{imp}, 0, nil
	}
	gen := e.cache.begin()
	imps, total, err := e.queryImports(ctx, f)
	if err == nil && len(imps) == 1 {
		e.cache.putImport(gen, imps[0])
	}
	return imps, total, err
}

// queryImports reads the imports matching f from the catalog.
func (e *Engine) queryImports(ctx context.Context, f importFilter) ([]Import, int, error) {
	rows, total, err := e.list(ctx, f.list())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Import
	for rows.Next() {
		var imp Import
		var kind, status, params, supplied string
		var result sql.NullString
		if err := rows.Scan(&imp.ID, &kind, &status, &imp.DataSetName, &params, &supplied, &result, &imp.Requested, &imp.StatusDate); err != nil {
			return nil, 0, err
		}
		imp.Kind, imp.Status = ImportKind(kind), Status(status)
		imp.Requested, imp.StatusDate = imp.Requested.UTC(), imp.StatusDate.UTC()
		if imp.Parameters, err = decodeParams(params); err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(supplied), &imp.Supplied); err != nil {
			return nil, 0, fmt.Errorf("import %s columns: %w", imp.ID, err)
		}
		if result.Valid {
			if err := json.Unmarshal([]byte(result.String), &imp.Columns); err != nil {
				return nil, 0, err
			}
		}
		imp.History, imp.Messages = []StatusChange{}, []Message{}
		out = append(out, imp)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	ids := make([]string, len(out))
	for i, imp := range out {
		ids[i] = imp.ID
	}
	err = e.loadJobLogs(ctx, "import", ids,
		func(i int, h StatusChange) { out[i].History = append(out[i].History, h) },
		func(i int, m Message) { out[i].Messages = append(out[i].Messages, m) })
	return out, total, err
}
