package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// ListQuery selects a page of datasets.
type ListQuery struct {
	PartialName string // case-insensitive substring of the name
	SortBy      string // dataSetName, dataSetSize, rowCount, dateCreated, lastModified (any case)
	Desc        bool
	Page        int
	PageSize    int
}

// DatasetSortKeys are the sortBy values of GET /data (REFERENCE §1.6).
var DatasetSortKeys = []string{"dataSetName", "dataSetSize", "rowCount", "dateCreated", "lastModified"}

// ListDatasets returns one page of datasets, ordered by name unless
// SortBy says otherwise, and the number of matching datasets.
func (e *Engine) ListDatasets(ctx context.Context, q ListQuery) ([]Dataset, int, error) {
	if q.SortBy != "" && !containsFold(DatasetSortKeys, q.SortBy) {
		return nil, 0, Validation("sortBy", "Value for sortBy must be one of "+strings.Join(DatasetSortKeys, ", "))
	}
	return e.listDatasets(ctx, q.PartialName, q.SortBy, q.Desc, q.PageSize, q.Page*q.PageSize)
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// Dataset returns a dataset by name (case-insensitive).
func (e *Engine) Dataset(ctx context.Context, name string) (Dataset, error) {
	d, ok, err := e.loadDataset(ctx, name)
	if err != nil {
		return d, err
	}
	if !ok {
		return d, NotFoundError("dataSet", name)
	}
	return d, nil
}

// RowsQuery selects rows of a dataset.
type RowsQuery struct {
	Include  []string   // columns to return (case-insensitive; unknown names ignored); empty means all
	Start    *time.Time // rows with timestamp ≥ Start (time series only)
	End      *time.Time // rows with timestamp ≤ End (time series only)
	Page     int
	PageSize int // 0 means every row from Page*0 on: the whole selection
	// SkipTotal leaves Rows.Total at 0 for callers that do not report it
	// (a CSV export), saving a count over the selection.
	SkipTotal bool
}

// Rows is a selection of a dataset's rows, streamed as Arrow batches.
type Rows struct {
	Dataset Dataset
	Columns []columnar.Column // the output columns, in order
	Total   int64             // rows matching the date range
	Reader  array.RecordReader
}

// Release frees the reader.
func (r *Rows) Release() {
	if r.Reader != nil {
		r.Reader.Release()
	}
}

// ReadRows selects rows of a dataset: ascending timestamp for a time
// series, storage (insertion) order otherwise. The caller releases the
// result.
func (e *Engine) ReadRows(ctx context.Context, name string, q RowsQuery) (*Rows, error) {
	if err := checkRange(q.Start, q.End); err != nil {
		return nil, err
	}
	d, err := e.Dataset(ctx, name)
	if err != nil {
		return nil, err
	}
	tcols, err := e.tableColumns(ctx, d.Name)
	if err != nil {
		return nil, err
	}
	out := &Rows{Dataset: d}
	var names []string
	for _, c := range d.Columns {
		if _, stored := tcols[strings.ToLower(c.Name)]; !stored {
			continue
		}
		if len(q.Include) > 0 && !containsFold(q.Include, c.Name) {
			continue
		}
		out.Columns = append(out.Columns, c)
		names = append(names, tcols[strings.ToLower(c.Name)].Name)
	}
	if len(names) == 0 {
		out.Reader = emptyReader()
		return out, nil
	}
	ts := d.ColumnWithRole(columnar.RoleTimestamp)
	rng := sqlgen.Range{Column: ts, Start: q.Start, End: q.End}
	if !q.SkipTotal {
		if out.Total, err = e.countRows(ctx, d.Name, rng); err != nil {
			return nil, err
		}
	}
	sel := sqlgen.Select{Dataset: d.Name, Columns: names, Range: rng, OrderBy: ts, Limit: q.PageSize, Offset: q.Page * q.PageSize}
	// A page and a whole export alike read storage order when the rows are
	// stored in time order: an export would otherwise sort every column of
	// every row before its first byte.
	if ts != "" {
		if sel.Sorted, err = e.storedInOrder(ctx, d.Name, ts); err != nil {
			return nil, err
		}
	}
	// A page in storage order of a table whose row ids are dense is a row
	// id range (the check is not run for a page that is sorted or ranged,
	// which reads by LIMIT and OFFSET anyway).
	if sel.Limit > 0 && q.Start == nil && q.End == nil && (ts == "" || sel.Sorted) {
		if sel.Dense, err = e.denseRows(ctx, d.Name); err != nil {
			return nil, err
		}
	}
	sq, args, err := sel.SQL()
	if err != nil {
		return nil, err
	}
	// Streamed: a whole export is every row, which a materialising Query
	// would hold in memory (and convert) before the first byte.
	if out.Reader, err = e.store.StreamQuery(ctx, sq, args...); err != nil {
		return nil, fmt.Errorf("read rows of %q: %w", d.Name, err)
	}
	return out, nil
}

// countRows counts a dataset's rows within a date range. The count of
// every row is cached with the dataset's entry (catalogCache), so a page
// of rows is one query once warm.
func (e *Engine) countRows(ctx context.Context, dataset string, rng sqlgen.Range) (int64, error) {
	if rng.Start != nil || rng.End != nil || !e.cached(ctx) {
		return e.queryCount(ctx, dataset, rng)
	}
	if n, ok := e.cache.total(dataset); ok {
		return n, nil
	}
	gen := e.cache.begin()
	n, err := e.queryCount(ctx, dataset, rng)
	if err == nil {
		e.cache.putTotal(gen, dataset, n)
	}
	return n, err
}

// storedInOrder reports whether a dataset's rows are stored in the order
// of its timestamp column, so that a page needs no sort. Most series are
// written in time order; the answer is cached with the dataset's entry
// and dropped with it on every write.
func (e *Engine) storedInOrder(ctx context.Context, dataset, column string) (bool, error) {
	return e.tableFact(ctx, fmt.Sprintf("the order of %q", dataset),
		func() (bool, bool) { return e.cache.order(dataset, column) },
		func(gen uint64, v bool) { e.cache.putOrder(gen, dataset, column, v) },
		func() (string, error) { return sqlgen.Sorted(dataset, column) })
}

// denseRows reports whether a dataset's row ids are 0 … n−1, so that a
// page is a row id range (sqlgen.Select.Dense). The answer is cached with
// the dataset's entry, as storedInOrder's.
func (e *Engine) denseRows(ctx context.Context, dataset string) (bool, error) {
	return e.tableFact(ctx, fmt.Sprintf("the row ids of %q", dataset),
		func() (bool, bool) { return e.cache.denseRows(dataset) },
		func(gen uint64, v bool) { e.cache.putDense(gen, dataset, v) },
		func() (string, error) { return sqlgen.Dense(dataset) })
}

// tableFact answers a yes-or-no question about a data table that lets a
// read skip work: from the catalog cache (get), else by the query check
// compiles, whose answer it caches (put). Without the cache (inside a
// transaction) it answers false, which must always be correct.
func (e *Engine) tableFact(ctx context.Context, what string, get func() (v, ok bool), put func(gen uint64, v bool), check func() (string, error)) (bool, error) {
	if !e.cached(ctx) {
		return false, nil
	}
	if v, ok := get(); ok {
		return v, nil
	}
	gen := e.cache.begin()
	q, err := check()
	if err != nil {
		return false, err
	}
	r, err := e.store.Rows(ctx, q)
	if err != nil {
		return false, fmt.Errorf("check %s: %w", what, err)
	}
	var v bool
	if err := scanOne(r, &v); err != nil {
		return false, err
	}
	put(gen, v)
	return v, nil
}

func (e *Engine) queryCount(ctx context.Context, dataset string, rng sqlgen.Range) (int64, error) {
	q, args, err := sqlgen.Count(dataset, rng)
	if err != nil {
		return 0, err
	}
	r, err := e.store.Rows(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("count rows of %q: %w", dataset, err)
	}
	var n int64
	return n, scanOne(r, &n)
}

func emptyReader() array.RecordReader {
	rr, _ := array.NewRecordReader(arrow.NewSchema(nil, nil), nil)
	return rr
}

// checkRange rejects a start after the end (REFERENCE §1.10
// InvalidDateRange).
func checkRange(start, end *time.Time) error {
	if start != nil && end != nil && start.After(*end) {
		return &Error{Kind: InvalidDateRange, Msg: "Start Date must be before End Date", Details: map[string]any{
			"startDate": start.UTC().Format("2006-01-02T15:04:05.0000000+00:00"),
			"endDate":   end.UTC().Format("2006-01-02T15:04:05.0000000+00:00"),
		}}
	}
	return nil
}

// Cascade names the dependents a dataset delete removes too.
type Cascade uint8

// The cascade options of DELETE /data/{name} (REFERENCE §3.4).
const (
	CascadeSessions Cascade = 1 << iota
	CascadeForecasts
	CascadeViews
	CascadeModels
	CascadeVocabularies
)

var cascadeNames = map[string]Cascade{
	"session": CascadeSessions, "sessions": CascadeSessions,
	"forecast": CascadeForecasts, "forecasts": CascadeForecasts,
	"view": CascadeViews, "views": CascadeViews,
	"model": CascadeModels, "models": CascadeModels,
	"vocabulary": CascadeVocabularies, "vocabularies": CascadeVocabularies,
}

// ParseCascade reads cascade values: each may be repeated or
// comma-separated, singular or plural, in any case; empty values are
// ignored.
func ParseCascade(values []string) (Cascade, error) {
	var c Cascade
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			opt, ok := cascadeNames[strings.ToLower(part)]
			if !ok {
				return 0, Validation("cascade", fmt.Sprintf("Value '%s' is not a valid cascade option; use session, forecast, view, model or vocabulary", part))
			}
			c |= opt
		}
	}
	return c, nil
}

