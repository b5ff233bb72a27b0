package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Decompress wraps r according to contentEncoding: "gzip", "x-gzip",
// "zstd", "identity", or "" to sniff the gzip (1f 8b) and zstd (28 b5 2f fd)
// magic bytes. The output is capped at maxBytes (<= 0: no cap): reading past
// it fails with an error matching ErrTooLarge. An unknown encoding is
// ErrUnsupportedEncoding. Closing the result releases decoder resources; it
// does not close r.
func Decompress(r io.Reader, contentEncoding string, maxBytes int64) (io.ReadCloser, error) {
	enc := strings.ToLower(strings.TrimSpace(contentEncoding))
	var br *bufio.Reader
	if enc == "" {
		br = bufio.NewReader(r)
		magic, _ := br.Peek(4)
		switch {
		case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
			enc = "gzip"
		case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
			enc = "zstd"
		default:
			enc = "identity"
		}
		r = br
	}
	var rc io.ReadCloser
	switch enc {
	case "identity":
		rc = io.NopCloser(r)
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("ingest: gzip header: %w", err)
		}
		rc = zr
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			return nil, fmt.Errorf("ingest: zstd: %w", err)
		}
		rc = zstdCloser{zr}
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, contentEncoding)
	}
	if maxBytes > 0 {
		rc = &capReader{rc: rc, left: maxBytes}
	}
	return rc, nil
}

type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error { z.Decoder.Close(); return nil }

// capReader fails with ErrTooLarge once more than left bytes were read.
type capReader struct {
	rc   io.ReadCloser
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, ErrTooLarge
	}
	// Read one byte more than allowed to tell "exactly at the cap" from "over".
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n + int(c.left), ErrTooLarge
	}
	return n, err
}

func (c *capReader) Close() error { return c.rc.Close() }
