package engine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
)

// This file holds the SQL of the engine's own tables (schema catalog); user
// data SQL lives in engine/sqlgen.

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies, in order and each in its own transaction, every embedded
// migration newer than the version recorded in catalog.migrations.
func (e *Engine) migrate(ctx context.Context) error {
	if _, err := e.store.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS catalog`); err != nil {
		return fmt.Errorf("create schema catalog: %w", err)
	}
	if _, err := e.store.Exec(ctx, `CREATE TABLE IF NOT EXISTS catalog.migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, applied TIMESTAMP NOT NULL)`); err != nil {
		return fmt.Errorf("create catalog.migrations: %w", err)
	}
	var current int
	rows, err := e.store.Rows(ctx, `SELECT coalesce(max(version), 0) FROM catalog.migrations`)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := scanOne(rows, &current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: bad version prefix", base)
		}
		if v <= current {
			continue
		}
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return err
		}
		err = e.store.Tx(ctx, func(ctx context.Context) error {
			if _, err := e.store.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err := e.store.Exec(ctx, `INSERT INTO catalog.migrations VALUES (?, ?, ?)`, v, base, e.now())
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
		e.log.InfoContext(ctx, "catalog migrated", "version", v, "migration", base)
	}
	return nil
}

// scanOne scans the single row of rows into dst and closes rows.
func scanOne(rows *sql.Rows, dst ...any) error {
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dst...); err != nil {
		return err
	}
	return rows.Close()
}

const datasetColumns = `name, created, modified, row_count, size_bytes, missing_values`

func scanDataset(rows *sql.Rows) (Dataset, error) {
	var d Dataset
	var missing []any
	if err := rows.Scan(&d.Name, &d.Created, &d.Modified, &d.RowCount, &d.Size, &missing); err != nil {
		return d, err
	}
	for _, m := range missing {
		if s, ok := m.(string); ok {
			d.MissingValues = append(d.MissingValues, s)
		}
	}
	d.Created, d.Modified = d.Created.UTC(), d.Modified.UTC()
	return d, nil
}

// loadDataset returns one dataset's catalog entry and columns, from the
// cache when it may (catalogCache); name matches case-insensitively. ok is
// false when there is no such dataset.
func (e *Engine) loadDataset(ctx context.Context, name string) (d Dataset, ok bool, err error) {
	if !e.cached(ctx) {
		return e.queryDataset(ctx, name)
	}
	if d, ok := e.cache.dataset(name); ok {
		return d, true, nil
	}
	gen := e.cache.begin()
	if d, ok, err = e.queryDataset(ctx, name); err == nil && ok {
		e.cache.putDataset(gen, name, d)
	}
	return d, ok, err
}

// queryDataset reads one dataset's catalog entry and columns.
func (e *Engine) queryDataset(ctx context.Context, name string) (d Dataset, ok bool, err error) {
	rows, err := e.store.Rows(ctx, `SELECT `+datasetColumns+` FROM catalog.datasets WHERE lower(name) = lower(?)`, name)
	if err != nil {
		return d, false, fmt.Errorf("read dataset %q: %w", name, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return d, false, rows.Err()
	}
	if d, err = scanDataset(rows); err != nil {
		return d, false, fmt.Errorf("read dataset %q: %w", name, err)
	}
	rows.Close()
	cols, err := e.loadColumns(ctx, []string{d.Name})
	if err != nil {
		return d, false, err
	}
	d.Columns = cols[d.Name]
	return d, true, nil
}

// loadColumns reads the columns of the named datasets (exact names).
func (e *Engine) loadColumns(ctx context.Context, names []string) (map[string][]columnar.Column, error) {
	out := make(map[string][]columnar.Column, len(names))
	if len(names) == 0 {
		return out, nil
	}
	rows, err := e.store.Rows(ctx, `SELECT dataset, name, coalesce(data_type, ''), coalesce(role, ''), coalesce(imputation, ''), coalesce(aggregation, '')
		FROM catalog.columns WHERE list_contains(from_json(?, '["VARCHAR"]'), dataset) ORDER BY dataset, ordinal`, stringList(names))
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ds, name, dt, role, imp, agg string
		if err := rows.Scan(&ds, &name, &dt, &role, &imp, &agg); err != nil {
			return nil, fmt.Errorf("read columns: %w", err)
		}
		out[ds] = append(out[ds], columnar.Column{
			Name: name, DataType: columnar.DataType(dt), Role: columnar.Role(role),
			Imputation: columnar.Imputation(imp), Aggregation: columnar.Aggregation(agg),
		})
	}
	return out, rows.Err()
}

// stringList binds a list of strings as one parameter: a JSON array that the
// statement reads with from_json, so values stay data, never SQL.
func stringList(names []string) any {
	if names == nil {
		names = []string{}
	}
	b, _ := json.Marshal(names)
	return string(b)
}

// saveDataset writes d's catalog entry and columns, replacing what was there.
func (e *Engine) saveDataset(ctx context.Context, d Dataset) error {
	defer e.datasetChanged(ctx, d.Name)
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.datasets WHERE name = ?`, d.Name); err != nil {
		return fmt.Errorf("save dataset %q: %w", d.Name, err)
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.datasets (`+datasetColumns+`) VALUES (?, ?, ?, ?, ?, from_json(?, '["VARCHAR"]'))`,
		d.Name, d.Created, d.Modified, d.RowCount, d.Size, stringList(d.MissingValues)); err != nil {
		return fmt.Errorf("save dataset %q: %w", d.Name, err)
	}
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.columns WHERE dataset = ?`, d.Name); err != nil {
		return fmt.Errorf("save columns of %q: %w", d.Name, err)
	}
	for i, c := range d.Columns {
		if _, err := e.store.Exec(ctx, `INSERT INTO catalog.columns VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.Name, i, c.Name, nullable(string(c.DataType)), nullable(string(c.Role)),
			nullable(string(c.Imputation)), nullable(string(c.Aggregation))); err != nil {
			return fmt.Errorf("save columns of %q: %w", d.Name, err)
		}
	}
	return nil
}

// deleteDatasetEntry removes d's catalog entry and columns.
func (e *Engine) deleteDatasetEntry(ctx context.Context, name string) error {
	defer e.datasetChanged(ctx, name)
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.columns WHERE dataset = ?`, name); err != nil {
		return err
	}
	_, err := e.store.Exec(ctx, `DELETE FROM catalog.datasets WHERE name = ?`, name)
	return err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listDatasets returns one page of datasets whose names contain partial
// (case-insensitively), ordered by sortBy, and the total count.
func (e *Engine) listDatasets(ctx context.Context, partial, sortBy string, desc bool, limit, offset int) ([]Dataset, int, error) {
	order := map[string]string{
		"":             "lower(name)",
		"datasetname":  "lower(name)",
		"datasetsize":  "size_bytes",
		"rowcount":     "row_count",
		"datecreated":  "created",
		"lastmodified": "modified",
	}[strings.ToLower(sortBy)]
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	where := `WHERE contains(lower(name), lower(?))`
	var total int
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM catalog.datasets `+where, partial)
	if err != nil {
		return nil, 0, err
	}
	if err := scanOne(rows, &total); err != nil {
		return nil, 0, err
	}
	rows, err = e.store.Rows(ctx, `SELECT `+datasetColumns+` FROM catalog.datasets `+where+
		` ORDER BY `+order+` `+dir+`, name `+dir+` LIMIT ? OFFSET ?`, partial, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Dataset
	var names []string
	for rows.Next() {
		d, err := scanDataset(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
		names = append(names, d.Name)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	cols, err := e.loadColumns(ctx, names)
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		out[i].Columns = cols[out[i].Name]
	}
	return out, total, nil
}

// countDatasets reports how many datasets exist.
func (e *Engine) countDatasets(ctx context.Context) (int64, error) {
	var n int64
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM catalog.datasets`)
	if err != nil {
		return 0, err
	}
	return n, scanOne(rows, &n)
}

