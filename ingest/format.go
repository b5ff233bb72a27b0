package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
)

// Format is the syntax of a body: CSV, JSON, an Arrow IPC stream or
// Parquet.
type Format int

// The formats.
const (
	FormatCSV Format = iota
	FormatJSON
	FormatArrow   // the Arrow IPC stream format
	FormatParquet // a Parquet file
)

// The media types of the columnar formats.
const (
	MediaArrowStream = "application/vnd.apache.arrow.stream"
	MediaParquet     = "application/vnd.apache.parquet"
)

// FormatHints is what is known of a body's format before it is read;
// FormatOf weighs it. The zero value knows nothing: the bytes decide.
type FormatHints struct {
	// ContentType is the format the caller declared: a media type (the
	// Content-Type of PUT /data; parameters and case ignored) or an
	// import's contentType parameter, csv, json, arrow or parquet. It wins when it names
	// a format; a generic one ("", text/plain, application/octet-stream)
	// or a malformed one says nothing, and any other is
	// ErrUnsupportedFormat.
	ContentType string
	// Name is the file's name (an imported object's): .csv, .tsv, .txt,
	// .json, .arrows, .arrow, .ipc or .parquet, also under .gz, .gzip,
	// .zst or .zstd.
	Name string
	// Served is the media type the file was served with (an imported
	// object's). Stores label files loosely, so it counts after Name, and
	// a type that names no format says nothing.
	Served string
}

// ErrUnsupportedFormat is matched (errors.Is) by the error of FormatOf
// when the declared content type names none of the formats.
var ErrUnsupportedFormat = errors.New("ingest: content type is not CSV, JSON, Arrow IPC stream or Parquet")

// FormatOf decides the format of a body: by h.ContentType, else
// h.Name, else h.Served, else the first bytes of the decompressed body
// (DetectFormat), which peek returns. peek is called only when the hints
// do not decide, so a caller reads ahead only then; a nil peek stands for
// an empty body (CSV). FormatOf is the only place that maps content types
// and file names to formats. The media
// types of CSV are text/csv, application/csv, text/comma-separated-values
// and application/vnd.ms-excel (how Windows labels .csv files); those of
// JSON are application/json and text/json; the Arrow IPC stream's is
// application/vnd.apache.arrow.stream (the IANA registration's) and
// Parquet's application/vnd.apache.parquet. The Arrow IPC file format
// (application/vnd.apache.arrow.file) is not read: it is refused as an
// unsupported content type.
func FormatOf(h FormatHints, peek func() []byte) (Format, error) {
	if f, ok := mediaFormat(h.ContentType); ok {
		return f, nil
	}
	if !generic(h.ContentType) {
		return FormatCSV, fmt.Errorf("%w: %q", ErrUnsupportedFormat, h.ContentType)
	}
	if f, ok := nameFormat(h.Name); ok {
		return f, nil
	}
	if f, ok := mediaFormat(h.Served); ok {
		return f, nil
	}
	if peek == nil {
		return FormatCSV, nil
	}
	return DetectFormat(peek()), nil
}

// mediaFormat is the format a media type (or the bare csv, json, arrow or
// parquet of an import's contentType) names.
func mediaFormat(ct string) (Format, bool) {
	switch mediaType(ct) {
	case "text/csv", "application/csv", "text/comma-separated-values", "application/vnd.ms-excel", "csv":
		return FormatCSV, true
	case "application/json", "text/json", "json":
		return FormatJSON, true
	case MediaArrowStream, "arrow":
		return FormatArrow, true
	case MediaParquet, "parquet":
		return FormatParquet, true
	}
	return FormatCSV, false
}

// generic reports whether a media type says nothing of the format.
func generic(ct string) bool {
	switch mediaType(ct) {
	case "", "text/plain", "application/octet-stream":
		return true
	}
	return false
}

// mediaType is ct without parameters, lower-cased; "" when malformed.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

// nameFormat is the format a file name's extension names.
func nameFormat(name string) (Format, bool) {
	name = strings.ToLower(name)
	for _, suffix := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		name = strings.TrimSuffix(name, suffix)
	}
	switch path.Ext(name) {
	case ".csv", ".tsv", ".txt":
		return FormatCSV, true
	case ".json":
		return FormatJSON, true
	case ".arrows", ".arrow", ".ipc":
		return FormatArrow, true
	case ".parquet":
		return FormatParquet, true
	}
	return FormatCSV, false
}

// DetectFormat guesses the format from the first bytes of a (decompressed)
// body: Parquet when they are its magic "PAR1", an Arrow IPC stream when
// they are the continuation marker 0xFFFFFFFF that starts every message
// (the pre-1.0 format without it is not detected), JSON when the first
// non-space byte after an optional UTF-8 BOM is '{' or '[', otherwise CSV.
// The IPC marker is not UTF-8, so no text is mistaken for it; a CSV body
// whose first bytes are PAR1 needs its content type.
func DetectFormat(prefix []byte) Format {
	switch {
	case bytes.HasPrefix(prefix, parquetMagic):
		return FormatParquet
	case bytes.HasPrefix(prefix, ipcContinuation):
		return FormatArrow
	}
	prefix = bytes.TrimPrefix(prefix, bom)
	for _, c := range prefix {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return FormatJSON
		}
		return FormatCSV
	}
	return FormatCSV
}

var (
	bom             = []byte{0xef, 0xbb, 0xbf}
	parquetMagic    = []byte("PAR1")
	ipcContinuation = []byte{0xff, 0xff, 0xff, 0xff}
)
