package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ColumnarConfig configures the columnar workload ([RunColumnar]). Its
// predict part uses Config.PredictRows and Config.LinearTrainRows, as the
// regression workload's does.
type ColumnarConfig struct {
	// BigPredictRows is the size of the one large CSV predict request
	// whose server peak RSS is reported; default 5,000,000. The body is
	// the Config.PredictRows rows of the linear table repeated, so it is
	// rounded up to a multiple of them.
	BigPredictRows int
	// PredictOnly runs the predict part alone, without the uploads and
	// exports: the quick loop of work on predict.
	PredictOnly bool
	// UploadOnly runs the uploads alone, without the predicts and
	// exports: the quick loop of work on the upload path.
	UploadOnly bool
}

func (c ColumnarConfig) withDefaults() ColumnarConfig {
	if c.BigPredictRows == 0 {
		c.BigPredictRows = 5_000_000
	}
	return c
}

func (c ColumnarConfig) validate() error {
	if c = c.withDefaults(); c.BigPredictRows < 1 {
		return fmt.Errorf("bench: Columnar.BigPredictRows = %d, want at least 1", c.BigPredictRows)
	}
	if c.PredictOnly && c.UploadOnly {
		return fmt.Errorf("bench: Columnar.PredictOnly and UploadOnly exclude each other")
	}
	return nil
}

// columnarFormat is one wire format of the columnar workload: the key in
// result names and the media type sent as Content-Type and Accept.
type columnarFormat struct {
	key, media string
	// columnar marks Arrow IPC and Parquet: a server that does not speak
	// them answers 4xx or in another media type, and the workload then
	// skips the format (saying so) instead of failing.
	columnar bool
	// predictions reads the target column of a predict answer.
	predictions func(body []byte, target string) ([]float64, error)
}

// columnarFormats are the formats the columnar workload measures, in order.
var columnarFormats = []columnarFormat{
	{"csv", MediaCSV, false, csvPredictions},
	{"json", MediaJSON, false, jsonPredictions},
	{"arrow", MediaArrow, true, arrowPredictions},
	{"parquet", MediaParquet, true, parquetPredictions},
}

// Models of the columnar workload's predict part: the kind of champion
// each generated table is made for, and the algorithm keys that count as
// that kind.
const (
	ColumnarLinear = "linear"
	ColumnarTree   = "tree"
)

// treeKeys are the algorithm keys of the tree ensembles (MODELLING §6.2:
// a 200-tree random forest, gradient boosting); the tree table's champion
// should be one of them.
var treeKeys = []string{"random_forest", "gbm"}

// Targets of the columnar workload (issue 17), over HTTP on loopback.
const (
	ColumnarPredictCSVTarget  = 1e6   // linear champion, 100 000 rows × 20 features as CSV, rows/s
	ColumnarPredictJSONTarget = 500e3 // the same as JSON, rows/s
	ColumnarPredictTreeTarget = 200e3 // a tree ensemble champion, CSV, rows/s
	ColumnarUploadArrowRatio  = 2.0   // Arrow IPC upload rows/s ÷ CSV upload rows/s, at least
	ColumnarExportArrowTarget = 5e6   // Arrow IPC export of every row, rows/s
)

// columnarJSONPageSize is the page size of the JSON export: JSON reads are
// paged (REFERENCE §3.3, at most 1000 rows a page), so exporting every row
// as JSON means reading every page.
const columnarJSONPageSize = 1000

