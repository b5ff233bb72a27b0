package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/vaticml/vatic/duckstore"
)

// runSQL is `vatic sql`: it opens the database file and runs each argument
// as a statement, printing result rows tab-separated. With -timing it
// prints each statement's own execution time on stderr as elapsed_ns: N
// (the benchmark harness times DuckDB's own reader this way).
func runSQL(ctx context.Context, args []string, getenv func(string) (string, bool), stdout, stderr io.Writer) error {
	fs := newFlagSet("vatic sql", stderr)
	dataDir := fs.String("data", "./data", "data directory whose vatic.duckdb to open")
	db := fs.String("db", "", "database file to open instead of <data>/vatic.duckdb")
	timing := fs.Bool("timing", false, "print each statement's execution time on stderr")
	if err := parseFlags(fs, args, getenv, nil); err != nil {
		return err
	}
	path := *db
	if path == "" {
		path = filepath.Join(*dataDir, "vatic.duckdb")
	}
	store, err := duckstore.Open(ctx, path, duckstore.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	for _, q := range fs.Args() {
		start := time.Now()
		rows, err := store.Rows(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		if err := printRows(rows, stdout); err != nil {
			return err
		}
		if *timing {
			fmt.Fprintf(stderr, "elapsed_ns: %d\n", time.Since(start).Nanoseconds())
		}
	}
	return nil
}

func printRows(rows *sql.Rows, w io.Writer) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	line := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			if v == nil {
				line[i] = ""
			} else {
				line[i] = fmt.Sprint(v)
			}
		}
		if _, err := fmt.Fprintln(w, strings.Join(line, "\t")); err != nil {
			return err
		}
	}
	return rows.Err()
}
