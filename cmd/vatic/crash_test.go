//go:build unix

package main

// The crash test: `vatic serve` runs as a child process (this test binary
// re-executed, so it is built with the test's tags and race setting), is
// killed with SIGKILL at random points of a PUT with upsert, of a URL
// import and of a regression session (every third kill lands on a log
// line instead: the one logged right after the data commits), and is
// started again on the same data directory each time. After every kill
// the database file is checked as the kill left it (opened read-only), and
// after every restart the jobs must finish:
//
//   - every dataset's catalog row count is its table's row count;
//   - a PUT's rows (a batch column tells them apart) are all there or none,
//     and there if the PUT was answered;
//   - an import's rows are there exactly once if it completed and not at
//     all otherwise (its rows and its completion commit together);
//   - a completed session has exactly one model, any other none;
//   - after a restart every import and session ends completed or failed;
//   - spool files a kill left in <data>/tmp are gone after the restart,
//     and nothing spools to the system's temporary directory.
//
// TestCrash kills each scenario crashRuns times (3; VATIC_CRASH_N sets it,
// `make crash` runs 20); VATIC_CRASH_SEED replays the kill points of a run.

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vaticml/vatic/duckstore"
)

// crashChildEnv makes the test binary run `vatic` (its arguments) instead
// of the tests.
const crashChildEnv = "VATIC_CRASH_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "vatic:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	crashKey       = "crash-key"
	crashPutRows   = 50000 // JSON rows per PUT: over 4 MiB, so they spool
	crashImportRow = 20000 // CSV rows per imported file
	crashRegRows   = 200
)

// crashServer is `vatic serve` in a child process.
type crashServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	exited chan struct{} // closed once the process is reaped
	// trigger, when set, kills the process as soon as a log line
	// contains it; triggered reports that it did.
	trigger   atomic.Pointer[string]
	triggered atomic.Bool

	mu   sync.Mutex
	tail []string // the last log lines, for failure reports
	err  error    // the process's exit
}

// startCrashServer starts the server on dir and waits until it listens.
func startCrashServer(t *testing.T, dir, sysTmp string) *crashServer {
	t.Helper()
	s := &crashServer{t: t, exited: make(chan struct{})}
	s.cmd = exec.Command(os.Args[0], "serve", "-addr", "127.0.0.1:0", "-data", dir, "-api-key", crashKey,
		"-log-format", "json", "-import-allow-private", "-threads", "2", "-shutdown-grace", "10s")
	s.cmd.Env = append(os.Environ(), crashChildEnv+"=1", "TMPDIR="+sysTmp)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if tr := s.trigger.Load(); tr != nil && strings.Contains(line, *tr) && !s.triggered.Swap(true) {
				_ = s.cmd.Process.Kill()
			}
			s.mu.Lock()
			s.tail = append(s.tail, line)
			if len(s.tail) > 40 {
				s.tail = s.tail[1:]
			}
			s.mu.Unlock()
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "vatic serving" {
				ready <- l.Addr
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		err := s.cmd.Wait()
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.exited)
	}()
	select {
	case addr := <-ready:
		s.base = "http://" + addr
	case <-s.exited:
		t.Fatalf("server exited at start: %v\n%s", s.err, s.logTail())
	case <-time.After(2 * time.Minute):
		s.kill()
		t.Fatalf("server did not start\n%s", s.logTail())
	}
	return s
}

func (s *crashServer) logTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// kill sends SIGKILL and waits for the process to be reaped.
func (s *crashServer) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// stop shuts the server down with SIGTERM and wants a clean exit.
func (s *crashServer) stop() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.kill()
		s.t.Fatalf("server did not stop on SIGTERM\n%s", s.logTail())
	}
	if s.err != nil {
		s.t.Fatalf("server exit: %v\n%s", s.err, s.logTail())
	}
}

