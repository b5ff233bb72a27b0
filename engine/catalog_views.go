package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/calendar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// This file holds the SQL of the view tables of the catalog.

const viewColumns = `name, dataset, joins, columns, sql, effective, created, modified`

// loadView reads a stored view definition (name matched case-insensitively).
func (e *Engine) loadView(ctx context.Context, name string) (View, bool, error) {
	vs, _, err := e.queryViews(ctx, `WHERE lower(name) = lower(?)`, []any{name}, 1, 0, false)
	if err != nil || len(vs) == 0 {
		return View{}, false, err
	}
	return vs[0], true, nil
}

// listViews returns stored views matching q, by name, and how many match.
func (e *Engine) listViews(ctx context.Context, q ViewQuery) ([]View, int, error) {
	where := `WHERE contains(lower(name), lower(?))`
	args := []any{q.PartialName}
	if q.DataSetName != "" {
		where += ` AND name IN (SELECT view FROM catalog.view_sources WHERE lower(dataset) = lower(?))`
		args = append(args, q.DataSetName)
	}
	return e.queryViews(ctx, where, args, q.PageSize, q.Page*q.PageSize, true)
}

func (e *Engine) queryViews(ctx context.Context, where string, args []any, limit, offset int, count bool) ([]View, int, error) {
	var total int
	if count {
		rows, err := e.store.Rows(ctx, `SELECT count(*) FROM catalog.views `+where, args...)
		if err != nil {
			return nil, 0, err
		}
		if err := scanOne(rows, &total); err != nil {
			return nil, 0, err
		}
	}
	rows, err := e.store.Rows(ctx, `SELECT `+viewColumns+` FROM catalog.views `+where+` ORDER BY lower(name), name LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("read views: %w", err)
	}
	defer rows.Close()
	var out []View
	for rows.Next() {
		var v View
		var joins, cols, effective string
		if err := rows.Scan(&v.Name, &v.DataSetName, &joins, &cols, &v.sql, &effective, &v.Created, &v.Modified); err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(joins), &v.Joins); err != nil {
			return nil, 0, fmt.Errorf("view %q joins: %w", v.Name, err)
		}
		if err := json.Unmarshal([]byte(cols), &v.ViewSpec.Columns); err != nil {
			return nil, 0, fmt.Errorf("view %q columns: %w", v.Name, err)
		}
		if err := json.Unmarshal([]byte(effective), &v.Columns); err != nil {
			return nil, 0, fmt.Errorf("view %q effective columns: %w", v.Name, err)
		}
		v.ts = columnWithRole(v.Columns, columnar.RoleTimestamp)
		v.Created, v.Modified = v.Created.UTC(), v.Modified.UTC()
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// saveView writes a view's catalog rows and (re)defines its DuckDB view.
func (e *Engine) saveView(ctx context.Context, v View) error {
	joins, err := json.Marshal(v.Joins)
	if err != nil {
		return err
	}
	cols, err := json.Marshal(v.ViewSpec.Columns)
	if err != nil {
		return err
	}
	effective, err := json.Marshal(v.Columns)
	if err != nil {
		return err
	}
	for _, c := range v.calendars {
		if err := e.ensureCalendar(ctx, c); err != nil {
			return err
		}
	}
	ddl, err := sqlgen.CreateView(v.Name, v.sql)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("define view %q: %w", v.Name, err)
	}
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.views WHERE name = ?`, v.Name); err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.views (`+viewColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		v.Name, v.DataSetName, string(joins), string(cols), v.sql, string(effective), v.Created, v.Modified); err != nil {
		return fmt.Errorf("save view %q: %w", v.Name, err)
	}
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.view_sources WHERE view = ?`, v.Name); err != nil {
		return err
	}
	for _, d := range v.sources {
		if _, err := e.store.Exec(ctx, `INSERT INTO catalog.view_sources VALUES (?, ?)`, v.Name, d); err != nil {
			return err
		}
	}
	return nil
}

