package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vaticml/vatic/engine"
)

// streamRows is more rows than one predict batch (16384), so that a body
// of them is read, scored and spooled in several batches.
const streamRows = 40_000

// friedmanCSV renders n rows of x0…x9 as CSV, row i's values all i/n;
// bad, when ≥ 0, is the row whose x3 is "oops".
func friedmanCSV(n, bad int) string {
	var sb strings.Builder
	sb.WriteString("x0,x1,x2,x3,x4,x5,x6,x7,x8,x9\n")
	for i := range n {
		v := strconv.FormatFloat(float64(i)/float64(n), 'g', -1, 64)
		for j := range 10 {
			if j > 0 {
				sb.WriteByte(',')
			}
			if i == bad && j == 3 {
				sb.WriteString("oops")
			} else {
				sb.WriteString(v)
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// A bad value in a late batch of a long body is a 400 naming its row and
// column, and nothing else is sent: no partial rows, no prediction
// counted, the model unused.
func TestPredictStreamLateBadValue(t *testing.T) {
	s := newServer(t)
	id := s.namedModel(t, "friedman", "late")
	path := "/v1/models/" + id + "/predict"
	const bad = 37_123
	for _, c := range []struct{ what, body, contentType string }{
		{"CSV", friedmanCSV(streamRows, bad), "text/csv"},
		{"JSON", friedmanJSONBody(streamRows, bad), "application/json"},
	} {
		res := s.do(t, http.MethodPost, path, c.body, "Content-Type", c.contentType)
		e := wantError(t, "predict "+c.what+" with a bad value at row 37123", res, 400, "RequestValidation", "x3")
		if !strings.Contains(e.Message, "Row 37123") || !strings.Contains(e.Message, `"oops"`) {
			t.Errorf("predict %s message = %q, want row 37123 and the value", c.what, e.Message)
		}
		if strings.Contains(string(res.body), `"data"`) {
			t.Errorf("predict %s answer = %.200s…, want the error alone", c.what, res.body)
		}
	}
	if res := s.do(t, http.MethodGet, "/v1/models/"+id, nil); strings.Contains(string(res.body), "lastUsedDate") {
		t.Errorf("model after a refused prediction = %s, want no lastUsedDate", res.body)
	}

	// The same bodies without the bad value answer every row, in order.
	for _, c := range []struct{ what, body, contentType string }{
		{"CSV", friedmanCSV(streamRows, -1), "text/csv"},
		{"JSON", friedmanJSONBody(streamRows, -1), "application/json"},
	} {
		res := s.do(t, http.MethodPost, path, c.body, "Content-Type", c.contentType)
		out := decode[struct {
			Data []map[string]string `json:"data"`
		}](t, res)
		if len(out.Data) != streamRows {
			t.Fatalf("predict %s = %d rows, want %d", c.what, len(out.Data), streamRows)
		}
		for _, i := range []int{0, 16383, 16384, 39_999} {
			want := strconv.FormatFloat(float64(i)/streamRows, 'g', -1, 64)
			if got := out.Data[i]["x7"]; got != want || out.Data[i]["y"] == "" {
				t.Errorf("predict %s row %d = %v, want x7 %s and a prediction", c.what, i, out.Data[i], want)
			}
		}
	}
}

// friedmanJSONBody renders n rows of x0…x9 as a JSON predict body, as
// friedmanCSV does.
func friedmanJSONBody(n, bad int) string {
	var sb strings.Builder
	sb.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		v := strconv.FormatFloat(float64(i)/float64(n), 'g', -1, 64)
		sb.WriteByte('{')
		for j := range 10 {
			if j > 0 {
				sb.WriteByte(',')
			}
			if i == bad && j == 3 {
				fmt.Fprintf(&sb, `"x%d":"oops"`, j)
			} else {
				fmt.Fprintf(&sb, `"x%d":%s`, j, v)
			}
		}
		sb.WriteByte('}')
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// Rows whose keys differ, across batches too: the answer's columns are
// the union in first-seen order, a row without one echoes it as "", a
// feature first seen in a late batch is no missing column, and keys match
// columns in any case.
func TestPredictStreamDifferingKeys(t *testing.T) {
	s := newServer(t)
	id := s.namedModel(t, "friedman", "keys")
	var sb strings.Builder
	sb.WriteString(`{"extraParameters":{"predictionInterval":"0.5"},"data":[`)
	for i := range streamRows {
		if i > 0 {
			sb.WriteByte(',')
		}
		switch {
		case i < 20_000: // no x9 yet
			sb.WriteString(`{"x0":1,"x1":2,"x2":3,"x3":4,"x4":5,"x5":6,"x6":7,"x7":8,"x8":9}`)
		case i == 30_000: // another order, another case, x5 missing, a new column
			sb.WriteString(`{"note":"late","X9":true,"x8":"9","x7":8,"x6":7,"x4":5,"x3":4,"x2":3,"x1":2,"x0":null}`)
		default:
			sb.WriteString(`{"x0":1,"x1":2,"x2":3,"x3":4,"x4":5,"x5":6,"x6":7,"x7":8,"x8":9,"x9":10}`)
		}
	}
	sb.WriteString(`]}`)
	res := s.do(t, http.MethodPost, "/v1/models/"+id+"/predict", sb.String())
	if res.status != http.StatusOK {
		t.Fatalf("predict = %d %.500s", res.status, res.body)
	}
	// The column order of the first row's object is the answer's.
	var first struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.body, &first); err != nil || len(first.Data) != streamRows {
		t.Fatalf("predict = %d rows (%v)", len(first.Data), err)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(first.Data[0])))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		dec.Token()
	}
	if got, want := strings.Join(keys, ","), "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,note,y"; got != want {
		t.Errorf("answer columns = %s, want %s", got, want)
	}
	out := decode[struct {
		Data []map[string]string `json:"data"`
	}](t, res)
	if r := out.Data[0]; r["x9"] != "" || r["note"] != "" || r["x8"] != "9" || r["y"] == "" {
		t.Errorf("row 0 = %v, want x9 and note empty, x8 9, a prediction", r)
	}
	if r := out.Data[30_000]; r["x9"] != "true" || r["note"] != "late" || r["x5"] != "" || r["x0"] != "" || r["x8"] != "9" || r["y"] == "" {
		t.Errorf("row 30000 = %v, want x9 true, note late, x5 and x0 empty", r)
	}
	if r := out.Data[39_999]; r["x9"] != "10" || r["note"] != "" {
		t.Errorf("row 39999 = %v, want x9 10, note empty", r)
	}
	// As CSV: the same columns, a cell left empty where the row had none.
	res = s.do(t, http.MethodPost, "/v1/models/"+id+"/predict", sb.String(), "Accept", "text/csv")
	if res.status != http.StatusOK {
		t.Fatalf("predict as CSV = %d %.500s", res.status, res.body)
	}
	lines := strings.Split(strings.TrimSuffix(string(res.body), "\n"), "\n")
	if len(lines) != streamRows+1 || lines[0] != "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,note,y" {
		t.Fatalf("predict as CSV = %d lines, header %q", len(lines), lines[0])
	}
	for _, c := range []struct {
		row  int
		want string
	}{{0, "1,2,3,4,5,6,7,8,9,,,"}, {30_000, ",2,3,4,5,,7,8,9,true,late,"}, {39_999, "1,2,3,4,5,6,7,8,9,10,,"}} {
		if got := lines[c.row+1]; !strings.HasPrefix(got, c.want) || len(got) == len(c.want) {
			t.Errorf("CSV row %d = %q, want %q and a prediction", c.row, got, c.want)
		}
	}
}

// A predict body over -max-body is a 413, as an upload's is: there is no
// separate, smaller predict cap.
func TestPredictStreamOverMaxBody(t *testing.T) {
	csvBody := friedmanCSV(streamRows, -1)
	jsonBody := friedmanJSONBody(streamRows, -1)
	s := newServer(t, withMaxBody(int64(len(csvBody)+1)))
	id := s.namedModel(t, "friedman", "big")
	path := "/v1/models/" + id + "/predict"
	if res := s.do(t, http.MethodPost, path, csvBody, "Content-Type", "text/csv"); res.status != http.StatusOK {
		t.Errorf("predict CSV under -max-body = %d %.300s", res.status, res.body)
	}
	for _, c := range []struct{ what, body, contentType string }{
		{"CSV", csvBody + csvBody[strings.IndexByte(csvBody, '\n')+1:], "text/csv"},
		{"JSON", jsonBody, "application/json"},
	} {
		res := s.do(t, http.MethodPost, path, c.body, "Content-Type", c.contentType)
		wantError(t, "predict "+c.what+" over -max-body", res, 413, "RequestValidation", "body")
	}
}

// The prediction quota is counted on the rows as they are read: a body
// that crosses it in a late batch is a 429 and counts nothing.
func TestPredictStreamQuota(t *testing.T) {
	s := newServer(t, withAllotments(engine.Allotments{Predictions: 30_000}))
	id := s.namedModel(t, "friedman", "quota")
	path := "/v1/models/" + id + "/predict"
	res := s.do(t, http.MethodPost, path, friedmanCSV(streamRows, -1), "Content-Type", "text/csv")
	e := wantError(t, "predict over the quota", res, 429, "QuotaExceeded", "")
	if !strings.Contains(e.Message, "30000 Predictions left") {
		t.Errorf("predict over the quota message = %q", e.Message)
	}
	if res := s.do(t, http.MethodPost, path, friedmanCSV(20_000, -1), "Content-Type", "text/csv"); res.status != http.StatusOK {
		t.Fatalf("predict under the quota = %d %.300s", res.status, res.body)
	}
	res = s.do(t, http.MethodPost, path, friedmanCSV(streamRows, -1), "Content-Type", "text/csv")
	if e := wantError(t, "predict over what is left", res, 429, "QuotaExceeded", ""); !strings.Contains(e.Message, "10000 Predictions left") {
		t.Errorf("predict over what is left message = %q", e.Message)
	}
}

// touchFailing fails the predict's usage record (the model's lastUsed
// update) while fail is set.
type touchFailing struct {
	engine.Store
	fail *atomic.Bool
}

func (s touchFailing) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if s.fail.Load() && strings.Contains(query, "UPDATE catalog.models SET last_used") {
		return 0, errors.New("injected: the usage record failed")
	}
	return s.Store.Exec(ctx, query, args...)
}

// The usage record commits while the answer is written. When it fails, an
// answer that has not left yet is a 500, and one that is leaving is broken
// off, never completed; either way nothing is counted and the model stays
// unused.
func TestPredictUsageRecordFails(t *testing.T) {
	var fail atomic.Bool
	s := newServer(t, withStoreWrapper(func(st engine.Store) engine.Store { return touchFailing{st, &fail} }))
	id := s.namedModel(t, "friedman", "touch")
	path := "/v1/models/" + id + "/predict"
	fail.Store(true)
	res := s.do(t, http.MethodPost, path, friedmanCSV(10, -1), "Content-Type", "text/csv", "Accept", "text/csv")
	wantError(t, "predict with a failed usage record", res, 500, "ServerError", "")

	// 40 000 rows answer more than the writer buffers: the answer has
	// started when the record fails.
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(friedmanCSV(streamRows, -1)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("api-key", "test-key")
	req.Header.Set("Content-Type", "text/csv")
	req.Header.Set("Accept", "text/csv")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("predict of %d rows with a failed usage record = %d, %d bytes, complete; want a broken answer", streamRows, resp.StatusCode, len(body))
	}

	fail.Store(false)
	if res := s.do(t, http.MethodGet, "/v1/models/"+id, nil); strings.Contains(string(res.body), "lastUsedDate") {
		t.Errorf("model after failed usage records = %s, want no lastUsedDate", res.body)
	}
	res = s.do(t, http.MethodPost, path, friedmanCSV(10, -1), "Content-Type", "text/csv", "Accept", "text/csv")
	if res.status != http.StatusOK {
		t.Fatalf("predict = %d %s", res.status, res.body)
	}
	if got := res.header.Get("Nexosis-Account-PredictionCount-Current"); got != "10" {
		t.Errorf("prediction count after failed records and 10 rows = %q, want 10", got)
	}
	if res := s.do(t, http.MethodGet, "/v1/models/"+id, nil); !strings.Contains(string(res.body), "lastUsedDate") {
		t.Errorf("model after a prediction = %s, want a lastUsedDate", res.body)
	}
}

// quoteCells quotes every cell of a CSV body that has no quotes.
func quoteCells(body string) string {
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		if l == "" {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(l, "\n"), ",")
		for j, c := range cells {
			cells[j] = `"` + c + `"`
		}
		lines[i] = strings.Join(cells, ",") + l[len(strings.TrimSuffix(l, "\n")):]
	}
	return strings.Join(lines, "")
}

