package columnar

import (
	"time"
	"unsafe"
)

// ParseTime parses a date leniently (REFERENCE §1.4) and returns it in UTC.
//
// Accepted forms, after trimming leading and trailing spaces:
//
//   - ISO 8601: yyyy-MM-dd, optionally followed by T or a space and
//     HH:mm[:ss[.fffffffff]], optionally followed by Z, ±hh:mm, ±hhmm or ±hh;
//   - month-day-year: M/d/yyyy, M-d-yyyy (one or two digits for month and
//     day), optionally followed by T or a space and H:mm[:ss[.f…]], an
//     optional AM or PM, and an optional zone as above.
//
// A value without a zone is UTC. A zone written as a space followed by
// hh:mm is read as +hh:mm, because an unencoded + in a query string arrives
// as a space. Out-of-range fields (month 13, February 30, hour 25) and
// results outside the years 0–9999 are rejected.
func ParseTime(s string) (time.Time, bool) {
	return ParseTimeBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// ParseTimeBytes is ParseTime on a byte slice; it does not allocate and does
// not retain b.
func ParseTimeBytes(b []byte) (time.Time, bool) {
	t, _, ok := parseTime(b)
	return t, ok
}

// ParseTimeOffset is ParseTime that also returns the zone's offset east of
// UTC in seconds as written (0 for Z or no zone).
func ParseTimeOffset(s string) (t time.Time, offset int, ok bool) {
	return parseTime(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// parseTime is ParseTimeBytes with the offset.
func parseTime(b []byte) (time.Time, int, bool) {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	if len(b) < 8 {
		return time.Time{}, 0, false
	}
	var year, month, day, i int
	var ok bool
	if isDigit(b[0]) && isDigit(b[1]) && isDigit(b[2]) && isDigit(b[3]) && b[4] == '-' {
		// ISO: yyyy-M[M]-d[d]
		year = int(b[0]-'0')*1000 + int(b[1]-'0')*100 + int(b[2]-'0')*10 + int(b[3]-'0')
		if month, i, ok = digits12(b, 5); !ok || i >= len(b) || b[i] != '-' {
			return time.Time{}, 0, false
		}
		if day, i, ok = digits12(b, i+1); !ok {
			return time.Time{}, 0, false
		}
	} else {
		// Month-day-year with / or - separators.
		if month, i, ok = digits12(b, 0); !ok || i >= len(b) {
			return time.Time{}, 0, false
		}
		sep := b[i]
		if sep != '/' && sep != '-' {
			return time.Time{}, 0, false
		}
		if day, i, ok = digits12(b, i+1); !ok || i >= len(b) || b[i] != sep {
			return time.Time{}, 0, false
		}
		i++
		if i+4 > len(b) || !isDigit(b[i]) || !isDigit(b[i+1]) || !isDigit(b[i+2]) || !isDigit(b[i+3]) {
			return time.Time{}, 0, false
		}
		year = int(b[i]-'0')*1000 + int(b[i+1]-'0')*100 + int(b[i+2]-'0')*10 + int(b[i+3]-'0')
		i += 4
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, 0, false
	}
	hour, minute, sec, nsec, offset := 0, 0, 0, 0, 0
	if i < len(b) {
		if c := b[i]; c != 'T' && c != 't' && c != ' ' {
			return time.Time{}, 0, false
		}
		if hour, i, ok = digits12(b, i+1); !ok || i >= len(b) || b[i] != ':' {
			return time.Time{}, 0, false
		}
		if minute, i, ok = digits2(b, i+1); !ok {
			return time.Time{}, 0, false
		}
		if i < len(b) && b[i] == ':' {
			if sec, i, ok = digits2(b, i+1); !ok {
				return time.Time{}, 0, false
			}
			if i < len(b) && (b[i] == '.' || b[i] == ',') {
				i++
				start := i
				scale := 100000000
				for i < len(b) && isDigit(b[i]) {
					nsec += int(b[i]-'0') * scale
					scale /= 10
					i++
				}
				if i == start {
					return time.Time{}, 0, false
				}
			}
		}
		if hour > 23 || minute > 59 || sec > 59 {
			return time.Time{}, 0, false
		}
		// Optional AM/PM, with or without a space before it.
		j := i
		if j < len(b) && b[j] == ' ' {
			j++
		}
		if j+2 <= len(b) && (b[j+1] == 'M' || b[j+1] == 'm') && (j+2 == len(b) || !isLetter(b[j+2])) {
			pm := b[j] == 'P' || b[j] == 'p'
			if pm || b[j] == 'A' || b[j] == 'a' {
				if hour < 1 || hour > 12 {
					return time.Time{}, 0, false
				}
				if hour == 12 {
					hour = 0
				}
				if pm {
					hour += 12
				}
				i = j + 2
			}
		}
		if i < len(b) {
			if offset, i, ok = parseZone(b, i); !ok || i != len(b) {
				return time.Time{}, 0, false
			}
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if offset != 0 {
		t = t.Add(-time.Duration(offset) * time.Second)
		if y := t.Year(); y < 0 || y > 9999 {
			return time.Time{}, 0, false
		}
	}
	return t, offset, true
}

// parseZone reads Z, ±hh[:mm], ±hhmm, or " hh:mm" (an unencoded + that
// became a space) at b[i:] and returns the offset east of UTC in seconds.
func parseZone(b []byte, i int) (offset, next int, ok bool) {
	c := b[i]
	if c == 'Z' || c == 'z' {
		return 0, i + 1, true
	}
	if c != '+' && c != '-' && c != ' ' {
		return 0, i, false
	}
	h, j, ok := digits2(b, i+1)
	if !ok {
		return 0, i, false
	}
	m := 0
	switch {
	case j < len(b) && b[j] == ':':
		if m, j, ok = digits2(b, j+1); !ok {
			return 0, i, false
		}
	case c == ' ':
		return 0, i, false // only " hh:mm" is read as an offset
	case j+2 <= len(b):
		if m, j, ok = digits2(b, j); !ok {
			return 0, i, false
		}
	}
	if h > 23 || m > 59 {
		return 0, i, false
	}
	offset = h*3600 + m*60
	if c == '-' {
		offset = -offset
	}
	return offset, j, true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// digits12 reads one or two digits at b[i:].
func digits12(b []byte, i int) (v, next int, ok bool) {
	if i >= len(b) || !isDigit(b[i]) {
		return 0, i, false
	}
	v = int(b[i] - '0')
	i++
	if i < len(b) && isDigit(b[i]) {
		v = v*10 + int(b[i]-'0')
		i++
	}
	return v, i, true
}

// digits2 reads exactly two digits at b[i:].
func digits2(b []byte, i int) (v, next int, ok bool) {
	if i+2 > len(b) || !isDigit(b[i]) || !isDigit(b[i+1]) {
		return 0, i, false
	}
	return int(b[i]-'0')*10 + int(b[i+1]-'0'), i + 2, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
