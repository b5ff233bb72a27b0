package sqlgen

import "github.com/vaticml/vatic/columnar"

// DistancesTable is the name of an anomalies session's Mahalanobis
// distances: the snapshot row number and D² (MODELLING §8.3).
func DistancesTable(session string) string { return session + "/distances" }

// AnomalyColumn is the score column of anomalies sessions (REFERENCE
// §6.3, MODELLING §8.1); DistanceColumn the distance of
// /results/mahalanobisdistances (§8.2).
const (
	AnomalyColumn  = "anomaly"
	DistanceColumn = "mahalanobis_distance"
)

// CreateDistances creates a session's DistancesTable.
func CreateDistances(session string) (string, error) {
	dst, err := resultsTable(DistancesTable(session))
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE TABLE " + dst + " (" + RowColumn + " BIGINT NOT NULL, d2 DOUBLE)", nil
}

// AnomalyRows selects an anomalies session's rows scored by one
// contestant: the snapshot's columns, then AnomalyColumn, then with
// distances DistanceColumn; flaggedOnly keeps the rows scored ≤ 0 (the
// anomalies, §8.2). In row order, paged; the second query counts them.
func AnomalyRows(session string, columns []string, contestant string, flaggedOnly, distances bool, limit, offset int) (q, count string, args []any, err error) {
	snap, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", "", nil, err
	}
	preds, err := resultsTable(PredictionsTable(session))
	if err != nil {
		return "", "", nil, err
	}
	cols, err := quoteAll(columns, "d.")
	if err != nil {
		return "", "", nil, err
	}
	sel := "SELECT "
	if cols != "" {
		sel += cols + ", "
	}
	sel += "p.prediction AS " + columnar.MustQuoteIdent(AnomalyColumn)
	from := " FROM " + snap + " d JOIN " + preds + " p ON p." + RowColumn + " = d." + RowColumn
	if distances {
		dt, err := resultsTable(DistancesTable(session))
		if err != nil {
			return "", "", nil, err
		}
		sel += ", m.d2 AS " + columnar.MustQuoteIdent(DistanceColumn)
		from += " JOIN " + dt + " m ON m." + RowColumn + " = d." + RowColumn
	}
	where := " WHERE p.contestant = ?"
	if flaggedOnly {
		where += " AND p.prediction <= 0"
	}
	count = "SELECT count(*) FROM " + preds + " p" + where
	q = sel + from + where + " ORDER BY d." + RowColumn
	args = []any{contestant}
	if limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return q, count, args, nil
}

// DistanceInputs selects the row number and columns of every row of a
// session's snapshot, in storage order: the reader places rows by
// RowColumn, so no sort is needed.
func DistanceInputs(session string, columns []string) (string, error) {
	src, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", err
	}
	cols, err := quoteAll(append([]string{RowColumn}, columns...), "")
	if err != nil {
		return "", err
	}
	return "SELECT " + cols + " FROM " + src, nil
}
