package engine_test

// The engine's rules as data: each file under testdata/rules is one topic
// (upserts, inference, deletes, views, sessions), a list of commands with
// their expected output in the format of github.com/cockroachdb/datadriven
// (Pebble's testdata/batch_get is the model). A rule change shows up here
// as a diff of a small text file instead of as an HTTP golden diff in api.
//
// Regenerate the expected output after an intended change, then review
// the diff:
//
//	go test -tags 'duckdb_arrow assert' ./engine -run TestRules -rewrite
//
// Every file starts on a fresh engine over a DuckDB file in a temporary
// directory, with a stopped clock at 2018-01-01T00:00:00Z. Commands:
//
//	reset [batchRows=N]
//	    a fresh engine (batchRows sets Options.BatchRows)
//	clock at=<time>
//	    stop the engine's clock at a time (any form the engine parses)
//	put name=<ds> [format=csv|json] [timestampColumn=<col>] [linear=N [start=<date>]]
//	    PutDataset with the input as body; linear=N generates the body
//	    instead: columns a, b, y = 2a − 3b + 1 (+ a day column from start);
//	    prints the dataset summary (see summary)
//	dataset name=<ds>
//	    the dataset summary as stored
//	rows name=<ds> | view=<v> [start=<time>] [end=<time>] [include=(c,…)] [page=N pageSize=N]
//	    ReadRows or ReadViewRows as CSV, dates in RFC 3339 and missing
//	    values empty; with pageSize the first line is the total
//	view name=<v>
//	    PutView with the input as a JSON definition (REFERENCE §2.5), or
//	    View when there is no input; prints the view summary
//	delete name=<ds> [start=<time>] [end=<time>] [cascade=(…)]
//	delete-view name=<v> [cascade=(…)]
//	    DeleteDataset and DeleteView; print "ok"
//	session name=<label> source=<ds|view> [target=<col>] [columns]
//	    CreateSession (a regression) named label, waits for it to finish and
//	    prints its status, status history, messages and whether it built a
//	    model; columns adds the session's effective column metadata. Metrics
//	    and ids are left out: they are not part of the rules
//	results name=<label>
//	    SessionResults of the session labelled so: its status and how many
//	    result rows it has (an error shows <label> for the session's id)
//	sessions [source=<ds>]
//	models [source=<ds>]
//	    ListSessions and ListModels, one line each, ordered by name
//
// A command that fails prints "error: <errorType>: <message>" and its
// details, one per line, sorted.

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/datadriven"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
)

func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		t.Parallel()
		d := &driver{}
		d.reset(t, 0)
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			out, err := d.run(t, td)
			if err != nil {
				return errorText(err)
			}
			return out
		})
	})
}

// driver holds one file's engine.
type driver struct {
	e   *engine.Engine
	ids map[string]string // session labels to ids

	mu  sync.Mutex
	now time.Time
}

// epoch is where every file's clock starts.
var epoch = time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)

func (d *driver) clock() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

func (d *driver) setClock(at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.now = at
}

// reset opens a fresh engine on a new DuckDB file; the previous one is
// closed when the test ends.
func (d *driver) reset(t *testing.T, batchRows int) {
	t.Helper()
	store, err := duckstore.Open(t.Context(), filepath.Join(t.TempDir(), "vatic.duckdb"), duckstore.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	d.setClock(epoch)
	e, err := engine.New(t.Context(), store, engine.Options{Clock: d.clock, BatchRows: batchRows})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		store.Close()
	})
	d.e = e
	d.ids = map[string]string{}
}

