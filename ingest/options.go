package ingest

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// Options configure a Reader. The zero value means the documented defaults.
type Options struct {
	// Allocator allocates every Arrow buffer; default memory.DefaultAllocator.
	Allocator memory.Allocator
	// BatchRows is the maximum number of rows per batch; default 65536.
	// CSV batches are also cut by input size, so they may be smaller.
	BatchRows int
	// Workers is the number of goroutines parsing CSV in parallel; default
	// runtime.GOMAXPROCS(0). JSON is parsed by the caller's goroutine.
	Workers int
	// MissingValues are extra tokens read as missing, compared exactly
	// after trimming spaces from the value.
	MissingValues []string
	// Declared maps strings.ToLower(column name) to the data type the
	// column must have. Values that do not fit are a *ParseError.
	Declared map[string]columnar.DataType
	// SampleRows is the number of data rows read to infer column types;
	// default 10000. CSV samples are also capped at about 4 MiB.
	SampleRows int
	// MaxColumns is the most columns an input may have: CSV header fields,
	// distinct JSON row keys, or entries of a JSON body's columns
	// property; default DefaultMaxColumns. It is checked as the header or
	// the keys are read, before anything is allocated per column; more is
	// a *ParseError.
	MaxColumns int
	// CheckName, when not nil, is called with the name of each column the
	// input brings (a CSV header field after trimming, a JSON row key)
	// before the column is added; its error is returned as is.
	CheckName func(name string) error
	// SpoolDir is the directory of the temporary files that hold a JSON
	// body's rows while the metadata after them is read; default
	// os.TempDir(). A file is removed when its Reader is released; a
	// process killed first leaves it behind (see RemoveSpools).
	SpoolDir string
	// Verbatim makes a CSV Reader read every column as String holding
	// each field's text exactly as given (after unquoting): no type
	// inference, no missing values (an empty field is "", not null), no
	// UTF-8 check, and the first line is always the header. Predict bodies
	// use it: the engine types the values by the model's columns and the
	// answer echoes them as sent.
	Verbatim bool
	// Numbers, with Verbatim, is called with the header once it is read,
	// before any record is split: the NumberHint it returns (nil: none)
	// applies from the first chunk on, as Reader.ParseNumbers would.
	Numbers func(header []string) *NumberHint
	// MaxDecodedBytes caps what the buffers of an Arrow IPC stream that its
	// writer compressed (LZ4, zstd) expand to, over the whole stream;
	// default 1 GiB. More is an error matching ErrTooLarge. (A body's
	// Content-Encoding is capped by Decompress.)
	MaxDecodedBytes int64

	blockBytes int // CSV block size; tests make it tiny
}

const (
	defaultBatchRows  = 65536
	defaultSampleRows = 10000
	defaultMaxDecoded = 1 << 30
	maxSampleBytes    = 4 << 20
	// DefaultMaxColumns is the default of Options.MaxColumns.
	DefaultMaxColumns = 4096
)

func (o Options) withDefaults() Options {
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	if o.BatchRows <= 0 {
		o.BatchRows = defaultBatchRows
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.SampleRows <= 0 {
		o.SampleRows = defaultSampleRows
	}
	if o.MaxColumns <= 0 {
		o.MaxColumns = DefaultMaxColumns
	}
	if o.MaxDecodedBytes <= 0 {
		o.MaxDecodedBytes = defaultMaxDecoded
	}
	return o
}

// ErrTooLarge is matched (errors.Is) by the read error of a Decompress
// reader whose output went over its cap, and by Reader.Err after it.
var ErrTooLarge = errors.New("ingest: input exceeds the size limit")

// ErrUnsupportedEncoding is returned by Decompress for a Content-Encoding it
// does not know.
var ErrUnsupportedEncoding = errors.New("ingest: unsupported content encoding")

// ParseError is bad input: malformed CSV or JSON, a jagged row, invalid
// UTF-8, a duplicate column name or a value that does not fit a declared
// type.
type ParseError struct {
	Line   int64  // 1-based physical line of CSV input, or 0
	Row    int64  // 1-based data row (JSON, and CSV when known), or 0
	Column string // the column's name, or ""
	Msg    string
}

// Error formats e as `line 7, column "sales": value "abc" is not numeric`.
func (e *ParseError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.FormatInt(e.Line, 10))
	} else if e.Row > 0 {
		b.WriteString("row ")
		b.WriteString(strconv.FormatInt(e.Row, 10))
	}
	if e.Column != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("column ")
		b.WriteString(strconv.Quote(e.Column))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// quoteValue quotes a value for an error message, shortened when long.
func quoteValue(v []byte) string {
	const max = 64
	if len(v) > max {
		return strconv.Quote(string(v[:max])) + "…"
	}
	return strconv.Quote(string(v))
}

// typeWord names a data type in "value x is not <typeWord>".
func typeWord(t columnar.DataType) string {
	switch t.Storage() {
	case columnar.Numeric:
		return "numeric"
	case columnar.Logical:
		return "logical"
	case columnar.Date:
		return "a date"
	}
	return string(t)
}

// tooManyColumns is the message of an input with more than max columns.
func tooManyColumns(max int) string {
	return "more than " + itoa(max) + " columns; the column limit is " + itoa(max)
}

func mismatch(v []byte, t columnar.DataType) string {
	return fmt.Sprintf("value %s is not %s", quoteValue(v), typeWord(t))
}
