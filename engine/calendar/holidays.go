// Package calendar provides the built-in calendars views can join: public
// holidays by country, named Nexosis.Holidays-<CC> with an ISO 3166-1
// alpha-2 code (REFERENCE §11.6), from github.com/rickar/cal — a maintained
// holiday library, so the rules (Easter, observed days, moving holidays)
// are not ours to get wrong. It is pure: no I/O, no SQL.
package calendar

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/ar"
	"github.com/rickar/cal/v2/at"
	"github.com/rickar/cal/v2/be"
	"github.com/rickar/cal/v2/bg"
	"github.com/rickar/cal/v2/br"
	"github.com/rickar/cal/v2/ca"
	"github.com/rickar/cal/v2/ch"
	"github.com/rickar/cal/v2/cz"
	"github.com/rickar/cal/v2/de"
	"github.com/rickar/cal/v2/dk"
	"github.com/rickar/cal/v2/es"
	"github.com/rickar/cal/v2/fr"
	"github.com/rickar/cal/v2/gb"
	"github.com/rickar/cal/v2/gr"
	"github.com/rickar/cal/v2/hr"
	"github.com/rickar/cal/v2/ie"
	"github.com/rickar/cal/v2/it"
	"github.com/rickar/cal/v2/jp"
	"github.com/rickar/cal/v2/lt"
	"github.com/rickar/cal/v2/lv"
	"github.com/rickar/cal/v2/mw"
	"github.com/rickar/cal/v2/nc"
	"github.com/rickar/cal/v2/nl"
	"github.com/rickar/cal/v2/no"
	"github.com/rickar/cal/v2/nz"
	"github.com/rickar/cal/v2/pl"
	"github.com/rickar/cal/v2/ro"
	"github.com/rickar/cal/v2/ru"
	"github.com/rickar/cal/v2/se"
	"github.com/rickar/cal/v2/si"
	"github.com/rickar/cal/v2/sk"
	"github.com/rickar/cal/v2/ua"
	"github.com/rickar/cal/v2/us"
	"github.com/rickar/cal/v2/za"
)

// holidays maps an upper-case country code to the library's holidays.
var holidays = map[string][]*cal.Holiday{
	"AR": ar.Holidays,
	"AT": at.Holidays,
	"BE": be.Holidays,
	"BG": bg.Holidays,
	"BR": br.Holidays,
	"CA": ca.Holidays,
	"CH": ch.Holidays,
	"CZ": cz.Holidays,
	"DE": de.Holidays,
	"DK": dk.Holidays,
	"ES": es.Holidays,
	"FR": fr.Holidays,
	"GB": gb.Holidays,
	"GR": gr.Holidays,
	"HR": hr.Holidays,
	"IE": ie.Holidays,
	"IT": it.Holidays,
	"JP": jp.Holidays,
	"LT": lt.Holidays,
	"LV": lv.Holidays,
	"MW": mw.Holidays,
	"NC": nc.Holidays,
	"NL": nl.Holidays,
	"NO": no.Holidays,
	"NZ": nz.Holidays,
	"PL": pl.Holidays,
	"RO": ro.Holidays,
	"RU": ru.Holidays,
	"SE": se.Holidays,
	"SI": si.Holidays,
	"SK": sk.Holidays,
	"UA": ua.Holidays,
	"US": us.Holidays,
	"ZA": za.Holidays,
}

// Prefix starts the name of every built-in holiday calendar.
const Prefix = "Nexosis.Holidays-"

// Names lists the built-in calendars, sorted.
func Names() []string {
	out := make([]string, 0, len(holidays))
	for cc := range holidays {
		out = append(out, Prefix+cc)
	}
	sort.Strings(out)
	return out
}

// Lookup resolves a calendar name in any case to its canonical name and
// the label its columns use ("US Holidays"); ok is false for an unknown
// name.
func Lookup(name string) (canonical, label string, ok bool) {
	n := strings.TrimSpace(name)
	if len(n) <= len(Prefix) || !strings.EqualFold(n[:len(Prefix)], Prefix) {
		return "", "", false
	}
	cc := strings.ToUpper(n[len(Prefix):])
	if _, ok := holidays[cc]; !ok {
		return "", "", false
	}
	return Prefix + cc, cc + " Holidays", true
}

// Event is one calendar event: [Start, End) in UTC.
type Event struct {
	Name       string
	Start, End time.Time
}

// Holidays returns the events of a built-in calendar (a canonical name)
// from year first through last: each holiday on its actual date as an
// all-day event, sorted by date then name.
func Holidays(canonical string, first, last int) []Event {
	hs := holidays[strings.TrimPrefix(canonical, Prefix)]
	var out []Event
	for y := first; y <= last; y++ {
		for _, h := range hs {
			actual, _ := h.Calc(y)
			if actual.IsZero() {
				continue
			}
			d := time.Date(actual.Year(), actual.Month(), actual.Day(), 0, 0, 0, 0, time.UTC)
			out = append(out, Event{Name: h.Name, Start: d, End: d.AddDate(0, 0, 1)})
		}
	}
	slices.SortStableFunc(out, func(a, b Event) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return slices.CompactFunc(out, func(a, b Event) bool { return a.Name == b.Name && a.Start.Equal(b.Start) })
}