// RunColumnar is the columnar I/O workload (issue 17), on one server (a
// fresh one, or cfg.BaseURL):
//
//   - Columnar/predict/model={linear,tree}/format=F: a regression contest
//     on the first cfg.LinearTrainRows of cfg.PredictRows rows of 20
//     numeric features, with a linear target ([linearTable]) and with a
//     target made of steps and interactions ([treeTable]) that tree
//     ensembles fit and linear models cannot; then the champion predicts
//     all cfg.PredictRows rows in one request in each format F (csv, json,
//     arrow, parquet), the body in F and Accept F, cfg.Runs times. The
//     champion's key is a label of every result (Columnar/train/… holds
//     the contest): the contest picks it, the harness cannot force it.
//   - Columnar/predict-big/format=csv: one CSV request of
//     cfg.Columnar.BigPredictRows rows (the linear rows repeated), the
//     answer counted as it streams, with the server's peak RSS over the
//     request (its high-water mark reset first) when the harness started it.
//   - Columnar/upload/format=F: PUT /data/{name} of files.CSV in format F
//     (the JSON, Arrow and Parquet files are written once from it in a
//     scratch directory), against DuckDB's read_csv (format=csv) and
//     read_parquet (format=parquet) into a table, and for format=arrow
//     DuckDB's copy of a table it holds into a new one (CREATE TABLE … AS
//     SELECT, the floor of any write of these rows), each run in a fresh
//     database.
//   - Columnar/export/format=F: GET /data/{name} of every row in format F
//     (JSON page by page), against DuckDB's COPY … TO of the same table as
//     CSV and as Parquet.
//
// A server that does not speak Arrow IPC or Parquet skips those formats,
// which the progress says and the summary reports as not measured.
func RunColumnar(ctx context.Context, cfg Config, files Files) ([]Result, error) {
	cfg = cfg.withDefaults()
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	t, err := openTarget(ctx, cfg, scratch, "columnar")
	if err != nil {
		return nil, err
	}
	defer t.close(cfg)
	parts := []func(context.Context, Config, *target, Files, string) ([]Result, error){
		columnarPredict, columnarUploads, columnarExports,
	}
	switch {
	case cfg.Columnar.PredictOnly:
		parts = parts[:1]
	case cfg.Columnar.UploadOnly:
		parts = parts[1:2]
	}
	var results []Result
	for _, part := range parts {
		rs, err := part(ctx, cfg, t, files, scratch)
		results = append(results, rs...)
		if err != nil {
			return results, t.explain(err)
		}
	}
	return results, nil
}

// unsupportedFormat reports whether err is how a server that does not
// speak format f answers: a 4xx status or an answer in another media type.
// Other errors, and any error of CSV or JSON, fail the workload.
func unsupportedFormat(f columnarFormat, err error) bool {
	if !f.columnar {
		return false
	}
	var he *HTTPError
	var me *MediaTypeError
	return errors.As(err, &me) || (errors.As(err, &he) && he.Status/100 == 4)
}

// measureFormat runs ours and anchor (which may be nil) cfg.Runs times,
// as [alternate] does. When the server does not speak format f, it says
// so and runs the anchor alone: DuckDB's figure stands without ours.
func measureFormat(cfg Config, w string, f columnarFormat, ours, anchor func(int) (Result, error)) ([]Result, error) {
	rs, err := alternate(cfg, w, ours, anchor)
	if !unsupportedFormat(f, err) {
		return rs, err
	}
	fmt.Fprintf(cfg.Progress, "columnar: %s skipped: the server does not take or give %s here: %v\n", w, f.media, err)
	if anchor == nil {
		return nil, nil
	}
	return alternate(cfg, w, nil, anchor)
}

// columnarPredict trains the linear and the tree model and measures their
// predictions in every format, then the large CSV predict of the linear
// model.
func columnarPredict(ctx context.Context, cfg Config, t *target, _ Files, scratch string) ([]Result, error) {
	var out []Result
	for _, m := range []struct {
		kind string
		make func(rows int, seed int64) *table
		keys []string
	}{
		{ColumnarLinear, linearTable, linearKeys},
		{ColumnarTree, treeTable, treeKeys},
	} {
		rs, err := predictFormats(ctx, cfg, t, scratch, m.kind, m.make(cfg.PredictRows, cfg.Seed), m.keys)
		out = append(out, rs...)
		if err != nil {
			return out, fmt.Errorf("%s: %w", "Columnar/predict/model="+m.kind, err)
		}
	}
	return out, nil
}