// run executes one command; an error is the command's output.
func (d *driver) run(t *testing.T, td *datadriven.TestData) (string, error) {
	ctx := t.Context()
	args := argMap(td)
	switch td.Cmd {
	case "reset":
		d.reset(t, intArg(t, td, args, "batchRows", 0))
		return "ok", nil

	case "clock":
		d.setClock(timeArg(t, td, args, "at"))
		return "ok", nil

	case "put":
		req := engine.PutRequest{Name: args["name"], Format: engine.FormatHints{ContentType: "text/csv"}, TimestampColumn: args["timestampColumn"]}
		switch args["format"] {
		case "", "csv":
		case "json":
			req.Format = engine.FormatHints{ContentType: "application/json"}
		default:
			td.Fatalf(t, "format must be csv or json")
		}
		body := td.Input
		if n := intArg(t, td, args, "linear", 0); n > 0 {
			body = linearCSV(n, args["start"])
		}
		req.Body = strings.NewReader(body)
		ds, created, err := d.e.PutDataset(ctx, req)
		if err != nil {
			return "", err
		}
		return datasetSummary(ds, created), nil

	case "dataset":
		ds, err := d.e.Dataset(ctx, args["name"])
		if err != nil {
			return "", err
		}
		return datasetSummary(ds, false), nil

	case "rows":
		q := engine.RowsQuery{Include: listArg(td, "include"), Page: intArg(t, td, args, "page", 0), PageSize: intArg(t, td, args, "pageSize", 0)}
		if _, ok := args["start"]; ok {
			s := timeArg(t, td, args, "start")
			q.Start = &s
		}
		if _, ok := args["end"]; ok {
			e := timeArg(t, td, args, "end")
			q.End = &e
		}
		var rows *engine.Rows
		var err error
		if v, ok := args["view"]; ok {
			_, rows, err = d.e.ReadViewRows(ctx, v, q)
		} else {
			rows, err = d.e.ReadRows(ctx, args["name"], q)
		}
		if err != nil {
			return "", err
		}
		defer rows.Release()
		out, err := rowsCSV(rows)
		if err != nil {
			return "", err
		}
		if q.PageSize > 0 {
			out = fmt.Sprintf("total=%d\n", rows.Total) + out
		}
		return out, nil

	case "view":
		if strings.TrimSpace(td.Input) == "" {
			v, err := d.e.View(ctx, args["name"])
			if err != nil {
				return "", err
			}
			return viewSummary(v, false), nil
		}
		spec, err := parseViewSpec(td.Input)
		if err != nil {
			td.Fatalf(t, "view definition: %v", err)
		}
		spec.Name = args["name"]
		v, created, err := d.e.PutView(ctx, spec)
		if err != nil {
			return "", err
		}
		return viewSummary(v, created), nil

	case "delete":
		c, err := engine.ParseCascade(listArg(td, "cascade"))
		if err != nil {
			return "", err
		}
		q := engine.DeleteQuery{Cascade: c}
		if _, ok := args["start"]; ok {
			s := timeArg(t, td, args, "start")
			q.Start = &s
		}
		if _, ok := args["end"]; ok {
			e := timeArg(t, td, args, "end")
			q.End = &e
		}
		if err := d.e.DeleteDataset(ctx, args["name"], q); err != nil {
			return "", err
		}
		return "ok", nil

	case "delete-view":
		c, err := engine.ParseCascade(listArg(td, "cascade"))
		if err != nil {
			return "", err
		}
		if err := d.e.DeleteView(ctx, args["name"], c); err != nil {
			return "", err
		}
		return "ok", nil

	case "session":
		s, err := d.e.CreateSession(ctx, engine.SessionRequest{
			Type: engine.SessionModel, PredictionDomain: engine.DomainRegression,
			Name: args["name"], DataSourceName: args["source"], TargetColumn: args["target"],
		})
		if err != nil {
			return "", err
		}
		d.ids[args["name"]] = s.ID
		s = d.wait(t, s.ID)
		return sessionSummary(s, td.HasArg("columns")), nil

	case "results":
		id, ok := d.ids[args["name"]]
		if !ok {
			td.Fatalf(t, "no session labelled %s", args["name"])
		}
		s, rows, err := d.e.SessionResults(ctx, id, engine.Page{})
		if err != nil {
			// Session ids are new in every run: show the label instead.
			return strings.ReplaceAll(errorText(err), id, "<"+args["name"]+">"), nil
		}
		defer rows.Release()
		n := 0
		for rows.Reader.Next() {
			n += int(rows.Reader.RecordBatch().NumRows())
		}
		if err := rows.Reader.Err(); err != nil {
			return "", err
		}
		return fmt.Sprintf("status=%s rows=%d\n", s.Status, n), nil

	case "sessions":
		ss, _, err := d.e.ListSessions(ctx, engine.SessionQuery{DataSourceName: args["source"]})
		if err != nil {
			return "", err
		}
		slices.SortFunc(ss, func(a, b engine.Session) int { return cmp.Compare(a.Name, b.Name) })
		var b strings.Builder
		for _, s := range ss {
			fmt.Fprintf(&b, "%s: source=%s status=%s model=%t\n", s.Name, s.DataSourceName, s.Status, s.ModelID != "")
		}
		return orNone(b.String()), nil

	case "models":
		ms, _, err := d.e.ListModels(ctx, engine.ModelQuery{DataSourceName: args["source"]})
		if err != nil {
			return "", err
		}
		slices.SortFunc(ms, func(a, b engine.Model) int { return cmp.Compare(a.Name, b.Name) })
		var b strings.Builder
		for _, m := range ms {
			fmt.Fprintf(&b, "%s: source=%s target=%s\n", m.Name, m.DataSourceName, m.Target)
		}
		return orNone(b.String()), nil
	}
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return "", nil
}

