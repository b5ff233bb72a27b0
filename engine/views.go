package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/calendar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// ViewJoin is one join of a view definition (REFERENCE §2.5).
type ViewJoin struct {
	DataSet       string
	Calendar      *CalendarRef
	ColumnOptions []JoinOption
	Joins         []ViewJoin
}

// CalendarRef names a calendar to join: a built-in one or an iCal URL.
// Label is the name its columns use, settled when the view is stored.
type CalendarRef struct {
	Name, URL, TimeZone, Label string

	table string // events table of a URL calendar
}

// JoinOption is what columnOptions says of one column of a join.
type JoinOption struct {
	Column       string
	JoinInterval string
	Alias        string
	JoinTo       string
}

// ViewSpec is a PUT /views/{name} request.
type ViewSpec struct {
	Name        string
	DataSetName string
	Joins       []ViewJoin
	Columns     []columnar.Spec // overrides of the view's columns' metadata
}

// View is a stored view with its effective column metadata.
type View struct {
	ViewSpec
	Columns  []columnar.Column
	Created  time.Time
	Modified time.Time

	sql       string   // the compiled SELECT
	sources   []string // datasets read, the base first
	calendars []calendarUse
	ts        string // the timestamp column, "" when none
	tsInBase  bool   // ts is a column of the base dataset
}

// IsTimeSeries reports whether the view has a timestamp column.
func (v View) IsTimeSeries() bool { return v.ts != "" }

// PutView creates or replaces a view (REFERENCE §4.1). created reports
// whether the view is new.
func (e *Engine) PutView(ctx context.Context, spec ViewSpec) (View, bool, error) {
	if err := validName(spec.Name); err != nil {
		return View{}, false, Validation("viewName", "Value for viewName must be 1 to 255 characters of valid text without '/'")
	}
	if strings.TrimSpace(spec.DataSetName) == "" {
		return View{}, false, Validation("dataSetName", "The dataSetName field is required.")
	}
	unlock, err := e.lock(ctx, "view "+spec.Name)
	if err != nil {
		return View{}, false, err
	}
	defer unlock()
	if _, ok, err := e.loadDataset(ctx, spec.Name); err != nil {
		return View{}, false, err
	} else if ok {
		return View{}, false, Validation("viewName", "A dataset named "+spec.Name+" exists; views and datasets share names")
	}
	old, exists, err := e.loadView(ctx, spec.Name)
	if err != nil {
		return View{}, false, err
	}
	if exists {
		spec.Name = old.Name // keep the stored spelling
	}
	v, err := e.planView(ctx, spec, true)
	if err != nil {
		return View{}, false, err
	}
	now := e.now()
	v.Created, v.Modified = now, now
	if exists {
		v.Created = old.Created
	}
	err = e.store.Tx(ctx, func(ctx context.Context) error {
		if err := e.dropViewCalendars(ctx, v.Name); err != nil {
			return err
		}
		return e.saveView(ctx, v)
	})
	return v, !exists, err
}

