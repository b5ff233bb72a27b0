package columnar_test

import (
	"testing"
	"time"

	"github.com/vaticml/vatic/columnar"
)

func TestParseTime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2014-05-20", utc(2014, 5, 20, 0, 0, 0, 0)},
		{"  2014-05-20  ", utc(2014, 5, 20, 0, 0, 0, 0)},
		{"2020-01-01 00:00:00", utc(2020, 1, 1, 0, 0, 0, 0)},
		{"2020-01-01 13:45", utc(2020, 1, 1, 13, 45, 0, 0)},
		{"2017-01-01T00:00:00.000Z", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"2017-01-01T00:00:00.1234567Z", utc(2017, 1, 1, 0, 0, 0, 123456700)},
		{"2017-01-01T00:00:00.0000000+00:00", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"2017-06-14T00:00:00+00:00", utc(2017, 6, 14, 0, 0, 0, 0)},
		{"2016-05-01T00:00:00-04:00", utc(2016, 5, 1, 4, 0, 0, 0)},
		{"2016-05-01T00:00:00-0430", utc(2016, 5, 1, 4, 30, 0, 0)},
		{"2008-08-31T00:00:00+08:00", utc(2008, 8, 30, 16, 0, 0, 0)},
		{"2008-09-01T00:00:00", utc(2008, 9, 1, 0, 0, 0, 0)},
		{"2017-01-01T00:00:00 00:00", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"2017-01-01T00:00:00 05:00", utc(2016, 12, 31, 19, 0, 0, 0)},
		{"06-29-2017", utc(2017, 6, 29, 0, 0, 0, 0)},
		{"1-2-2017", utc(2017, 1, 2, 0, 0, 0, 0)},
		{"01-01-2017", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"05-10-2014", utc(2014, 5, 10, 0, 0, 0, 0)},
		{"1/2/2017", utc(2017, 1, 2, 0, 0, 0, 0)},
		{"01/01/2017T00:00:00Z", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"10/08/2016 00:00:00", utc(2016, 10, 8, 0, 0, 0, 0)},
		{"7/4/2008 4:00:00 AM", utc(2008, 7, 4, 4, 0, 0, 0)},
		{"7/4/2008 4:00 PM", utc(2008, 7, 4, 16, 0, 0, 0)},
		{"7/4/2008 12:30:00 am", utc(2008, 7, 4, 0, 30, 0, 0)},
		{"7/4/2008 12:30:00 PM", utc(2008, 7, 4, 12, 30, 0, 0)},
		{"2/29/2016", utc(2016, 2, 29, 0, 0, 0, 0)},
		{"2000-02-29", utc(2000, 2, 29, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		got, ok := columnar.ParseTime(tt.in)
		if !ok || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v, want %v, true", tt.in, got, ok, tt.want)
		}
		gotB, okB := columnar.ParseTimeBytes([]byte(tt.in))
		if okB != ok || !gotB.Equal(got) {
			t.Errorf("ParseTimeBytes(%q) = %v, %v, want %v, %v", tt.in, gotB, okB, got, ok)
		}
	}
}

func TestParseTimeRejects(t *testing.T) {
	for _, in := range []string{
		"", "2017", "12345", "abc", "2017-13-01", "2017-02-30", "1900-02-29", "2017-01-01T25:00:00",
		"2017-01-01T23:60", "2017-01-01T23:59:60", "13/01/2017", "2/30/2016", "1/2/17", "1/2-2017",
		"2017-01-01T", "2017-01-01T10", "2017-01-01X", "2017-01-01T00:00:00+", "2017-01-01T00:00:00+25:00",
		"2017-01-01T00:00:00.", "2017-01-01T00:00:00 junk", "7/4/2008 13:00 PM", "7/4/2008 0:00 AM",
		"9999-12-31T23:00:00-02:00", "0000-01-01T00:00:00+01:00", "1.5", "2017-01-01T00:00:00 0000",
	} {
		if got, ok := columnar.ParseTime(in); ok {
			t.Errorf("ParseTime(%q) = %v, true, want false", in, got)
		}
	}
}

func TestParseTimeBytesAllocs(t *testing.T) {
	b := []byte("2020-01-01 00:00:00")
	if n := testing.AllocsPerRun(100, func() { columnar.ParseTimeBytes(b) }); n != 0 {
		t.Errorf("ParseTimeBytes allocates %v times, want 0", n)
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2014-05-20", "2017-01-01T00:00:00.0000000+00:00", "7/4/2008 4:00:00 AM",
		"01/01/2017T00:00:00Z", "2017-01-01T00:00:00 00:00", "1-2-2017", "9999-12-31T23:59:59.999999999Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := columnar.ParseTime(s)
		gotB, okB := columnar.ParseTimeBytes([]byte(s))
		if ok != okB || !got.Equal(gotB) {
			t.Fatalf("ParseTime(%q) = %v, %v but ParseTimeBytes = %v, %v", s, got, ok, gotB, okB)
		}
		if !ok {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("ParseTime(%q) location = %v, want UTC", s, got.Location())
		}
		f := got.Format(time.RFC3339Nano)
		back, ok := columnar.ParseTime(f)
		if !ok || !back.Equal(got) {
			t.Fatalf("ParseTime(%q) = %v; reparse of %q = %v, %v", s, got, f, back, ok)
		}
	})
}

// TestParseTimeOffset: the offset as written, and the same instant as
// ParseTime.
func TestParseTimeOffset(t *testing.T) {
	for _, c := range []struct {
		in     string
		offset int
	}{
		{"2018-01-01", 0}, {"2018-01-01T00:00:00Z", 0}, {"2018-01-01T00:00:00+08:00", 8 * 3600},
		{"2018-01-01T00:00:00-05:30", -(5*3600 + 30*60)}, {"2018-01-01 00:00 08:00", 8 * 3600}, {"2018-01-01T00:00:00+0000", 0},
	} {
		got, off, ok := columnar.ParseTimeOffset(c.in)
		want, ok2 := columnar.ParseTime(c.in)
		if !ok || !ok2 || off != c.offset || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTimeOffset(%q) = %v %d %v, want %v %d", c.in, got, off, ok, want, c.offset)
		}
	}
	if _, _, ok := columnar.ParseTimeOffset("soon"); ok {
		t.Error("ParseTimeOffset(soon) ok")
	}
}
