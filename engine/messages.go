package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// MessageLevels are the severities GET /messages filters on (REFERENCE
// §1.11), in the spelling its levels parameter takes.
var MessageLevels = []string{"debug", "informational", "warning", "error", "status"}

// defaultMessageLevels leave debug out: REFERENCE §1.11 recommends not
// showing debug messages unless asked (levels=debug).
var defaultMessageLevels = []string{"informational", "warning", "error", "status"}

// messageNamespace seeds the messages' ids. A message has no id of its own
// in the catalog; its id is a name-based UUID (RFC 9562 version 5) of its
// job and position, so the same message keeps the same id across requests
// and restarts.
var messageNamespace = uuid.MustParse("6f1c2f8e-3b7a-5d2e-9c41-0a8e7d5b3f21")

// AccountMessage is one message of GET /messages (REFERENCE §8.10): a
// message of a session or an import, with the job it belongs to.
type AccountMessage struct {
	ID        string
	Severity  string
	Text      string
	Created   time.Time
	RelatedID string
	RelatedTo string // session, import
}

// MessageQuery selects messages. RelatedID is a session's or an import's
// id ("" for all); Levels are severities ("" entries are ignored; none
// means every level but debug).
type MessageQuery struct {
	RelatedID string
	Levels    []string
	Page      int
	PageSize  int
}

// ListMessages returns a page of the messages of every live session and
// import, newest first (a feed's order: the latest news on page 0), and
// the total count. Within one job, later messages come first too, and
// messages written in the same instant keep their job's order reversed.
// REFERENCE §8.10 names no order; this is the order of every other list's
// default (newest first).
func (e *Engine) ListMessages(ctx context.Context, q MessageQuery) ([]AccountMessage, int, error) {
	levels, err := messageLevels(q.Levels)
	if err != nil {
		return nil, 0, err
	}
	where := ` WHERE list_contains(from_json(?, '["VARCHAR"]'), severity)`
	args := []any{stringList(levels)}
	if q.RelatedID != "" {
		id, err := parseID("relatedId", q.RelatedID)
		if err != nil {
			return nil, 0, err
		}
		where += ` AND related = ?`
		args = append(args, id)
	}
	const messages = `(
		SELECT m.session_id AS related, 'session' AS related_to, m.seq, m.severity, m.message,
			coalesce(m.created, s.requested) AS created
		FROM catalog.session_messages AS m JOIN catalog.sessions AS s ON s.id = m.session_id AND NOT s.deleted
		UNION ALL
		SELECT m.import_id, 'import', m.seq, m.severity, m.message, coalesce(m.created, i.requested)
		FROM catalog.import_messages AS m JOIN catalog.imports AS i ON i.id = m.import_id)`
	rows, err := e.store.Rows(ctx, `SELECT count(*) FROM `+messages+where, args...)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := scanOne(rows, &total); err != nil {
		return nil, 0, err
	}
	rows, err = e.store.Rows(ctx, `SELECT related, related_to, seq, severity, message, created FROM `+messages+where+`
		ORDER BY created DESC, related DESC, seq DESC LIMIT ? OFFSET ?`, append(args, q.PageSize, q.Page*q.PageSize)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []AccountMessage{}
	for rows.Next() {
		var m AccountMessage
		var seq int
		if err := rows.Scan(&m.RelatedID, &m.RelatedTo, &seq, &m.Severity, &m.Text, &m.Created); err != nil {
			return nil, 0, err
		}
		m.Created = m.Created.UTC()
		m.ID = uuid.NewSHA1(messageNamespace, []byte(m.RelatedTo+"/"+m.RelatedID+"/"+strconv.Itoa(seq))).String()
		out = append(out, m)
	}
	return out, total, rows.Err()
}

// messageLevels validates the levels parameter: each a severity of
// REFERENCE §1.11, any case; none means the default levels.
func messageLevels(in []string) ([]string, error) {
	var out []string
	for _, l := range in {
		l = strings.ToLower(strings.TrimSpace(l))
		if l == "" {
			continue
		}
		if !containsFold(MessageLevels, l) {
			return nil, Validation("levels", "Value for levels must be a comma-separated list of "+strings.Join(MessageLevels, ", "))
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return defaultMessageLevels, nil
	}
	return out, nil
}
