package ingest_test

import (
	"errors"
	"testing"

	"github.com/vaticml/vatic/ingest"
)

func TestFormatOf(t *testing.T) {
	const csv, json = ingest.FormatCSV, ingest.FormatJSON
	jsonBytes, csvBytes := "[{\"a\":1}]", "a,b\n1,2\n"
	f := func(h ingest.FormatHints, prefix string, want ingest.Format) {
		t.Helper()
		got, err := ingest.FormatOf(h, func() []byte { return []byte(prefix) })
		if err != nil || got != want {
			t.Errorf("FormatOf(%+v, %q) = %v, %v; want %v", h, prefix, got, err, want)
		}
	}
	// A declared content type decides, whatever else is known.
	for _, ct := range []string{"text/csv", "TEXT/CSV; charset=utf-8", "application/csv", "text/comma-separated-values", "application/vnd.ms-excel", "csv", "CSV"} {
		f(ingest.FormatHints{ContentType: ct, Name: "x.json", Served: "application/json"}, jsonBytes, csv)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "text/json", "json"} {
		f(ingest.FormatHints{ContentType: ct, Name: "x.csv", Served: "text/csv"}, csvBytes, json)
	}
	// A generic or malformed one says nothing: the name, then the served
	// type, then the bytes decide.
	for _, ct := range []string{"", "text/plain", "text/plain; charset=utf-8", "application/octet-stream", "bad/", "a b"} {
		f(ingest.FormatHints{ContentType: ct}, jsonBytes, json)
		f(ingest.FormatHints{ContentType: ct}, csvBytes, csv)
		f(ingest.FormatHints{ContentType: ct, Name: "x.csv"}, jsonBytes, csv)
	}
	// File names, under compression suffixes, before the served type.
	for _, name := range []string{"sales.csv", "SALES.CSV", "dir/sales.csv.gz", "sales.csv.gzip", "sales.csv.zst", "sales.csv.zstd", "s.tsv", "s.txt"} {
		f(ingest.FormatHints{Name: name, Served: "application/json"}, jsonBytes, csv)
	}
	for _, name := range []string{"rows.json", "rows.JSON.gz", "a/b/rows.json.zst"} {
		f(ingest.FormatHints{Name: name, Served: "text/csv"}, csvBytes, json)
	}
	for _, name := range []string{"noext", "rows.gz", "x.xml", "csv", "archive.tar.gz"} {
		f(ingest.FormatHints{Name: name}, jsonBytes, json)
		f(ingest.FormatHints{Name: name}, csvBytes, csv)
	}
	// The served type counts when it names a format; any other says nothing.
	f(ingest.FormatHints{Served: "application/vnd.ms-excel"}, jsonBytes, csv)
	f(ingest.FormatHints{Served: "text/csv; charset=utf-8"}, jsonBytes, csv)
	f(ingest.FormatHints{Served: "application/json"}, csvBytes, json)
	for _, served := range []string{"application/gzip", "application/xml", "binary/octet-stream", "text/plain", "bad/"} {
		f(ingest.FormatHints{Served: served}, jsonBytes, json)
		f(ingest.FormatHints{Served: served}, csvBytes, csv)
	}
	// The columnar formats, by media type, import contentType, name and
	// magic bytes.
	const arrow, parquet = ingest.FormatArrow, ingest.FormatParquet
	for _, ct := range []string{"application/vnd.apache.arrow.stream", "Application/Vnd.Apache.Arrow.Stream; x=1", "arrow"} {
		f(ingest.FormatHints{ContentType: ct, Name: "x.csv"}, csvBytes, arrow)
	}
	for _, ct := range []string{"application/vnd.apache.parquet", "PARQUET"} {
		f(ingest.FormatHints{ContentType: ct, Name: "x.csv"}, csvBytes, parquet)
	}
	for _, name := range []string{"rows.arrows", "rows.arrow", "ROWS.IPC", "rows.arrows.zst"} {
		f(ingest.FormatHints{Name: name, Served: "text/csv"}, csvBytes, arrow)
	}
	for _, name := range []string{"part-0001.parquet", "x/y.PARQUET", "rows.parquet.gz"} {
		f(ingest.FormatHints{Name: name, Served: "text/csv"}, csvBytes, parquet)
	}
	f(ingest.FormatHints{Served: "application/vnd.apache.parquet"}, csvBytes, parquet)
	f(ingest.FormatHints{Served: "application/octet-stream"}, "PAR1\x15\x04", parquet)
	f(ingest.FormatHints{}, "\xff\xff\xff\xff\x10\x01\x00\x00", arrow)
	f(ingest.FormatHints{}, "\xff\xff\xff", csv)
	// Nothing known and no bytes: CSV.
	f(ingest.FormatHints{}, "", csv)
	if got, err := ingest.FormatOf(ingest.FormatHints{}, nil); got != csv || err != nil {
		t.Errorf("FormatOf with a nil peek = %v, %v; want CSV", got, err)
	}
	// The body is peeked only when the hints do not decide.
	peeked := false
	peek := func() []byte { peeked = true; return []byte(jsonBytes) }
	for _, h := range []ingest.FormatHints{{ContentType: "text/csv"}, {Name: "a.csv"}, {Served: "application/vnd.ms-excel"}, {ContentType: "image/png"}} {
		if ingest.FormatOf(h, peek); peeked {
			t.Errorf("FormatOf(%+v) peeked at the body", h)
		}
	}

	// A declared type that names some other format is refused.
	for _, ct := range []string{"application/xml", "image/png", "text/html", "tsv", "application/x-ndjson", "application/vnd.apache.arrow.file"} {
		if _, err := ingest.FormatOf(ingest.FormatHints{ContentType: ct, Name: "x.csv"}, nil); !errors.Is(err, ingest.ErrUnsupportedFormat) {
			t.Errorf("FormatOf(ContentType %q) error = %v, want ErrUnsupportedFormat", ct, err)
		}
	}
}

// FuzzFormatOf checks that FormatOf never panics, refuses only a declared
// content type, and leaves hints that say nothing to DetectFormat.
func FuzzFormatOf(f *testing.F) {
	f.Add("text/csv", "x.json", "application/json", []byte("{}"))
	f.Add("", "noext", "application/vnd.ms-excel", []byte("[a],b\n"))
	f.Add("application/xml", "", "", []byte("<rows/>"))
	f.Add("csv; q=\"", "a.csv.gz", "text/plain", []byte("\ufeff {"))
	f.Fuzz(func(t *testing.T, ct, name, served string, prefix []byte) {
		peek := func() []byte { return prefix }
		got, err := ingest.FormatOf(ingest.FormatHints{ContentType: ct, Name: name, Served: served}, peek)
		if err != nil {
			if !errors.Is(err, ingest.ErrUnsupportedFormat) || ct == "" {
				t.Fatalf("FormatOf(%q, %q, %q) error = %v", ct, name, served, err)
			}
			return
		}
		if got < ingest.FormatCSV || got > ingest.FormatParquet {
			t.Fatalf("FormatOf = %v", got)
		}
		if nothing, _ := ingest.FormatOf(ingest.FormatHints{}, peek); nothing != ingest.DetectFormat(prefix) {
			t.Fatalf("FormatOf with no hints = %v, DetectFormat = %v", nothing, ingest.DetectFormat(prefix))
		}
	})
}
