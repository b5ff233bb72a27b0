package bench

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Columns is the header of the generated CSV file: a timestamp, five
// numeric columns and two string columns.
var Columns = []string{"ts", "a", "b", "c", "d", "e", "s1", "s2"}

// Column kinds of [Columns], used to build the anchor's statistics query.
var (
	timestampColumns = []string{"ts"}
	numericColumns   = []string{"a", "b", "c", "d", "e"}
	stringColumns    = []string{"s1", "s2"}
)

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}

// generatorVersion is stored in the manifest; bump it whenever WriteCSV
// changes its output so that cached files are regenerated.
const generatorVersion = 1

// WriteCSV writes the benchmark table, rows rows after a header line, to w.
// The output depends only on rows and seed. Row i (from 0) holds:
//
//	ts  2015-01-01 00:00:00 plus i minutes (unique, ascending)
//	a   0.00 … 999.99          two decimals
//	b   0 … 9999               integer
//	c   -99.999 … 99.999       three decimals
//	d   0.0000 … 0.9999        four decimals
//	e   0 … 99                 integer
//	s1  one of ten words, skewed towards the first ones
//	s2  word-N, N in 0 … 999
//
// A row takes about 66 bytes, so 2 M rows make about 130 MB.
func WriteCSV(w io.Writer, rows int, seed int64) error {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	bw := bufio.NewWriterSize(w, 1<<20)
	line := make([]byte, 0, 128)
	for i, c := range Columns {
		if i > 0 {
			line = append(line, ',')
		}
		line = append(line, c...)
	}
	line = append(line, '\n')
	if _, err := bw.Write(line); err != nil {
		return err
	}
	for i := range rows {
		line = line[:0]
		line = start.Add(time.Duration(i)*time.Minute).AppendFormat(line, time.DateTime)
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(r.IntN(100_000))/100, 'f', 2, 64)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.IntN(10_000)), 10)
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(r.IntN(200_000)-100_000)/1000, 'f', 3, 64)
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(r.IntN(10_000))/10_000, 'f', 4, 64)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.IntN(100)), 10)
		line = append(line, ',')
		line = append(line, words[min(r.IntN(len(words)), r.IntN(len(words)))]...)
		line = append(line, ',')
		line = append(line, words[r.IntN(len(words))]...)
		line = append(line, '-')
		line = strconv.AppendInt(line, int64(r.IntN(1000)), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Files are the generated inputs of one (rows, seed) pair. Paths are absolute.
type Files struct {
	CSV       string // plain CSV
	Gzip      string // the same bytes, gzip-compressed (.csv.gz)
	Rows      int
	Seed      int64
	CSVBytes  int64
	GzipBytes int64
}

type manifest struct {
	Version   int   `json:"version"`
	Rows      int   `json:"rows"`
	Seed      int64 `json:"seed"`
	CSVBytes  int64 `json:"csvBytes"`
	GzipBytes int64 `json:"gzipBytes"`
}

// Generate writes rows<R>-seed<S>.csv and .csv.gz into dir, creating dir if
// needed, or reuses them when a manifest written by an earlier call matches
// and both files still have the recorded sizes. Files are written under
// temporary names and renamed, so an interrupted run leaves nothing that
// looks complete.
func Generate(dir string, rows int, seed int64) (Files, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Files{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Files{}, err
	}
	base := filepath.Join(dir, fmt.Sprintf("rows%d-seed%d", rows, seed))
	f := Files{CSV: base + ".csv", Gzip: base + ".csv.gz", Rows: rows, Seed: seed}
	manifestPath := base + ".json"
	if m, ok := readManifest(manifestPath); ok && m.Version == generatorVersion &&
		m.Rows == rows && m.Seed == seed && fileSize(f.CSV) == m.CSVBytes && fileSize(f.Gzip) == m.GzipBytes {
		f.CSVBytes, f.GzipBytes = m.CSVBytes, m.GzipBytes
		return f, nil
	}
	os.Remove(manifestPath)
	if err := writeFiles(f.CSV, f.Gzip, rows, seed); err != nil {
		return Files{}, fmt.Errorf("bench: generate %s: %w", base, err)
	}
	f.CSVBytes, f.GzipBytes = fileSize(f.CSV), fileSize(f.Gzip)
	m := manifest{Version: generatorVersion, Rows: rows, Seed: seed, CSVBytes: f.CSVBytes, GzipBytes: f.GzipBytes}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Files{}, err
	}
	if err := os.WriteFile(manifestPath, append(b, '\n'), 0o644); err != nil {
		return Files{}, err
	}
	return f, nil
}

func writeFiles(csvPath, gzPath string, rows int, seed int64) (err error) {
	csvTmp, gzTmp := csvPath+".tmp", gzPath+".tmp"
	cf, err := os.Create(csvTmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(csvTmp)
			os.Remove(gzTmp)
		}
	}()
	defer cf.Close()
	gf, err := os.Create(gzTmp)
	if err != nil {
		return err
	}
	defer gf.Close()
	gbw := bufio.NewWriterSize(gf, 1<<20)
	zw := gzip.NewWriter(gbw)
	if err := WriteCSV(io.MultiWriter(cf, zw), rows, seed); err != nil {
		return err
	}
	err = errors.Join(zw.Close(), gbw.Flush(), gf.Close(), cf.Close())
	if err != nil {
		return err
	}
	return errors.Join(os.Rename(csvTmp, csvPath), os.Rename(gzTmp, gzPath))
}

func readManifest(path string) (manifest, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return manifest{}, false
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return manifest{}, false
	}
	return m, true
}

// fileSize returns the size of path, or -1 when it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}
