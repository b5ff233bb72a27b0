package engine

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vaticml/vatic/columnar"
)

// Dataset is a stored dataset: its catalog entry and column metadata.
type Dataset struct {
	Name          string
	Created       time.Time
	Modified      time.Time
	RowCount      int64
	Size          int64 // bytes of the rows' text as uploaded (approximate after replacements and deletes)
	Columns       []columnar.Column
	MissingValues []string
}

// Column finds a column by name, case-insensitively.
func (d Dataset) Column(name string) (columnar.Column, bool) {
	i := columnIndex(d.Columns, name)
	if i < 0 {
		return columnar.Column{}, false
	}
	return d.Columns[i], true
}

// ColumnWithRole returns the name of the first column with role r, or "".
func (d Dataset) ColumnWithRole(r columnar.Role) string {
	for _, c := range d.Columns {
		if c.Role == r {
			return c.Name
		}
	}
	return ""
}

// IsTimeSeries reports whether the dataset has a timestamp column.
func (d Dataset) IsTimeSeries() bool { return d.ColumnWithRole(columnar.RoleTimestamp) != "" }

func columnIndex(cols []columnar.Column, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func columnWithRole(cols []columnar.Column, r columnar.Role) string {
	return Dataset{Columns: cols}.ColumnWithRole(r)
}

// maxNameLen bounds dataset and column names.
const maxNameLen = 255

// validName checks a dataset name.
func validName(name string) error {
	if strings.TrimSpace(name) == "" || len(name) > maxNameLen || !utf8.ValidString(name) || strings.ContainsAny(name, "\x00/") {
		return Validation("dataSetName", "Value for dataSetName must be 1 to 255 characters of valid text without '/'")
	}
	return nil
}

func validColumnName(name string) error {
	_, err := columnar.QuoteIdent(name)
	if err != nil || len(name) > maxNameLen {
		return errors.New("invalid column name")
	}
	return nil
}
