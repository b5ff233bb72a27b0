package api

import (
	"strings"
	"time"
)

// The output formats of REFERENCE §1.4, each named for where it is used.
// Every timestamp the API writes goes through one of these.

// appendRowTime appends a timestamp inside result, view and formatted
// dataset rows: UTC, exactly 7 fractional digits and Z
// (2017-01-01T00:00:00.0000000Z).
func appendRowTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05.0000000Z")
	}
	// Hand-rolled: this runs once per timestamp cell of every exported row,
	// and AppendFormat costs several times more.
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	dst = appendDigits(dst, y, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(mo), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, d, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, h, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, mi, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, s, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, t.Nanosecond()/100, 7)
	return append(dst, 'Z')
}

// appendDigits appends v (≥ 0) zero-padded to width digits.
func appendDigits(dst []byte, v, width int) []byte {
	var b [10]byte
	for i := width - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, b[:width]...)
}

// appendStoredTime appends a timestamp inside dataset rows when formatDates
// is not set. Vatic stores dates typed (TIMESTAMP, UTC), not as the text
// that was uploaded, so "as stored" is the stored instant in ISO 8601:
// seconds, a fraction only when there is one, and Z
// (2012-12-31T00:00:00Z).
func appendStoredTime(dst []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(dst, "2006-01-02T15:04:05.9999999Z")
}

// formatEventTime formats requestedDate, dateCreated, lastModified,
// lastCalculated and status-history dates: offset +00:00 and up to 7
// fractional digits with trailing zeros trimmed
// (2017-12-15T20:33:15.385257+00:00).
func formatEventTime(t time.Time) string {
	s := t.UTC().Format("2006-01-02T15:04:05.9999999Z07:00")
	if strings.HasSuffix(s, "Z") {
		s = s[:len(s)-1] + "+00:00"
	}
	return s
}
