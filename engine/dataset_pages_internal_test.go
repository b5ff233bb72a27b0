package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Pages read in storage order are the whole export cut in pieces, whether
// the table's row ids are dense (a page is then a row id range) or not
// (after a delete: LIMIT and OFFSET), with and without a timestamp.
func TestPagesDenseAndNot(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	var series, plain strings.Builder
	series.WriteString("day,v\n")
	plain.WriteString(`{"columns":{"id":{"dataType":"string","role":"key"}},"data":[`)
	day := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		fmt.Fprintf(&series, "%s,%d\n", day.Add(time.Duration(i)*time.Hour).Format(time.DateTime), i)
		if i > 0 {
			plain.WriteString(",")
		}
		fmt.Fprintf(&plain, `{"id":"k%d","v":%d}`, (i*7919)%3000, i)
	}
	plain.WriteString("]}")
	e.putTestCSV(t, "series", series.String())
	putJSON := func(name, body string) {
		t.Helper()
		if _, _, err := e.PutDataset(ctx, PutRequest{Name: name, Body: strings.NewReader(body), Format: FormatHints{ContentType: "application/json"}}); err != nil {
			t.Fatalf("PutDataset(%s): %v", name, err)
		}
	}
	putJSON("plain", plain.String())
	rows := func(name string, q RowsQuery) []string {
		t.Helper()
		r, err := e.ReadRows(ctx, name, q)
		if err != nil {
			t.Fatalf("ReadRows(%s, %+v): %v", name, q, err)
		}
		defer r.Release()
		var out []string
		for r.Reader.Next() {
			rec := r.Reader.RecordBatch()
			for i := range int(rec.NumRows()) {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(i))
				}
				out = append(out, strings.Join(cells, "|"))
			}
		}
		if err := r.Reader.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(name string, dense bool) {
		t.Helper()
		got, err := e.denseRows(ctx, name)
		if err != nil || got != dense {
			t.Fatalf("denseRows(%s) = %v, %v; want %v", name, got, err, dense)
		}
		all := rows(name, RowsQuery{})
		for p := 0; p*700 <= len(all); p++ {
			page := rows(name, RowsQuery{Page: p, PageSize: 700})
			want := all[p*700 : min((p+1)*700, len(all))]
			if strings.Join(page, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s (dense %v): page %d of 700 rows has %d rows, differing from rows %d… of the export",
					name, dense, p, len(page), p*700)
			}
		}
	}
	check("series", true)
	check("plain", true)
	// Deleting rows in the middle leaves a gap in the row ids.
	start, end := day.Add(1000*time.Hour), day.Add(1500*time.Hour)
	if err := e.DeleteDataset(ctx, "series", DeleteQuery{Start: &start, End: &end}); err != nil {
		t.Fatal(err)
	}
	check("series", false)
	if got := len(rows("series", RowsQuery{})); got != 2499 {
		t.Fatalf("series has %d rows after the delete, want 2499", got)
	}
	// Appending keeps them dense; replacing rows by key (an upsert
	// deletes the old rows) does not.
	putJSON("plain", `{"data":[{"id":"k3000","v":-1}]}`)
	check("plain", true)
	putJSON("plain", `{"data":[{"id":"k5","v":-5},{"id":"k2999","v":-2999}]}`)
	check("plain", false)
	if all := rows("plain", RowsQuery{}); len(all) != 3001 || !strings.Contains(strings.Join(all, "\n"), "k5|-5") {
		t.Fatalf("plain after the upsert: %d rows, want 3001 with k5 = -5", len(all))
	}
}