// dropViewCalendars drops the events tables of a view's URL calendars.
func (e *Engine) dropViewCalendars(ctx context.Context, view string) error {
	rows, err := e.store.Rows(ctx, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()
		AND schema_name = 'catalog' AND starts_with(table_name, ?)`, "calendar view "+view+" ")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		if _, err := e.store.Exec(ctx, "DROP TABLE IF EXISTS "+calendarTable(n)); err != nil {
			return err
		}
	}
	return nil
}

// storedCalendarEvents reads back one event per name of a stored URL
// calendar (names and ids are all planning needs).
func (e *Engine) storedCalendarEvents(ctx context.Context, table string) ([]calendar.Event, error) {
	rows, err := e.store.Rows(ctx, `SELECT min(event_id), event FROM `+table+` GROUP BY event ORDER BY 1`)
	if err != nil {
		return nil, &Error{Kind: NotFound, Msg: "The calendar of this view is missing; PUT the view again", Err: err}
	}
	defer rows.Close()
	out := []calendar.Event{}
	for rows.Next() {
		var id int
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		out = append(out, calendar.Event{Name: name})
	}
	return out, rows.Err()
}

// timeBounds returns the earliest and latest values of a dataset column.
func (e *Engine) timeBounds(ctx context.Context, dataset, column string) (time.Time, time.Time, error) {
	q, err := sqlgen.Bounds(dataset, column)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	rows, err := e.store.Rows(ctx, q)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	var lo, hi sql.NullTime
	if err := scanOne(rows, &lo, &hi); err != nil {
		return time.Time{}, time.Time{}, err
	}
	if !lo.Valid {
		now := e.now()
		return now, now, nil
	}
	return lo.Time.UTC(), hi.Time.UTC(), nil
}

// dropView removes a view's DuckDB view and catalog rows.
func (e *Engine) dropView(ctx context.Context, name string) error {
	if err := e.dropViewCalendars(ctx, name); err != nil {
		return err
	}
	ddl, err := sqlgen.DropView(name)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("drop view %q: %w", name, err)
	}
	if _, err := e.store.Exec(ctx, `DELETE FROM catalog.view_sources WHERE view = ?`, name); err != nil {
		return err
	}
	_, err = e.store.Exec(ctx, `DELETE FROM catalog.views WHERE name = ?`, name)
	return err
}

// viewsReading lists the views that read a dataset.
func (e *Engine) viewsReading(ctx context.Context, dataset string) ([]string, error) {
	rows, err := e.store.Rows(ctx, `SELECT DISTINCT view FROM catalog.view_sources WHERE lower(dataset) = lower(?) ORDER BY view`, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// viewNamed reports whether a view of that name (any case) exists.
func (e *Engine) viewNamed(ctx context.Context, name string) (bool, error) {
	_, ok, err := e.loadView(ctx, strings.TrimSpace(name))
	return ok, err
}

// ensureCalendar creates and fills a calendar's events table: a built-in
// one the first time a view joins it, a URL one whenever it was fetched.
func (e *Engine) ensureCalendar(ctx context.Context, c calendarUse) error {
	if c.replace {
		if _, err := e.store.Exec(ctx, "DROP TABLE IF EXISTS "+c.table); err != nil {
			return err
		}
	}
	tableName := c.canonical
	if !strings.HasPrefix(tableName, "calendar ") {
		tableName = "calendar " + tableName
	}
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()
		AND schema_name = 'catalog' AND table_name = ?`, tableName)
	if err != nil {
		return err
	}
	var n int
	if err := scanOne(rows, &n); err != nil || n > 0 {
		return err
	}
	if _, err := e.store.Exec(ctx, sqlgen.CalendarTable(c.table)); err != nil {
		return fmt.Errorf("create calendar %s: %w", c.canonical, err)
	}
	events, err := json.Marshal(c.events)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, sqlgen.FillCalendar(c.table), string(events)); err != nil {
		return fmt.Errorf("fill calendar %s: %w", c.canonical, err)
	}
	return nil
}
