package bench_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vaticml/vatic/bench"
)

// The test binary doubles as a fake vatic (serve and sql subcommands) when
// BENCH_FAKE_VATIC=1, so that Run's process handling, HTTP driving and
// anchor parsing are tested without the real server.
func TestMain(m *testing.M) {
	if os.Getenv("BENCH_FAKE_VATIC") == "1" {
		os.Exit(fakeVatic(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeVatic(args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "serve":
		return fakeServe(args[1:])
	case "sql":
		return fakeSQL(args[1:])
	}
	return 2
}

func fakeServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	dataDir := fs.String("data", "", "")
	key := fs.String("api-key", "", "")
	fs.String("log-format", "", "")
	fs.Bool("import-allow-private", false, "")
	fs.Int("session-workers", 1, "")
	if fs.Parse(args) != nil {
		return 2
	}
	var mu sync.Mutex
	datasets := map[string][]byte{}
	// With BENCH_FAKE_COLUMNAR=1 the server also speaks Arrow IPC and
	// Parquet (uploads, exports, predict); else it refuses them as vatic
	// did before issue 17.
	columnar := os.Getenv("BENCH_FAKE_COLUMNAR") == "1"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {})
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("api-key") != *key {
				http.Error(w, `{"statusCode":401}`, http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	views := map[string]string{} // view name → base dataset
	mux.HandleFunc("PUT /v1/data/{name}", auth(func(w http.ResponseWriter, r *http.Request) {
		switch media := r.Header.Get("Content-Type"); media {
		case bench.MediaArrow, bench.MediaParquet:
			if !columnar { // as vatic before issue 17
				http.Error(w, `{"statusCode":400,"errorType":"RequestValidation"}`, http.StatusBadRequest)
				return
			}
			tbl, err := fakeReadColumnar(media, r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			n := tbl.NumRows()
			tbl.Release()
			mu.Lock()
			datasets[r.PathValue("name")] = []byte("x\n" + strings.Repeat("1\n", int(n)))
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"dataSetName":%q,"rowCount":%d}`, r.PathValue("name"), n)
			return
		}
		if r.Header.Get("Content-Type") == "application/json" {
			b, err := io.ReadAll(r.Body)
			if err == nil {
				b, err = fakeJSONRows(b)
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			if _, ok := datasets[r.PathValue("name")]; !ok || b != nil {
				datasets[r.PathValue("name")] = b
			}
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"dataSetName":%q,"rowCount":%d}`, r.PathValue("name"), max(bytes.Count(b, []byte("\n"))-1, 0))
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		datasets[r.PathValue("name")] = b
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"dataSetName":%q,"rowCount":%d}`, r.PathValue("name"), bytes.Count(b, []byte("\n"))-1)
	}))
	get := func(r *http.Request) ([]byte, bool) {
		mu.Lock()
		defer mu.Unlock()
		b, ok := datasets[r.PathValue("name")]
		return b, ok
	}
	mux.HandleFunc("GET /v1/data/{name}/stats", auth(func(w http.ResponseWriter, r *http.Request) {
		b, ok := get(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		header, _, _ := strings.Cut(string(b), "\n")
		var cols []string
		for _, c := range strings.Split(header, ",") {
			cols = append(cols, fmt.Sprintf("%q:{\"totalCount\":1}", c))
		}
		fmt.Fprintf(w, `{"dataSetName":%q,"columns":{%s}}`, r.PathValue("name"), strings.Join(cols, ","))
	}))
	mux.HandleFunc("GET /v1/data/{name}", auth(func(w http.ResponseWriter, r *http.Request) {
		b, ok := get(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch media := r.Header.Get("Accept"); {
		case media == "application/json":
			fakeJSONPage(w, r, b)
			return
		case columnar && (media == bench.MediaArrow || media == bench.MediaParquet):
			// Every column as strings.
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(recs) == 0 {
				http.Error(w, fmt.Sprint("bad dataset: ", err), http.StatusInternalServerError)
				return
			}
			var fields []arrow.Field
			var cols []arrow.Array
			for j, name := range recs[0] {
				sb := array.NewStringBuilder(memory.DefaultAllocator)
				for _, rec := range recs[1:] {
					sb.Append(rec[j])
				}
				fields = append(fields, arrow.Field{Name: name, Type: arrow.BinaryTypes.String})
				cols = append(cols, sb.NewArray())
				sb.Release()
			}
			w.Header().Set("Content-Type", media)
			if err := fakeWriteColumnar(w, media, arrow.NewSchema(fields, nil), cols); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			return
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Write(b)
	}))
	// URL imports run synchronously here: the answer is already completed.
	mux.HandleFunc("POST /v1/imports/url", auth(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ DataSetName, URL string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, err := http.Get(req.URL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var body io.Reader = resp.Body
		if strings.HasSuffix(req.URL, ".gz") {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		mu.Lock()
		datasets[req.DataSetName] = b
		mu.Unlock()
		fmt.Fprintf(w, `{"importId":"1","status":"completed"}`)
	}))
	// A view's rows are its base dataset's rows under fakeViewHeader.
	mux.HandleFunc("PUT /v1/views/{name}", auth(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ DataSetName string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, n := range []string{req.DataSetName, "weather", "stores"} {
			if _, ok := datasets[n]; !ok {
				http.Error(w, `{"statusCode":404}`, http.StatusNotFound)
				return
			}
		}
		views[r.PathValue("name")] = req.DataSetName
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"viewName":%q}`, r.PathValue("name"))
	}))
	mux.HandleFunc("GET /v1/views/{name}", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := datasets[views[r.PathValue("name")]]
		mu.Unlock()
		if b == nil {
			http.NotFound(w, r)
			return
		}
		_, rows, _ := bytes.Cut(b, []byte("\n"))
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		fmt.Fprintln(w, fakeViewHeader)
		w.Write(rows)
	}))
	// Model sessions complete on the second GET, with a fixed 50 ms contest;
	// their model predicts the mean target of the training rows. A dataset
	// of fewer than 20 rows fails the session.
	type fakeSession struct {
		dataset, target string
		polls           int
		rows            int
		meanY           float64
		series          *fakeSeries // forecast and impact sessions
	}
	sessions := map[string]*fakeSession{}
	nextSession := 0 // ids are never reused: sessions are deleted with their datasets
	models := map[string]*fakeSession{}
	mux.HandleFunc("POST /v1/sessions/model", auth(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ DataSourceName, TargetColumn, PredictionDomain string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.PredictionDomain != "regression" {
			http.Error(w, fmt.Sprint("bad session request: ", err, req), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		b, ok := datasets[req.DataSourceName]
		if !ok {
			http.Error(w, `{"statusCode":404}`, http.StatusNotFound)
			return
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(recs) == 0 {
			http.Error(w, fmt.Sprint("bad dataset: ", err), http.StatusBadRequest)
			return
		}
		col := slices.Index(recs[0], req.TargetColumn)
		if col < 0 {
			http.Error(w, `{"statusCode":400}`, http.StatusBadRequest)
			return
		}
		fs := &fakeSession{dataset: req.DataSourceName, target: req.TargetColumn, rows: len(recs) - 1}
		for _, rec := range recs[1:] {
			v, _ := strconv.ParseFloat(rec[col], 64)
			fs.meanY += v / float64(fs.rows)
		}
		nextSession++
		id := fmt.Sprintf("s-%d", nextSession)
		sessions[id] = fs
		fmt.Fprintf(w, `{"sessionId":%q,"status":"requested","statusHistory":[{"date":"2026-11-22T05:43:39.190936+00:00","status":"requested"}],"messages":[]}`, id)
	}))
	// Forecast and impact sessions: see fakeSeriesSession.
	mux.HandleFunc("POST /v1/sessions/{kind}", auth(func(w http.ResponseWriter, r *http.Request) {
		kind := r.PathValue("kind")
		var req bench.SeriesRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || (kind != "forecast" && kind != "impact") {
			http.Error(w, fmt.Sprint("bad session request: ", err, kind), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fs, err := fakeSeriesSession(kind, req, datasets[req.DataSourceName])
		if err != nil {
			http.Error(w, fmt.Sprintf(`{"statusCode":400,"message":%q}`, err), http.StatusBadRequest)
			return
		}
		nextSession++
		id := fmt.Sprintf("s-%d", nextSession)
		sessions[id] = &fakeSession{dataset: req.DataSourceName, target: req.TargetColumn, rows: 1000, series: fs}
		fmt.Fprintf(w, `{"sessionId":%q,"status":"requested","statusHistory":[{"date":"2026-11-22T05:43:39.190936+00:00","status":"requested"}],"messages":[]}`, id)
	}))
	mux.HandleFunc("GET /v1/sessions/{id}/results", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fs, ok := sessions[r.PathValue("id")]
		mu.Unlock()
		if !ok || fs.series == nil || fs.polls < 2 {
			http.Error(w, `{"statusCode":404}`, http.StatusNotFound)
			return
		}
		size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		var rows []map[string]string
		for i, d := range fs.series.dates {
			if i < size {
				rows = append(rows, map[string]string{"timestamp": d, fs.target: strconv.FormatFloat(fs.series.point[i], 'g', -1, 64)})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"metrics": fs.series.metrics, "data": rows, "totalCount": len(fs.series.dates)})
	}))
	mux.HandleFunc("GET /v1/sessions/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		id := r.PathValue("id")
		fs, ok := sessions[id]
		if !ok {
			http.Error(w, `{"statusCode":404}`, http.StatusNotFound)
			return
		}
		fs.polls++
		const history = `{"date":"2026-11-22T05:43:39.190936+00:00","status":"requested"},{"date":"2026-11-22T05:43:39.2+00:00","status":"started"}`
		switch {
		case fs.polls < 2:
			fmt.Fprintf(w, `{"sessionId":%q,"status":"started","statusHistory":[%s],"messages":[]}`, id, history)
		case fs.rows < 20:
			fmt.Fprintf(w, `{"sessionId":%q,"status":"failed","statusHistory":[%s,{"date":"2026-11-22T05:43:39.25+00:00","status":"failed"}],`+
				`"messages":[{"severity":"error","message":"This data source has too few data points"}]}`, id, history)
		default:
			model := "m-" + id
			models[model] = fs
			fmt.Fprintf(w, `{"sessionId":%q,"status":"completed","modelId":%q,"statusHistory":[%s,{"date":"2026-11-22T05:43:39.25+00:00","status":"completed"}],`+
				`"algorithm":{"key":"ridge","name":"Ridge Regression"},"messages":[]}`, id, model, history)
		}
	}))
	mux.HandleFunc("POST /v1/models/{id}/predict", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fs, ok := models[r.PathValue("id")]
		mu.Unlock()
		if !ok {
			http.Error(w, `{"statusCode":404}`, http.StatusNotFound)
			return
		}
		pred := strconv.FormatFloat(fs.meanY, 'g', -1, 64)
		if media := r.Header.Get("Content-Type"); columnar && (media == bench.MediaArrow || media == bench.MediaParquet) {
			// The answer holds the target column alone.
			tbl, err := fakeReadColumnar(media, r.Body)
			if err != nil || tbl.NumRows() == 0 || r.Header.Get("Accept") != media {
				http.Error(w, fmt.Sprint("bad predict request: ", err), http.StatusBadRequest)
				return
			}
			fb := array.NewFloat64Builder(memory.DefaultAllocator)
			for range tbl.NumRows() {
				fb.Append(fs.meanY)
			}
			tbl.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: fs.target, Type: arrow.PrimitiveTypes.Float64}}, nil)
			w.Header().Set("Content-Type", media)
			if err := fakeWriteColumnar(w, media, schema, []arrow.Array{fb.NewArray()}); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			fb.Release()
			return
		}
		if r.Header.Get("Content-Type") == "text/csv" {
			recs, err := csv.NewReader(r.Body).ReadAll()
			if err != nil || len(recs) < 2 || r.Header.Get("Accept") != "text/csv" {
				http.Error(w, fmt.Sprint("bad CSV predict request: ", err), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			cw := csv.NewWriter(w)
			cw.Write(append(recs[0], fs.target))
			for _, rec := range recs[1:] {
				cw.Write(append(rec, pred))
			}
			cw.Flush()
			return
		}
		var req struct{ Data []map[string]string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Data) == 0 {
			http.Error(w, fmt.Sprint("bad JSON predict request: ", err), http.StatusBadRequest)
			return
		}
		for _, row := range req.Data {
			row[fs.target] = pred
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"data": req.Data, "modelId": r.PathValue("id")})
	}))
	mux.HandleFunc("DELETE /v1/data/{name}", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		name := r.PathValue("name")
		delete(datasets, name)
		if slices.Contains(r.URL.Query()["cascade"], "session") {
			for id, fs := range sessions {
				if fs.dataset == name {
					delete(sessions, id)
				}
			}
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("GET /v1/sessions", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, `{"totalCount":%d}`, len(sessions))
	}))
	mux.HandleFunc("GET /v1/data", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, `{"totalCount":%d}`, len(datasets))
	}))
	srv := &http.Server{Addr: *addr, Handler: mux}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	shut := make(chan struct{})
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
		close(shut)
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// ListenAndServe returns when shutdown starts; handlers may still run
	// until Shutdown returns.
	<-shut
	// The database file holds the row count of the dataset named base.
	mu.Lock()
	b, ok := datasets["base"]
	mu.Unlock()
	if ok && *dataDir != "" {
		n := bytes.Count(b, []byte("\n")) - 1
		if err := os.WriteFile(filepath.Join(*dataDir, "vatic.duckdb"), []byte(strconv.Itoa(n)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// fakeJSONRows turns the rows of a JSON PUT body, {"data": [...]}, into
// CSV with the columns of the first row, sorted; a body without rows
// (column metadata only) gives nil.
func fakeJSONRows(body []byte) ([]byte, error) {
	var req struct{ Data []map[string]any }
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("bad JSON body: %v", err)
	}
	if len(req.Data) == 0 {
		return nil, nil
	}
	cols := slices.Sorted(maps.Keys(req.Data[0]))
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(cols)
	for _, row := range req.Data {
		rec := make([]string, len(cols))
		for j, c := range cols {
			rec[j] = fmt.Sprint(row[c])
		}
		cw.Write(rec)
	}
	cw.Flush()
	return buf.Bytes(), cw.Error()
}

// fakeJSONPage answers one page (page, pageSize) of a dataset held as CSV
// as JSON rows of strings with the paging envelope.
func fakeJSONPage(w http.ResponseWriter, r *http.Request, dataset []byte) {
	recs, err := csv.NewReader(bytes.NewReader(dataset)).ReadAll()
	if err != nil || len(recs) == 0 {
		http.Error(w, fmt.Sprint("bad dataset: ", err), http.StatusInternalServerError)
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	size = min(max(size, 1), 1000)
	rows := recs[1:]
	data := []map[string]string{}
	for _, rec := range rows[min(page*size, len(rows)):min((page+1)*size, len(rows))] {
		m := map[string]string{}
		for j, c := range recs[0] {
			m[c] = rec[j]
		}
		data = append(data, m)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(map[string]any{"data": data, "pageNumber": page, "pageSize": size,
		"totalCount": len(rows), "totalPages": (len(rows) + size - 1) / size})
}

// fakeViewHeader is the CSV header of every view of the fake server and of
// the fake anchor's COPY.
const fakeViewHeader = "ts,store,sales,eventTimestamp"

// fakeSQL understands the anchor's statements: CREATE TABLE … read_csv('f')
// stores the row count of f in the database file, SELECT count(*) prints it.
func fakeSQL(args []string) int {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	db := fs.String("db", "", "")
	fs.Bool("timing", false, "")
	if fs.Parse(args) != nil {
		return 2
	}
	for _, stmt := range fs.Args() {
		switch {
		case strings.Contains(stmt, "read_parquet('"):
			_, path, _ := strings.Cut(stmt, "read_parquet('")
			path, _, _ = strings.Cut(path, "')")
			n, err := fakeParquetRows(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			os.WriteFile(*db, []byte(strconv.FormatInt(n, 10)), 0o644)
		case strings.HasPrefix(stmt, "COPY bench TO '"):
			// COPY bench TO 'out' (HEADER | FORMAT parquet): the rows the
			// database file says, of one column.
			out, opts, _ := strings.Cut(strings.TrimPrefix(stmt, "COPY bench TO '"), "'")
			b, _ := os.ReadFile(*db)
			n, _ := strconv.Atoi(string(b))
			var err error
			if strings.Contains(opts, "parquet") {
				err = fakeWriteParquet(out, n)
			} else {
				err = os.WriteFile(out, []byte("x\n"+strings.Repeat("1\n", n)), 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		case stmt == "CREATE TABLE bench AS SELECT * FROM src":
			// The Arrow upload's anchor copies the table read_parquet
			// loaded: the database file's count stands.
		case strings.HasPrefix(stmt, "CREATE TABLE"):
			_, path, _ := strings.Cut(stmt, "read_csv('")
			path, _, _ = strings.Cut(path, "')")
			f, err := os.Open(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			var r io.Reader = f
			if strings.HasSuffix(path, ".gz") {
				if r, err = gzip.NewReader(f); err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 1
				}
			}
			lines, _, _ := bench.CountLines(r)
			f.Close()
			os.WriteFile(*db, []byte(strconv.FormatInt(lines-1, 10)), 0o644)
		case strings.HasPrefix(stmt, "COPY ("):
			// COPY (…) TO 'out' (HEADER): as many rows as the database file says.
			_, out, _ := strings.Cut(stmt, ") TO '")
			out, _, _ = strings.Cut(out, "'")
			b, err := os.ReadFile(*db)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			n, _ := strconv.Atoi(string(b))
			csv := fakeViewHeader + "\n" + strings.Repeat("2015-01-01 00:00:00,s1,1.5,\n", n)
			if err := os.WriteFile(out, []byte(csv), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		case strings.HasPrefix(stmt, "SELECT count(*)"):
			b, _ := os.ReadFile(*db)
			fmt.Println(string(b))
		default:
			fmt.Println("1\t2\t3")
		}
		fmt.Fprintln(os.Stderr, "elapsed_ns: 1000000")
	}
	return 0
}

// fakeReadColumnar reads a whole Arrow IPC stream or Parquet file.
func fakeReadColumnar(media string, r io.Reader) (arrow.Table, error) {
	if media == bench.MediaParquet {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return pqarrow.ReadTable(context.Background(), bytes.NewReader(b), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	}
	ir, err := ipc.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer ir.Release()
	var recs []arrow.RecordBatch
	for ir.Next() {
		rec := ir.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := ir.Err(); err != nil {
		return nil, err
	}
	return array.NewTableFromRecords(ir.Schema(), recs), nil
}

// fakeWriteColumnar writes one record batch of cols, which it releases, as
// an Arrow IPC stream or a Parquet file.
func fakeWriteColumnar(w io.Writer, media string, schema *arrow.Schema, cols []arrow.Array) error {
	rec := array.NewRecordBatch(schema, cols, int64(cols[0].Len()))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	if media == bench.MediaParquet {
		pw, err := pqarrow.NewFileWriter(schema, w, nil, pqarrow.DefaultWriterProps())
		if err != nil {
			return err
		}
		return errors.Join(pw.Write(rec), pw.Close())
	}
	iw := ipc.NewWriter(w, ipc.WithSchema(schema))
	return errors.Join(iw.Write(rec), iw.Close())
}

// fakeParquetRows is the row count in the footer of the Parquet file at
// path.
func fakeParquetRows(path string) (int64, error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.NumRows(), nil
}

// fakeWriteParquet writes n rows of one int64 column to a Parquet file.
func fakeWriteParquet(path string, n int) error {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		f.Close()
		return err
	}
	return errors.Join(w.Write(rec), w.Close())
}

func fakeVaticBin(t testing.TB) string {
	t.Helper()
	t.Setenv("BENCH_FAKE_VATIC", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func countByName(results []bench.Result) map[string]int {
	n := map[string]int{}
	for _, r := range results {
		n[r.Name]++
	}
	return n
}

func TestRunStartedServers(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	cfg := bench.Config{Vatic: bin, Rows: 3000, ViewRows: 1000, Seed: 2, Dir: dir, Runs: 2, Progress: &progress}
	cfg = withRegression(cfg)
	results, err := bench.Run(t.Context(), cfg, bench.Workloads)
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	got := countByName(results)
	for _, name := range []string{
		"ImportCSV/plain/impl=vatic", "ImportCSV/plain/impl=duckdb", "ImportCSV/gzip/impl=vatic", "ImportCSV/gzip/impl=duckdb",
		"ImportURL/plain/impl=vatic", "ImportURL/plain/impl=duckdb", "ImportURL/gzip/impl=vatic", "ImportURL/gzip/impl=duckdb",
		"ColumnStats/impl=vatic", "ColumnStats/impl=duckdb", "ReadCSV/impl=vatic",
		"ReadView/impl=vatic", "ReadView/impl=duckdb",
		"Regression/linear/impl=vatic", "Regression/predict/json/impl=vatic", "Regression/predict/csv/impl=vatic",
	} {
		if got[name] != 2 {
			t.Errorf("Run gave %d results named %s, want 2 (all: %v)", got[name], name, got)
		}
	}
	// scikit-learn's side once, ours in every run.
	for name, want := range map[string]int{
		"Regression/contest/impl=vatic": 50, "Regression/contest/impl=sklearn": 25, "Regression/fit/model=hist_gbm/impl=sklearn": 25,
	} {
		if got[name] != want {
			t.Errorf("Run gave %d results named %s, want %d", got[name], name, want)
		}
	}
	for _, r := range results {
		if _, ok := r.Metric(bench.UnitRSSGrowth); ok != (strings.HasPrefix(r.Name, "Import") && strings.HasSuffix(r.Name, "/impl=vatic")) {
			t.Errorf("%s: RSS growth reported = %v, want it on vatic imports only", r.Name, ok)
		}
	}
	if checks := bench.Checks(results); len(checks) != 26 {
		t.Errorf("Checks = %+v, want 26 (2 per import variant, stats, csv, view, 15 of regression)", checks)
	}
	// Only the generated input stays in Dir.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "rows3000-seed2.csv rows3000-seed2.csv.gz rows3000-seed2.json " +
		"view-rows1000-seed2-base.csv view-rows1000-seed2-stores.csv view-rows1000-seed2-weather.csv view-rows1000-seed2.json"; strings.Join(names, " ") != want {
		t.Errorf("Dir after Run holds %v, want %s", names, want)
	}
}

func TestRunBaseURL(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	srv, err := bench.StartServer(t.Context(), bench.ServerOptions{Bin: bin, DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("Stop = %v", err)
		}
	}()
	if m, err := srv.Memory(); err != nil || m.RSS <= 0 || m.Peak < m.RSS {
		t.Errorf("Memory = %+v, %v, want RSS > 0 and Peak >= RSS", m, err)
	}
	cfg := bench.Config{BaseURL: srv.Client.BaseURL, APIKey: srv.Client.APIKey, Vatic: bin, Rows: 500, Dir: dir, Runs: 1}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadImport, bench.WorkloadCSV})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if n := len(results); n != 5 {
		t.Errorf("Run gave %d results, want 5: %+v", n, results)
	}
	for _, c := range bench.Checks(results) {
		if strings.Contains(c.What, "RSS") {
			t.Errorf("Checks has an RSS check %+v for an external server", c)
		}
	}
	// Every dataset the run created was deleted.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.Client.BaseURL+"/data", nil)
	req.Header.Set("api-key", srv.Client.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != `{"totalCount":0}` {
		t.Errorf("datasets left on the server: %s", b)
	}
}

func TestRunWrongKey(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	srv, err := bench.StartServer(t.Context(), bench.ServerOptions{Bin: bin, DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	cfg := bench.Config{BaseURL: srv.Client.BaseURL, APIKey: "wrong", Vatic: bin, Rows: 10, Dir: dir, Runs: 1}
	_, err = bench.Run(t.Context(), cfg, []string{bench.WorkloadCSV})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Run with a wrong key = %v, want an error naming status 401", err)
	}
}

func TestRunView(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	// Three runs: the second runs the anchor first, on the first run's copy.
	cfg := bench.Config{Vatic: bin, ViewRows: 700, Seed: 3, Dir: dir, Runs: 3, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadView})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	var order []string
	for _, r := range results {
		order = append(order, strings.TrimPrefix(r.Name, "ReadView/impl="))
	}
	if got, want := strings.Join(order, " "), "vatic duckdb duckdb vatic vatic duckdb"; got != want {
		t.Errorf("Run gave sides %s, want %s", got, want)
	}
	checks := bench.Checks(results)
	if len(checks) != 1 || checks[0].Workload != "ReadView" || checks[0].Target != "<= 1.50" {
		t.Errorf("Checks = %+v, want the ReadView time ratio only", checks)
	}
	// Only the view's input is generated, and kept.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "view-rows700-seed3-base.csv view-rows700-seed3-stores.csv view-rows700-seed3-weather.csv view-rows700-seed3.json"; strings.Join(names, " ") != want {
		t.Errorf("Dir after Run holds %v, want %s", names, want)
	}
}

func TestRunViewSkippedWithBaseURL(t *testing.T) {
	bin := fakeVaticBin(t)
	var progress bytes.Buffer
	cfg := bench.Config{BaseURL: "http://127.0.0.1:1/v1", Vatic: bin, ViewRows: 10, Dir: t.TempDir(), Runs: 1, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadView})
	if err != nil || len(results) != 0 || !strings.Contains(progress.String(), "view: skipped") {
		t.Errorf("Run(view, -url) = %v, %v, progress %q; want it skipped", results, err, progress.String())
	}
}

// fakeSeries is a fake forecast or impact session's outcome.
type fakeSeries struct {
	dates   []string  // the window's buckets
	point   []float64 // the forecast, or the counterfactual: the last value before the window
	metrics map[string]float64
}

// fakeSeriesSession answers a forecast or impact request on a dataset of
// timestamp,value[,…] rows (dates as 2006-01-02) with the naive forecast:
// the last value before the window, repeated over its buckets. A forecast
// window must start one interval after the last value; an impact window
// must lie inside the data, and its pValue is 0.001 when the window's
// mean lies over 1 above the naive value, else 0.5.
func fakeSeriesSession(kind string, req bench.SeriesRequest, data []byte) (*fakeSeries, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) < 2 || recs[0][0] != "timestamp" {
		return nil, fmt.Errorf("dataset %s: %v", req.DataSourceName, err)
	}
	col := slices.Index(recs[0], req.TargetColumn)
	start, err1 := time.Parse(time.DateOnly, req.StartDate)
	end, err2 := time.Parse(time.DateOnly, req.EndDate)
	if col < 0 || err1 != nil || err2 != nil || end.Before(start) || (kind == "impact") != (req.EventName != "") {
		return nil, fmt.Errorf("bad request %+v", req)
	}
	step := func(t time.Time) time.Time {
		switch req.ResultInterval {
		case "week":
			return t.AddDate(0, 0, 7)
		case "month":
			return t.AddDate(0, 1, 0)
		case "year":
			return t.AddDate(1, 0, 0)
		case "day":
			return t.AddDate(0, 0, 1)
		}
		panic("interval " + req.ResultInterval)
	}
	out := &fakeSeries{}
	var last float64
	var lastDate time.Time
	var window []float64
	for _, rec := range recs[1:] {
		d, err := time.Parse(time.DateOnly, rec[0])
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		switch {
		case err != nil: // an empty cell
		case d.Before(start):
			last, lastDate = v, d
		case !d.After(end):
			window = append(window, v)
		}
	}
	if kind == "forecast" && !step(lastDate).Equal(start) {
		return nil, fmt.Errorf("window starts %s, want one %s after the last value, %s", req.StartDate, req.ResultInterval, lastDate.Format(time.DateOnly))
	}
	for d := start; !d.After(end); d = step(d) {
		out.dates = append(out.dates, d.Format("2006-01-02T15:04:05.0000000Z"))
		out.point = append(out.point, last)
	}
	if kind == "impact" {
		if len(window) != len(out.dates) {
			return nil, fmt.Errorf("impact window %s…%s holds %d values, want %d", req.StartDate, req.EndDate, len(window), len(out.dates))
		}
		var s float64
		for _, v := range window {
			s += v - last
		}
		out.metrics = map[string]float64{"pValue": 0.5, "absoluteEffect": s}
		if s/float64(len(window)) > 1 {
			out.metrics["pValue"] = 0.001
		}
	}
	return out, nil
}