// wait polls a session until it has finished.
func (d *driver) wait(t *testing.T, id string) engine.Session {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s, err := d.e.Session(t.Context(), id)
		if err != nil {
			t.Fatalf("Session(%s): %v", id, err)
		}
		if s.Status != engine.StatusRequested && s.Status != engine.StatusStarted {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s is still %s after a minute", id, s.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// argMap returns the single-valued arguments of a command by key; an
// argument without a value maps to "".
func argMap(td *datadriven.TestData) map[string]string {
	m := map[string]string{}
	for _, a := range td.CmdArgs {
		switch len(a.Vals) {
		case 0:
			m[a.Key] = ""
		case 1:
			m[a.Key] = a.Vals[0]
		default:
			m[a.Key] = strings.Join(a.Vals, ",")
		}
	}
	return m
}

// listArg returns the values of a list argument, key=(a,b) or key=a.
func listArg(td *datadriven.TestData, key string) []string {
	a, ok := td.Arg(key)
	if !ok {
		return nil
	}
	return a.Vals
}

func intArg(t *testing.T, td *datadriven.TestData, args map[string]string, key string, def int) int {
	v, ok := args[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		td.Fatalf(t, "%s=%s: %v", key, v, err)
	}
	return n
}

func timeArg(t *testing.T, td *datadriven.TestData, args map[string]string, key string) time.Time {
	v, ok := columnar.ParseTime(args[key])
	if !ok {
		td.Fatalf(t, "%s=%s is not a time", key, args[key])
	}
	return v
}

// linearCSV is y = 2a − 3b + 1 plus a small wiggle, n rows; with start, a
// first column day counts days from it.
func linearCSV(n int, start string) string {
	var day time.Time
	if start != "" {
		var ok bool
		if day, ok = columnar.ParseTime(start); !ok {
			panic("linear start " + start + " is not a time")
		}
	}
	var b strings.Builder
	if start != "" {
		b.WriteString("day,")
	}
	b.WriteString("a,b,y\n")
	for i := range n {
		if start != "" {
			b.WriteString(day.AddDate(0, 0, i).Format(time.DateOnly) + ",")
		}
		a, c := float64(i%17), float64((i*7)%11)
		fmt.Fprintf(&b, "%g,%g,%g\n", a, c, 2*a-3*c+1+float64(i%3)*0.1)
	}
	return b.String()
}

// datasetSummary is a dataset's row count, whether it is a time series,
// and one line per column (see columnsTable).
func datasetSummary(ds engine.Dataset, created bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rows=%d timeSeries=%t", ds.RowCount, ds.IsTimeSeries())
	if created {
		b.WriteString(" created")
	}
	b.WriteString("\n")
	if len(ds.MissingValues) > 0 {
		fmt.Fprintf(&b, "missingValues=%s\n", strings.Join(ds.MissingValues, ","))
	}
	b.WriteString(columnsTable(ds.Columns))
	return b.String()
}

func viewSummary(v engine.View, created bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "base=%s timeSeries=%t", v.DataSetName, v.IsTimeSeries())
	if created {
		b.WriteString(" created")
	}
	b.WriteString("\n")
	b.WriteString(columnsTable(v.Columns))
	return b.String()
}

// columnsTable has one line per column: name, data type ("untyped" before
// any value decided it), role (- for none) and imputation/aggregation with
// the type's defaults filled in as the API shows them (absent for dates
// and text, which have none).
func columnsTable(cols []columnar.Column) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	for _, c := range cols {
		role := string(c.Role)
		if role == "" {
			role = "-"
		}
		dt := string(c.DataType)
		if dt == "" {
			dt = "untyped"
		}
		imp, agg := columnar.Defaults(c.DataType)
		imp, agg = cmp.Or(c.Imputation, imp), cmp.Or(c.Aggregation, agg)
		strategies := ""
		if imp != "" || agg != "" {
			strategies = string(imp) + "/" + string(agg)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", c.Name, dt, role, strategies)
	}
	w.Flush()
	// Every line has all four cells so that they align; a date's empty
	// last one leaves padding to trim.
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n") + strings.Repeat("\n", strings.Count(l, "\n"))
	}
	return strings.Join(lines, "")
}

