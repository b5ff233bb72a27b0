package engine

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/duckstore"
)

// countingStore counts what the engine asks of its Store: statements
// (Exec, Rows, Query, Append, CreateTable) and commits (each outermost
// transaction, and each write outside one, which commits on its own).
// On a busy machine these counts say what a session's fixed cost is made
// of where its wall time cannot.
type countingStore struct {
	Store
	stmts, commits atomic.Int64
}

type countingTxKey struct{}

func (c *countingStore) write(ctx context.Context) {
	c.stmts.Add(1)
	if ctx.Value(countingTxKey{}) == nil {
		c.commits.Add(1)
	}
}

func (c *countingStore) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	c.write(ctx)
	return c.Store.Exec(ctx, q, args...)
}

func (c *countingStore) Append(ctx context.Context, table string, rr array.RecordReader) (int64, error) {
	c.write(ctx)
	return c.Store.Append(ctx, table, rr)
}

func (c *countingStore) CreateTable(ctx context.Context, table string, schema *arrow.Schema) error {
	c.write(ctx)
	return c.Store.CreateTable(ctx, table, schema)
}

func (c *countingStore) Rows(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.stmts.Add(1)
	return c.Store.Rows(ctx, q, args...)
}

func (c *countingStore) Query(ctx context.Context, q string, args ...any) (array.RecordReader, error) {
	c.stmts.Add(1)
	return c.Store.Query(ctx, q, args...)
}

func (c *countingStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if ctx.Value(countingTxKey{}) == nil {
		c.commits.Add(1)
		ctx = context.WithValue(ctx, countingTxKey{}, true)
	}
	return c.Store.Tx(ctx, fn)
}

// sessionBench is an engine on a DuckDB file whose store counts the
// engine's statements and commits, beside the bare store, which the
// benchmark polls without being counted.
type sessionBench struct {
	e     *Engine
	raw   *duckstore.Store
	count *countingStore
}

func newSessionBench(b *testing.B) *sessionBench {
	b.Helper()
	raw, err := duckstore.Open(b.Context(), filepath.Join(b.TempDir(), "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	count := &countingStore{Store: raw}
	e, err := New(b.Context(), count, Options{})
	if err != nil {
		raw.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		raw.Close()
	})
	return &sessionBench{e: e, raw: raw, count: count}
}

func (sb *sessionBench) put(b *testing.B, name, text string) {
	b.Helper()
	if _, _, err := sb.e.PutDataset(b.Context(), PutRequest{Name: name, Body: strings.NewReader(text), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		b.Fatal(err)
	}
}

// run times sessions of req from CreateSession to completed and reports
// the engine's statements and commits per session (stmts/op, commits/op).
// Completion is polled on the bare store, so the polling is not counted.
func (sb *sessionBench) run(b *testing.B, req SessionRequest) {
	b.Helper()
	sb.count.stmts.Store(0)
	sb.count.commits.Store(0)
	for b.Loop() {
		s, err := sb.e.CreateSession(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		if st := sb.wait(b, s.ID); st != StatusCompleted {
			b.Fatalf("session %s", st)
		}
	}
	b.ReportMetric(float64(sb.count.stmts.Load())/float64(b.N), "stmts/op")
	b.ReportMetric(float64(sb.count.commits.Load())/float64(b.N), "commits/op")
}

func (sb *sessionBench) wait(b *testing.B, id string) Status {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		rows, err := sb.raw.Rows(b.Context(), `SELECT status FROM catalog.sessions WHERE id = ?`, id)
		if err != nil {
			b.Fatal(err)
		}
		var st string
		if err := scanOne(rows, &st); err != nil {
			b.Fatal(err)
		}
		if s := Status(st); s != StatusRequested && s != StatusStarted {
			return s
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("session %s did not finish", id)
	return ""
}

// BenchmarkModelSession runs model sessions from CreateSession to
// completed: a regression on 200 rows of two features, where the fixed
// cost of a session dominates, and a classification of iris
// (../shared/data, as BenchmarkForecastSession finds it).
//
//	go test -tags duckdb_arrow -run '^$' -bench ModelSession -benchtime 5x -cpu 2 ./engine
func BenchmarkModelSession(b *testing.B) {
	b.Run("domain=regression", func(b *testing.B) {
		sb := newSessionBench(b)
		sb.put(b, "lin", linearCSV(200))
		sb.run(b, regressionRequest("lin"))
	})
	b.Run("domain=classification", func(b *testing.B) {
		sb := newSessionBench(b)
		sb.put(b, "iris", sharedDataB(b, "iris.csv"))
		sb.run(b, SessionRequest{Type: SessionModel, DataSourceName: "iris", TargetColumn: "species", PredictionDomain: DomainClassification})
	})
}
