package ingest_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/vaticml/vatic/ingest"
)

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

func TestDecompress(t *testing.T) {
	plain := []byte("a,b\n1,x\n2,y\n")
	tests := []struct {
		name, enc string
		body      []byte
	}{
		{"identity", "identity", plain},
		{"none", "", plain},
		{"gzip", "gzip", gzipBytes(t, plain)},
		{"x-gzip", "X-Gzip", gzipBytes(t, plain)},
		{"sniff gzip", "", gzipBytes(t, plain)},
		{"zstd", "zstd", zstdBytes(t, plain)},
		{"sniff zstd", "", zstdBytes(t, plain)},
	}
	for _, tt := range tests {
		rc, err := ingest.Decompress(bytes.NewReader(tt.body), tt.enc, 1<<20)
		if err != nil {
			t.Fatalf("%s: Decompress: %v", tt.name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s: read %q, %v; want %q", tt.name, got, err, plain)
		}
	}
	if _, err := ingest.Decompress(strings.NewReader("x"), "br", 0); !errors.Is(err, ingest.ErrUnsupportedEncoding) {
		t.Errorf("Decompress(br) error = %v, want ErrUnsupportedEncoding", err)
	}
	if _, err := ingest.Decompress(strings.NewReader("not gzip"), "gzip", 0); err == nil {
		t.Error("Decompress(gzip) of plain text: no error")
	}
}

func TestDecompressCap(t *testing.T) {
	bomb := gzipBytes(t, make([]byte, 64<<20)) // 64 MiB of zeros in ~64 KiB
	for _, tt := range []struct {
		enc  string
		body []byte
	}{{"gzip", bomb}, {"", bomb}, {"zstd", zstdBytes(t, make([]byte, 64<<20))}, {"identity", make([]byte, 2<<20)}} {
		rc, err := ingest.Decompress(bytes.NewReader(tt.body), tt.enc, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if !errors.Is(err, ingest.ErrTooLarge) || n > 1<<20 {
			t.Errorf("%q bomb: read %d bytes, %v; want at most 1 MiB and ErrTooLarge", tt.enc, n, err)
		}
	}
	// Exactly at the cap is fine.
	rc, _ := ingest.Decompress(bytes.NewReader(make([]byte, 1000)), "", 1000)
	if n, err := io.Copy(io.Discard, rc); n != 1000 || err != nil {
		t.Errorf("at the cap: read %d, %v; want 1000, nil", n, err)
	}
	// Through a CSV reader, the error surfaces as ErrTooLarge too.
	csv := gzipBytes(t, genCSV(200000, 5))
	for _, limit := range []int64{1 << 20, 8 << 20} {
		rc, err := ingest.Decompress(bytes.NewReader(csv), "", limit)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ingest.NewCSV(rc, ingest.Options{Allocator: checkedMem(t)})
		if err == nil {
			err = drain(t, r).err
		}
		rc.Close()
		if !errors.Is(err, ingest.ErrTooLarge) {
			t.Errorf("CSV over a %d cap: error = %v, want ErrTooLarge", limit, err)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		in   string
		want ingest.Format
	}{
		{`{"data":[]}`, ingest.FormatJSON},
		{" \r\n\t[{}]", ingest.FormatJSON},
		{"\ufeff{", ingest.FormatJSON},
		{"a,b\n", ingest.FormatCSV},
		{"", ingest.FormatCSV},
		{"\ufeffa,{", ingest.FormatCSV},
	}
	for _, tt := range tests {
		if got := ingest.DetectFormat([]byte(tt.in)); got != tt.want {
			t.Errorf("DetectFormat(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
