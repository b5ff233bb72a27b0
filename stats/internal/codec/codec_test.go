package codec_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/internal/codec"
)

var errBad = errors.New("test: malformed")

func TestRoundTrip(t *testing.T) {
	var w codec.Writer
	w.U64(math.MaxUint64)
	w.Int(7)
	w.F64(math.Copysign(0, -1))
	w.F64s([]float64{1.5, math.Inf(-1), math.NaN()})
	w.Ints([]int{0, 3, 2})
	w.F64s(nil)
	r := codec.NewReader(w.B, errBad)
	if got := r.U64(); got != math.MaxUint64 {
		t.Errorf("U64() = %d, want MaxUint64", got)
	}
	if got := r.Int(7); got != 7 {
		t.Errorf("Int(7) = %d, want 7", got)
	}
	if got := r.F64(); got != 0 || !math.Signbit(got) {
		t.Errorf("F64() = %v, want -0", got)
	}
	f := r.F64s()
	if len(f) != 3 || f[0] != 1.5 || !math.IsInf(f[1], -1) || !math.IsNaN(f[2]) {
		t.Errorf("F64s() = %v, want [1.5 -Inf NaN]", f)
	}
	if got := r.Ints(3); !slices.Equal(got, []int{0, 3, 2}) {
		t.Errorf("Ints(3) = %v, want [0 3 2]", got)
	}
	if got := r.F64s(); len(got) != 0 {
		t.Errorf("F64s() = %v, want empty", got)
	}
	if err := r.Done(); err != nil {
		t.Errorf("Done() = %v, want nil", err)
	}
}

func TestReaderRejects(t *testing.T) {
	var w codec.Writer
	w.Int(5)
	w.F64(1)
	f := func(name string, read func(r *codec.Reader), b []byte) {
		t.Helper()
		r := codec.NewReader(b, errBad)
		read(r)
		if err := r.Done(); !errors.Is(err, errBad) {
			t.Errorf("%s: Done() = %v, want %v", name, err, errBad)
		}
	}
	f("truncated", func(r *codec.Reader) { r.U64(); r.U64() }, w.B[:12])
	f("over limit", func(r *codec.Reader) { r.Int(4) }, w.B)
	f("trailing bytes", func(r *codec.Reader) { r.Int(5) }, w.B)
	f("length beyond the bytes", func(r *codec.Reader) { r.F64s() }, w.B)
	f("value over limit", func(r *codec.Reader) { r.Ints(0) }, []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
}

func TestDecode(t *testing.T) {
	decoders := map[string]func([]byte) (string, error){
		"echo": func(b []byte) (string, error) { return string(b), nil },
	}
	if got, err := codec.Decode(codec.Frame("echo", []byte("payload")), decoders, "test"); err != nil || got != "payload" {
		t.Errorf("Decode(Frame(echo, payload)) = %q, %v, want payload, nil", got, err)
	}
	for _, b := range [][]byte{nil, {5, 'e'}, codec.Frame("other", nil)} {
		if _, err := codec.Decode(b, decoders, "test"); err == nil {
			t.Errorf("Decode(%q) succeeded, want an error", b)
		}
	}
}

// FuzzReader reads arbitrary bytes as a payload of every field kind: no
// panic, and no slice longer than the bytes could hold.
func FuzzReader(f *testing.F) {
	var w codec.Writer
	w.Int(2)
	w.F64s([]float64{1, 2})
	w.Ints([]int{1})
	f.Add(w.B)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := codec.NewReader(b, errBad)
		r.Int(1 << 20)
		if v := r.F64s(); len(v) > len(b)/8 {
			t.Fatalf("F64s() read %d values from %d bytes", len(v), len(b))
		}
		r.Ints(10)
		r.F64()
		if err := r.Done(); err != nil && !errors.Is(err, errBad) {
			t.Fatalf("Done() = %v, want nil or %v", err, errBad)
		}
	})
}
