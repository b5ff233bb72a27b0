package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vaticml/vatic/columnar"
)

// Column statistics (MODELLING §11) are aggregates over a values relation:
// one row per row of the source, with the columns
//
//	missing  BOOLEAN  the value is NULL
//	num      DOUBLE   the value as a number under the effective dataType
//	                  (dates as Unix seconds; for string and text, the values
//	                  that parse as numbers); NULL otherwise
//	cat      VARCHAR  the categorical value (string, text, logical as
//	                  'true'/'false'); NULL otherwise
//	bad      BOOLEAN  a non-missing value that fails to parse as the type
//	nonnum   BOOLEAN  a non-missing value that is not a number
//	hex      BOOLEAN  text that may be a hexadecimal float, which
//	                  strconv.ParseFloat reads and DuckDB does not: when
//	                  any is found the engine computes the relation itself
//
// StatsValues writes that relation straight over a dataset or a view when
// DuckDB can reproduce the engine's parsing exactly; otherwise the engine
// computes the rows itself into a scratch table with those columns and the
// same aggregates run over it (StatsScratchValues).

// statsSpaces are the characters strings.TrimSpace removes (unicode.IsSpace):
// numbers and logical words are read after trimming them.
var statsSpaces = []rune{'\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000}

// StatsSpaces returns the characters trimmed before a value is parsed
// (exported for the test that checks them against unicode.IsSpace).
func StatsSpaces() []rune { return append([]rune(nil), statsSpaces...) }

// spacesRE is statsSpaces as a regular expression character class.
func spacesRE() string {
	var b strings.Builder
	b.WriteByte('[')
	for _, r := range statsSpaces {
		fmt.Fprintf(&b, `\x{%X}`, r)
	}
	b.WriteByte(']')
	return b.String()
}

// spacesSQL is statsSpaces as a constant DuckDB expression.
func spacesSQL() string {
	parts := make([]string, len(statsSpaces))
	for i, r := range statsSpaces {
		parts[i] = "chr(" + strconv.Itoa(int(r)) + ")"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// decimalRE is the syntax of the decimal numbers strconv.ParseFloat reads:
// digits with optional single underscores between them (Go's underscoreOK),
// an optional fraction and exponent. Infinities and NaN are not numbers
// here. Hexadecimal floats (0x1p-2), which ParseFloat also reads, have no
// DuckDB cast: a text column holding one is summarised by the engine (see
// the hex column).
const decimalRE = `[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+(_[0-9]+)*)?`

// hexRE is a loose match for hexadecimal floats; a false positive only
// sends a column down the slower exact path.
const hexRE = `[+-]?0[xX][0-9a-fA-F_.]*[pP][+-]?[0-9_]+`

// StatsValues compiles the values relation of column (stored as the DuckDB
// type sqlType) of a dataset (DataSchema) or view (ViewSchema), read as
// the data type as. ok is false when DuckDB cannot reproduce the reading
// exactly (text as a date; numbers or dates rendered as text; types other
// than DOUBLE, BOOLEAN, TIMESTAMP and VARCHAR): the caller then computes
// the relation itself.
func StatsValues(schema, source, column, sqlType string, as columnar.DataType) (q string, ok bool, err error) {
	table, err := sourceTable(schema, source)
	if err != nil {
		return "", false, err
	}
	col, err := columnar.QuoteIdent(column)
	if err != nil {
		return "", false, err
	}
	as = as.Storage()
	// Each case sets the expressions of num, cat, bad and nonnum over v
	// (the value) and, for text, t (the trimmed value) and n (its number).
	var num, cat, bad, nonnum string
	text := false
	switch sqlType {
	case "DOUBLE":
		switch as {
		case columnar.Numeric:
			num = "v"
		case columnar.Logical:
			// The API renders 1 and 0 as "1" and "0", the logical words;
			// -0 renders as "-0", which is not.
			cat = "CASE WHEN v = 1 THEN 'true' WHEN v = 0 AND NOT signbit(v) THEN 'false' END"
			bad = "v IS NOT NULL AND v <> 1 AND (v <> 0 OR signbit(v))"
		case columnar.Date:
			bad = "v IS NOT NULL" // a number's text is never a date
		default:
			return "", false, nil
		}
	case "BOOLEAN":
		switch as {
		case columnar.Logical, columnar.String:
			cat = "CAST(v AS VARCHAR)"
			nonnum = "v IS NOT NULL"
		default:
			bad = "v IS NOT NULL" // true and false are neither numbers nor dates
		}
	case "TIMESTAMP":
		switch as {
		case columnar.Date:
			num = "epoch_us(v) / 1e6"
		case columnar.Numeric, columnar.Logical:
			bad = "v IS NOT NULL"
			nonnum = "v IS NOT NULL"
		default:
			return "", false, nil
		}
	case "VARCHAR":
		text = true
		switch as {
		case columnar.String:
			num, cat = "n", "v"
			nonnum = "v IS NOT NULL AND n IS NULL"
		case columnar.Numeric:
			num = "n"
			bad = "v IS NOT NULL AND n IS NULL"
			nonnum = bad
		case columnar.Logical:
			// strings.ToLower maps no other character to these ASCII
			// letters, so the words match letter by letter in either case.
			ws := spacesRE() + "*"
			cat = "CASE WHEN regexp_full_match(v, '" + ws + "([tT][rR][uU][eE]|[yY][eE][sS]|[oO][nN]|1)" + ws + "') THEN 'true' " +
				"WHEN regexp_full_match(v, '" + ws + "([fF][aA][lL][sS][eE]|[nN][oO]|[oO][fF][fF]|0)" + ws + "') THEN 'false' END"
			bad = "v IS NOT NULL AND " + cat + " IS NULL"
			nonnum = "v IS NOT NULL AND n IS NULL"
		default:
			return "", false, nil
		}
	default:
		return "", false, nil
	}
	or := func(expr, zero string) string {
		if expr == "" {
			return zero
		}
		return expr
	}
	from := "(SELECT " + col + " AS v FROM " + table + ")"
	hex := "false"
	if text {
		// n: the number when the text, spaces around it aside, has the
		// syntax ParseFloat reads and DuckDB's reading of it (without
		// underscores) is finite. The syntax is checked first: trimming
		// every value is slower than the regular expression.
		ws := spacesRE() + "*"
		from = "(SELECT v, CASE WHEN isfinite(p) THEN p END AS n FROM " +
			"(SELECT v, CASE WHEN regexp_full_match(v, '" + ws + decimalRE + ws + "') THEN " +
			"TRY_CAST(replace(trim(v, " + spacesSQL() + "), '_', '') AS DOUBLE) END AS p FROM " +
			"(SELECT " + col + " AS v FROM " + table + ")))"
		// A hexadecimal float, which ParseFloat reads and DuckDB does not:
		// the caller computes such a column itself.
		hex = "(contains(v, '0x') OR contains(v, '0X')) AND regexp_full_match(v, '" + ws + hexRE + ws + "')"
	}
	q = "SELECT v IS NULL AS missing, CAST(" + or(num, "NULL") + " AS DOUBLE) AS num, CAST(" + or(cat, "NULL") +
		" AS VARCHAR) AS cat, coalesce(" + or(bad, "false") + ", false) AS bad, coalesce(" + or(nonnum, "false") +
		", false) AS nonnum, coalesce(" + hex + ", false) AS hex FROM " + from
	return q, true, nil
}

// StatsScratchValues compiles the values relation of a scratch table
// (quoted and qualified).
func StatsScratchValues(table string) string {
	return "SELECT missing, num, cat, bad, nonnum, false AS hex FROM " + table
}

// StatsDropScratch compiles dropping a scratch table (quoted and qualified).
func StatsDropScratch(table string) string { return "DROP TABLE IF EXISTS " + table }

// StatsSummary compiles one scan of a values relation: total rows, missing,
// bad, non-numeric, possible hexadecimal floats, then count, min, max,
// mean, sample variance and median of num. DuckDB's median of an even count is lo·½ + hi·½, the mean of the
// two middle values (MODELLING §11); var_samp divides by n − 1.
func StatsSummary(values string) string {
	return "SELECT count(*), count(*) FILTER (WHERE missing), count(*) FILTER (WHERE bad), " +
		"count(*) FILTER (WHERE nonnum), count(*) FILTER (WHERE hex), count(num), min(num), max(num), avg(num), var_samp(num), median(num) FROM (" +
		values + ")"
}

// StatsTop compiles the most frequent values of key ("num" or "cat") of a
// values relation, by descending count then ascending value (the smallest
// number, or the first string in byte order: MODELLING §12.2), each with
// its count and the number of distinct values; one bound argument, the
// limit. Grouping is DuckDB's hash aggregate, which spills to disk.
func StatsTop(values, key string) (string, error) {
	if key != "num" && key != "cat" {
		return "", fmt.Errorf("sqlgen: stats key %q", key)
	}
	return "WITH g AS MATERIALIZED (SELECT " + key + " AS v, count(*) AS n FROM (" + values + ") WHERE " + key +
		" IS NOT NULL GROUP BY " + key + ") SELECT v, n, (SELECT count(*) FROM g) FROM g ORDER BY n DESC, v LIMIT ?", nil
}

// StatsBuckets compiles the counts of num per bucket: bucket i holds the
// numbers below the i-th of len(edges) bound arguments and not below the
// one before; the last bucket holds the rest. Rows are (bucket, count),
// empty buckets absent.
func StatsBuckets(values string, edges int) string {
	var b strings.Builder
	b.WriteString("SELECT CASE")
	for i := range edges {
		fmt.Fprintf(&b, " WHEN num < ? THEN %d", i)
	}
	fmt.Fprintf(&b, " ELSE %d END AS bucket, count(*) FROM (%s) WHERE num IS NOT NULL GROUP BY bucket", edges, values)
	return b.String()
}
