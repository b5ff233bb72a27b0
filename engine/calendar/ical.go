package calendar

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"
)

// ErrTooManyEvents is returned when a calendar expands past the cap.
var ErrTooManyEvents = errors.New("calendar: too many events")

// ParseICal reads an iCalendar (RFC 5545) stream with
// github.com/emersion/go-ical and returns its name (X-WR-CALNAME, "" when
// absent) and the events that overlap [from, to), recurring events
// expanded (RRULE, EXDATE), sorted by start. Times without a zone (floating
// times and all-day dates) are read in loc; all times come back in UTC. An
// event with no duration lasts one second, so that it can match the row at
// its instant. More than maxEvents events is ErrTooManyEvents.
func ParseICal(r io.Reader, loc *time.Location, from, to time.Time, maxEvents int) (name string, events []Event, err error) {
	// go-ical's decoder panics on some malformed content lines (found by
	// FuzzParseICal); a user's file must give an error, never a crash.
	defer func() {
		if p := recover(); p != nil {
			name, events, err = "", nil, fmt.Errorf("calendar: not an iCalendar file: malformed content (%v)", p)
		}
	}()
	cal, err := ical.NewDecoder(r).Decode()
	if err != nil {
		return "", nil, fmt.Errorf("calendar: not an iCalendar file: %w", err)
	}
	if p := cal.Props.Get("X-WR-CALNAME"); p != nil {
		name = strings.TrimSpace(p.Value)
	}
	var out []Event
	add := func(summary string, start, end time.Time) error {
		if !end.After(start) {
			end = start.Add(time.Second)
		}
		if end.After(from) && start.Before(to) {
			if len(out) >= maxEvents {
				return ErrTooManyEvents
			}
			out = append(out, Event{Name: summary, Start: start.UTC(), End: end.UTC()})
		}
		return nil
	}
	for _, ev := range cal.Events() {
		summary := ""
		if p := ev.Props.Get(ical.PropSummary); p != nil {
			summary = strings.TrimSpace(p.Value)
		}
		if summary == "" {
			summary = "(untitled)"
		}
		start, err := ev.DateTimeStart(loc)
		if err != nil {
			return "", nil, fmt.Errorf("calendar: event %q: start: %w", summary, err)
		}
		end, err := ev.DateTimeEnd(loc)
		if err != nil {
			return "", nil, fmt.Errorf("calendar: event %q: end: %w", summary, err)
		}
		if start.IsZero() {
			continue
		}
		length := end.Sub(start)
		set, err := ev.RecurrenceSet(loc)
		if err != nil {
			return "", nil, fmt.Errorf("calendar: event %q: %w", summary, err)
		}
		if set == nil {
			if err := add(summary, start, end); err != nil {
				return "", nil, err
			}
			continue
		}
		// Occurrences that start before from may still overlap it.
		for _, s := range set.Between(from.Add(-length), to, true) {
			if err := add(summary, s, s.Add(length)); err != nil {
				return "", nil, err
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Event) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return name, out, nil
}