// planView resolves a view definition against the datasets as they are
// now: the joins' columns, the effective metadata and the compiled SQL.
// fetch says to read iCal URLs anew (PUT); otherwise the events stored
// with the view are used.
func (e *Engine) planView(ctx context.Context, spec ViewSpec, fetch bool) (View, error) {
	v := View{ViewSpec: spec}
	v.Joins = slices.Clone(spec.Joins)
	base, err := e.Dataset(ctx, spec.DataSetName)
	if err != nil {
		return v, err
	}
	v.DataSetName = base.Name
	baseSrc, err := e.viewSource(ctx, base)
	if err != nil {
		return v, err
	}
	v.sources = []string{base.Name}
	v.Columns = append(v.Columns, baseSrc.Columns...)
	var joins []sqlgen.Join
	for i, j := range spec.Joins {
		field := fmt.Sprintf("joins[%d]", i)
		switch {
		case (j.DataSet == "") == (j.Calendar == nil):
			return v, Validation(field, "A join names either a dataSet or a calendar")
		case j.Calendar != nil:
			j.Calendar = new(*j.Calendar)
			v.Joins[i].Calendar = j.Calendar
			var events []calendar.Event
			if j.Calendar.URL != "" && j.Calendar.Name == "" {
				var err error
				if events, err = e.urlCalendar(ctx, field, spec.Name, i, base, j.Calendar, fetch); err != nil {
					return v, err
				}
			}
			vj, cols, use, err := planCalendar(field, baseSrc, base, j, v.Columns, events)
			if err != nil {
				return v, err
			}
			joins = append(joins, vj)
			v.Columns = append(v.Columns, cols...)
			v.calendars = append(v.calendars, use)
			continue
		case len(j.Joins) > 0:
			return v, Validation(field+".joins", "Nested joins are not supported; join each dataset to the base")
		}
		right, err := e.Dataset(ctx, j.DataSet)
		if err != nil {
			return v, err
		}
		rightSrc, err := e.viewSource(ctx, right)
		if err != nil {
			return v, err
		}
		vj, cols, err := planJoin(field, baseSrc, base, rightSrc, right, j, v.Columns)
		if err != nil {
			return v, err
		}
		v.Joins[i].DataSet = right.Name
		joins = append(joins, vj)
		v.Columns = append(v.Columns, cols...)
		v.sources = append(v.sources, right.Name)
	}
	if err := applyOverrides(v.Columns, spec.Columns, "view"); err != nil {
		return v, err
	}
	// A joined column's aggregation, overridden or not, is how the join
	// combines the right rows of one key.
	for i := range joins {
		for k, o := range joins[i].Outputs {
			if c, ok := findColumn(v.Columns, o.As); ok && c.Aggregation != "" && c.DataType != columnar.Date {
				joins[i].Outputs[k].Aggregation = c.Aggregation
			}
		}
	}
	v.ts = columnWithRole(v.Columns, columnar.RoleTimestamp)
	_, v.tsInBase = findColumn(baseSrc.Columns, v.ts)
	if v.sql, err = sqlgen.Compile(baseSrc, joins); err != nil {
		return v, err
	}
	return v, nil
}

// calendarUse is a built-in calendar a view joins: its events table must
// exist before the view is defined.
type calendarUse struct {
	canonical string // built-in calendar name, or the table name of a URL calendar
	table     string // quoted
	events    []calendarEvent
	replace   bool // a URL calendar fetched anew: its table is rewritten
}

type calendarEvent struct {
	ID    int       `json:"event_id"`
	Name  string    `json:"event"`
	Start time.Time `json:"start"`
	Stop  time.Time `json:"stop"`
}

// Calendar years generated for built-in calendars: wide enough for any
// data a view is likely to hold, small enough to build at once (about 1,500
// events for the US).
const calendarFirstYear, calendarLastYear = 1970, 2100