func sessionSummary(s engine.Session, columns bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status=%s target=%s model=%t\n", s.Status, s.TargetColumn, s.ModelID != "")
	var hist []string
	for _, h := range s.History {
		hist = append(hist, string(h.Status))
	}
	fmt.Fprintf(&b, "history: %s\n", strings.Join(hist, " "))
	for _, m := range s.Messages {
		text := m.Text
		// The cross-validated means depend on the session's random id.
		if i := strings.Index(text, " Mean ± standard error:"); i >= 0 {
			text = text[:i] + " Mean ± standard error: …"
		}
		// So do a text column's counts, fitted on the training split.
		if i := strings.Index(text, ": "); strings.HasPrefix(text, "Text column ") && strings.HasSuffix(text, " stop words).") {
			text = text[:i] + ": … became features (…)."
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Severity, text)
	}
	if columns {
		b.WriteString(columnsTable(s.Columns))
	}
	return b.String()
}

// rowsCSV renders rows as CSV with a header line.
func rowsCSV(rows *engine.Rows) (string, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	var header []string
	for _, c := range rows.Columns {
		header = append(header, c.Name)
	}
	if err := w.Write(header); err != nil {
		return "", err
	}
	for rows.Reader.Next() {
		rec := rows.Reader.RecordBatch()
		for i := range int(rec.NumRows()) {
			line := make([]string, rec.NumCols())
			for c := range line {
				line[c] = cell(rec.Column(c), i)
			}
			if err := w.Write(line); err != nil {
				return "", err
			}
		}
	}
	if err := rows.Reader.Err(); err != nil {
		return "", err
	}
	w.Flush()
	return b.String(), w.Error()
}

// cell renders one value: numbers in their shortest form, dates in RFC
// 3339 (UTC), missing values empty.
func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Float64:
		v := a.Value(i)
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC().Format(time.RFC3339Nano)
	}
	return a.ValueStr(i)
}