// answerRows is a predict answer's rows: a JSON answer's up to the model's
// properties, which change with every use.
func answerRows(body []byte) string {
	s := string(body)
	if i := strings.Index(s, `],"messages":`); i >= 0 {
		return s[:i]
	}
	return s
}

// A CSV answer echoes a plain body's lines as they came (engine.LineText)
// and renders any other body cell by cell: both give the same bytes for
// the same values, over several batches, as CSV and as JSON, whether the
// body is plain, quoted, has the target column (not echoed), or has a
// batch with a cell that the answer quotes.
func TestPredictCSVLines(t *testing.T) {
	s := newServer(t)
	id := s.namedModel(t, "friedman", "lines")
	path := "/v1/models/" + id + "/predict"
	plain := friedmanCSV(streamRows, -1)
	withTarget := strings.Replace(plain, "\n", ",y\n", 1)
	withTarget = strings.ReplaceAll(withTarget, "\n", ",7\n")
	withTarget = strings.Replace(withTarget, ",y,7\n", ",y\n", 1)
	for _, accept := range []string{"text/csv", "application/json"} {
		want := s.do(t, http.MethodPost, path, plain, "Content-Type", "text/csv", "Accept", accept)
		if want.status != http.StatusOK {
			t.Fatalf("predict plain = %d %s", want.status, want.body)
		}
		for _, c := range []struct{ what, body string }{
			{"quoted", quoteCells(plain)},
			{"with the target", withTarget},
		} {
			got := s.do(t, http.MethodPost, path, c.body, "Content-Type", "text/csv", "Accept", accept)
			if got.status != http.StatusOK || answerRows(got.body) != answerRows(want.body) {
				t.Errorf("predict %s as %s = %d %.300s…, want the plain body's %.300s…", c.what, accept, got.status, got.body, want.body)
			}
		}
	}
	want := s.do(t, http.MethodPost, path, plain, "Content-Type", "text/csv", "Accept", "text/csv")
	lines := strings.Split(string(want.body), "\n")
	if len(lines) != streamRows+2 || lines[0] != "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,y" ||
		!strings.HasPrefix(lines[20001], strings.Repeat("0.5,", 10)) {
		t.Fatalf("predict plain = %d lines, %q … %q", len(lines), lines[0], lines[20001])
	}
	// A leading space in row 20000 (the second batch): that cell is
	// quoted, as encoding/csv quotes it, and every other line is as
	// before.
	spaced := strings.Replace(plain, "\n"+strings.Repeat("0.5,", 9)+"0.5\n", "\n"+strings.Repeat("0.5,", 9)+" 0.5\n", 1)
	got := s.do(t, http.MethodPost, path, spaced, "Content-Type", "text/csv", "Accept", "text/csv")
	gotLines := strings.Split(string(got.body), "\n")
	wantLine := strings.Replace(lines[20001], strings.Repeat("0.5,", 9)+"0.5,", strings.Repeat("0.5,", 9)+`" 0.5",`, 1)
	if got.status != http.StatusOK || len(gotLines) != len(lines) || gotLines[20001] != wantLine {
		t.Fatalf("predict with a leading space = %d, row 20000 %q, want %q", got.status, gotLines[min(20001, len(gotLines)-1)], wantLine)
	}
	gotLines[20001] = lines[20001]
	if strings.Join(gotLines, "\n") != string(want.body) {
		t.Error("predict with a leading space changed other rows")
	}
}

