package engine

import (
	"context"
	"strings"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// inferRoles applies the role rules of a dataset's first rows (REFERENCE
// §2.1, MODELLING §13 rule 7): a lone date column with unique values becomes
// the timestamp when no timestamp or key was given; a time series with
// exactly one other numeric column gets it as target, typed numericMeasure
// when it is the only other column and its type was inferred.
func (p *putPlan) inferRoles(ctx context.Context, d *Dataset) error {
	if d.ColumnWithRole(columnar.RoleTimestamp) == "" && d.ColumnWithRole(columnar.RoleKey) == "" {
		var dates []int
		for i, c := range d.Columns {
			if c.DataType == columnar.Date && c.Role == "" {
				dates = append(dates, i)
			}
		}
		if len(dates) == 1 && p.increasing[strings.ToLower(d.Columns[dates[0]].Name)] {
			// Uploaded in strictly increasing order: unique without asking
			// storage for a distinct count over the whole column.
			d.Columns[dates[0]].Role = columnar.RoleTimestamp
		} else if len(dates) == 1 {
			q, err := sqlgen.IsUnique(d.Name, d.Columns[dates[0]].Name)
			if err != nil {
				return err
			}
			r, err := p.e.store.Rows(ctx, q)
			if err != nil {
				return err
			}
			var unique bool
			if err := scanOne(r, &unique); err != nil {
				return err
			}
			if unique {
				d.Columns[dates[0]].Role = columnar.RoleTimestamp
			}
		}
	}
	// Inferred numeric columns of only 0 and 1 get mode/mode defaults
	// (MODELLING §12.3, §13 rule 4) unless the caller chose strategies.
	for i, c := range d.Columns {
		if c.DataType == columnar.Numeric && p.zeroOne[strings.ToLower(c.Name)] &&
			!p.declared[strings.ToLower(c.Name)] && c.Imputation == "" && c.Aggregation == "" {
			d.Columns[i].Imputation, d.Columns[i].Aggregation = columnar.ImputeMode, columnar.AggMode
		}
	}
	if !d.IsTimeSeries() || d.ColumnWithRole(columnar.RoleTarget) != "" {
		return nil
	}
	var numeric []int
	for i, c := range d.Columns {
		if c.DataType.IsNumeric() && (c.Role == "" || c.Role == columnar.RoleFeature) {
			numeric = append(numeric, i)
		}
	}
	if len(numeric) == 1 {
		c := &d.Columns[numeric[0]]
		c.Role = columnar.RoleTarget
		if len(d.Columns) == 2 && !p.declared[strings.ToLower(c.Name)] {
			c.DataType = columnar.NumericMeasure
		}
	}
	return nil
}
