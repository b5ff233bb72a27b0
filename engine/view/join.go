package view

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
	// name (an alias or the column's own name).
	Outputs []Output
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
		alias := fmt.Sprintf("j%d", i+1)
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
