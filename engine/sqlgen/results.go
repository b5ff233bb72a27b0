package sqlgen

import (
	"strings"

	"github.com/vaticml/vatic/columnar"
)

// ResultsSchema holds session outputs, keyed by session id (ARCHITECTURE
// §3): "<id>/data" is the snapshot of the data source a session read, with
// a row number __row; "<id>/predictions" holds every contestant's
// prediction of each test row.
const ResultsSchema = "results"

// RowColumn numbers a snapshot's rows from 0 in the order they were read.
const RowColumn = "__row"

// SnapshotTable is the name of a session's data snapshot in ResultsSchema.
func SnapshotTable(session string) string { return session + "/data" }

// PredictionsTable is the name of a session's test predictions.
func PredictionsTable(session string) string { return session + "/predictions" }

func resultsTable(name string) (string, error) {
	return columnar.QualifiedIdent(ResultsSchema, name)
}

func quoteAll(names []string, prefix string) (string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		q, err := columnar.QuoteIdent(n)
		if err != nil {
			return "", err
		}
		out[i] = prefix + q
	}
	return strings.Join(out, ", "), nil
}

// Snapshot copies columns of a dataset (DataSchema) or view (ViewSchema)
// into table in ResultsSchema, numbering rows by orderBy (a timestamp; ""
// keeps storage order) so a session reads fixed data by row number.
func Snapshot(schema, source, table string, columns []string, orderBy string) (string, error) {
	src, err := sourceTable(schema, source)
	if err != nil {
		return "", err
	}
	dst, err := resultsTable(table)
	if err != nil {
		return "", err
	}
	cols, err := quoteAll(columns, "")
	if err != nil {
		return "", err
	}
	over := ""
	switch {
	case orderBy != "":
		ob, err := columnar.QuoteIdent(orderBy)
		if err != nil {
			return "", err
		}
		over = "ORDER BY " + ob + tieBreak(schema)
	case schema != ViewSchema:
		over = "ORDER BY rowid"
	}
	return "CREATE OR REPLACE TABLE " + dst + " AS SELECT row_number() OVER (" + over + ") - 1 AS " + RowColumn + ", " + cols + " FROM " + src, nil
}

// ReadSnapshot selects columns of a snapshot in row order.
func ReadSnapshot(table string, columns []string) (string, error) {
	src, err := resultsTable(table)
	if err != nil {
		return "", err
	}
	cols, err := quoteAll(columns, "")
	if err != nil {
		return "", err
	}
	return "SELECT " + cols + " FROM " + src + " ORDER BY " + RowColumn, nil
}

// CountValues counts the rows of a dataset or view where column is not
// null.
func CountValues(schema, source, column string) (string, error) {
	src, err := sourceTable(schema, source)
	if err != nil {
		return "", err
	}
	c, err := columnar.QuoteIdent(column)
	if err != nil {
		return "", err
	}
	return "SELECT count(" + c + ") FROM " + src, nil
}

// MaxValue selects the largest value of a data source's column.
func MaxValue(schema, source, column string) (string, error) {
	src, err := sourceTable(schema, source)
	if err != nil {
		return "", err
	}
	c, err := columnar.QuoteIdent(column)
	if err != nil {
		return "", err
	}
	return "SELECT max(" + c + ") FROM " + src, nil
}

// CreatePredictions creates a session's predictions table.
func CreatePredictions(table string) (string, error) {
	dst, err := resultsTable(table)
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE TABLE " + dst + " (contestant VARCHAR NOT NULL, " + RowColumn + " BIGINT NOT NULL, prediction DOUBLE)", nil
}

// DropResults drops a table of ResultsSchema if it exists.
func DropResults(table string) (string, error) {
	t, err := resultsTable(table)
	if err != nil {
		return "", err
	}
	return "DROP TABLE IF EXISTS " + t, nil
}

// TestRows selects one contestant's test rows: the snapshot's columns, the
// prediction under the target's name and the observed value under
// "<target>:actual" (MODELLING §0), in row order, paged.
func TestRows(session string, columns []string, target, contestant string, limit, offset int) (string, []any, error) {
	return testRows(session, columns, target, contestant, nil, limit, offset)
}

// ClassTestRows is TestRows of a classification session: the prediction
// (a class index) becomes its label from ClassesTable, and each class's
// score from ClassScoresTable follows under "<target>:<class>" when
// scores holds the labels (MODELLING §7.4); nil scores selects none.
func ClassTestRows(session string, columns []string, target, contestant string, scores []string, limit, offset int) (string, []any, error) {
	if scores == nil {
		scores = []string{}
	}
	return testRows(session, columns, target, contestant, scores, limit, offset)
}

// testRows is TestRows; a non-nil classes joins the labels and the
// listed class scores.
func testRows(session string, columns []string, target, contestant string, classes []string, limit, offset int) (string, []any, error) {
	snap, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", nil, err
	}
	preds, err := resultsTable(PredictionsTable(session))
	if err != nil {
		return "", nil, err
	}
	cols, err := quoteAll(columns, "d.")
	if err != nil {
		return "", nil, err
	}
	t, err := columnar.QuoteIdent(target)
	if err != nil {
		return "", nil, err
	}
	actual, err := columnar.QuoteIdent(target + ":actual")
	if err != nil {
		return "", nil, err
	}
	pred, from := "p.prediction", " FROM "+snap+" d JOIN "+preds+" p ON p."+RowColumn+" = d."+RowColumn
	var scores string
	if classes != nil {
		labels, err := resultsTable(ClassesTable(session))
		if err != nil {
			return "", nil, err
		}
		pred, from = "c.label", from+" JOIN "+labels+" c ON c.idx = CAST(p.prediction AS INTEGER)"
		if len(classes) > 0 {
			st, err := resultsTable(ClassScoresTable(session))
			if err != nil {
				return "", nil, err
			}
			from += " JOIN " + st + " s ON s." + RowColumn + " = d." + RowColumn
			for i, c := range classes {
				n, err := columnar.QuoteIdent(target + ":" + c)
				if err != nil {
					return "", nil, err
				}
				scores += ", s." + ScoreColumn(i) + " AS " + n
			}
		}
	}
	sel := "SELECT "
	if cols != "" {
		sel += cols + ", "
	}
	q := sel + pred + " AS " + t + scores + ", d." + t + " AS " + actual + from + " WHERE p.contestant = ? ORDER BY d." + RowColumn
	args := []any{contestant}
	if limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return q, args, nil
}

// CountTestRows counts one contestant's test rows.
func CountTestRows(session, contestant string) (string, []any, error) {
	preds, err := resultsTable(PredictionsTable(session))
	if err != nil {
		return "", nil, err
	}
	return "SELECT count(*) FROM " + preds + " WHERE contestant = ?", []any{contestant}, nil
}