// DeleteQuery says what DELETE /data/{name} removes.
type DeleteQuery struct {
	Start, End *time.Time // with either, only rows in the range are removed
	Cascade    Cascade
}

// DeleteDataset removes a dataset, or only the rows in a date range (the
// dataset stays, even when emptied). Dependents named by Cascade are
// removed with it (see cascade; the date range narrows which). Without
// cascade, views stay and reading them answers 404 naming the dataset;
// sessions, models and vocabularies stay too.
func (e *Engine) DeleteDataset(ctx context.Context, name string, q DeleteQuery) error {
	if err := checkRange(q.Start, q.End); err != nil {
		return err
	}
	unlock, err := e.lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	d, err := e.Dataset(ctx, name)
	if err != nil {
		return err
	}
	if q.Start == nil && q.End == nil {
		return e.store.Tx(ctx, func(ctx context.Context) error {
			if err := e.cascade(ctx, d.Name, q.Cascade, nil, nil); err != nil {
				return err
			}
			drop, err := sqlgen.Drop(d.Name)
			if err != nil {
				return err
			}
			if _, err := e.store.Exec(ctx, drop); err != nil {
				return fmt.Errorf("drop %q: %w", d.Name, err)
			}
			return e.deleteDatasetEntry(ctx, d.Name)
		})
	}
	ts := d.ColumnWithRole(columnar.RoleTimestamp)
	if ts == "" {
		field := "startDate"
		if q.Start == nil {
			field = "endDate"
		}
		return Validation(field, "Rows can be removed by date only from a dataset with a timestamp column")
	}
	return e.store.Tx(ctx, func(ctx context.Context) error {
		// Dependents go whether or not any row falls in the range: the
		// range selects them by their own dates, not by the rows.
		if err := e.cascade(ctx, d.Name, q.Cascade, q.Start, q.End); err != nil {
			return err
		}
		tcols, err := e.tableColumns(ctx, d.Name)
		if err != nil || len(tcols) == 0 {
			return err
		}
		del, args, err := sqlgen.DeleteRange(d.Name, sqlgen.Range{Column: ts, Start: q.Start, End: q.End})
		if err != nil {
			return err
		}
		n, err := e.store.Exec(ctx, del, args...)
		if err != nil {
			return fmt.Errorf("delete rows of %q: %w", d.Name, err)
		}
		if n == 0 {
			return nil
		}
		if d.RowCount > 0 {
			d.Size = d.Size * (d.RowCount - n) / d.RowCount
		}
		d.RowCount -= n
		d.Modified = e.now()
		return e.saveDataset(ctx, d)
	})
}

