package ingest_test

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

func TestInferType(t *testing.T) {
	tests := []struct {
		values  string // "|"-separated
		missing []string
		want    columnar.DataType
	}{
		{"", nil, columnar.String},
		{" | ", nil, columnar.String},
		{"1|2.5|-3e4", nil, columnar.Numeric},
		{"1||NA", []string{"NA"}, columnar.Numeric},
		{"0|1|1|0", nil, columnar.Numeric},
		{"true|FALSE|True", nil, columnar.Logical},
		{"yes|No", nil, columnar.Logical},
		{"on|OFF", nil, columnar.Logical},
		{"yes|true", nil, columnar.String},
		{"2017-01-01|1-2-2017|2020-01-01 00:00:00", nil, columnar.Date},
		{"2017-01-01|5", nil, columnar.String},
		{"1|x", nil, columnar.String},
		{"inf|1", nil, columnar.String},
		{"good service today|bad service yesterday|the plane was late", nil, columnar.Text},
		{"a b c|a b c|a b c|x y z", nil, columnar.Text},
		{"a b c|a b c|a b c|a b c|x y z", nil, columnar.String},
		{"two words|two more", nil, columnar.String},
	}
	for _, tt := range tests {
		var vals [][]byte
		if tt.values != "" {
			for _, v := range strings.Split(tt.values, "|") {
				vals = append(vals, []byte(v))
			}
		}
		if got := ingest.InferType(vals, tt.missing); got != tt.want {
			t.Errorf("InferType(%q) = %s, want %s", tt.values, got, tt.want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "1.", ".5", "+1.25", "123456789012345", "1234567890123456789", "0.1", "0.3",
		"3.14159265358979", "1e10", "1E-5", "000000000000000000001", "99999999999999.9", "9007199254740993",
		"0.000000000000000000001", "1234.5678901234567"} {
		want, err := strconv.ParseFloat(s, 64)
		got, ok := ingest.ParseNumber([]byte(" " + s + " "))
		if err != nil || !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("ParseNumber(%q) = %v, %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", " ", "-", ".", "1.2.3", "1e", "NaN", "inf", "-Infinity", "1e400", "1_000", "0x1p-2", "12a", "--1"} {
		if got, ok := ingest.ParseNumber([]byte(s)); ok {
			t.Errorf("ParseNumber(%q) = %v, true, want false", s, got)
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "-0.5", "1e3", "123456789012345.6", "0x1p3", " 7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ingest.ParseNumber([]byte(s))
		trimmed := strings.Trim(s, " \t")
		want, err := strconv.ParseFloat(trimmed, 64)
		wantOK := err == nil && !math.IsInf(want, 0) && !math.IsNaN(want) &&
			strings.Trim(trimmed, "0123456789+-.eE") == ""
		if ok != wantOK || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ParseNumber(%q) = %v, %v; strconv says %v, %v", s, got, ok, want, err)
		}
	})
}

// FuzzInfer checks that the inferred type accepts every value it saw.
func FuzzInfer(f *testing.F) {
	f.Add([]byte("1\n2\nNA"))
	f.Add([]byte("true\nfalse"))
	f.Add([]byte("2017-01-01\n1/2/2017 4:00 PM"))
	f.Add([]byte("a b c\nd e f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := bytes.Split(data, []byte("\n"))
		got := ingest.InferType(vals, []string{"NA"})
		if again := ingest.InferType(vals, []string{"NA"}); again != got {
			t.Fatalf("InferType not deterministic: %s then %s", got, again)
		}
		for _, v := range vals {
			v = bytes.Trim(v, " \t")
			if len(v) == 0 || string(v) == "NA" {
				continue
			}
			switch got {
			case columnar.Numeric:
				if _, ok := ingest.ParseNumber(v); !ok {
					t.Fatalf("InferType = numeric but %q is not a number", v)
				}
			case columnar.Date:
				if _, ok := columnar.ParseTimeBytes(v); !ok {
					t.Fatalf("InferType = date but %q is not a date", v)
				}
			case columnar.Logical:
				switch strings.ToLower(string(v)) {
				case "true", "false", "yes", "no", "on", "off":
				default:
					t.Fatalf("InferType = logical but %q is not a logical word", v)
				}
			}
		}
	})
}
