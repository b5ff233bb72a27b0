package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
)

// Format is the syntax of a body: CSV or JSON.
type Format int

// The formats.
const (
	FormatCSV Format = iota
	FormatJSON
)

// FormatHints is what is known of a body's format before it is read;
// FormatOf weighs it. The zero value knows nothing: the bytes decide.
type FormatHints struct {
	// ContentType is the format the caller declared: a media type (the
	// Content-Type of PUT /data; parameters and case ignored) or an
	// import's contentType parameter, csv or json. It wins when it names
	// a format; a generic one ("", text/plain, application/octet-stream)
	// or a malformed one says nothing, and any other is
	// ErrUnsupportedFormat.
	ContentType string
	// Name is the file's name (an imported object's): .csv, .tsv, .txt
	// or .json, also under .gz, .gzip, .zst or .zstd.
	Name string
	// Served is the media type the file was served with (an imported
	// object's). Stores label files loosely, so it counts after Name, and
	// a type that names no format says nothing.
	Served string
}

// ErrUnsupportedFormat is matched (errors.Is) by the error of FormatOf
// when the declared content type is neither CSV nor JSON.
var ErrUnsupportedFormat = errors.New("ingest: content type is neither CSV nor JSON")

// FormatOf decides whether a body is CSV or JSON: by h.ContentType, else
// h.Name, else h.Served, else the first bytes of the decompressed body
// (DetectFormat), which peek returns. peek is called only when the hints
// do not decide, so a caller reads ahead only then; a nil peek stands for
// an empty body (CSV). FormatOf is the only place that maps content types
// and file names to formats. The media
// types of CSV are text/csv, application/csv, text/comma-separated-values
// and application/vnd.ms-excel (how Windows labels .csv files); those of
// JSON are application/json and text/json.
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

// mediaFormat is the format a media type (or the bare csv or json) names.
func mediaFormat(ct string) (Format, bool) {
	switch mediaType(ct) {
	case "text/csv", "application/csv", "text/comma-separated-values", "application/vnd.ms-excel", "csv":
		return FormatCSV, true
	case "application/json", "text/json", "json":
		return FormatJSON, true
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
	}
	return FormatCSV, false
}

// DetectFormat guesses the format from the first bytes of a (decompressed)
// body: JSON when the first non-space byte after an optional UTF-8 BOM is
// '{' or '[', otherwise CSV.
func DetectFormat(prefix []byte) Format {
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

var bom = []byte{0xef, 0xbb, 0xbf}