// viewJSON is the JSON of a view definition (REFERENCE §2.5), as api reads
// it; columnOptions and columns are applied in name order.
type viewJSON struct {
	DataSetName string                `json:"dataSetName"`
	Joins       []joinJSON            `json:"joins"`
	Columns     map[string]columnJSON `json:"columns"`
}

type joinJSON struct {
	DataSet *struct {
		Name string `json:"name"`
	} `json:"dataSet"`
	Calendar *struct {
		Name     string `json:"name"`
		URL      string `json:"url"`
		TimeZone string `json:"timeZone"`
	} `json:"calendar"`
	ColumnOptions map[string]struct {
		JoinInterval string `json:"joinInterval"`
		Alias        string `json:"alias"`
		JoinTo       string `json:"joinTo"`
	} `json:"columnOptions"`
	Joins []joinJSON `json:"joins"`
}

type columnJSON struct {
	DataType    string `json:"dataType"`
	Role        string `json:"role"`
	Imputation  string `json:"imputation"`
	Aggregation string `json:"aggregation"`
}

func parseViewSpec(input string) (engine.ViewSpec, error) {
	var v viewJSON
	dec := json.NewDecoder(strings.NewReader(input))
	dec.DisallowUnknownFields() // a typo in a test file should not pass silently
	if err := dec.Decode(&v); err != nil {
		return engine.ViewSpec{}, err
	}
	spec := engine.ViewSpec{DataSetName: v.DataSetName, Joins: toJoins(v.Joins)}
	for _, name := range sortedKeys(v.Columns) {
		c := v.Columns[name]
		spec.Columns = append(spec.Columns, columnar.Spec{Name: name, DataType: c.DataType, Role: c.Role, Imputation: c.Imputation, Aggregation: c.Aggregation})
	}
	return spec, nil
}

func toJoins(in []joinJSON) []engine.ViewJoin {
	var out []engine.ViewJoin
	for _, j := range in {
		var vj engine.ViewJoin
		if j.DataSet != nil {
			vj.DataSet = j.DataSet.Name
		}
		if j.Calendar != nil {
			vj.Calendar = &engine.CalendarRef{Name: j.Calendar.Name, URL: j.Calendar.URL, TimeZone: j.Calendar.TimeZone}
		}
		for _, name := range sortedKeys(j.ColumnOptions) {
			o := j.ColumnOptions[name]
			vj.ColumnOptions = append(vj.ColumnOptions, engine.JoinOption{Column: name, JoinInterval: o.JoinInterval, Alias: o.Alias, JoinTo: o.JoinTo})
		}
		vj.Joins = toJoins(j.Joins)
		out = append(out, vj)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errorText renders an error as its errorType, message and details. An
// error the engine did not classify shows its full text, since the
// generic message would hide what went wrong.
func errorText(err error) string {
	kind, msg, details := engine.Classify(err)
	var ee *engine.Error
	if !errors.As(err, &ee) {
		msg = err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "error: %s: %s\n", kindNames[kind], msg)
	for _, k := range sortedKeys(details) {
		switch v := details[k].(type) {
		case []string:
			for _, s := range v {
				fmt.Fprintf(&b, "  %s: %s\n", k, s)
			}
		default:
			fmt.Fprintf(&b, "  %s: %v\n", k, v)
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// kindNames label error kinds in the expected output with the errorType
// the API answers them with (api/errors.go owns that table).
var kindNames = map[engine.Kind]string{
	engine.Internal: "ServerError", engine.Invalid: "RequestValidation", engine.InvalidMetadata: "InvalidColumnMetadata",
	engine.InvalidDateRange: "InvalidDateRange", engine.NoData: "NoData", engine.ParametersRequired: "SomeParametersRequired",
	engine.Forbidden: "PlanUpgradeRequired", engine.NotFound: "NotFound", engine.Conflict: "Conflict",
	engine.QuotaExceeded: "QuotaExceeded", engine.Unavailable: "ServiceUnavailable",
}
