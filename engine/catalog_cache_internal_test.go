package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaticml/vatic/columnar"
)

// These tests check catalogCache's promise: every committed catalog write
// is visible to the next read, and a rolled-back one never is. Each warms
// the cache with a read first, so a stale entry would show.

func (e *Engine) mustDataset(t *testing.T, name string) Dataset {
	t.Helper()
	d, err := e.Dataset(t.Context(), name)
	if err != nil {
		t.Fatalf("Dataset(%s): %v", name, err)
	}
	return d
}

// total reads the first page of a dataset and returns its total.
func (e *Engine) total(t *testing.T, name string) int64 {
	t.Helper()
	rows, err := e.ReadRows(t.Context(), name, RowsQuery{PageSize: 10})
	if err != nil {
		t.Fatalf("ReadRows(%s): %v", name, err)
	}
	defer rows.Release()
	return rows.Total
}

func notFound(err error) bool {
	var ee *Error
	return errors.As(err, &ee) && ee.Kind == NotFound
}

func TestCacheDatasetWrites(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "Sales", "ts,v\n2020-01-01,1\n2020-01-02,2\n2020-01-03,3\n")
	if got := e.total(t, "sales"); got != 3 {
		t.Fatalf("total = %d, want 3", got)
	}
	u, _ := e.Usage(ctx)
	if u.DataSets != 1 {
		t.Fatalf("Usage.DataSets = %d, want 1", u.DataSets)
	}

	// PUT of rows: the count, the entry and a new column show.
	e.putTestCSV(t, "sales", "ts,v,w\n2020-01-04,4,x\n")
	if got := e.total(t, "SALES"); got != 4 {
		t.Errorf("after PUT, total = %d, want 4", got)
	}
	if d := e.mustDataset(t, "sales"); d.RowCount != 4 || len(d.Columns) != 3 {
		t.Errorf("after PUT, dataset = %+v, want 4 rows and 3 columns", d)
	}
	rows, err := e.ReadRows(ctx, "sales", RowsQuery{PageSize: 10, Include: []string{"w"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Columns) != 1 {
		t.Errorf("after PUT, ReadRows columns = %v, want w (the table's new column)", rows.Columns)
	}
	rows.Release()

	// PUT of metadata only.
	if _, _, err := e.PutDataset(ctx, PutRequest{Name: "sales",
		Body: strings.NewReader(`{"columns":{"w":{"role":"feature"}}}`), Format: FormatHints{ContentType: "application/json"}}); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.mustDataset(t, "sales").Column("w"); c.Role != columnar.RoleFeature {
		t.Errorf("after metadata PUT, w = %+v, want role feature", c)
	}

	// Delete of a date range.
	start := time.Date(2020, 1, 3, 0, 0, 0, 0, time.UTC)
	if err := e.DeleteDataset(ctx, "sales", DeleteQuery{Start: &start}); err != nil {
		t.Fatal(err)
	}
	if got := e.total(t, "sales"); got != 2 {
		t.Errorf("after ranged delete, total = %d, want 2", got)
	}
	if d := e.mustDataset(t, "Sales"); d.RowCount != 2 {
		t.Errorf("after ranged delete, rowCount = %d, want 2", d.RowCount)
	}

	// Delete of the dataset, then a new one under the same name.
	if err := e.DeleteDataset(ctx, "SALES", DeleteQuery{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Dataset(ctx, "sales"); !notFound(err) {
		t.Errorf("after delete, Dataset = %v, want not found", err)
	}
	if u, _ := e.Usage(ctx); u.DataSets != 0 {
		t.Errorf("after delete, Usage.DataSets = %d, want 0", u.DataSets)
	}
	e.putTestCSV(t, "sales", "a\n1\n")
	if got := e.total(t, "sales"); got != 1 {
		t.Errorf("after re-create, total = %d, want 1", got)
	}
}

// failAfter is a body that yields prefix and then fails.
type failAfter struct{ r io.Reader }

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestCacheRolledBackWritesDoNotShow(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "d", "a,b\n1,2\n3,4\n")
	before := e.mustDataset(t, "d")
	if e.total(t, "d") != 2 {
		t.Fatal("want 2 rows")
	}

	// A PUT whose body breaks rolls back.
	_, _, err := e.PutDataset(ctx, PutRequest{Name: "d", Body: &failAfter{strings.NewReader("a,b,c\n5,6,7\n")}, Format: FormatHints{ContentType: "text/csv"}})
	if err == nil {
		t.Fatal("PUT of a broken body succeeded")
	}
	if d := e.mustDataset(t, "d"); d.RowCount != 2 || len(d.Columns) != 2 {
		t.Errorf("after a failed PUT, dataset = %+v, want %+v", d, before)
	}
	if got := e.total(t, "d"); got != 2 {
		t.Errorf("after a failed PUT, total = %d, want 2", got)
	}

	// A catalog write in a transaction that rolls back; reads inside it
	// see the write, reads after it do not.
	rollback := errors.New("rollback")
	err = e.store.Tx(ctx, func(ctx context.Context) error {
		d := before
		d.RowCount, d.Columns = 99, d.Columns[:1]
		if err := e.saveDataset(ctx, d); err != nil {
			return err
		}
		if in, _, err := e.loadDataset(ctx, "d"); err != nil || in.RowCount != 99 {
			t.Errorf("inside the transaction, dataset = %+v, %v; want its own write", in, err)
		}
		if err := e.setSessionStatus(ctx, "no-such-session", StatusFailed); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Tx = %v", err)
	}
	for range 2 { // a miss, then the refilled entry
		if d := e.mustDataset(t, "d"); d.RowCount != 2 || len(d.Columns) != 2 {
			t.Errorf("after rollback, dataset = %+v, want %+v", d, before)
		}
	}
	if u, _ := e.Usage(ctx); u.DataSets != 1 {
		t.Errorf("after rollback, Usage.DataSets = %d, want 1", u.DataSets)
	}
}

// Readers racing a writer never keep an entry older than the write: once
// each PUT returns, the next read sees its rows.
func TestCacheReadersRacingWriter(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "d", "k,v\n0,0\n")
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := e.Dataset(ctx, "d"); err != nil {
					t.Error(err)
					return
				}
				if rows, err := e.ReadRows(ctx, "D", RowsQuery{PageSize: 1}); err == nil {
					rows.Release()
				}
				_, _ = e.Usage(ctx)
			}
		}()
	}
	for i := 1; i <= 15; i++ {
		e.putTestCSV(t, "d", "k,v\n"+strings.Repeat("1,1\n", 1))
		want := int64(i + 1)
		if d := e.mustDataset(t, "d"); d.RowCount != want {
			t.Errorf("after PUT %d, rowCount = %d, want %d", i, d.RowCount, want)
		}
		if got := e.total(t, "d"); got != want {
			t.Errorf("after PUT %d, total = %d, want %d", i, got, want)
		}
	}
	stop.Store(true)
	wg.Wait()
}