// predictFormats trains a model on tbl and times its predictions of all
// of tbl's rows in every format; for the linear model, also the large
// CSV predict.
func predictFormats(ctx context.Context, cfg Config, t *target, scratch, kind string, tbl *table, keys []string) ([]Result, error) {
	c := t.c
	train := tbl.rows[:min(cfg.LinearTrainRows, len(tbl.rows))]
	path := filepath.Join(scratch, kind+".csv")
	if err := writeCSVFile(path, tbl.header, train); err != nil {
		return nil, err
	}
	name := datasetName("columnar-" + kind)
	s, client, err := trainSession(ctx, c, name, path, tbl.target(), len(train))
	defer deleteCascade(ctx, cfg, c, name)
	if err != nil {
		return nil, err
	}
	contest, err := s.ContestTime()
	if err != nil {
		return nil, err
	}
	champ := s.AlgorithmKey()
	verdict := "as wanted"
	if !slices.Contains(keys, champ) {
		verdict = "NOT one of " + strings.Join(keys, ", ")
	}
	fmt.Fprintf(cfg.Progress, "columnar %s: %d rows × %d features, champion %s (%s), contest %v (client %v)\n",
		kind, len(train), len(tbl.features()), champ, verdict, contest.Round(time.Millisecond), client.Round(time.Millisecond))
	label := map[string]string{LabelChampion: champ}
	out := []Result{{Name: "Columnar/train/model=" + kind + "/impl=vatic", Elapsed: contest,
		Metrics: []Metric{{float64(client), UnitClientNs}}, Labels: label}}

	features := make([][]string, len(tbl.rows))
	for i, r := range tbl.rows {
		features[i] = r[:len(tbl.features())]
	}
	// One small request first, untimed: the first predict of a model
	// loads it, which is not throughput.
	warm, err := numericBody(MediaCSV, tbl.features(), features[:minPredictRows])
	if err != nil {
		return out, err
	}
	start := time.Now()
	if _, err := c.Predict(ctx, s.ModelID, warm, MediaCSV, MediaCSV); err != nil {
		return out, err
	}
	fmt.Fprintf(cfg.Progress, "columnar %s: warm-up predict of %d rows in %v\n", kind, minPredictRows, time.Since(start).Round(time.Millisecond))
	bodies := make([][]byte, len(columnarFormats))
	for i, f := range columnarFormats {
		if bodies[i], err = numericBody(f.media, tbl.features(), features); err != nil {
			return out, err
		}
	}
	// The rows' text is in the bodies now. This process shares the
	// machine with the server: millions of live strings would make its
	// garbage collector a part of every timed request.
	n, target := len(tbl.rows), tbl.target()
	features, tbl.rows = nil, nil
	var answer bytes.Buffer // reused: its growth is not timed after the first run
	for i, f := range columnarFormats {
		body := bodies[i]
		w := "Columnar/predict/model=" + kind + "/format=" + f.key
		rs, err := measureFormat(cfg, w, f, func(int) (Result, error) {
			runtime.GC() // the last answer's parsing is garbage, collected untimed
			answer.Reset()
			start := time.Now()
			resp, err := c.PredictStream(ctx, s.ModelID, bytes.NewReader(body), int64(len(body)), f.media, f.media)
			if err == nil {
				_, err = answer.ReadFrom(resp.Body)
				resp.Body.Close()
			}
			elapsed := time.Since(start)
			if err != nil {
				return Result{}, err
			}
			pred, err := f.predictions(answer.Bytes(), target)
			if err == nil && len(pred) != n {
				err = fmt.Errorf("bench: %d predictions for %d rows", len(pred), n)
			}
			if err != nil {
				return Result{}, fmt.Errorf("predict as %s: %w", f.key, err)
			}
			rmse, _ := rootMeanSquare(pred, tbl.y)
			return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Labels: label,
				Metrics: append(speed(n, int64(len(body)+answer.Len()), elapsed), Metric{rmse, UnitRMSE})}, nil
		}, nil)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	if kind != ColumnarLinear {
		return out, nil
	}
	rs, err := alternate(cfg, "Columnar/predict-big/format=csv", func(int) (Result, error) {
		runtime.GC()
		return bigPredict(ctx, cfg, t, s.ModelID, bodies[0]) // columnarFormats[0] is CSV
	}, nil)
	return append(out, rs...), err
}