// datasetBytes sums the sizes of every dataset but except.
func (e *Engine) datasetBytes(ctx context.Context, except string) (int64, error) {
	var n int64
	rows, err := e.store.Rows(ctx, `SELECT CAST(coalesce(sum(size_bytes), 0) AS BIGINT) FROM catalog.datasets WHERE lower(name) <> lower(?)`, except)
	if err != nil {
		return 0, err
	}
	return n, scanOne(rows, &n)
}

// tableColumns reads the columns of a dataset's table from DuckDB's own
// catalog, keyed by lower-cased name; empty when the table does not exist.
// It is cached (catalogCache): every change of a data table saves or
// deletes its dataset's entry in the same transaction.
func (e *Engine) tableColumns(ctx context.Context, dataset string) (map[string]tableColumn, error) {
	if !e.cached(ctx) {
		return e.queryTableColumns(ctx, dataset)
	}
	if t, ok := e.cache.table(dataset); ok {
		return t, nil
	}
	gen := e.cache.begin()
	t, err := e.queryTableColumns(ctx, dataset)
	if err == nil {
		e.cache.putTable(gen, dataset, t)
	}
	return t, err
}

func (e *Engine) queryTableColumns(ctx context.Context, dataset string) (map[string]tableColumn, error) {
	return e.columnsOf(ctx, `SELECT column_name, data_type FROM duckdb_columns()
		WHERE database_name = current_database() AND schema_name = 'data' AND table_name = ?`, dataset)
}

