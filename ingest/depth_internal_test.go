package ingest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// refDepth is the depth scanner's reference: one byte at a time, as the
// definition reads. It returns the depth after b, or the offset of the
// bracket that went deeper than MaxJSONDepth.
func refDepth(b []byte) (depth int, tooDeepAt int) {
	str, esc := false, false
	for i, c := range b {
		switch {
		case esc:
			esc = false
		case str:
			switch c {
			case '\\':
				esc = true
			case '"':
				str = false
			}
		case c == '"':
			str = true
		case c == '[' || c == '{':
			if depth++; depth > MaxJSONDepth {
				return depth, i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth, -1
}

// FuzzDepthScanner: the scanner, fed any text in pieces cut anywhere
// (an escape or a string split across reads), ends at the reference's
// depth, or reports too deep at the reference's byte.
func FuzzDepthScanner(f *testing.F) {
	for _, s := range []string{`{"data":[{"a":"1","b":"x\"y"}]}`, `"\\\\"[[[`, `"abcdefghij\"klmnop"{`, strings.Repeat("[", 70), `["\`, `"1234567\"[`, `{"a234567\"[]":[1]}`, `{"k":"` + strings.Repeat("v", 40) + `\\"}`} {
		f.Add(s, uint8(7))
		f.Add(s, uint8(15)) // pieces of 16 bytes: room for the eight-byte steps
	}
	f.Fuzz(func(t *testing.T, text string, cut uint8) {
		b := []byte(text)
		want, at := refDepth(b)
		var s depthScanner
		step := int(cut%16) + 1
		var err error
		for lo := 0; lo < len(b) && err == nil; lo += step {
			err = s.scan(b[lo:min(lo+step, len(b))])
		}
		switch {
		case at >= 0:
			if !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), "at byte "+itoa(at)+")") {
				t.Fatalf("%q in pieces of %d: error %v, want too deep at byte %d", text, step, err, at)
			}
		case err != nil || s.depth != want:
			t.Fatalf("%q in pieces of %d: depth %d, error %v; want %d", text, step, s.depth, err, want)
		}
	})
}

// BenchmarkDepthScanner scans a JSON predict body of 20 features, as
// strings (the clients' form), the bytes a predict request reads through
// engine.LimitJSONDepth; VATIC_DEPTH_BODY names another file.
//
//	go test -run '^$' -bench DepthScanner ./ingest
func BenchmarkDepthScanner(b *testing.B) {
	var body []byte
	if p := os.Getenv("VATIC_DEPTH_BODY"); p != "" {
		var err error
		if body, err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	} else {
		var sb strings.Builder
		sb.WriteString(`{"data":[`)
		for i := range 20000 {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteByte('{')
			for j := range 20 {
				if j > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(`"f` + itoa(j) + `": "0.` + itoa(1000003*(i+1)*(j+7)%999983) + `17"`)
			}
			sb.WriteByte('}')
		}
		sb.WriteString(`]}`)
		body = []byte(sb.String())
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var s depthScanner
		if err := s.scan(body); err != nil {
			b.Fatal(err)
		}
	}
}