// planCalendar plans a calendar join (REFERENCE §11.6): the base must be a
// time series; its rows get eventTimestamp, calendar:<label> and one
// event:<label>:<name> indicator per event name. columnOptions may set
// joinInterval on eventTimestamp and alias any of these columns.
//
// Name clashes follow the rule of dataset joins (joinNames): a calendar
// column whose name the view already has is left out unless aliased. The
// reference only states the rule for dataset joins; applying it here lets
// a view join two calendars without aliases (the second calendar's
// eventTimestamp is left out, its indicators, named by its label, stay),
// where each calendar's eventTimestamp would otherwise always clash.
func planCalendar(field string, left sqlgen.Source, base Dataset, j ViewJoin, have []columnar.Column, urlEvents []calendar.Event) (sqlgen.Join, []columnar.Column, calendarUse, error) {
	var use calendarUse
	c := j.Calendar
	canonical, label := "", c.Label
	if c.URL == "" || c.Name != "" {
		var ok bool
		if canonical, label, ok = calendar.Lookup(c.Name); !ok {
			return sqlgen.Join{}, nil, use, Validation(field+".calendar.name", fmt.Sprintf("Calendar %q is not known; built-in calendars are named Nexosis.Holidays-<country code>, e.g. Nexosis.Holidays-US", c.Name))
		}
	}
	if c.TimeZone != "" {
		if _, err := time.LoadLocation(c.TimeZone); err != nil {
			return sqlgen.Join{}, nil, use, Validation(field+".calendar.timeZone", "Value for timeZone must be an IANA time zone such as America/New_York")
		}
	}
	ts := base.ColumnWithRole(columnar.RoleTimestamp)
	tsCol, _ := findColumn(left.Columns, ts)
	if ts == "" || tsCol.DataType != columnar.Date {
		return sqlgen.Join{}, nil, use, Validation(field+".calendar", "A calendar join needs a base dataset with a timestamp column")
	}
	events := urlEvents
	if canonical != "" {
		use = calendarUse{canonical: canonical, table: calendarTable("calendar " + canonical)}
		events = calendar.Holidays(canonical, calendarFirstYear, calendarLastYear)
	} else {
		use = calendarUse{table: calendarTable(c.table), replace: urlEvents != nil, canonical: c.table}
	}
	ids := map[string]int{}
	var eventNames []string
	for _, e := range events {
		id, seen := ids[e.Name]
		if !seen {
			id = len(eventNames)
			ids[e.Name] = id
			eventNames = append(eventNames, e.Name)
		}
		use.events = append(use.events, calendarEvent{ID: id, Name: e.Name, Start: e.Start, Stop: e.End})
	}
	opts := map[string]JoinOption{}
	for _, o := range j.ColumnOptions {
		opts[strings.ToLower(o.Column)] = o
	}
	cj := &sqlgen.CalendarJoin{Table: use.table}
	if iv := strings.ToLower(strings.TrimSpace(opts["eventtimestamp"].JoinInterval)); iv != "" {
		if !containsFold(sqlgen.Intervals, iv) {
			return sqlgen.Join{}, nil, use, Validation(field+".columnOptions.eventTimestamp.joinInterval", "Value for joinInterval must be hour, day, week, month or year")
		}
		cj.Interval = iv
	}
	// The columns in order: eventTimestamp, the calendar indicator, then
	// one indicator per event name.
	names := []string{"eventTimestamp", "calendar:" + label}
	for _, n := range eventNames {
		names = append(names, "event:"+label+":"+n)
	}
	aliases := make([]string, len(names))
	for i, n := range names {
		aliases[i] = opts[strings.ToLower(n)].Alias
	}
	source := "calendar " + canonical
	if canonical == "" {
		source = "calendar " + RedactURL(c.URL)
	}
	as, reasons := joinNames(have, names, aliases, source)
	if len(reasons) > 0 {
		return sqlgen.Join{}, nil, use, MetadataError(reasons)
	}
	indicator := func(name string) columnar.Column {
		return columnar.Column{Name: name, DataType: columnar.Numeric, Role: columnar.RoleFeature, Imputation: columnar.ImputeMode, Aggregation: columnar.AggMode}
	}
	var cols []columnar.Column
	if cj.TimestampAs = as[0]; cj.TimestampAs != "" {
		cols = append(cols, columnar.Column{Name: cj.TimestampAs, DataType: columnar.Date})
	}
	if cj.CalendarAs = as[1]; cj.CalendarAs != "" {
		cols = append(cols, indicator(cj.CalendarAs))
	}
	for id, a := range as[2:] {
		if a != "" {
			cj.Events = append(cj.Events, sqlgen.EventColumn{ID: id, As: a})
			cols = append(cols, indicator(a))
		}
	}
	if canonical != "" {
		j.Calendar.Name = canonical
	}
	return sqlgen.Join{LeftColumn: tsCol.Name, Calendar: cj}, cols, use, nil
}

// calendarTable quotes a calendar events table in schema catalog.
func calendarTable(name string) string {
	return columnar.MustQuoteIdent("catalog") + "." + columnar.MustQuoteIdent(name)
}

// maxCalendarBytes and maxCalendarEvents bound an iCal calendar.
const (
	maxCalendarBytes  = 16 << 20
	maxCalendarEvents = 200_000
)

