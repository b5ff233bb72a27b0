package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/duckstore"
)

// openEngineAt opens an engine on <dir>/vatic.duckdb; close stops it and
// closes the store, as a shutdown does.
func openEngineAt(t *testing.T, dir string, opts Options) (e *Engine, close func()) {
	t.Helper()
	store, err := duckstore.Open(t.Context(), filepath.Join(dir, "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, err = New(t.Context(), store, opts)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	closed := false
	close = func() {
		if !closed {
			closed = true
			e.Close()
			store.Close()
		}
	}
	t.Cleanup(close)
	return e, close
}

// An import's completion is written inside the transaction of its rows:
// when recording it fails, the rows roll back with it, so a crash can
// never keep the rows of an import that then runs again.
func TestPutDatasetAlsoCommitsWithRows(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "ds", "a,b\n1,x\n")
	put := func(also func(ctx context.Context, d Dataset) error) error {
		_, _, err := e.putDataset(t.Context(), PutRequest{Name: "ds", Body: strings.NewReader("a,b\n2,y\n3,z\n"), Format: FormatHints{ContentType: "text/csv"}}, also)
		return err
	}
	boom := errors.New("boom")
	if err := put(func(ctx context.Context, d Dataset) error {
		if d.RowCount != 3 {
			t.Errorf("also sees %d rows, want 3", d.RowCount)
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("putDataset with failing also = %v, want boom", err)
	}
	if d, err := e.Dataset(t.Context(), "ds"); err != nil || d.RowCount != 1 {
		t.Fatalf("after a failed also: %d rows (%v), want the 1 from before", d.RowCount, err)
	}
	if err := put(func(context.Context, Dataset) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if d, err := e.Dataset(t.Context(), "ds"); err != nil || d.RowCount != 3 {
		t.Errorf("after a good also: %d rows (%v), want 3", d.RowCount, err)
	}
}

// blockingFetcher serves an import whose download never ends: the import
// stays started until its engine stops.
type blockingFetcher struct{ started chan string }

func (f blockingFetcher) Fetch(ctx context.Context, spec ImportSpec) (*RemoteObject, error) {
	f.started <- spec.DataSetName
	return &RemoteObject{Body: io.NopCloser(ctxReader{ctx}), Name: "x.csv"}, nil
}

type ctxReader struct{ ctx context.Context }

func (r ctxReader) Read([]byte) (int, error) {
	<-r.ctx.Done()
	return 0, r.ctx.Err()
}

// An import cut off by every stop runs again MaxRestarts-1 times, each time
// with the restart message, and the MaxRestarts'th interruption fails it
// with a message that says so; the count survives the restarts.
func TestImportRestartCap(t *testing.T) {
	dir := t.TempDir()
	f := blockingFetcher{started: make(chan string, 1)}
	opts := Options{Fetcher: f, MaxRestarts: 3}
	var id string
	for start := range 4 {
		e, stop := openEngineAt(t, dir, opts)
		if start == 0 {
			imp, err := e.CreateImport(t.Context(), ImportSpec{Kind: ImportURL, DataSetName: "ds", URL: "http://example.com/x.csv"})
			if err != nil {
				t.Fatal(err)
			}
			id = imp.ID
		}
		imp, err := e.Import(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		restarts := strings.Count(fmtMessages(imp.Messages), "runs again from the start")
		if start < 3 {
			select {
			case <-f.started:
			case <-time.After(30 * time.Second):
				t.Fatalf("start %d: the import did not run", start)
			}
			if restarts != start {
				t.Errorf("start %d: %d restart messages, want %d", start, restarts, start)
			}
			stop()
			continue
		}
		if imp.Status != StatusFailed || restarts != 2 ||
			!strings.Contains(fmtMessages(imp.Messages), "interrupted 3 times and will not run again") {
			t.Errorf("after 3 interruptions: %s %s, want failed saying it was interrupted 3 times", imp.Status, fmtMessages(imp.Messages))
		}
		select {
		case <-f.started:
			t.Errorf("the import ran a fourth time")
		case <-time.After(100 * time.Millisecond):
		}
		stop()
	}
}

func fmtMessages(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Severity + ": " + m.Text + "\n")
	}
	return b.String()
}

// New removes the spool files a killed process left in TempDir, and only
// those.
func TestNewRemovesSpools(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vatic-ingest-123.json", "other.txt"} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	openEngineAt(t, dir, Options{TempDir: tmp})
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 || entries[0].Name() != "other.txt" {
		t.Errorf("TempDir after New: %v, want only other.txt", entries)
	}
}

// A session found started by the start that makes its MaxRestarts'th
// interruption fails instead of running again.
func TestSessionRestartCap(t *testing.T) {
	dir := t.TempDir()
	e, stop := openEngineAt(t, dir, Options{})
	const id = "0190a0c4-1b2c-7d3e-8f40-5a6b7c8d9e0f"
	now := time.Now().UTC()
	if _, err := e.store.Exec(t.Context(), `INSERT INTO catalog.sessions
		(id, type, domain, status, data_source, target, name, callback_url, webhook_token, is_estimate, requested, status_date, request, columns, interrupted)
		VALUES (?, 'model', 'regression', 'started', 'ds', 'y', 'n', '', '', false, ?, ?, '{"request":{},"view":false}', '[]', 2)`, id, now, now); err != nil {
		t.Fatal(err)
	}
	stop()
	e, _ = openEngineAt(t, dir, Options{})
	s, err := e.Session(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != StatusFailed || !strings.Contains(fmtMessages(s.Messages), "this session ran; it was interrupted 3 times and will not run again") {
		t.Errorf("session after its third interruption: %s %s, want failed saying so", s.Status, fmtMessages(s.Messages))
	}
}