func TestCacheSessionsAndModels(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "lin", linearCSV(200))
	s, err := e.CreateSession(ctx, regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.Session(ctx, s.ID); err != nil || got.Status != StatusRequested && got.Status != StatusStarted {
		t.Fatalf("Session = %+v, %v; want requested or started", got.Status, err)
	}
	if u, _ := e.Usage(ctx); u.Sessions != 1 {
		t.Errorf("Usage.Sessions = %d, want 1", u.Sessions)
	}
	// The worker's status changes show to a reader polling the cache.
	done := e.waitSession(t, s.ID)
	if done.Status != StatusCompleted || done.ModelID == "" || done.Algorithm == nil {
		t.Fatalf("session = %+v, want completed with a model", done)
	}
	if h := done.History; len(h) == 0 || h[len(h)-1].Status != StatusCompleted {
		t.Errorf("history = %+v, want it to end completed", h)
	}

	// Copies: changing what a read returned changes no later read.
	done.History[0].Status = "mangled"
	done.Metrics["x"] = 1
	if again, _ := e.Session(ctx, s.ID); again.History[0].Status == "mangled" || again.Metrics["x"] == 1 {
		t.Error("a caller's change reached the cache")
	}

	// Predict touches the model: lastUsed and the prediction count show.
	m, err := e.Model(ctx, done.ModelID)
	if err != nil || m.LastUsed != nil {
		t.Fatalf("Model = %+v, %v; want unused", m, err)
	}
	if _, err := e.predictText(ctx, m.ID, []string{"a", "b"}, [][]string{{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	if m, _ := e.Model(ctx, m.ID); m.LastUsed == nil {
		t.Error("after predict, lastUsed is still nil")
	}
	if u, _ := e.Usage(ctx); u.Predictions != 1 {
		t.Errorf("after predict, Usage.Predictions = %d, want 1", u.Predictions)
	}
	// A predict moves the cached lastUsed forward instead of dropping the
	// entry or the usage counts; an earlier touch committing later moves
	// neither the catalog nor the cache back.
	if _, err := e.predictText(ctx, m.ID, []string{"a", "b"}, [][]string{{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	cachedModel, ok := e.cache.model(m.ID)
	if !ok || cachedModel.LastUsed == nil {
		t.Fatalf("after a second predict, cached model = %+v, %v; want kept with lastUsed", cachedModel, ok)
	}
	if _, ok := e.cache.usageEntry(); !ok {
		t.Error("after a second predict, the usage counts were dropped")
	}
	if u, _ := e.Usage(ctx); u.Predictions != 2 {
		t.Errorf("after two predicts, Usage.Predictions = %d, want 2", u.Predictions)
	}
	latest := *cachedModel.LastUsed
	if err := e.touchModel(ctx, m.ID, latest.Add(-time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.cache.model(m.ID); !got.LastUsed.Equal(latest) {
		t.Errorf("cached lastUsed after an earlier touch = %v, want %v", got.LastUsed, latest)
	}
	e.cache.dropModel(m.ID)
	if got, _ := e.Model(ctx, m.ID); got.LastUsed == nil || !got.LastUsed.Equal(latest) {
		t.Errorf("catalog lastUsed after an earlier touch = %v, want %v", got.LastUsed, latest)
	}

	// Model delete.
	if err := e.DeleteModel(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Model(ctx, m.ID); !notFound(err) {
		t.Errorf("after delete, Model = %v, want not found", err)
	}

	// Session delete.
	if err := e.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Session(ctx, s.ID); !notFound(err) {
		t.Errorf("after delete, Session = %v, want not found", err)
	}
	if u, _ := e.Usage(ctx); u.Sessions != 0 {
		t.Errorf("after delete, Usage.Sessions = %d, want 0", u.Sessions)
	}
}

func TestCacheCascadeDelete(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	e.putTestCSV(t, "lin", linearCSV(200))
	s, err := e.CreateSession(ctx, regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	s = e.waitSession(t, s.ID)
	if _, err := e.Model(ctx, s.ModelID); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteDataset(ctx, "lin", DeleteQuery{Cascade: CascadeSessions | CascadeModels}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Session(ctx, s.ID); !notFound(err) {
		t.Errorf("after cascade, Session = %v, want not found", err)
	}
	if _, err := e.Model(ctx, s.ModelID); !notFound(err) {
		t.Errorf("after cascade, Model = %v, want not found", err)
	}
	if _, err := e.Dataset(ctx, "lin"); !notFound(err) {
		t.Errorf("after cascade, Dataset = %v, want not found", err)
	}
	if u, _ := e.Usage(ctx); u != (Usage{}) {
		t.Errorf("after cascade, Usage = %+v, want zeros", u)
	}
}

// csvFetcher serves one CSV text for any import.
type csvFetcher string

func (f csvFetcher) Fetch(context.Context, ImportSpec) (*RemoteObject, error) {
	return &RemoteObject{Body: io.NopCloser(strings.NewReader(string(f))), Name: "x.csv", ContentType: "text/csv"}, nil
}

func TestCacheImportCompletion(t *testing.T) {
	e := newTestEngine(t)
	e.Close()
	e2, err := New(t.Context(), e.store.(hookedStore).Store, Options{Fetcher: csvFetcher("a,b\n1,2\n3,4\n")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	ctx := t.Context()
	imp, err := e2.CreateImport(ctx, ImportSpec{Kind: ImportURL, URL: "http://example.com/x.csv", DataSetName: "imported"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := e2.Import(ctx, imp.ID) // polls through the cache
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == StatusCompleted {
			if len(got.Columns) != 2 {
				t.Errorf("completed import columns = %+v, want a and b", got.Columns)
			}
			break
		}
		if got.Status == StatusFailed || time.Now().After(deadline) {
			t.Fatalf("import = %+v, want completed", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := e2.total(t, "imported"); got != 2 {
		t.Errorf("imported total = %d, want 2", got)
	}
}

// pageTimes reads one page of a dataset and returns its timestamps.
func (e *Engine) pageTimes(t *testing.T, name string, q RowsQuery) []string {
	t.Helper()
	rows, err := e.ReadRows(t.Context(), name, q)
	if err != nil {
		t.Fatalf("ReadRows(%s): %v", name, err)
	}
	defer rows.Release()
	var out []string
	for rows.Reader.Next() {
		rec := rows.Reader.RecordBatch()
		for i := range int(rec.NumRows()) {
			out = append(out, rec.Column(0).ValueStr(i)[:10])
		}
	}
	if err := rows.Reader.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPageOrderFollowsWrites checks that a page is in time order whether
// the rows are stored in time order (read without a sort) or not (sorted
// by row id first), and that the cached answer to "stored in order?"
// changes with every write; a whole export asks it too.
func TestPageOrderFollowsWrites(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	page := RowsQuery{Include: []string{"ts"}, PageSize: 2, Page: 1}
	e.putTestCSV(t, "s", "ts,v\n2020-01-01,1\n2020-01-02,2\n2020-01-03,3\n2020-01-04,4\n")
	if got := e.pageTimes(t, "s", page); strings.Join(got, " ") != "2020-01-03 2020-01-04" {
		t.Fatalf("sorted table, page 1 = %v", got)
	}
	if ordered, ok := e.cache.order("s", "ts"); !ok || !ordered {
		t.Fatalf("cache order = %v, %v; want known and ordered", ordered, ok)
	}

	// Rows older than the last: the table is no longer in time order.
	e.putTestCSV(t, "s", "ts,v\n2019-12-31,0\n2020-01-05,5\n")
	if _, ok := e.cache.order("s", "ts"); ok {
		t.Fatal("the order survived a write")
	}
	all := e.pageTimes(t, "s", RowsQuery{Include: []string{"ts"}, PageSize: 10})
	if want := "2019-12-31 2020-01-01 2020-01-02 2020-01-03 2020-01-04 2020-01-05"; strings.Join(all, " ") != want {
		t.Fatalf("unsorted table, every row = %v, want %s", all, want)
	}
	if got := e.pageTimes(t, "s", page); strings.Join(got, " ") != "2020-01-02 2020-01-03" {
		t.Fatalf("unsorted table, page 1 = %v", got)
	}
	if ordered, ok := e.cache.order("s", "ts"); !ok || ordered {
		t.Fatalf("cache order = %v, %v; want known and not ordered", ordered, ok)
	}
	// A whole export (no page size) asks the same question and sorts.
	if got := e.pageTimes(t, "s", RowsQuery{Include: []string{"ts"}}); strings.Join(got, " ") != strings.Join(all, " ") {
		t.Fatalf("unsorted table, export = %v, want %v", got, all)
	}

	// A range delete of the early rows puts it back in order.
	end := time.Date(2019, 12, 31, 0, 0, 0, 0, time.UTC)
	if err := e.DeleteDataset(ctx, "s", DeleteQuery{End: &end}); err != nil {
		t.Fatal(err)
	}
	if got := e.pageTimes(t, "s", RowsQuery{Include: []string{"ts"}, PageSize: 3, Page: 1}); strings.Join(got, " ") != "2020-01-04 2020-01-05" {
		t.Fatalf("after delete, page 1 = %v", got)
	}
	if ordered, ok := e.cache.order("s", "ts"); !ok || !ordered {
		t.Fatalf("after delete, cache order = %v, %v; want known and ordered", ordered, ok)
	}
	e.putTestCSV(t, "s", "ts,v\n2020-01-06,6\n")
	if got := e.pageTimes(t, "s", RowsQuery{Include: []string{"ts"}}); len(got) != 6 || got[5] != "2020-01-06" {
		t.Fatalf("export after an in-order write = %v", got)
	}
	if ordered, ok := e.cache.order("s", "ts"); !ok || !ordered {
		t.Fatalf("after an export, cache order = %v, %v; want known and ordered (the export asked)", ordered, ok)
	}
}

// panicFetcher panics instead of opening the file: a bug in an import's
// path.
type panicFetcher struct{}

func (panicFetcher) Fetch(context.Context, ImportSpec) (*RemoteObject, error) {
	panic("fetcher bug")
}

// TestImportPanicFails checks that a panic in an import's goroutine fails
// that import with the generic internal message and leaves the engine
// serving.
func TestImportPanicFails(t *testing.T) {
	e := newTestEngine(t)
	e.Close()
	e2, err := New(t.Context(), e.store.(hookedStore).Store, Options{Fetcher: panicFetcher{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	ctx := t.Context()
	imp, err := e2.CreateImport(ctx, ImportSpec{Kind: ImportURL, URL: "http://example.com/x.csv", DataSetName: "imported"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := e2.Import(ctx, imp.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == StatusFailed {
			if len(got.Messages) == 0 || got.Messages[len(got.Messages)-1].Text != "An unexpected error occurred" {
				t.Errorf("failed import messages = %+v, want the internal error message", got.Messages)
			}
			break
		}
		if got.Status == StatusCompleted || time.Now().After(deadline) {
			t.Fatalf("import = %+v, want failed", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, _, err := e2.ListDatasets(ctx, ListQuery{}); err != nil {
		t.Errorf("engine after the panic: %v", err)
	}
	if _, exists, err := e2.loadDataset(ctx, "imported"); err != nil || exists {
		t.Errorf("dataset after a panicked import: exists %v, err %v", exists, err)
	}
}
