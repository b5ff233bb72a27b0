package sqlgen

import (
	"fmt"
	"strings"

	"github.com/vaticml/vatic/columnar"
)

// ViewSchema is the schema holding one DuckDB view per API view.
const ViewSchema = "views"

// ViewTable returns the quoted, qualified DuckDB view of an API view.
func ViewTable(name string) (string, error) {
	return columnar.QualifiedIdent(ViewSchema, name)
}

// Source is a dataset as a view sees it: its name and stored columns.
type Source struct {
	Dataset string
	Columns []columnar.Column // stored columns with their data types and roles
}

// Join adds the columns of one dataset to every row of the base (REFERENCE
// §11.6): a left join that never adds or removes rows. Right rows are
// grouped by the join key and each column aggregated with its aggregation,
// so several right rows per key (hourly weather joined by day) still give
// one value per left row.
type Join struct {
	Right Source
	// LeftColumn and RightColumn are the columns matched (RightColumn is
	// the right key or timestamp column; it is not added to the output).
	LeftColumn, RightColumn string
	// Interval truncates both sides before matching timestamps: hour, day,
	// week, month or year; "" matches equal values.
	Interval string
	// Outputs are the right columns added, in order, each with its output
	// name (an alias or the column's own name). A join without outputs is
	// left out of the SQL.
	Outputs []Output
	// Calendar, when set, makes this a calendar join instead; Right and
	// Outputs are unused.
	Calendar *CalendarJoin
}

// CalendarJoin adds a calendar's columns to every base row (REFERENCE
// §11.6): when the row's instant falls within an event, eventTimestamp
// (the start of the earliest such event), an indicator of the calendar and
// one indicator per event name, each 1 or 0. Events live in a table of
// (event_id INTEGER, event VARCHAR, start TIMESTAMP, stop TIMESTAMP); event
// ids, not names, reach the SQL text.
type CalendarJoin struct {
	Table    string // quoted, qualified events table
	Interval string // widens the match to whole hours, days, …; "" is the instant
	// TimestampAs and CalendarAs name the eventTimestamp and calendar
	// indicator columns; "" leaves the column out (its name clashed with
	// a column the view already has).
	TimestampAs string
	CalendarAs  string
	// Events are the event indicators added; an event name without one is
	// not output.
	Events []EventColumn
}

// EventColumn is the indicator column of one event name.
type EventColumn struct {
	ID int
	As string
}

// Output is one right column added by a join.
type Output struct {
	Column string
	As     string
	// Aggregation combines the right rows of one key; "" takes any.
	Aggregation columnar.Aggregation
}

// Intervals are the joinInterval values, as DuckDB's date_trunc parts.
var Intervals = []string{"hour", "day", "week", "month", "year"}

// Compile returns the SELECT that defines a view over base with joins.
func Compile(base Source, joins []Join) (string, error) {
	baseTable, err := Table(base.Dataset)
	if err != nil {
		return "", err
	}
	var cols []string
	for _, c := range base.Columns {
		q, err := columnar.QuoteIdent(c.Name)
		if err != nil {
			return "", err
		}
		cols = append(cols, "b."+q)
	}
	var from strings.Builder
	from.WriteString(" FROM " + baseTable + " AS b")
	for i, j := range joins {
		if !j.adds() {
			// Every column it would add clashed with the view's: running it
			// would change nothing.
			continue
		}
		alias := fmt.Sprintf("j%d", i+1)
		if j.Calendar != nil {
			sub, outs, err := j.Calendar.compile(baseTable, j.LeftColumn, alias)
			if err != nil {
				return "", err
			}
			from.WriteString(" LEFT JOIN (" + sub + ") AS " + alias + " ON " + alias + ".vatic_row = b.rowid")
			cols = append(cols, outs...)
			continue
		}
		sub, on, err := j.compile(alias)
		if err != nil {
			return "", err
		}
		from.WriteString(" LEFT JOIN (" + sub + ") AS " + alias + " ON " + on)
		for _, o := range j.Outputs {
			as, err := columnar.QuoteIdent(o.As)
			if err != nil {
				return "", err
			}
			cols = append(cols, alias+"."+as)
		}
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("view: view over %q has no columns", base.Dataset)
	}
	// Rows keep the base's storage order, so pages of a view without a
	// timestamp are stable (hash joins do not keep order by themselves).
	return "SELECT " + strings.Join(cols, ", ") + from.String() + " ORDER BY b.rowid", nil
}

// adds reports whether the join outputs any column.
func (j Join) adds() bool {
	if c := j.Calendar; c != nil {
		return c.TimestampAs != "" || c.CalendarAs != "" || len(c.Events) > 0
	}
	return len(j.Outputs) > 0
}