// bigPredict posts the CSV predict body csvBody with its rows repeated to
// make at least cfg.Columnar.BigPredictRows rows, counts the lines of the
// answer as they stream in, and reports the server's peak RSS over the
// request when the harness started it.
func bigPredict(ctx context.Context, cfg Config, t *target, modelID string, csvBody []byte) (Result, error) {
	const w = "Columnar/predict-big/format=csv"
	cut := bytes.IndexByte(csvBody, '\n') + 1
	header, rows := csvBody[:cut], csvBody[cut:]
	perBlock := bytes.Count(rows, []byte("\n"))
	repeats := (cfg.Columnar.BigPredictRows + perBlock - 1) / perBlock
	parts := []io.Reader{bytes.NewReader(header)}
	for range repeats {
		parts = append(parts, bytes.NewReader(rows))
	}
	size := int64(len(header)) + int64(repeats)*int64(len(rows))
	n := repeats * perBlock
	var before Memory // after the reset: Peak is the RSS then
	if t.srv != nil {
		if err := t.srv.ResetPeak(); err != nil {
			fmt.Fprintf(cfg.Progress, "warning: %v; peak RSS includes earlier work\n", err)
		}
		var err error
		if before, err = t.srv.Memory(); err != nil {
			return Result{}, err
		}
	}
	fmt.Fprintf(cfg.Progress, "columnar: predict of %d CSV rows (%d MB)\n", n, size/1e6)
	start := time.Now()
	resp, err := t.c.PredictStream(ctx, modelID, io.MultiReader(parts...), size, MediaCSV, MediaCSV)
	if err != nil {
		return Result{}, err
	}
	lines, got, err := CountLines(resp.Body)
	resp.Body.Close()
	elapsed := time.Since(start)
	if err != nil {
		return Result{}, fmt.Errorf("bench: read CSV predict answer after %d bytes: %w", got, err)
	}
	if lines-1 != int64(n) {
		return Result{}, fmt.Errorf("bench: CSV predict answer of %d lines for %d rows", lines, n)
	}
	r := Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(n, size+got, elapsed)}
	if t.srv != nil {
		m, err := t.srv.Memory()
		if err != nil {
			return Result{}, err
		}
		// Growth from the high-water mark at the reset; the kernel
		// refreshes VmHWM lazily, so a transient RSS read then can leave
		// the peak after a few pages below it: no growth.
		r.Metrics = append(r.Metrics, Metric{float64(m.Peak), UnitPeakRSS}, Metric{float64(max(m.Peak-before.Peak, 0)), UnitRSSGrowth})
	}
	return r, nil
}

