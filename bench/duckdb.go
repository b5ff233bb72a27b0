package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DuckDB is the anchor: DuckDB itself, reached through `vatic sql`, which
// links the same DuckDB build as the server.
type DuckDB struct {
	// Bin is the path of the vatic binary.
	Bin string
}

// Exec runs stmts, in order, in one `Bin sql -db db -timing` process and
// returns each statement's own execution time (the elapsed_ns lines the
// command prints on stderr) and its stdout (result rows, tab-separated).
// Process start-up and database opening are not part of any elapsed time.
func (d DuckDB) Exec(ctx context.Context, db string, stmts ...string) ([]time.Duration, string, error) {
	args := append([]string{"sql", "-db", db, "-timing"}, stmts...)
	cmd := exec.CommandContext(ctx, d.Bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stdout.String(), fmt.Errorf("bench: %s sql: %w: %s", d.Bin, err, tail(stderr.String(), 2000))
	}
	var times []time.Duration
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "elapsed_ns:")
		if !ok {
			continue
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, stdout.String(), fmt.Errorf("bench: %s sql: parse %q: %w", d.Bin, sc.Text(), err)
		}
		times = append(times, time.Duration(ns))
	}
	if len(times) != len(stmts) {
		return nil, stdout.String(), fmt.Errorf("bench: %s sql: %d elapsed_ns lines for %d statements: %s",
			d.Bin, len(times), len(stmts), tail(stderr.String(), 2000))
	}
	return times, stdout.String(), nil
}

// removeDB removes a DuckDB database file and its write-ahead log.
func removeDB(path string) {
	os.Remove(path)
	os.Remove(path + ".wal")
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// createTableSQL loads a CSV file (plain or .gz, by extension) into table
// bench the way a DuckDB user would.
func createTableSQL(path string) string {
	return "CREATE TABLE bench AS SELECT * FROM read_csv(" + sqlString(path) + ")"
}

// StatsSQL is the anchor of ColumnStats: one aggregate query over table
// bench computing what GET /data/{name}/stats reports for [Columns].
func StatsSQL() string {
	var cols []string
	for _, c := range timestampColumns {
		cols = append(cols, fmt.Sprintf("count(%[1]s), min(%[1]s), max(%[1]s), median(%[1]s), mode(%[1]s), count(DISTINCT %[1]s)", c))
	}
	for _, c := range numericColumns {
		cols = append(cols, fmt.Sprintf("count(%[1]s), min(%[1]s), max(%[1]s), avg(%[1]s), median(%[1]s), "+
			"stddev_samp(%[1]s), var_samp(%[1]s), mode(%[1]s), count(DISTINCT %[1]s)", c))
	}
	for _, c := range stringColumns {
		cols = append(cols, fmt.Sprintf("count(%[1]s), mode(%[1]s), count(DISTINCT %[1]s), count(TRY_CAST(%[1]s AS DOUBLE))", c))
	}
	return "SELECT\n  " + strings.Join(cols, ",\n  ") + "\nFROM bench"
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