// urlCalendar returns the events of an iCal calendar join. With fetch, the
// file is read through the engine's Fetcher, the one URL imports use (same
// private-address refusal and idle timeout; a calendar has its own size
// cap), for the base's date range (a year either side, so a joinInterval
// can reach them) and the label settled; without, the events stored with
// the view are read back.
func (e *Engine) urlCalendar(ctx context.Context, field, viewName string, i int, base Dataset, c *CalendarRef, fetch bool) ([]calendar.Event, error) {
	c.table = fmt.Sprintf("calendar view %s %d", viewName, i)
	if !fetch {
		return e.storedCalendarEvents(ctx, calendarTable(c.table))
	}
	loc := time.UTC
	if c.TimeZone != "" {
		var err error
		if loc, err = time.LoadLocation(c.TimeZone); err != nil {
			return nil, Validation(field+".calendar.timeZone", "Value for timeZone must be an IANA time zone such as America/New_York")
		}
	}
	if RedactURL(c.URL) == "" || !(strings.HasPrefix(strings.ToLower(c.URL), "http://") || strings.HasPrefix(strings.ToLower(c.URL), "https://")) {
		return nil, Validation(field+".calendar.url", "Value for url must be an absolute http or https URL")
	}
	if e.fetcher == nil {
		return nil, Validation(field+".calendar.url", "iCal calendars need remote sources, which this server has not")
	}
	ts := base.ColumnWithRole(columnar.RoleTimestamp)
	if ts == "" {
		return nil, Validation(field+".calendar", "A calendar join needs a base dataset with a timestamp column")
	}
	from, to, err := e.timeBounds(ctx, base.Name, ts)
	if err != nil {
		return nil, err
	}
	obj, err := e.fetcher.Fetch(ctx, ImportSpec{Kind: ImportURL, URL: c.URL})
	if err != nil {
		_, msg, _ := Classify(err)
		return nil, Validation(field+".calendar.url", "The calendar could not be read: "+msg)
	}
	defer obj.Body.Close()
	body := &downloadCap{r: obj.Body, left: maxCalendarBytes, limit: maxCalendarBytes}
	name, events, err := calendar.ParseICal(body, loc, from.AddDate(-1, 0, 0), to.AddDate(1, 0, 1), maxCalendarEvents)
	if err != nil {
		_, msg, _ := Classify(err)
		if errors.Is(err, calendar.ErrTooManyEvents) {
			msg = fmt.Sprintf("it has more than %d events in the data's date range", maxCalendarEvents)
		} else if ee := (*Error)(nil); !errors.As(err, &ee) {
			msg = err.Error()
		}
		return nil, Validation(field+".calendar.url", "The calendar could not be read: "+msg)
	}
	if name == "" {
		name = urlHost(c.URL)
	}
	c.Label = name
	if events == nil {
		events = []calendar.Event{}
	}
	return events, nil
}

// urlHost is the host of a URL, for a calendar without a name.
func urlHost(raw string) string {
	s := RedactURL(raw)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	return s
}

// viewSource returns a dataset's stored columns with their metadata.
func (e *Engine) viewSource(ctx context.Context, d Dataset) (sqlgen.Source, error) {
	tcols, err := e.tableColumns(ctx, d.Name)
	if err != nil {
		return sqlgen.Source{}, err
	}
	src := sqlgen.Source{Dataset: d.Name}
	for _, c := range d.Columns {
		if tc, ok := tcols[strings.ToLower(c.Name)]; ok {
			c.Name = tc.Name
			if c.DataType == "" {
				c.DataType = tc.Type
			}
			src.Columns = append(src.Columns, c)
		}
	}
	return src, nil
}

