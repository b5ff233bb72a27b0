//go:build assert

package columnar

// poison fills a freed buffer with 0xA5 under the assert tag, so that a
// use after free reads garbage in tests rather than a recycled batch's
// plausible values.
func poison(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = 0xA5
	for i := 1; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}
