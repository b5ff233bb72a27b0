package sqlgen

import "strconv"

// ClassesTable is the name of a classification session's classes: one
// row per class, its index (the predictions' value) and its label.
func ClassesTable(session string) string { return session + "/classes" }

// ClassScoresTable is the name of a classification session's class
// scores: one row per test row of the champion, the snapshot row number
// and one ScoreColumn per class.
func ClassScoresTable(session string) string { return session + "/classscores" }

// ScoreColumn names the column of ClassScoresTable holding class i's
// score.
func ScoreColumn(i int) string { return "s" + strconv.Itoa(i) }

// CreateClasses creates a session's ClassesTable.
func CreateClasses(session string) (string, error) {
	dst, err := resultsTable(ClassesTable(session))
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE TABLE " + dst + " (idx INTEGER NOT NULL, label VARCHAR NOT NULL)", nil
}

// CreateClassScores creates a session's ClassScoresTable for k classes.
func CreateClassScores(session string, k int) (string, error) {
	dst, err := resultsTable(ClassScoresTable(session))
	if err != nil {
		return "", err
	}
	q := "CREATE OR REPLACE TABLE " + dst + " (" + RowColumn + " BIGINT NOT NULL"
	for i := range k {
		q += ", " + ScoreColumn(i) + " DOUBLE"
	}
	return q + ")", nil
}