// planJoin picks the join columns of one dataset join (REFERENCE §11.6):
// an explicit joinTo, else the right key against the left column of the
// same name, else the right timestamp against the left timestamp. Every
// other right column is added under its own name or alias, except one
// whose name the view already has (see joinNames).
func planJoin(field string, left sqlgen.Source, base Dataset, right sqlgen.Source, rd Dataset, j ViewJoin, have []columnar.Column) (sqlgen.Join, []columnar.Column, error) {
	out := sqlgen.Join{Right: right}
	opts := map[string]JoinOption{}
	reasons := map[string][]string{}
	for _, o := range j.ColumnOptions {
		c, ok := findColumn(right.Columns, o.Column)
		if !ok {
			reasons[o.Column] = append(reasons[o.Column], fmt.Sprintf("Dataset %s has no column %s", right.Dataset, o.Column))
			continue
		}
		if o.JoinInterval != "" {
			iv := strings.ToLower(strings.TrimSpace(o.JoinInterval))
			if !containsFold(sqlgen.Intervals, iv) {
				return out, nil, Validation(field+".columnOptions."+o.Column+".joinInterval", "Value for joinInterval must be hour, day, week, month or year")
			}
			o.JoinInterval = iv
		}
		opts[strings.ToLower(c.Name)] = o
		if o.JoinTo != "" {
			lc, ok := findColumn(left.Columns, o.JoinTo)
			if !ok {
				reasons[o.Column] = append(reasons[o.Column], fmt.Sprintf("joinTo names %s, which dataset %s does not have", o.JoinTo, left.Dataset))
				continue
			}
			out.LeftColumn, out.RightColumn = lc.Name, c.Name
		}
	}
	if len(reasons) > 0 {
		return out, nil, MetadataError(reasons)
	}
	if out.RightColumn == "" {
		if key := rd.ColumnWithRole(columnar.RoleKey); key != "" {
			if lc, ok := findColumn(left.Columns, key); ok {
				rc, _ := findColumn(right.Columns, key)
				out.LeftColumn, out.RightColumn = lc.Name, rc.Name
			}
		}
	}
	if out.RightColumn == "" {
		rts, lts := rd.ColumnWithRole(columnar.RoleTimestamp), base.ColumnWithRole(columnar.RoleTimestamp)
		if rts != "" && lts != "" {
			lc, _ := findColumn(left.Columns, lts)
			rc, _ := findColumn(right.Columns, rts)
			out.LeftColumn, out.RightColumn = lc.Name, rc.Name
		}
	}
	if out.RightColumn == "" {
		return out, nil, Validation(field+".dataSet", fmt.Sprintf("Dataset %s cannot be joined to %s: it has no key column that %s also has, no timestamp to match %s's, and no columnOptions joinTo",
			right.Dataset, left.Dataset, left.Dataset, left.Dataset))
	}
	lc, _ := findColumn(left.Columns, out.LeftColumn)
	rc, _ := findColumn(right.Columns, out.RightColumn)
	if lc.DataType.Storage() != rc.DataType.Storage() {
		return out, nil, MetadataError(map[string][]string{rc.Name: {fmt.Sprintf("Column %s (%s) cannot be joined to %s (%s)", rc.Name, rc.DataType, lc.Name, lc.DataType)}})
	}
	out.Interval = opts[strings.ToLower(rc.Name)].JoinInterval
	if out.Interval != "" && rc.DataType != columnar.Date {
		return out, nil, Validation(field+".columnOptions."+rc.Name+".joinInterval", "joinInterval applies to date columns only")
	}
	var names, aliases []string
	var added []columnar.Column
	for _, c := range right.Columns {
		if strings.EqualFold(c.Name, out.RightColumn) {
			continue
		}
		names = append(names, c.Name)
		aliases = append(aliases, opts[strings.ToLower(c.Name)].Alias)
		added = append(added, c)
	}
	as, reasons := joinNames(have, names, aliases, "dataset "+right.Dataset)
	if len(reasons) > 0 {
		return out, nil, MetadataError(reasons)
	}
	var cols []columnar.Column
	for i, c := range added {
		if as[i] == "" {
			continue
		}
		agg := c.Aggregation
		if agg == "" {
			_, agg = columnar.Defaults(c.DataType)
		}
		if c.DataType == columnar.Date {
			agg = columnar.AggMax
		}
		out.Outputs = append(out.Outputs, sqlgen.Output{Column: c.Name, As: as[i], Aggregation: agg})
		joined := c
		joined.Name = as[i]
		// A joined dataset's target, timestamp or key is a feature of the
		// view; only the base's roles stand.
		if joined.Role != columnar.RoleNone {
			joined.Role = columnar.RoleFeature
		}
		cols = append(cols, joined)
	}
	return out, cols, nil
}