// do sends one request; a kill makes it fail, which the caller expects.
func (s *crashServer) do(method, path, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("api-key", crashKey)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// must sends one request that has to succeed with want.
func (s *crashServer) must(method, path, ctype string, body []byte, want int) []byte {
	s.t.Helper()
	status, b, err := s.do(method, path, ctype, body)
	if err != nil || status != want {
		s.t.Fatalf("%s %s = %d %s (%v), want %d\n%s", method, path, status, b, err, want, s.logTail())
	}
	return b
}

// settle waits until every import and session has ended.
func (s *crashServer) settle() {
	s.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var busy []string
		for _, list := range []string{"/v1/imports?pageSize=1000", "/v1/sessions?pageSize=1000"} {
			var page struct {
				Items []struct{ ImportID, SessionID, Status string }
			}
			if err := json.Unmarshal(s.must("GET", list, "", nil, 200), &page); err != nil {
				s.t.Fatal(err)
			}
			for _, it := range page.Items {
				if it.Status != "completed" && it.Status != "failed" {
					busy = append(busy, it.ImportID+it.SessionID+" "+it.Status)
				}
			}
		}
		if len(busy) == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("jobs stuck after a restart: %v\n%s", busy, s.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// crashRig is the state of one crash run: the data directory, the source
// of imported files, and what the test knows was written.
type crashRig struct {
	t      *testing.T
	rng    *rand.Rand
	dir    string
	sysTmp string
	src    *httptest.Server
	srv    *crashServer // the running server, or nil

	put     map[string]int // data.put as committed: id → batch
	putNext int            // the next PUT's batch

	importNext int
	// acked is the batch of the last PUT the server answered (it is
	// sent on its own goroutine while the test waits for the kill).
	acked atomic.Int64

	lastLog string // the log tail of the killed server

	kills, triggered, spoolsLeft int
	putsCommitted, putsLost      int
}

// putBatch is PUT i: crashPutRows rows of batch i with ids from
// i·crashPutRows/2, so half of them replace rows of PUT i-1 (an upsert on
// the key id) and half are new. Rows come before the column metadata, so
// the body spools.
func putBatch(i int) ([]byte, map[string]int) {
	var b bytes.Buffer
	rows := make(map[string]int, crashPutRows)
	b.WriteString(`{"data":[`)
	for j := range crashPutRows {
		id := "k" + strconv.Itoa(i*crashPutRows/2+j)
		rows[id] = i
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"batch":%d,"v":%d.5,"note":"padding so that the body spools to disk"}`, id, i, j)
	}
	b.WriteString(`],"columns":{"id":{"dataType":"string","role":"key"},"batch":{"dataType":"numeric"}}}`)
	return b.Bytes(), rows
}

// importFile is the CSV an import of batch b reads.
func importFile(w io.Writer, batch int) {
	bw := bufio.NewWriter(w)
	bw.WriteString("batch,seq,v\n")
	for j := range crashImportRow {
		fmt.Fprintf(bw, "%d,%d,%d.25\n", batch, j, j%97)
	}
	bw.Flush()
}

func regressionCSV() []byte {
	var b bytes.Buffer
	b.WriteString("a,b,c,y\n")
	for i := range crashRegRows {
		a, c, d := float64(i%17), float64((i*7)%11), float64((i*5)%13)
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", a, c, d, 2*a-3*c+0.5*d+1+float64(i%3)*0.1)
	}
	return b.Bytes()
}

func TestCrash(t *testing.T) {
	runs := 3
	if v := os.Getenv("VATIC_CRASH_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("VATIC_CRASH_N=%q: want a positive number", v)
		}
		runs = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("VATIC_CRASH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("VATIC_CRASH_SEED=%q: %v", v, err)
		}
	}
	t.Logf("%d kills per scenario; VATIC_CRASH_SEED=%d replays the kill points", runs, seed)
	r := &crashRig{t: t, rng: rand.New(rand.NewPCG(seed, 0)), dir: t.TempDir(), sysTmp: t.TempDir(), put: map[string]int{}}
	r.src = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(req.URL.Path, "/b/"), ".csv"))
		if err != nil {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/csv")
		importFile(w, b)
	}))
	t.Cleanup(r.src.Close)
	t.Cleanup(func() {
		if r.srv != nil {
			r.srv.kill()
		}
	})

	// Warm-up, never killed: the first PUT creates the keyed dataset, and
	// one import and one session run to the end; their times bound the
	// random kill points.
	r.start()
	putTime := r.timed(func() {
		body := r.nextPut()
		r.srv.must("PUT", "/v1/data/put", "application/json", body, 201)
		r.applyPut(0)
	})
	r.srv.must("PUT", "/v1/data/reg", "text/csv", regressionCSV(), 201)
	importTime := r.timed(func() { r.importRequest()(); r.srv.settle() })
	sessionTime := r.timed(func() { r.sessionRequest()(); r.srv.settle() })
	t.Logf("uninterrupted: PUT %v, import %v, session %v", putTime, importTime, sessionTime)

	scenarios := []struct {
		name    string
		trigger string // a log line to kill on, every third run
		limit   time.Duration
		request func() func() // prepares a request and returns its sending
	}{
		{"put", `"msg":"dataset written"`, putTime, r.putRequest},
		{"import", `"msg":"dataset written"`, importTime, r.importRequest},
		{"session", `"msg":"session completed"`, sessionTime, r.sessionRequest},
	}
	for _, sc := range scenarios {
		for i := range runs {
			srv := r.srv
			srv.settle()
			// A random point up to a little past the uninterrupted time;
			// every third run kills on a log line instead (the timer then
			// only ends a run whose line never comes).
			killAt := time.Duration(r.rng.Int64N(int64(sc.limit)*6/5 + 1))
			if i%3 == 0 {
				srv.trigger.Store(&sc.trigger)
				killAt = 2*sc.limit + 2*time.Second
			}
			send := sc.request()
			timer := time.AfterFunc(killAt, func() { _ = srv.cmd.Process.Kill() })
			go send()
			<-srv.exited
			timer.Stop()
			r.kills++
			if srv.triggered.Load() {
				r.triggered++
			}
			r.srv = nil
			r.lastLog = srv.logTail()
			r.checkFile(sc.name, false)
			r.start()
		}
	}
	r.srv.settle()
	r.srv.stop()
	r.srv = nil
	r.checkFile("final", true)
	t.Logf("%d kills (%d on a log line, the rest at random points), %d left spool files; killed PUTs committed %d, rolled back %d",
		r.kills, r.triggered, r.spoolsLeft, r.putsCommitted, r.putsLost)
}

// start starts the server and checks that it removed what a kill left
// in its temporary directory.
func (r *crashRig) start() {
	r.t.Helper()
	r.srv = startCrashServer(r.t, r.dir, r.sysTmp)
	if left, _ := filepath.Glob(filepath.Join(r.dir, "tmp", "vatic-ingest-*")); len(left) > 0 {
		r.t.Errorf("spool files left after a restart: %v", left)
	}
}

func (r *crashRig) timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// nextPut is the body of the next PUT.
func (r *crashRig) nextPut() []byte {
	body, _ := putBatch(r.putNext)
	r.putNext++
	return body
}

// putRequest prepares the next PUT; sending it records in acked whether
// the server answered.
func (r *crashRig) putRequest() func() {
	srv, batch := r.srv, r.putNext
	body := r.nextPut()
	return func() {
		status, _, err := srv.do("PUT", "/v1/data/put", "application/json", body)
		if err == nil && status/100 == 2 {
			r.acked.Store(int64(batch))
		}
	}
}

func (r *crashRig) applyPut(batch int) {
	_, rows := putBatch(batch)
	for id, b := range rows {
		r.put[id] = b
	}
}

// importRequest prepares the next import into dataset imported.
func (r *crashRig) importRequest() func() {
	srv := r.srv
	body, _ := json.Marshal(map[string]string{"dataSetName": "imported", "url": fmt.Sprintf("%s/b/%d.csv", r.src.URL, r.importNext)})
	r.importNext++
	return func() { _, _, _ = srv.do("POST", "/v1/imports/url", "application/json", body) }
}

// sessionRequest prepares a regression session on dataset reg.
func (r *crashRig) sessionRequest() func() {
	srv := r.srv
	return func() {
		_, _, _ = srv.do("POST", "/v1/sessions/model", "application/json",
			[]byte(`{"dataSourceName": "reg", "targetColumn": "y", "predictionDomain": "regression"}`))
	}
}

// checkFile opens the database as the server left it and checks the
// invariants; final also wants every job ended.
func (r *crashRig) checkFile(after string, final bool) {
	t := r.t
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(r.dir, "tmp", "vatic-ingest-*")); len(left) > 0 {
		r.spoolsLeft++
	}
	if left, _ := filepath.Glob(filepath.Join(r.sysTmp, "vatic-*")); len(left) > 0 {
		t.Errorf("after %s: spool files in the system's temporary directory: %v", after, left)
	}
	ctx := t.Context()
	// Read-only: DuckDB replays the write-ahead log in memory and leaves
	// it, so the restarted server recovers from the file as the kill left
	// it.
	store, err := duckstore.Open(ctx, filepath.Join(r.dir, "vatic.duckdb")+"?access_mode=read_only", duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatalf("after %s: open the database: %v", after, err)
	}
	defer store.Close()
	query := func(q string, args ...any) *sql.Rows {
		t.Helper()
		rows, err := store.Rows(ctx, q, args...)
		if err != nil {
			t.Fatalf("after %s: %s: %v", after, q, err)
		}
		return rows
	}
	one := func(q string, args ...any) int64 {
		t.Helper()
		rows := query(q, args...)
		defer rows.Close()
		var n int64
		if !rows.Next() {
			t.Fatalf("after %s: %s: no row", after, q)
		}
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Catalog row counts are the tables' row counts.
	type entry struct {
		name  string
		count int64
	}
	var datasets []entry
	rows := query(`SELECT name, row_count FROM catalog.datasets`)
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.name, &e.count); err != nil {
			t.Fatal(err)
		}
		datasets = append(datasets, e)
	}
	rows.Close()
	for _, d := range datasets {
		if n := one(`SELECT count(*) FROM data."` + d.name + `"`); n != d.count {
			t.Errorf("after %s: dataset %s has %d rows, its catalog entry says %d", after, d.name, n, d.count)
		}
	}

	// The PUTs: the table is the committed state, with the last PUT's
	// rows all there or none.
	got := map[string]int{}
	rows = query(`SELECT id, CAST(batch AS INTEGER) FROM data."put"`)
	for rows.Next() {
		var id string
		var b int
		if err := rows.Scan(&id, &b); err != nil {
			t.Fatal(err)
		}
		got[id] = b
	}
	rows.Close()
	last := r.putNext - 1
	_, lastRows := putBatch(last)
	committed := false
	for _, b := range got {
		if b == last {
			committed = true
			break
		}
	}
	want := r.put
	if committed && r.put[firstID(last)] != last {
		want = map[string]int{}
		for id, b := range r.put {
			want[id] = b
		}
		for id, b := range lastRows {
			want[id] = b
		}
	}
	if !sameRows(got, want) {
		t.Errorf("after %s: data.put holds %d rows, not the %d of the PUTs committed (last PUT %d committed: %v)", after, len(got), len(want), last, committed)
	}
	if int64(last) == r.acked.Load() && !committed {
		t.Errorf("after %s: PUT %d was answered but its rows are not there\n%s", after, last, r.lastLog)
	}
	if after == "put" {
		if committed {
			r.putsCommitted++
		} else {
			r.putsLost++
		}
	}
	r.put = want

	// Imports: rows there exactly once when completed, not at all before.
	perBatch := map[int]int64{}
	if one(`SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'data' AND table_name = 'imported'`) > 0 {
		rows = query(`SELECT CAST(batch AS INTEGER), count(*) FROM data.imported GROUP BY ALL`)
		for rows.Next() {
			var b int
			var n int64
			if err := rows.Scan(&b, &n); err != nil {
				t.Fatal(err)
			}
			perBatch[b] = n
		}
		rows.Close()
	}
	rows = query(`SELECT id, status, parameters FROM catalog.imports`)
	seen := map[int]bool{}
	for rows.Next() {
		var id, status, params string
		if err := rows.Scan(&id, &status, &params); err != nil {
			t.Fatal(err)
		}
		b := importBatch(t, params)
		seen[b] = true
		n := perBatch[b]
		switch {
		case status == "completed" && n != crashImportRow:
			t.Errorf("after %s: completed import %s (batch %d) has %d rows, want %d", after, id, b, n, crashImportRow)
		case status != "completed" && n != 0:
			t.Errorf("after %s: %s import %s (batch %d) has %d rows, want none", after, status, id, b, n)
		}
		if final && status != "completed" && status != "failed" {
			t.Errorf("after %s: import %s is %s", after, id, status)
		}
	}
	rows.Close()
	for b, n := range perBatch {
		if !seen[b] {
			t.Errorf("after %s: %d rows of batch %d that no import wrote", after, n, b)
		}
	}

	// Sessions: a model exactly when completed.
	rows = query(`SELECT s.id, s.status, (SELECT count(*) FROM catalog.models m WHERE m.session_id = s.id) FROM catalog.sessions s`)
	for rows.Next() {
		var id, status string
		var models int64
		if err := rows.Scan(&id, &status, &models); err != nil {
			t.Fatal(err)
		}
		if (status == "completed") != (models == 1) || models > 1 {
			t.Errorf("after %s: %s session %s has %d models", after, status, id, models)
		}
		if final && status != "completed" && status != "failed" {
			t.Errorf("after %s: session %s is %s", after, id, status)
		}
	}
	rows.Close()
	if n := one(`SELECT count(*) FROM (SELECT session_id, id FROM catalog.contestants GROUP BY ALL HAVING count(*) > 1)`); n > 0 {
		t.Errorf("after %s: %d contestants recorded twice", after, n)
	}
	if t.Failed() {
		t.FailNow()
	}
}

func firstID(batch int) string { return "k" + strconv.Itoa(batch*crashPutRows/2) }

func sameRows(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for id, x := range a {
		if y, ok := b[id]; !ok || x != y {
			return false
		}
	}
	return true
}

// importBatch reads the batch from an import's stored parameters.
func importBatch(t *testing.T, params string) int {
	var pairs [][2]string
	if err := json.Unmarshal([]byte(params), &pairs); err != nil || len(pairs) == 0 {
		t.Fatalf("import parameters %q: %v", params, err)
	}
	u := pairs[0][1]
	b, err := strconv.Atoi(strings.TrimSuffix(u[strings.LastIndex(u, "/")+1:], ".csv"))
	if err != nil {
		t.Fatalf("import url %q: %v", u, err)
	}
	return b
}
