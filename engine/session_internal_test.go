package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/stats/regress"
)

// newTestEngine opens an engine on a DuckDB file in a temp directory.
func newTestEngine(t *testing.T) *Engine { return newBenchEngine(t) }

func newBenchEngine(t testing.TB) *Engine {
	t.Helper()
	store, err := duckstore.Open(t.Context(), filepath.Join(t.TempDir(), "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(t.Context(), store, Options{})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		store.Close()
	})
	return e
}

// linearCSV is y = 2a − 3b + 1 + a small wiggle, n rows.
func linearCSV(n int) string {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n {
		a, c := float64(i%17), float64((i*7)%11)
		fmt.Fprintf(&b, "%g,%g,%g\n", a, c, 2*a-3*c+1+float64(i%3)*0.1)
	}
	return b.String()
}

func (e *Engine) putTestCSV(t *testing.T, name, text string) {
	t.Helper()
	if _, _, err := e.PutDataset(t.Context(), PutRequest{Name: name, Body: strings.NewReader(text), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		t.Fatalf("PutDataset(%s): %v", name, err)
	}
}

func (e *Engine) waitSession(t *testing.T, id string) Session { return waitSessionB(t, e, id) }

func waitSessionB(t testing.TB, e *Engine, id string) Session {
	t.Helper()
	return waitSessionWithin(t, e, id, time.Minute)
}

// waitSessionWithin polls a session until it leaves requested and started,
// failing the test after d.
func waitSessionWithin(t testing.TB, e *Engine, id string, d time.Duration) Session {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		s, err := e.Session(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != StatusRequested && s.Status != StatusStarted {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("session %s did not finish", id)
	return Session{}
}

func regressionRequest(source string) SessionRequest {
	return SessionRequest{Type: SessionModel, DataSourceName: source, TargetColumn: "y", PredictionDomain: DomainRegression}
}

// A session that runs again (after a restart, say) gives identical
// numbers: the split and every algorithm draw from the session's seed.
func TestSessionRunsAgainIdentically(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "lin", linearCSV(300))
	s, err := e.CreateSession(t.Context(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	first := e.waitSession(t, s.ID)
	cs1, err := e.loadContestants(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var progress []int
	if err := e.runSession(t.Context(), s.ID, func(p int) { progress = append(progress, p) }); err != nil {
		t.Fatalf("runSession again: %v", err)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] < progress[i-1] {
			t.Errorf("progress %v falls", progress)
		}
	}
	if len(progress) < 5 || progress[0] <= 0 || progress[len(progress)-1] < 90 {
		t.Errorf("progress = %v, want a rising series ending at 90 or more", progress)
	}
	cs2, err := e.loadContestants(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs1) != len(cs2) || len(cs1) == 0 {
		t.Fatalf("contestants: %d then %d", len(cs1), len(cs2))
	}
	for i := range cs1 {
		for k, v := range cs1[i].Metrics {
			if cs2[i].Metrics[k] != v {
				t.Errorf("%s %s = %v then %v, want identical", cs1[i].Algorithm.Key, k, v, cs2[i].Metrics[k])
			}
		}
	}
	if first.Metrics["rootMeanSquareError"] > 0.2 {
		t.Errorf("champion RMSE on a nearly linear target = %v, want < 0.2", first.Metrics["rootMeanSquareError"])
	}
}

// brokenAlgorithm fails or panics as told.
type brokenAlgorithm struct{ panics bool }

func (b brokenAlgorithm) Key() string {
	return map[bool]string{true: "panics", false: "fails"}[b.panics]
}
func (b brokenAlgorithm) Name() string { return b.Key() }
func (b brokenAlgorithm) Scaled() bool { return false }
func (b brokenAlgorithm) Fit(regress.Data, regress.Options) (regress.Model, error) {
	if b.panics {
		panic("index out of range in a test algorithm")
	}
	return nil, errors.New("cannot fit")
}

// A panic inside one algorithm fails that contestant, not the session;
// when nothing can be fitted the session fails with a message.
func TestBrokenAlgorithms(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "lin", linearCSV(100))
	e.regressors = func() []regress.Algorithm {
		return append([]regress.Algorithm{brokenAlgorithm{panics: true}, brokenAlgorithm{}}, regress.Algorithms()[:1]...)
	}
	s, err := e.CreateSession(t.Context(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitSession(t, s.ID)
	if done.Status != StatusCompleted {
		t.Fatalf("session with two broken contestants = %s %v, want completed", done.Status, done.Messages)
	}
	cs, err := e.loadContestants(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || len(cs[0].Metrics) != 0 || cs[0].Message == "" || len(cs[1].Metrics) != 0 || len(cs[2].Metrics) == 0 {
		t.Errorf("contestants = %+v, want two failed with empty metrics and one scored", cs)
	}

	e.regressors = func() []regress.Algorithm {
		return []regress.Algorithm{brokenAlgorithm{panics: true}, brokenAlgorithm{}}
	}
	s, err = e.CreateSession(context.Background(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	done = e.waitSession(t, s.ID)
	if done.Status != StatusFailed || len(done.Messages) == 0 || done.Messages[len(done.Messages)-1].Severity != "error" ||
		!strings.HasPrefix(done.Messages[len(done.Messages)-1].Text, "No algorithm could be run") {
		t.Errorf("session where nothing fits = %s %+v, want failed with an error message", done.Status, done.Messages)
	}
	if _, err := e.SessionContest(t.Context(), s.ID); err == nil {
		t.Errorf("SessionContest(failed session) = nil error, want not found")
	}
}

// unsavable fits like the algorithm it wraps, but its models cannot be
// serialised: an internal failure after the contest.
type unsavable struct{ regress.Algorithm }

func (u unsavable) Fit(d regress.Data, o regress.Options) (regress.Model, error) {
	m, err := u.Algorithm.Fit(d, o)
	return unsavableModel{m}, err
}

type unsavableModel struct{ regress.Model }

func (u unsavableModel) Refit(d regress.Data, o regress.Options) (regress.Model, error) {
	m, err := u.Model.Refit(d, o)
	return unsavableModel{m}, err
}

func (unsavableModel) MarshalBinary() ([]byte, error) { return nil, errors.New("disk on fire") }

// A session that fails for an internal reason says so and names itself for
// the log; "no algorithm could be run" stays for the contest that failed.
func TestInternalFailureMessage(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "lin", linearCSV(100))
	e.regressors = func() []regress.Algorithm { return []regress.Algorithm{unsavable{regress.Algorithms()[0]}} }
	s, err := e.CreateSession(t.Context(), regressionRequest("lin"))
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitSession(t, s.ID)
	last := done.Messages[len(done.Messages)-1]
	if done.Status != StatusFailed || last.Severity != "error" || last.Text != internalFailure(s.ID) ||
		!strings.Contains(last.Text, "internal error") || strings.Contains(last.Text, "No algorithm") {
		t.Errorf("session that cannot save its model = %s %+v, want failed with the internal-error message", done.Status, done.Messages)
	}
}

func TestOutOfBudget(t *testing.T) {
	for _, c := range []struct {
		key                string
		train, test, feats int
		out                bool
	}{
		{"knn", 1600, 400, 10, false},
		{"knn", 80000, 20000, 50, true},
		{"gbm", 80000, 20000, 50, false},
	} {
		if got := outOfBudget(c.key, c.train, c.test, c.feats) != ""; got != c.out {
			t.Errorf("outOfBudget(%s, %d, %d, %d) left out = %v, want %v", c.key, c.train, c.test, c.feats, got, c.out)
		}
	}
}