// joinNames settles the names under which one join adds its columns to a
// view that already has the columns have (REFERENCE §11.6, §9 row 31).
// names are the columns' own names and aliases their columnOptions aliases
// ("" for none); the answer gives each column's name in the view, "" for a
// column left out, or the reasons (keyed by column) an alias is refused.
//
//   - Without an alias, a column whose name the view already has is left
//     out: the base's column (or an earlier join's) wins. Every official
//     client joins datasets sharing sales, transactions and timeStamp
//     this way and expects success.
//   - With an alias, the column is added under it, and an alias that the
//     view already has, or another column of this join takes, is refused.
//
// Unaliased columns are settled first, so an alias that takes the name of
// a sibling column of the same join is refused whatever the column order.
// source names the dataset or calendar in messages.
func joinNames(have []columnar.Column, names, aliases []string, source string) ([]string, map[string][]string) {
	as := make([]string, len(names))
	taken := slices.Clone(have)
	for i, n := range names {
		if aliases[i] != "" {
			continue
		}
		if _, clash := findColumn(taken, n); !clash {
			as[i] = n
			taken = append(taken, columnar.Column{Name: n})
		}
	}
	reasons := map[string][]string{}
	for i, n := range names {
		a := aliases[i]
		if a == "" {
			continue
		}
		if _, clash := findColumn(taken, a); clash {
			reasons[n] = append(reasons[n], fmt.Sprintf("Alias %s of column %s of %s clashes with a column of the view", a, n, source))
			continue
		}
		as[i] = a
		taken = append(taken, columnar.Column{Name: a})
	}
	return as, reasons
}

func findColumn(cols []columnar.Column, name string) (columnar.Column, bool) {
	if i := columnIndex(cols, name); i >= 0 {
		return cols[i], true
	}
	return columnar.Column{}, false
}

