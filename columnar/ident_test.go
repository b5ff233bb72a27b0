package columnar_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vaticml/vatic/columnar"
)

func TestQuoteIdent(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"sales", `"sales"`, nil},
		{"Store Sales", `"Store Sales"`, nil},
		{`a"b`, `"a""b"`, nil},
		{`"`, `""""`, nil},
		{"drop table x; --", `"drop table x; --"`, nil},
		{"", "", columnar.ErrInvalidIdent},
		{"a\x00b", "", columnar.ErrInvalidIdent},
		{"a\xffb", "", columnar.ErrInvalidIdent},
	}
	for _, tt := range tests {
		got, err := columnar.QuoteIdent(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("QuoteIdent(%q) = %q, %v, want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if got, err := columnar.QualifiedIdent("data", `x"y`); got != `"data"."x""y"` || err != nil {
		t.Errorf(`QualifiedIdent("data", "x\"y") = %q, %v`, got, err)
	}
}

func FuzzQuoteIdent(f *testing.F) {
	for _, s := range []string{"a", `a"b`, `""`, "", "\x00", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		q, err := columnar.QuoteIdent(name)
		if err != nil {
			return
		}
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			t.Fatalf("QuoteIdent(%q) = %q, not wrapped in quotes", name, q)
		}
		inner := q[1 : len(q)-1]
		// Every quote inside must be doubled.
		if strings.Count(inner, `"`)%2 != 0 || strings.ReplaceAll(inner, `""`, "") != strings.ReplaceAll(inner, `"`, "") {
			t.Fatalf("QuoteIdent(%q) = %q has an undoubled quote", name, q)
		}
		if got := strings.ReplaceAll(inner, `""`, `"`); got != name {
			t.Fatalf("QuoteIdent(%q) = %q, un-doubled %q", name, q, got)
		}
	})
}
