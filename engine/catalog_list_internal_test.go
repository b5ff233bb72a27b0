package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestListSQL pins the statements the catalog lists send: the conditions
// in order with their bound arguments, the sort column with id as the tie
// break, the page, and the count over the same conditions.
func TestListSQL(t *testing.T) {
	day := time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	const sessionCols = `id, type, domain, status, data_source, target, name, event_name, callback_url, webhook_token, is_estimate,
		requested, status_date, request, columns, model_id, algorithm, metrics, feature_importance`
	const importCols = `id, kind, status, dataset, parameters, request_columns, result_columns, requested, status_date`
	const modelCols = `id, session_id, domain, data_source, name, created, last_used, target, algorithm, metrics, columns`
	for _, c := range []struct {
		name             string
		l                *listSQL
		count, page      string
		countArgs, pArgs string
		counted          bool
	}{
		{
			name:  "sessions default",
			l:     sessionFilter{Desc: true, Limit: 10, Offset: 20}.list(),
			count: `SELECT count(*) FROM catalog.sessions WHERE NOT deleted`, countArgs: `[]`,
			page:  `SELECT ` + sessionCols + ` FROM catalog.sessions WHERE NOT deleted ORDER BY requested DESC NULLS LAST, id DESC LIMIT ? OFFSET ?`,
			pArgs: `[10 20]`, counted: true,
		},
		{
			name: "sessions filtered",
			l: sessionFilter{DataSource: "D", Event: "e", Model: "m", Type: "t", After: &day, Before: &day,
				SortBy: "datasourcename", Limit: 5}.list(),
			count:     `SELECT count(*) FROM catalog.sessions WHERE NOT deleted AND lower(data_source) = lower(?) AND lower(event_name) = lower(?) AND model_id = ? AND type = ? AND requested >= ? AND requested <= ?`,
			countArgs: `[D e m t 2024-01-02 02:04:05 +0000 UTC 2024-01-02 02:04:05 +0000 UTC]`,
			page:      `SELECT ` + sessionCols + ` FROM catalog.sessions WHERE NOT deleted AND lower(data_source) = lower(?) AND lower(event_name) = lower(?) AND model_id = ? AND type = ? AND requested >= ? AND requested <= ? ORDER BY lower(data_source) ASC NULLS LAST, id ASC LIMIT ? OFFSET ?`,
			pArgs:     `[D e m t 2024-01-02 02:04:05 +0000 UTC 2024-01-02 02:04:05 +0000 UTC 5 0]`, counted: true,
		},
		{
			name:  "session by id, hidden too",
			l:     sessionFilter{ID: "s1", Limit: 1, Hidden: true}.list(),
			count: `SELECT count(*) FROM catalog.sessions WHERE id = ?`, countArgs: `[s1]`,
			page:  `SELECT ` + sessionCols + ` FROM catalog.sessions WHERE id = ? ORDER BY requested ASC NULLS LAST, id ASC LIMIT ? OFFSET ?`,
			pArgs: `[s1 1 0]`,
		},
		{
			name:  "imports, no limit reads one",
			l:     importFilter{SortBy: "currentstatusdate"}.list(),
			count: `SELECT count(*) FROM catalog.imports`, countArgs: `[]`,
			page:  `SELECT ` + importCols + ` FROM catalog.imports ORDER BY status_date ASC NULLS LAST, id ASC LIMIT ? OFFSET ?`,
			pArgs: `[1 0]`, counted: true,
		},
		{
			name:  "imports filtered",
			l:     importFilter{DataSet: "d", After: &day, Desc: true, Limit: 3, Offset: 3}.list(),
			count: `SELECT count(*) FROM catalog.imports WHERE lower(dataset) = lower(?) AND requested >= ?`, countArgs: `[d 2024-01-02 02:04:05 +0000 UTC]`,
			page:  `SELECT ` + importCols + ` FROM catalog.imports WHERE lower(dataset) = lower(?) AND requested >= ? ORDER BY requested DESC NULLS LAST, id DESC LIMIT ? OFFSET ?`,
			pArgs: `[d 2024-01-02 02:04:05 +0000 UTC 3 3]`, counted: true,
		},
		{
			name:  "models, no limit reads all",
			l:     modelFilter{SortBy: "lastuseddate", Desc: true}.list(),
			count: `SELECT count(*) FROM catalog.models`, countArgs: `[]`,
			page:  `SELECT ` + modelCols + ` FROM catalog.models ORDER BY last_used DESC NULLS LAST, id DESC`,
			pArgs: `[]`, counted: true,
		},
		{
			name:      "models filtered",
			l:         modelFilter{DataSource: "d", PartialName: "n", Before: &day, Limit: 2}.list(),
			count:     `SELECT count(*) FROM catalog.models WHERE lower(data_source) = lower(?) AND contains(lower(name), lower(?)) AND created <= ?`,
			countArgs: `[d n 2024-01-02 02:04:05 +0000 UTC]`,
			page:      `SELECT ` + modelCols + ` FROM catalog.models WHERE lower(data_source) = lower(?) AND contains(lower(name), lower(?)) AND created <= ? ORDER BY created ASC NULLS LAST, id ASC LIMIT ? OFFSET ?`,
			pArgs:     `[d n 2024-01-02 02:04:05 +0000 UTC 2 0]`, counted: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, args := c.l.countQuery()
			if q != c.count || fmt.Sprint(args) != c.countArgs {
				t.Errorf("countQuery() = %q %v, want %q %s", q, args, c.count, c.countArgs)
			}
			q, args = c.l.pageQuery()
			if q != c.page || fmt.Sprint(args) != c.pArgs {
				t.Errorf("pageQuery() = %q %v, want %q %s", q, args, c.page, c.pArgs)
			}
			if c.l.count != c.counted {
				t.Errorf("count = %v, want %v", c.l.count, c.counted)
			}
			if _, args := c.l.countQuery(); fmt.Sprint(args) != c.countArgs {
				t.Errorf("countQuery() after pageQuery() args = %v, want %s: the page's arguments leaked", args, c.countArgs)
			}
		})
	}
}