// An answer kept whole in memory (-predict-memory's default) and one
// that waits in a temporary file (the engine's PredictMemory negative,
// the flag's 0) are the same bytes, as CSV and as JSON, for a plain CSV
// body (copied lines), a quoted one (cell by cell) and a JSON body.
func TestPredictAnswerSpooled(t *testing.T) {
	dir := t.TempDir()
	mem := newServer(t, withDir(dir))
	id := mem.namedModel(t, "friedman", "spool")
	path := "/v1/models/" + id + "/predict"
	plain := friedmanCSV(streamRows, -1)
	bodies := []struct{ what, body, ctype string }{
		{"plain CSV", plain, "text/csv"},
		{"quoted CSV", quoteCells(plain), "text/csv"},
		{"JSON", friedmanJSONBody(streamRows, -1), "application/json"},
	}
	want := map[string][]byte{}
	for _, b := range bodies {
		for _, accept := range []string{"text/csv", "application/json"} {
			r := mem.do(t, http.MethodPost, path, b.body, "Content-Type", b.ctype, "Accept", accept)
			if r.status != http.StatusOK {
				t.Fatalf("%s as %s in memory = %d %.300s", b.what, accept, r.status, r.body)
			}
			want[b.what+accept] = r.body
		}
	}
	mem.Close()
	spooled := newServer(t, withDir(dir), withPredictMemory(-1))
	for _, b := range bodies {
		for _, accept := range []string{"text/csv", "application/json"} {
			r := spooled.do(t, http.MethodPost, path, b.body, "Content-Type", b.ctype, "Accept", accept)
			if r.status != http.StatusOK || answerRows(r.body) != answerRows(want[b.what+accept]) {
				t.Errorf("%s as %s spooled = %d %.300s…, want %.300s…", b.what, accept, r.status, r.body, want[b.what+accept])
			}
		}
	}
}