// cascade removes a data source's dependents named by c (REFERENCE §3.4):
//
//   - session: every session run on it;
//   - forecast: its forecast and impact sessions only (the seed names
//     forecasts; impact sessions are time-series sessions of the same kind,
//     as the reference suggests); model sessions stay;
//   - model: the models built on it and the sessions that built them (the
//     original made those sessions disappear with cascade=model);
//   - view: the views that read it (a dataset's);
//   - vocabulary: the vocabularies built from it.
//
// A date range (start, end; either may be nil, both nil means none) comes
// from a delete of some rows only. The reference defines it for sessions:
// only sessions requested within [start, end] go, and that applies to the
// forecast cascade too. It is silent on the rest, so: models go when they
// were created within the range (their own date, as DELETE /models filters
// them), each with the session that built it whatever its date;
// vocabularies likewise by their createdOnDate; views stay, since the
// dataset they read stays (rows are not dependents of a view).
func (e *Engine) cascade(ctx context.Context, source string, c Cascade, start, end *time.Time) error {
	ranged := start != nil || end != nil
	if c&CascadeViews != 0 && !ranged {
		if err := e.dropViewsOf(ctx, source); err != nil {
			return err
		}
	}
	switch {
	case c&CascadeSessions != 0:
		if err := e.removeSessionsWhere(ctx, sessionFilter{DataSource: source, After: start, Before: end}); err != nil {
			return err
		}
	case c&CascadeForecasts != 0:
		for _, t := range []SessionType{SessionForecast, SessionImpact} {
			if err := e.removeSessionsWhere(ctx, sessionFilter{DataSource: source, Type: string(t), After: start, Before: end}); err != nil {
				return err
			}
		}
	}
	if c&CascadeModels != 0 {
		if err := e.modelsOf(ctx, modelFilter{DataSource: source, After: start, Before: end}); err != nil {
			return err
		}
	}
	if c&CascadeVocabularies != 0 {
		if err := e.deleteVocabularies(ctx, vocabularyFilter{DataSource: source, After: start, Before: end}); err != nil {
			return err
		}
	}
	return nil
}
