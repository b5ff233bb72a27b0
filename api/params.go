package api

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// Paging limits of REFERENCE §1.5.
const (
	defaultPageSize = 50
	maxPageSize     = 1000
)

// params reads query parameters the way the reference's clients send them:
// names match case-insensitively, a repeated scalar takes its last value,
// and an empty value means "not supplied".
type params url.Values

// all returns every non-empty value of name.
func (p params) all(name string) []string {
	var out []string
	for k, vs := range p {
		if strings.EqualFold(k, name) {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// get returns the last non-empty value of name, or "".
func (p params) get(name string) string {
	vs := p.all(name)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// has reports whether name was supplied with a value.
func (p params) has(name string) bool { return p.get(name) != "" }

// paging reads page and pageSize. Negative pages and page sizes below 1 are
// RequestValidation errors; page sizes over 1000 are clamped to 1000 (the
// reference's suggestion: kinder to clients that ask for more).
func (p params) paging() (page, size int, err error) {
	size = defaultPageSize
	if v := p.get("page"); v != "" {
		n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if perr != nil || n < 0 {
			return 0, 0, engine.Validation("page", "Value for page must be a whole number of 0 or more")
		}
		page = int(n)
	}
	if v := p.get("pageSize"); v != "" {
		n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if perr != nil || n < 1 {
			return 0, 0, engine.Validation("pageSize", "pageSize must be between 1 and 1000")
		}
		size = int(min(n, maxPageSize))
	}
	if int64(page)*int64(size) > 1<<40 {
		return 0, 0, engine.Validation("page", "Value for page is too large")
	}
	return page, size, nil
}

// listing reads what every list endpoint takes: page, pageSize and
// sortOrder.
func (p params) listing() (page, size int, desc bool, err error) {
	if page, size, err = p.paging(); err != nil {
		return 0, 0, false, err
	}
	desc, err = p.sortOrder()
	return page, size, desc, err
}

// date reads a date parameter leniently (REFERENCE §1.4); nil when absent.
func (p params) date(name string) (*time.Time, error) {
	v := p.get(name)
	if v == "" {
		return nil, nil
	}
	t, ok := columnar.ParseTime(v)
	if !ok {
		return nil, engine.Validation(name, "Value for "+name+" must be a valid date")
	}
	return &t, nil
}

// dateRange reads startDate and endDate.
func (p params) dateRange() (start, end *time.Time, err error) {
	if start, err = p.date("startDate"); err != nil {
		return nil, nil, err
	}
	end, err = p.date("endDate")
	return start, end, err
}

// boolean reads true/false (any case); absent is false.
func (p params) boolean(name string) (bool, error) {
	v := p.get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
	if err != nil {
		return false, engine.Validation(name, "Value for "+name+" must be true or false")
	}
	return b, nil
}

// sortOrder reads sortOrder: asc (default) or desc, any case.
func (p params) sortOrder() (desc bool, err error) {
	switch strings.ToLower(p.get("sortOrder")) {
	case "", "asc", "ascending":
		return false, nil
	case "desc", "descending":
		return true, nil
	}
	return false, engine.Validation("sortOrder", "Value for sortOrder must be asc or desc")
}

// list reads a parameter that may be repeated and comma-separated.
func (p params) list(name string) []string {
	var out []string
	for _, v := range p.all(name) {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}
