package columnar

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrInvalidIdent is returned by QuoteIdent for a name that cannot be an
// identifier.
var ErrInvalidIdent = errors.New("columnar: invalid identifier")

// QuoteIdent returns name as a DuckDB identifier, safe for any user-supplied
// string: it is wrapped in double quotes with embedded quotes doubled. The
// empty string, a NUL byte and invalid UTF-8 are rejected.
func QuoteIdent(name string) (string, error) {
	if name == "" || strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name) {
		return "", ErrInvalidIdent
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, nil
}

// MustQuoteIdent is QuoteIdent for names the program itself chose; it panics
// on an invalid one.
func MustQuoteIdent(name string) string {
	q, err := QuoteIdent(name)
	if err != nil {
		panic("columnar: MustQuoteIdent(" + name + "): invalid identifier")
	}
	return q
}

// QualifiedIdent quotes schema and name and joins them with a dot.
func QualifiedIdent(schema, name string) (string, error) {
	s, err := QuoteIdent(schema)
	if err != nil {
		return "", err
	}
	n, err := QuoteIdent(name)
	if err != nil {
		return "", err
	}
	return s + "." + n, nil
}
