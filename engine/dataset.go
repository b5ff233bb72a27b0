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

// validColumnName checks a column name, declared or read from the data:
// a DuckDB identifier (columnar.QuoteIdent: not empty, no NUL, valid
// UTF-8) of at most maxNameLen bytes.
func validColumnName(name string) error {
	_, err := columnar.QuoteIdent(name)
	if err != nil || len(name) > maxNameLen {
		return errors.New("invalid column name")
	}
	return nil
}

// badColumnNameReason is the InvalidColumnMetadata reason of a column
// name validColumnName refuses.
const badColumnNameReason = "Column names must be 1 to 255 characters of valid text"

// checkDataColumnName is ingest's CheckName: a column name the data
// brings (a CSV header field, a JSON key) follows the rules of a declared
// one and is refused the same way.
func checkDataColumnName(name string) error {
	if validColumnName(name) == nil {
		return nil
	}
	return MetadataError(map[string][]string{shownName(name): {badColumnNameReason}})
}

// shownName is a column name as an error shows it: a name longer than
// maxNameLen is cut there (at a rune boundary) and marked with "…", so a
// refused 10 000-character name is not echoed whole.
func shownName(name string) string {
	if len(name) <= maxNameLen {
		return name
	}
	cut := maxNameLen
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}
