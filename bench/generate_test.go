package bench_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

func genCSV(t testing.TB, rows int, seed int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := bench.WriteCSV(&buf, rows, seed); err != nil {
		t.Fatalf("WriteCSV(%d, %d) = %v", rows, seed, err)
	}
	return buf.Bytes()
}

func TestWriteCSVDeterministic(t *testing.T) {
	a, b := genCSV(t, 1000, 7), genCSV(t, 1000, 7)
	if !bytes.Equal(a, b) {
		t.Errorf("WriteCSV(1000, 7) differs between calls")
	}
	if c := genCSV(t, 1000, 8); bytes.Equal(a, c) {
		t.Errorf("WriteCSV(1000, 7) = WriteCSV(1000, 8), want different data")
	}
	// A shorter table is a prefix of a longer one with the same seed.
	if p := genCSV(t, 10, 7); !bytes.HasPrefix(a, p) {
		t.Errorf("WriteCSV(10, 7) is not a prefix of WriteCSV(1000, 7)")
	}
}

func TestWriteCSVShape(t *testing.T) {
	const rows = 5000
	data := genCSV(t, rows, 1)
	if perRow := float64(len(data)) / rows; perRow < 60 || perRow > 72 {
		t.Errorf("bytes per row = %.1f, want about 65", perRow)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("parse generated CSV: %v", err)
	}
	if got, want := strings.Join(recs[0], ","), "ts,a,b,c,d,e,s1,s2"; got != want {
		t.Errorf("header = %q, want %q", got, want)
	}
	if len(recs) != rows+1 {
		t.Fatalf("records = %d, want %d", len(recs), rows+1)
	}
	s2 := regexp.MustCompile(`^[a-z]+-[0-9]{1,3}$`)
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	words := map[string]bool{}
	for i, rec := range recs[1:] {
		ts, err := time.Parse(time.DateTime, rec[0])
		if err != nil {
			t.Fatalf("row %d: ts %q: %v", i, rec[0], err)
		}
		if want := start.Add(time.Duration(i) * time.Minute); !ts.Equal(want) {
			t.Fatalf("row %d: ts = %v, want %v", i, ts, want)
		}
		for j, v := range rec[1:6] {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("row %d: column %s = %q, not a number", i, recs[0][j+1], v)
			}
		}
		words[rec[6]] = true
		if !s2.MatchString(rec[7]) {
			t.Fatalf("row %d: s2 = %q, want word-N", i, rec[7])
		}
	}
	if len(words) < 5 || len(words) > 12 {
		t.Errorf("distinct s1 = %d, want about 10", len(words))
	}
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	f, err := bench.Generate(dir, 2000, 3)
	if err != nil {
		t.Fatalf("Generate = %v", err)
	}
	want := genCSV(t, 2000, 3)
	got, err := os.ReadFile(f.CSV)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || f.CSVBytes != int64(len(want)) {
		t.Errorf("Generate wrote %d bytes (reported %d), want WriteCSV's %d", len(got), f.CSVBytes, len(want))
	}
	gz, err := os.Open(f.Gzip)
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unzipped, want) {
		t.Errorf("gunzip(%s) differs from the CSV", f.Gzip)
	}

	// A second call reuses the files.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(f.CSV, old, old)
	if _, err := bench.Generate(dir, 2000, 3); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(f.CSV); !st.ModTime().Equal(old) {
		t.Errorf("Generate rewrote %s, want it reused", f.CSV)
	}

	// A truncated file is regenerated.
	if err := os.Truncate(f.CSV, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Generate(dir, 2000, 3); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(f.CSV); !bytes.Equal(got, want) {
		t.Errorf("Generate after truncation: %d bytes, want %d", len(got), len(want))
	}
}

func TestGenerateView(t *testing.T) {
	dir := t.TempDir()
	f, err := bench.GenerateView(dir, 49, 7)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := os.ReadFile(f.Base)
	weather, _ := os.ReadFile(f.Weather)
	stores, _ := os.ReadFile(f.Stores)
	lines := func(b []byte) []string { return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") }
	bl, wl, sl := lines(base), lines(weather), lines(stores)
	if len(bl) != 50 || bl[0] != "ts,store,sales" || !strings.HasPrefix(bl[1], "2015-01-01 00:00:00,s") ||
		!strings.HasPrefix(bl[49], "2015-01-03 00:00:00,s") {
		t.Errorf("base = %q … %q (%d lines)", bl[0], bl[len(bl)-1], len(bl))
	}
	// 49 hourly rows span three days.
	if len(wl) != 4 || wl[0] != "day,temp,rain" || !strings.HasPrefix(wl[3], "2015-01-03,") {
		t.Errorf("weather = %q", wl)
	}
	if len(sl) != 51 || sl[0] != "store,region,size" || !strings.HasPrefix(sl[50], "s50,") {
		t.Errorf("stores = %q … (%d lines)", sl[0], len(sl))
	}
	if f.BaseBytes != int64(len(base)) {
		t.Errorf("BaseBytes = %d, want %d", f.BaseBytes, len(base))
	}
	// Reused when present; the same rows and seed give the same bytes.
	st, _ := os.Stat(f.Base)
	g, err := bench.GenerateView(dir, 49, 7)
	if err != nil || g != f {
		t.Fatalf("GenerateView again = %+v, %v, want %+v", g, err, f)
	}
	if st2, _ := os.Stat(f.Base); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("GenerateView rewrote files it could reuse")
	}
	var b1, b2, w1, s1 bytes.Buffer
	bench.WriteViewCSV(&b1, &w1, &s1, 49, 7)
	bench.WriteViewCSV(&b2, io.Discard, io.Discard, 49, 7)
	if b1.String() != string(base) || b2.String() != string(base) {
		t.Error("WriteViewCSV is not deterministic")
	}
}