// applyOverrides merges column metadata overrides of a view or a session
// (what names it in messages); neither can change how a column is stored.
func applyOverrides(cols []columnar.Column, specs []columnar.Spec, what string) error {
	if err := validSpecs(specs); err != nil {
		return err
	}
	reasons := map[string][]string{}
	for _, s := range specs {
		i := columnIndex(cols, s.Name)
		if i < 0 {
			reasons[s.Name] = append(reasons[s.Name], "The "+what+" has no column "+s.Name)
			continue
		}
		c := &cols[i]
		if t, ok := columnar.ParseDataType(s.DataType); ok && s.DataType != "" {
			if t.Storage() != c.DataType.Storage() {
				reasons[s.Name] = append(reasons[s.Name], fmt.Sprintf("A %s cannot change column %s from %s to %s", what, c.Name, c.DataType, t))
				continue
			}
			c.DataType = t
		}
		if r, ok := columnar.ParseRole(s.Role); ok && s.Role != "" {
			c.Role = r
		}
		if v, ok := columnar.ParseImputation(s.Imputation); ok && s.Imputation != "" {
			c.Imputation = v
		}
		if v, ok := columnar.ParseAggregation(s.Aggregation); ok && s.Aggregation != "" {
			c.Aggregation = v
		}
	}
	seen := map[columnar.Role]string{}
	for _, c := range cols {
		if c.Role == columnar.RoleTarget || c.Role == columnar.RoleTimestamp {
			if other, dup := seen[c.Role]; dup {
				reasons[c.Name] = append(reasons[c.Name], fmt.Sprintf("Only one column may have role %s; %s has it too", c.Role, other))
			}
			seen[c.Role] = c.Name
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return nil
}

// View returns a view resolved against its datasets as they are now; a
// dataset it reads that no longer exists is a 404 naming it.
func (e *Engine) View(ctx context.Context, name string) (View, error) {
	stored, ok, err := e.loadView(ctx, name)
	if err != nil {
		return View{}, err
	}
	if !ok {
		return View{}, NotFoundError("view", name)
	}
	v, err := e.planView(ctx, stored.ViewSpec, false)
	if err != nil {
		return View{}, err
	}
	v.Created, v.Modified = stored.Created, stored.Modified
	if v.sql != stored.sql {
		// A dataset the view reads changed shape: redefine the DuckDB view.
		unlock, err := e.lock(ctx, "view "+v.Name)
		if err != nil {
			return View{}, err
		}
		err = e.store.Tx(ctx, func(ctx context.Context) error { return e.saveView(ctx, v) })
		unlock()
		if err != nil {
			return View{}, err
		}
	}
	return v, nil
}

// ViewQuery selects a page of views.
type ViewQuery struct {
	PartialName string
	DataSetName string // views whose base or joined dataset is this
	Page        int
	PageSize    int
}

// ListViews returns one page of views ordered by name, resolved against
// their datasets where they still exist, and the number matching.
func (e *Engine) ListViews(ctx context.Context, q ViewQuery) ([]View, int, error) {
	stored, total, err := e.listViews(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	out := make([]View, 0, len(stored))
	for _, s := range stored {
		v, err := e.planView(ctx, s.ViewSpec, false)
		if err != nil {
			// A broken view (a dataset it reads is gone) is still listed,
			// with the metadata it had when last planned.
			v = s
		}
		v.Created, v.Modified = s.Created, s.Modified
		out = append(out, v)
	}
	return out, total, nil
}

// ReadViewRows reads a view's rows like ReadRows reads a dataset's.
func (e *Engine) ReadViewRows(ctx context.Context, name string, q RowsQuery) (View, *Rows, error) {
	if err := checkRange(q.Start, q.End); err != nil {
		return View{}, nil, err
	}
	v, err := e.View(ctx, name)
	if err != nil {
		return View{}, nil, err
	}
	out := &Rows{}
	var names []string
	for _, c := range v.Columns {
		if len(q.Include) > 0 && !containsFold(q.Include, c.Name) {
			continue
		}
		out.Columns = append(out.Columns, c)
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		out.Reader = emptyReader()
		return v, out, nil
	}
	rng := sqlgen.Range{Column: v.ts, Start: q.Start, End: q.End}
	if !q.SkipTotal {
		// Joins never add or remove base rows, so the base counts the view
		// without running its joins; unless an override made a joined
		// column the timestamp the range filters on.
		if v.ts == "" || v.tsInBase {
			out.Total, err = e.countRows(ctx, v.DataSetName, rng)
		} else {
			out.Total, err = e.countViewRows(ctx, v.Name, rng)
		}
		if err != nil {
			return v, nil, err
		}
	}
	sel := sqlgen.Select{Schema: sqlgen.ViewSchema, Dataset: v.Name, Columns: names, Range: rng, OrderBy: v.ts, Limit: q.PageSize, Offset: q.Page * q.PageSize}
	sq, args, err := sel.SQL()
	if err != nil {
		return v, nil, err
	}
	if out.Reader, err = e.store.StreamQuery(ctx, sq, args...); err != nil {
		return v, nil, fmt.Errorf("read rows of view %q: %w", v.Name, err)
	}
	return v, out, nil
}

// countViewRows counts a view's rows within a date range by running it.
func (e *Engine) countViewRows(ctx context.Context, name string, rng sqlgen.Range) (int64, error) {
	q, args, err := sqlgen.CountIn(sqlgen.ViewSchema, name, rng)
	if err != nil {
		return 0, err
	}
	r, err := e.store.Rows(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("count rows of view %q: %w", name, err)
	}
	var n int64
	return n, scanOne(r, &n)
}

// DeleteView removes a view (REFERENCE §4.4). Its sessions, models and
// vocabularies are removed with it when cascade names them.
func (e *Engine) DeleteView(ctx context.Context, name string, c Cascade) error {
	stored, ok, err := e.loadView(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		return NotFoundError("view", name)
	}
	unlock, err := e.lock(ctx, "view "+stored.Name)
	if err != nil {
		return err
	}
	defer unlock()
	return e.store.Tx(ctx, func(ctx context.Context) error {
		if err := e.cascade(ctx, stored.Name, c&^CascadeViews, nil, nil); err != nil {
			return err
		}
		return e.dropView(ctx, stored.Name)
	})
}

// dropViewsOf removes the views that read a dataset (dataset delete with
// cascade=view).
func (e *Engine) dropViewsOf(ctx context.Context, dataset string) error {
	names, err := e.viewsReading(ctx, dataset)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := e.dropView(ctx, n); err != nil {
			return err
		}
	}
	return nil
}
