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
	csv        bool
}

// readRowsParams reads page, pageSize, startDate, endDate, include and the
// Accept header. A CSV request that names neither page nor pageSize gets
// every row, streamed: the export a data engineer expects (paging still
// applies when asked for, as the Ruby client does).
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
	p := rowsParams{page: pg, size: size, csv: wantsCSV(r)}
	limit := size
	if p.csv && !q.has("page") && !q.has("pageSize") {
		limit = 0
	}
	// A CSV body carries no totalCount: skip counting.
	p.query = engine.RowsQuery{Include: q.list("include"), Start: start, End: end, Page: pg, PageSize: limit, SkipTotal: p.csv}
	return p, nil
}

// writeRowsBody answers with rows: as CSV (dates in the 7-digit Z format),
// or as one JSON object made of head (an object's opening fields, without
// its closing brace), "data" (rows rendered with tf) and the fields of tail
// (an object, the paging envelope). Rows stream from the Arrow batches.
func (s *Server) writeRowsBody(w http.ResponseWriter, r *http.Request, rows *engine.Rows, csv bool, tf timeFormat, head []byte, tail any) error {
	names := make([]string, len(rows.Columns))
	for i, c := range rows.Columns {
		names[i] = c.Name
	}
	if csv {
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