// columnarUploads writes files.CSV as JSON, Arrow IPC and Parquet and
// times PUT /data/{name} of each, against DuckDB's read_csv and
// read_parquet.
func columnarUploads(ctx context.Context, cfg Config, t *target, files Files, scratch string) ([]Result, error) {
	paths := map[string]string{"csv": files.CSV}
	for _, f := range columnarFormats[1:] {
		start := time.Now()
		p := filepath.Join(scratch, "table."+f.key)
		n, err := convertTable(files.CSV, p, f.media)
		if err != nil {
			return nil, err
		}
		if n != files.Rows {
			return nil, fmt.Errorf("bench: %s holds %d rows, want %d", p, n, files.Rows)
		}
		paths[f.key] = p
		fmt.Fprintf(cfg.Progress, "columnar: wrote %s (%d bytes) in %v\n", p, fileSize(p), time.Since(start).Round(time.Millisecond))
	}
	// Each anchor's last statement but one is timed. An Arrow IPC body
	// is typed columns already, so its anchor is DuckDB's own floor for
	// writing these rows: a copy of a table it holds (loaded untimed from
	// the Parquet file) into a new one.
	anchors := map[string][]string{
		"csv":     {createTableSQL(files.CSV)},
		"parquet": {"CREATE TABLE bench AS SELECT * FROM read_parquet(" + sqlString(paths["parquet"]) + ")"},
		"arrow": {"CREATE TABLE src AS SELECT * FROM read_parquet(" + sqlString(paths["parquet"]) + ")",
			"CREATE TABLE bench AS SELECT * FROM src"},
	}
	var out []Result
	for _, f := range columnarFormats {
		w := "Columnar/upload/format=" + f.key
		path := paths[f.key]
		size := fileSize(path)
		ours := func(int) (Result, error) {
			name := datasetName("columnar-upload-" + f.key)
			start := time.Now()
			put, err := t.c.PutFile(ctx, name, path, f.media, false)
			elapsed := time.Since(start)
			if err != nil {
				return Result{}, err
			}
			defer func() {
				if err := t.c.Delete(context.WithoutCancel(ctx), name); err != nil {
					fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
				}
			}()
			if put.RowCount >= 0 && put.RowCount != int64(files.Rows) {
				return Result{}, fmt.Errorf("bench: PUT %s as %s answered rowCount %d, want %d: %s", name, f.key, put.RowCount, files.Rows, tail(string(put.Body), 1000))
			}
			return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(files.Rows, size, elapsed)}, nil
		}
		var anchor func(int) (Result, error)
		if stmts, ok := anchors[f.key]; ok {
			anchor = func(run int) (Result, error) {
				db := filepath.Join(scratch, fmt.Sprintf("upload-%s-%d.duckdb", f.key, run))
				defer removeDB(db)
				times, stdout, err := DuckDB{Bin: cfg.Vatic}.Exec(ctx, db, append(stmts, "SELECT count(*) FROM bench")...)
				if err != nil {
					return Result{}, err
				}
				if got := lastLine(stdout); got != strconv.Itoa(files.Rows) {
					return Result{}, fmt.Errorf("bench: anchor loaded %q rows from %s, want %d", got, path, files.Rows)
				}
				el := times[len(stmts)-1]
				return Result{Name: w + "/impl=duckdb", Elapsed: el, Metrics: speed(files.Rows, size, el)}, nil
			}
		}
		rs, err := measureFormat(cfg, w, f, ours, anchor)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// columnarExports uploads files.CSV once and times GET /data/{name} of
// every row in each format, against DuckDB's COPY … TO of the same table,
// loaded once with read_csv, as CSV and as Parquet.
func columnarExports(ctx context.Context, cfg Config, t *target, files Files, scratch string) ([]Result, error) {
	name := datasetName("columnar-export")
	put, err := t.c.PutCSV(ctx, name, files.CSV, false)
	if err != nil {
		return nil, err
	}
	if put.RowCount >= 0 && put.RowCount != int64(files.Rows) {
		return nil, fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", name, put.RowCount, files.Rows)
	}
	defer func() {
		if err := t.c.Delete(context.WithoutCancel(ctx), name); err != nil {
			fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
		}
	}()
	db := filepath.Join(scratch, "export.duckdb")
	defer removeDB(db)
	duck := DuckDB{Bin: cfg.Vatic}
	if _, _, err := duck.Exec(ctx, db, createTableSQL(files.CSV)); err != nil {
		return nil, err
	}
	anchors := map[string]struct {
		options string
		count   func(path string) (int64, error)
	}{
		"csv": {"(HEADER)", func(path string) (int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			lines, _, err := CountLines(f)
			return lines - 1, err
		}},
		"parquet": {"(FORMAT parquet)", func(path string) (int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			return parquetRows(f)
		}},
	}
	var out []Result
	for _, f := range columnarFormats {
		w := "Columnar/export/format=" + f.key
		ours := func(int) (Result, error) {
			start := time.Now()
			rows, n, err := exportRows(ctx, t.c, name, f)
			elapsed := time.Since(start)
			if err != nil {
				return Result{}, err
			}
			if rows != int64(files.Rows) {
				return Result{}, fmt.Errorf("bench: GET %s as %s gave %d rows, want %d", name, f.key, rows, files.Rows)
			}
			return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(files.Rows, n, elapsed)}, nil
		}
		var anchor func(int) (Result, error)
		if a, ok := anchors[f.key]; ok {
			anchor = func(run int) (Result, error) {
				dst := filepath.Join(scratch, fmt.Sprintf("export-%d.%s", run, f.key))
				defer os.Remove(dst)
				times, _, err := duck.Exec(ctx, db, "COPY bench TO "+sqlString(dst)+" "+a.options)
				if err != nil {
					return Result{}, err
				}
				rows, err := a.count(dst)
				if err != nil {
					return Result{}, fmt.Errorf("bench: anchor's %s: %w", dst, err)
				}
				if rows != int64(files.Rows) {
					return Result{}, fmt.Errorf("bench: anchor's %s holds %d rows, want %d", dst, rows, files.Rows)
				}
				return Result{Name: w + "/impl=duckdb", Elapsed: times[0], Metrics: speed(files.Rows, fileSize(dst), times[0])}, nil
			}
		}
		rs, err := measureFormat(cfg, w, f, ours, anchor)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// exportRows reads every row of dataset name in format f and returns the
// rows and the body bytes received: CSV and Arrow IPC counted as they
// stream in, Parquet read whole (its footer comes last) and counted from
// the footer, JSON page by page.
func exportRows(ctx context.Context, c *Client, name string, f columnarFormat) (rows, n int64, err error) {
	if f.media == MediaCSV {
		return c.GetAllCSV(ctx, name)
	}
	if f.media == MediaJSON {
		return jsonExportRows(ctx, c, name)
	}
	req, err := c.newRequest(ctx, http.MethodGet, c.dataURL(name), nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept", f.media)
	resp, err := c.do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if err := checkMediaType(resp, "GET "+name, f.media); err != nil {
		return 0, 0, err
	}
	cr := &countingReader{r: resp.Body}
	if f.media == MediaArrow {
		rows, err = countArrowRows(cr)
		if err == nil {
			_, err = io.Copy(io.Discard, cr)
		}
	} else {
		var b []byte
		if b, err = io.ReadAll(cr); err == nil {
			rows, err = parquetRows(bytes.NewReader(b))
		}
	}
	if err != nil {
		return rows, cr.n, fmt.Errorf("bench: read %s of %s after %d bytes: %w", f.key, name, cr.n, err)
	}
	return rows, cr.n, nil
}

// jsonExportRows reads every page of dataset name as JSON.
func jsonExportRows(ctx context.Context, c *Client, name string) (rows, n int64, err error) {
	for page := 0; ; page++ {
		q := url.Values{"page": {strconv.Itoa(page)}, "pageSize": {strconv.Itoa(columnarJSONPageSize)}}
		req, err := c.newRequest(ctx, http.MethodGet, c.dataURL(name)+"?"+q.Encode(), nil)
		if err != nil {
			return rows, n, err
		}
		req.Header.Set("Accept", MediaJSON)
		resp, err := c.do(req)
		if err != nil {
			return rows, n, err
		}
		cr := &countingReader{r: resp.Body}
		var body struct {
			Data       []json.RawMessage `json:"data"`
			TotalPages int               `json:"totalPages"`
		}
		err = json.NewDecoder(cr).Decode(&body)
		resp.Body.Close()
		n += cr.n
		if err != nil {
			return rows, n, fmt.Errorf("bench: decode page %d of %s: %w", page, name, err)
		}
		rows += int64(len(body.Data))
		if len(body.Data) == 0 || page+1 >= body.TotalPages {
			return rows, n, nil
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// treeTable returns rows rows of features f0…f19, uniform on [0, 10) with
// four decimals as in [linearTable], and a target of steps and
// interactions that trees split on and no linear model fits:
//
//	y = 10·[f0 > 5] + 8·[f1 > 3]·[f2 < 6] + 6·[f3 > 7 xor f4 > 7] + 2·⌊f5 / 2⌋ + N(0, 0.5²)
//
// The other 14 features are noise, which also keeps k-nearest neighbours
// behind. It depends only on rows and seed.
func treeTable(rows int, seed int64) *table {
	r := rand.New(rand.NewPCG(uint64(seed), 0x74726565))
	t := &table{header: make([]string, 0, linearFeatures+1), rows: make([][]string, rows), y: make([]float64, rows)}
	for j := range linearFeatures {
		t.header = append(t.header, "f"+strconv.Itoa(j))
	}
	t.header = append(t.header, "y")
	step := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	x := make([]float64, linearFeatures)
	for i := range t.rows {
		row := make([]string, linearFeatures+1)
		for j := range linearFeatures {
			x[j] = math.Round(r.Float64()*1e5) / 1e4
			row[j] = strconv.FormatFloat(x[j], 'f', 4, 64)
		}
		y := 10*step(x[0] > 5) + 8*step(x[1] > 3)*step(x[2] < 6) + 6*step((x[3] > 7) != (x[4] > 7)) +
			2*math.Floor(x[5]/2) + 0.5*r.NormFloat64()
		row[linearFeatures] = strconv.FormatFloat(y, 'f', 6, 64)
		t.y[i], _ = strconv.ParseFloat(row[linearFeatures], 64)
		t.rows[i] = row
	}
	return t
}

// columnarChecks evaluates the columnar workload: the champions' kinds,
// the predict, upload and export targets, and notes on every other
// figure, each set beside DuckDB's where it has one. A target whose
// result is missing (a format the server skipped) is a MISS.
func columnarChecks(results []Result) []Check {
	if !slices.ContainsFunc(results, func(r Result) bool { return strings.HasPrefix(r.Name, "Columnar/") }) {
		return nil
	}
	notMeasured := func(w, what, target string) Check {
		return Check{Workload: w, What: what, Text: "not measured", Detail: "no result: the server did not take this format (see the progress)", Target: target}
	}
	var out []Check
	kinds := map[string]bool{} // the model kinds whose champions are of that kind in every run
	for _, m := range []struct {
		kind string
		keys []string
	}{{ColumnarLinear, linearKeys}, {ColumnarTree, treeKeys}} {
		name := "Columnar/train/model=" + m.kind + "/impl=vatic"
		champs := labels(results, name, LabelChampion)
		if len(champs) == 0 {
			continue
		}
		pass := true
		for _, k := range champs {
			pass = pass && slices.Contains(m.keys, k)
		}
		kinds[m.kind] = pass
		out = append(out, Check{Workload: "Columnar/train/model=" + m.kind, What: "champion", Text: labelTally(results, name, LabelChampion),
			Detail: fmt.Sprintf("contest %s on %d features", secs(mean(elapsedSeconds(results, name))), linearFeatures),
			Target: strings.Join(m.keys, "|"), Pass: pass})
	}
	predictTargets := map[string]float64{
		ColumnarLinear + "/csv": ColumnarPredictCSVTarget, ColumnarLinear + "/json": ColumnarPredictJSONTarget,
		ColumnarTree + "/csv": ColumnarPredictTreeTarget,
	}
	for _, kind := range []string{ColumnarLinear, ColumnarTree} {
		if _, trained := kinds[kind]; !trained {
			continue
		}
		for _, f := range columnarFormats {
			w := "Columnar/predict/model=" + kind + "/format=" + f.key
			target, hasTarget := predictTargets[kind+"/"+f.key]
			v, ok := median(results, w+"/impl=vatic", UnitRowsPerSec)
			if !ok {
				if hasTarget {
					out = append(out, notMeasured(w, "rows/s", ">= "+si(target)))
				} else {
					out = append(out, Check{Workload: w, What: "rows/s", Text: "not measured", Note: true, Detail: "the server did not take this format"})
				}
				continue
			}
			mb, _ := median(results, w+"/impl=vatic", UnitMBPerSec)
			c := Check{Workload: w, What: "rows/s", Value: v,
				Detail: fmt.Sprintf("%s rows/s, %.1f MB/s in and out, champion %s", si(v), mb, labelTally(results, w+"/impl=vatic", LabelChampion))}
			if hasTarget {
				// The target is a linear (tree) champion's: another
				// champion's figure does not count.
				c.Target, c.Pass = ">= "+si(target)+" with a "+kind+" champion", v >= target && kinds[kind]
			} else {
				c.Note = true
			}
			out = append(out, c)
		}
	}
	const big = "Columnar/predict-big/format=csv/impl=vatic"
	if v, ok := median(results, big, UnitRowsPerSec); ok {
		out = append(out, Check{Workload: "Columnar/predict-big/format=csv", What: "rows/s", Value: v, Note: true,
			Detail: fmt.Sprintf("%s rows/s, one request", si(v))})
		if peak, ok := maxMetric(results, big, UnitPeakRSS); ok {
			growth, _ := maxMetric(results, big, UnitRSSGrowth)
			out = append(out, Check{Workload: "Columnar/predict-big/format=csv", What: "peak RSS MB", Value: peak / (1 << 20), Note: true,
				Detail: fmt.Sprintf("VmHWM over the request, largest over runs; growth %.0f MB", growth/(1<<20))})
		}
	}
	for _, part := range []struct {
		name   string
		anchor func(format string) string // what DuckDB did, by format
		target Check                      // the Arrow IPC target, Value and Pass filled below
	}{
		{"upload", func(f string) string {
			if f == "arrow" {
				return "table copy"
			}
			return "read_" + f
		}, Check{What: "rows/s arrow÷csv", Target: fmt.Sprintf(">= %.2f", ColumnarUploadArrowRatio)}},
		{"export", func(f string) string { return "COPY TO " + f }, Check{What: "rows/s", Target: ">= " + si(ColumnarExportArrowTarget)}},
	} {
		w := "Columnar/" + part.name
		if !slices.ContainsFunc(results, func(r Result) bool { return strings.HasPrefix(r.Name, w+"/") }) {
			continue
		}
		for _, f := range columnarFormats {
			name := w + "/format=" + f.key
			v, ok := median(results, name+"/impl=vatic", UnitRowsPerSec)
			d, okDuck := median(results, name+"/impl=duckdb", UnitRowsPerSec)
			if !ok {
				detail := "the server did not take this format"
				if okDuck {
					detail += fmt.Sprintf("; DuckDB %s %s rows/s", part.anchor(f.key), si(d))
				}
				if f.key != "arrow" { // the target below says it
					out = append(out, Check{Workload: name, What: "rows/s", Text: "not measured", Note: true, Detail: detail})
				}
				continue
			}
			mb, _ := median(results, name+"/impl=vatic", UnitMBPerSec)
			c := Check{Workload: name, What: "rows/s", Value: v, Note: true, Detail: fmt.Sprintf("%s rows/s, %.1f MB/s", si(v), mb)}
			if okDuck && d > 0 {
				c.What = "rows/s vatic÷duckdb"
				c.Value = v / d
				c.Detail = fmt.Sprintf("%s vs DuckDB %s %s rows/s", si(v), part.anchor(f.key), si(d))
			}
			out = append(out, c)
		}
		arrow, okArrow := median(results, w+"/format=arrow/impl=vatic", UnitRowsPerSec)
		c := part.target
		c.Workload = w + "/format=arrow"
		switch {
		case !okArrow:
			c = notMeasured(c.Workload, c.What, c.Target)
		case part.name == "upload":
			csv, ok := median(results, w+"/format=csv/impl=vatic", UnitRowsPerSec)
			if !ok || csv <= 0 {
				continue
			}
			c.Value, c.Pass = arrow/csv, arrow/csv >= ColumnarUploadArrowRatio
			c.Detail = fmt.Sprintf("%s vs %s rows/s", si(arrow), si(csv))
			if floor, ok := median(results, w+"/format=arrow/impl=duckdb", UnitRowsPerSec); ok && floor > 0 {
				// No upload writes faster than DuckDB copies a table.
				c.Detail += fmt.Sprintf("; DuckDB's table copy %s rows/s allows at most %.2f", si(floor), floor/csv)
			}
		default:
			c.Value, c.Pass = arrow, arrow >= ColumnarExportArrowTarget
			c.Detail = si(arrow) + " rows/s, every row"
		}
		out = append(out, c)
	}
	return out
}
