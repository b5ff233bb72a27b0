package api

import (
	"net/http"

	"github.com/vaticml/vatic/engine"
)

// rowsParams are the parameters of a read of rows, shared by datasets and
// views (REFERENCE §3.3, §4.3).
type rowsParams struct {
	query      engine.RowsQuery
	page, size int
	format     rowFormat
}

// readRowsParams reads page, pageSize, startDate, endDate, include and the
// Accept header (acceptedFormat). A CSV, Arrow or Parquet request that
// names neither page nor pageSize gets every row, streamed: the export a
// data engineer expects (paging still applies when asked for, as the Ruby
// client does).
func readRowsParams(r *http.Request) (rowsParams, error) {
	q := params(r.URL.Query())
	pg, size, err := q.paging()
	if err != nil {
		return rowsParams{}, err
	}
	start, end, err := q.dateRange()
	if err != nil {
		return rowsParams{}, err
	}
	p := rowsParams{page: pg, size: size, format: acceptedFormat(r)}
	limit := size
	if p.format != formatJSON && !pagingGiven(q) {
		limit = 0
	}
	// Only a JSON body carries totalCount: skip counting for the others.
	p.query = engine.RowsQuery{Include: q.list("include"), Start: start, End: end, Page: pg, PageSize: limit, SkipTotal: p.format != formatJSON}
	return p, nil
}

// pagingGiven reports whether a request names page or pageSize.
func pagingGiven(q params) bool { return q.has("page") || q.has("pageSize") }

// resultPaging reads page and pageSize for a session's or a contestant's
// rows (REFERENCE §6.10–§6.16, §7.2, §7.4) and the page to query: as for
// JSON and CSV, which page by default, except that an Arrow or Parquet
// request naming neither gets every row (engine.Page's PageSize 0), as
// readRowsParams gives for datasets and views.
func resultPaging(r *http.Request) (pg, size int, p engine.Page, err error) {
	q := params(r.URL.Query())
	if pg, size, err = q.paging(); err != nil {
		return 0, 0, p, err
	}
	p = engine.Page{Page: pg, PageSize: size}
	if acceptedFormat(r).columnar() && !pagingGiven(q) {
		p.PageSize = 0
	}
	return pg, size, p, nil
}

// writeRowsBody answers with rows in format f: as an Arrow IPC stream or a
// Parquet file (rows only, typed, see exportSchema), as CSV (rows only,
// dates in the 7-digit Z format), or as one JSON object made of head (an
// object's opening fields, without its closing brace), "data" (rows
// rendered with tf) and the fields of tail (an object, the paging
// envelope). Rows stream from the Arrow batches.
func (s *Server) writeRowsBody(w http.ResponseWriter, r *http.Request, rows *engine.Rows, f rowFormat, tf timeFormat, head []byte, tail any) error {
	if f.columnar() {
		return s.writeColumnar(w, r, rows, f)
	}
	names := make([]string, len(rows.Columns))
	for i, c := range rows.Columns {
		names[i] = c.Name
	}
	if f == formatCSV {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		_, err := writeRows(w, rows.Reader, names, appendRowTime, csvRows{})
		return s.streamError(r, err)
	}
	tb, err := jsonMarshal(tail)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if _, err := w.Write(append(head, `,"data":[`...)); err != nil {
		return nil
	}
	if _, err := writeRows(w, rows.Reader, names, tf, newJSONRows(names)); err != nil {
		return s.streamError(r, err)
	}
	tb[0] = ','
	_, _ = w.Write([]byte("]"))
	_, _ = w.Write(tb)
	return nil
}

// writeColumnar answers rows as an Arrow IPC stream or a Parquet file,
// typed by the rows' columns (exportSchema). A selection without columns
// (a session that has not completed) answers a valid empty stream or file.
func (s *Server) writeColumnar(w http.ResponseWriter, r *http.Request, rows *engine.Rows, f rowFormat) error {
	schema, err := exportSchema(rows.Columns)
	if err != nil {
		return err
	}
	conv, err := newConformer(rows.Reader.Schema(), schema)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", f.mediaType())
	_, err = writeBatches(w, f, conv, rows.Reader)
	return s.streamError(r, err)
}

// writeList answers a list endpoint: items and the paging envelope.
func writeList[T any](w http.ResponseWriter, r *http.Request, pg, size, total int, items []T) error {
	if items == nil {
		items = []T{}
	}
	out := struct {
		Items []T `json:"items"`
		page
	}{Items: items, page: newPage(r, pg, size, int64(total))}
	return writeJSON(w, http.StatusOK, out)
}