// compile returns the grouped right side and the join condition.
func (j Join) compile(alias string) (sub, on string, err error) {
	table, err := Table(j.Right.Dataset)
	if err != nil {
		return "", "", err
	}
	left, err := columnar.QuoteIdent(j.LeftColumn)
	if err != nil {
		return "", "", err
	}
	right, err := columnar.QuoteIdent(j.RightColumn)
	if err != nil {
		return "", "", err
	}
	key := right
	leftKey := "b." + left
	if j.Interval != "" {
		if !containsString(Intervals, j.Interval) {
			return "", "", fmt.Errorf("view: join interval %q", j.Interval)
		}
		key = "date_trunc('" + j.Interval + "', " + right + ")"
		leftKey = "date_trunc('" + j.Interval + "', b." + left + ")"
	}
	parts := []string{key + " AS vatic_join_key"}
	for _, o := range j.Outputs {
		col, err := columnar.QuoteIdent(o.Column)
		if err != nil {
			return "", "", err
		}
		as, err := columnar.QuoteIdent(o.As)
		if err != nil {
			return "", "", err
		}
		parts = append(parts, aggregate(o.Aggregation, col)+" AS "+as)
	}
	sub = "SELECT " + strings.Join(parts, ", ") + " FROM " + table + " WHERE " + right + " IS NOT NULL GROUP BY 1"
	return sub, alias + ".vatic_join_key = " + leftKey, nil
}

// compile returns the per-row calendar columns of the base and the output
// expressions.
func (c CalendarJoin) compile(baseTable, left, alias string) (string, []string, error) {
	ts, err := columnar.QuoteIdent(left)
	if err != nil {
		return "", nil, err
	}
	cond := "b2." + ts + " >= c.start AND b2." + ts + " < c.stop"
	if c.Interval != "" {
		if !containsString(Intervals, c.Interval) {
			return "", nil, fmt.Errorf("view: join interval %q", c.Interval)
		}
		row := "date_trunc('" + c.Interval + "', b2." + ts + ")"
		cond = row + " >= date_trunc('" + c.Interval + "', c.start) AND " + row +
			" <= date_trunc('" + c.Interval + "', c.stop - INTERVAL 1 MICROSECOND)"
	}
	parts := []string{"b2.rowid AS vatic_row"}
	var outs []string
	if c.TimestampAs != "" {
		tsAs, err := columnar.QuoteIdent(c.TimestampAs)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, "min(c.start) AS "+tsAs)
		outs = append(outs, alias+"."+tsAs)
	}
	if c.CalendarAs != "" {
		calAs, err := columnar.QuoteIdent(c.CalendarAs)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, "1 AS "+calAs)
		outs = append(outs, "coalesce("+alias+"."+calAs+", 0) AS "+calAs)
	}
	for _, e := range c.Events {
		as, err := columnar.QuoteIdent(e.As)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, fmt.Sprintf("max(CASE WHEN c.event_id = %d THEN 1 ELSE 0 END) AS %s", e.ID, as))
		outs = append(outs, "coalesce("+alias+"."+as+", 0) AS "+as)
	}
	sub := "SELECT " + strings.Join(parts, ", ") + " FROM " + baseTable + " AS b2 JOIN " + c.Table + " AS c ON " + cond + " GROUP BY b2.rowid"
	return sub, outs, nil
}

// CalendarTable compiles the DDL of a calendar's events table.
func CalendarTable(table string) string {
	return "CREATE TABLE " + table + " (event_id INTEGER NOT NULL, event VARCHAR NOT NULL, start TIMESTAMP NOT NULL, stop TIMESTAMP NOT NULL)"
}

// FillCalendar compiles loading a calendar's events from one bound JSON
// array of {event_id, event, start, stop} objects.
func FillCalendar(table string) string {
	return "INSERT INTO " + table + ` SELECT e.event_id, e.event, e.start, e.stop FROM (SELECT unnest(from_json(?, '[{"event_id":"INTEGER","event":"VARCHAR","start":"TIMESTAMP","stop":"TIMESTAMP"}]')) AS e)`
}

// aggregate renders an aggregation over a column (REFERENCE §2.1; the
// median is the lower middle value, as the docs define it).
func aggregate(a columnar.Aggregation, col string) string {
	switch a {
	case columnar.AggSum:
		return "sum(" + col + ")"
	case columnar.AggMean:
		return "avg(" + col + ")"
	case columnar.AggMedian:
		return "quantile_disc(" + col + ", 0.5)"
	case columnar.AggMode:
		return "mode(" + col + ")"
	case columnar.AggMin:
		return "min(" + col + ")"
	case columnar.AggMax:
		return "max(" + col + ")"
	}
	return "any_value(" + col + ")"
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// CreateView compiles the DDL that (re)defines the DuckDB view of an API
// view.
func CreateView(name, selectSQL string) (string, error) {
	t, err := ViewTable(name)
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE VIEW " + t + " AS " + selectSQL, nil
}

// DropView compiles dropping the DuckDB view of an API view.
func DropView(name string) (string, error) {
	t, err := ViewTable(name)
	if err != nil {
		return "", err
	}
	return "DROP VIEW IF EXISTS " + t, nil
}

// Bounds compiles the earliest and latest value of a dataset's column.
func Bounds(dataset, column string) (string, error) {
	table, err := Table(dataset)
	if err != nil {
		return "", err
	}
	col, err := columnar.QuoteIdent(column)
	if err != nil {
		return "", err
	}
	return "SELECT min(" + col + "), max(" + col + ") FROM " + table, nil
}
