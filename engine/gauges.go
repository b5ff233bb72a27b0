package engine

import (
	"context"
	"strconv"
	"strings"
)

// Gauges is what an operator's monitoring reads of the engine's state
// (cmd/vatic exposes it to Prometheus). The job counts and durations come
// from the catalog, so they are the durable truth, the same for every
// process that opens the database; RowsIngested counts since this process
// started.
type Gauges struct {
	// Jobs counts the live imports and sessions by kind ("import",
	// "session"), type (an import's url/objectstore/blobstore, a session's
	// domain) and status.
	Jobs []JobCount
	// Durations describes the finished jobs' times from request to their
	// last status, by kind and status, over the bounds asked for.
	Durations []JobDurations
	// Workers is how many jobs of each kind may run at once, and Busy how
	// many are running (started).
	Workers, Busy map[string]int
	// RowsPredicted is every row predict has scored since the database
	// began (the usage the quota counts).
	RowsPredicted int64
	// RowsIngested is every row uploads and imports have committed since
	// this process started.
	RowsIngested int64
}

// JobCount is one cell of Gauges.Jobs.
type JobCount struct {
	Kind, Type, Status string
	Count              int
}

// JobDurations is a cumulative histogram of finished jobs' seconds from
// request to their final status: Buckets[i] counts the jobs within
// Bounds[i] (the bounds Gauges was asked for).
type JobDurations struct {
	Kind, Status string
	Count        int
	Sum          float64
	Buckets      []int
}

// Gauges reads the engine's state for monitoring; bounds (ascending
// seconds) are the duration histogram's buckets.
func (e *Engine) Gauges(ctx context.Context, bounds []float64) (Gauges, error) {
	g := Gauges{
		Workers:      map[string]int{"session": e.opts.SessionConcurrency},
		Busy:         map[string]int{"import": 0, "session": 0},
		RowsIngested: e.rowsIngested.Load(),
	}
	if e.imports != nil {
		g.Workers["import"] = e.opts.ImportConcurrency
	}
	const jobs = `(
		SELECT 'import' AS kind, kind AS type, status, requested, status_date FROM catalog.imports
		UNION ALL
		SELECT 'session', domain, status, requested, status_date FROM catalog.sessions WHERE NOT deleted)`
	rows, err := e.store.Rows(ctx, `SELECT kind, type, status, count(*) FROM `+jobs+` GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		return Gauges{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var c JobCount
		if err := rows.Scan(&c.Kind, &c.Type, &c.Status, &c.Count); err != nil {
			return Gauges{}, err
		}
		g.Jobs = append(g.Jobs, c)
		if Status(c.Status) == StatusStarted {
			g.Busy[c.Kind] += c.Count
		}
	}
	if err := rows.Err(); err != nil {
		return Gauges{}, err
	}
	rows.Close()

	// One pass over the finished jobs: count, sum and one count per bound.
	var sel strings.Builder
	sel.WriteString(`SELECT kind, status, count(*), coalesce(sum(secs), 0)`)
	for _, b := range bounds {
		sel.WriteString(`, count(*) FILTER (WHERE secs <= ` + strconv.FormatFloat(b, 'g', -1, 64) + `)`)
	}
	sel.WriteString(` FROM (SELECT kind, status, epoch(status_date) - epoch(requested) AS secs FROM ` + jobs + `
		WHERE status NOT IN ('requested', 'started')) GROUP BY ALL ORDER BY ALL`)
	rows, err = e.store.Rows(ctx, sel.String())
	if err != nil {
		return Gauges{}, err
	}
	defer rows.Close()
	for rows.Next() {
		d := JobDurations{Buckets: make([]int, len(bounds))}
		dst := []any{&d.Kind, &d.Status, &d.Count, &d.Sum}
		for i := range d.Buckets {
			dst = append(dst, &d.Buckets[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return Gauges{}, err
		}
		g.Durations = append(g.Durations, d)
	}
	if err := rows.Err(); err != nil {
		return Gauges{}, err
	}
	rows.Close()

	u, err := e.Usage(ctx)
	if err != nil {
		return Gauges{}, err
	}
	g.RowsPredicted = u.Predictions
	return g, nil
}