// viewColumns reads the columns of a view as DuckDB types them.
func (e *Engine) viewColumns(ctx context.Context, view string) (map[string]tableColumn, error) {
	return e.columnsOf(ctx, `SELECT column_name, data_type FROM duckdb_columns()
		WHERE database_name = current_database() AND schema_name = 'views' AND table_name = ?`, view)
}

// stageColumns reads the columns of an upsert staging table (schema main).
func (e *Engine) stageColumns(ctx context.Context, table string) (map[string]tableColumn, error) {
	return e.columnsOf(ctx, `SELECT column_name, data_type FROM duckdb_columns()
		WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`, table)
}

func (e *Engine) columnsOf(ctx context.Context, query, table string) (map[string]tableColumn, error) {
	rows, err := e.store.Rows(ctx, query, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %q: %w", table, err)
	}
	defer rows.Close()
	out := map[string]tableColumn{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		out[strings.ToLower(name)] = tableColumn{Name: name, Type: columnar.DataTypeOfSQL(typ), SQLType: typ}
	}
	return out, rows.Err()
}

// randomID returns 16 random hex characters for temporary names.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// loadJobLogs reads the status histories and messages of jobs (kind
// "import" or "session": tables <kind>_history and <kind>_messages, job
// column <kind>_id), in order, handing each to the job at its position in
// ids.
func (e *Engine) loadJobLogs(ctx context.Context, kind string, ids []string, history func(i int, h StatusChange), message func(i int, m Message)) error {
	if len(ids) == 0 {
		return nil
	}
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	col := kind + "_id"
	rows, err := e.store.Rows(ctx, `SELECT `+col+`, date, status FROM catalog.`+kind+`_history
		WHERE list_contains(from_json(?, '["VARCHAR"]'), `+col+`) ORDER BY `+col+`, seq`, stringList(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, st string
		var at time.Time
		if err := rows.Scan(&id, &at, &st); err != nil {
			return err
		}
		history(pos[id], StatusChange{Date: at.UTC(), Status: Status(st)})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	msgs, err := e.store.Rows(ctx, `SELECT `+col+`, severity, message FROM catalog.`+kind+`_messages
		WHERE list_contains(from_json(?, '["VARCHAR"]'), `+col+`) ORDER BY `+col+`, seq`, stringList(ids))
	if err != nil {
		return err
	}
	defer msgs.Close()
	for msgs.Next() {
		var id string
		var m Message
		if err := msgs.Scan(&id, &m.Severity, &m.Text); err != nil {
			return err
		}
		message(pos[id], m)
	}
	return msgs.Err()
}

// listSQL is one list query over a catalog table (imports, sessions,
// models): AND-ed conditions with their bound arguments, an ORDER BY taken
// from the table's sort keys, a page, and the count of matching rows. Each
// list keeps its conditions, columns and sort keys beside its table; this
// only assembles them, so every list pages, sorts and counts the same way.
type listSQL struct {
	table   string            // in schema catalog
	columns string            // the selected columns, in scan order
	orderBy map[string]string // lower-cased sort key ("" the default) → column expression
	sortBy  string
	desc    bool
	limit   int // 0 reads every match
	offset  int
	count   bool // count the matches (a lookup by id needs no count)

	conds []string
	args  []any
}

// and adds a condition with its bound arguments.
func (l *listSQL) and(cond string, args ...any) {
	l.conds = append(l.conds, cond)
	l.args = append(l.args, args...)
}

// where is " WHERE c1 AND c2 …", or "" without conditions.
func (l *listSQL) where() string {
	if len(l.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(l.conds, " AND ")
}

// countQuery counts the matching rows.
func (l *listSQL) countQuery() (string, []any) {
	return `SELECT count(*) FROM catalog.` + l.table + l.where(), l.args
}

// pageQuery selects the page: ORDER BY the sort key's column, then id, in
// one direction with nulls last, and LIMIT ? OFFSET ? when limit > 0.
func (l *listSQL) pageQuery() (string, []any) {
	dir := "ASC"
	if l.desc {
		dir = "DESC"
	}
	q := `SELECT ` + l.columns + ` FROM catalog.` + l.table + l.where() +
		` ORDER BY ` + l.orderBy[l.sortBy] + ` ` + dir + ` NULLS LAST, id ` + dir
	args := slices.Clone(l.args)
	if l.limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, l.limit, l.offset)
	}
	return q, args
}

// list runs l: the count when l.count (else 0), then the page, whose rows
// the caller closes.
func (e *Engine) list(ctx context.Context, l *listSQL) (*sql.Rows, int, error) {
	var total int
	if l.count {
		q, args := l.countQuery()
		rows, err := e.store.Rows(ctx, q, args...)
		if err != nil {
			return nil, 0, err
		}
		if err := scanOne(rows, &total); err != nil {
			return nil, 0, err
		}
	}
	q, args := l.pageQuery()
	rows, err := e.store.Rows(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	return rows, total, nil
}

// addStatus appends a status change to a job's history table (imports,
// sessions), numbering it after the last.
func (e *Engine) addStatus(ctx context.Context, table, idColumn, id string, at time.Time, st Status) error {
	_, err := e.store.Exec(ctx, `INSERT INTO catalog.`+table+`
		SELECT ?, coalesce(max(seq), 0) + 1, ?, ? FROM catalog.`+table+` WHERE `+idColumn+` = ?`, id, at, string(st), id)
	if err != nil {
		return fmt.Errorf("record status in %s: %w", table, err)
	}
	return nil
}

// addMessages appends messages, in order, to a job's messages table, in
// one statement (a session's run ends with several, and each statement
// costs a DuckDB round trip and a scan for the last seq), stamped with the
// time they were written (GET /messages shows it).
func (e *Engine) addMessages(ctx context.Context, table, idColumn, id string, msgs ...Message) error {
	if len(msgs) == 0 {
		return nil
	}
	args := []any{id, id, e.now()}
	for i, m := range msgs {
		args = append(args, i+1, m.Severity, m.Text)
	}
	_, err := e.store.Exec(ctx, `INSERT INTO catalog.`+table+` (`+idColumn+`, seq, severity, message, created)
		SELECT ?, (SELECT coalesce(max(seq), 0) FROM catalog.`+table+` WHERE `+idColumn+` = ?) + m.k, m.severity, m.message, ?
		FROM (VALUES `+valuesList(len(msgs), 3)+`) m(k, severity, message)`, args...)
	if err != nil {
		return fmt.Errorf("record messages in %s: %w", table, err)
	}
	return nil
}

// valuesList is the rows of a VALUES clause of n rows of width
// parameters each: "(?, ?), (?, ?)".
func valuesList(n, width int) string {
	row := "(" + strings.Repeat("?, ", width-1) + "?)"
	return strings.Repeat(row+", ", n-1) + row
}

// dateOrder refuses a selection whose lower date bound is after its upper
// one (InvalidDateRange naming both parameters).
func dateOrder(afterName, beforeName string, after, before *time.Time) error {
	if after != nil && before != nil && after.After(*before) {
		return &Error{Kind: InvalidDateRange, Msg: afterName + " must be before " + beforeName,
			Details: map[string]any{afterName: []string{after.UTC().Format(time.RFC3339Nano)},
				beforeName: []string{before.UTC().Format(time.RFC3339Nano)}}}
	}
	return nil
}

// listOrder validates sortBy against keys and returns the lower-cased key
// and the direction: descending when asked, or by default (newest first)
// when neither sortBy nor sortOrder was given.
func listOrder(keys []string, sortBy string, desc, descGiven bool) (string, bool, error) {
	if sortBy != "" && !containsFold(keys, sortBy) {
		return "", false, Validation("sortBy", "Value for sortBy must be one of "+strings.Join(keys, ", "))
	}
	if !descGiven && sortBy == "" {
		desc = true
	}
	return strings.ToLower(sortBy), desc, nil
}

// countInterruption adds one to the interruptions of a job of a kind
// ("import": catalog.imports, "session": catalog.sessions) and returns
// how many it has had.
func (e *Engine) countInterruption(ctx context.Context, kind, id string) (int, error) {
	var n int
	rows, err := e.store.Rows(ctx, `UPDATE catalog.`+kind+`s SET interrupted = coalesce(interrupted, 0) + 1 WHERE id = ? RETURNING interrupted`, id)
	if err != nil {
		return 0, fmt.Errorf("count interruption of %s %s: %w", kind, id, err)
	}
	if err := scanOne(rows, &n); err != nil {
		return 0, fmt.Errorf("count interruption of %s %s: %w", kind, id, err)
	}
	return n, nil
}
