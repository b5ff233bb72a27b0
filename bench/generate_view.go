package bench

import (
	"bufio"
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

// Headers of the view workload's generated files.
var (
	ViewBaseColumns    = []string{"ts", "store", "sales"}
	ViewWeatherColumns = []string{"day", "temp", "rain"}
	ViewStoresColumns  = []string{"store", "region", "size"}
)

// ViewStores is the number of stores (s1 … s50) of the view workload.
const ViewStores = 50

var regions = []string{"north", "south", "east", "west", "central"}

// viewGeneratorVersion is stored in the view manifest; bump it whenever
// WriteViewCSV changes its output so that cached files are regenerated.
const viewGeneratorVersion = 1

// WriteViewCSV writes the three tables of the view workload, each with a
// header line. The output depends only on rows and seed.
//
//	base     rows rows: ts = 2015-01-01 00:00:00 plus i hours (unique,
//	         ascending), store = one of s1 … s50, sales = 0.00 … 9999.99
//	weather  one row per day of base, from 2015-01-01: day (a date),
//	         temp = -20.0 … 39.9, rain = 0 … 49 (integer)
//	stores   s1 … s50: store, region (one of five words), size = 100 … 4999
func WriteViewCSV(base, weather, stores io.Writer, rows int, seed int64) error {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5851f42d4c957f2d))
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	line := make([]byte, 0, 64)
	header := func(cols []string) {
		line = line[:0]
		for i, c := range cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, c...)
		}
		line = append(line, '\n')
	}

	bw := bufio.NewWriterSize(base, 1<<20)
	header(ViewBaseColumns)
	if _, err := bw.Write(line); err != nil {
		return err
	}
	for i := range rows {
		line = line[:0]
		line = start.Add(time.Duration(i)*time.Hour).AppendFormat(line, time.DateTime)
		line = append(line, ",s"...)
		line = strconv.AppendInt(line, int64(1+r.IntN(ViewStores)), 10)
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(r.IntN(1_000_000))/100, 'f', 2, 64)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}

	bw = bufio.NewWriterSize(weather, 1<<16)
	header(ViewWeatherColumns)
	if _, err := bw.Write(line); err != nil {
		return err
	}
	days := 0
	if rows > 0 {
		days = (rows-1)/24 + 1
	}
	for d := range days {
		line = line[:0]
		line = start.AddDate(0, 0, d).AppendFormat(line, time.DateOnly)
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(r.IntN(600)-200)/10, 'f', 1, 64)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.IntN(50)), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}

	bw = bufio.NewWriter(stores)
	header(ViewStoresColumns)
	if _, err := bw.Write(line); err != nil {
		return err
	}
	for s := 1; s <= ViewStores; s++ {
		line = append(line[:0], 's')
		line = strconv.AppendInt(line, int64(s), 10)
		line = append(line, ',')
		line = append(line, regions[r.IntN(len(regions))]...)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(100+r.IntN(4900)), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ViewFiles are the generated inputs of the view workload. Paths are absolute.
type ViewFiles struct {
	Base, Weather, Stores string
	Rows                  int // rows of Base
	Seed                  int64
	BaseBytes             int64
}

type viewManifest struct {
	Version      int   `json:"version"`
	Rows         int   `json:"rows"`
	Seed         int64 `json:"seed"`
	BaseBytes    int64 `json:"baseBytes"`
	WeatherBytes int64 `json:"weatherBytes"`
	StoresBytes  int64 `json:"storesBytes"`
}

// GenerateView writes view-rows<R>-seed<S>-{base,weather,stores}.csv into
// dir, or reuses them when the manifest of an earlier call matches and the
// files still have the recorded sizes, as [Generate] does.
func GenerateView(dir string, rows int, seed int64) (ViewFiles, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ViewFiles{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ViewFiles{}, err
	}
	prefix := filepath.Join(dir, fmt.Sprintf("view-rows%d-seed%d", rows, seed))
	f := ViewFiles{Base: prefix + "-base.csv", Weather: prefix + "-weather.csv", Stores: prefix + "-stores.csv", Rows: rows, Seed: seed}
	manifestPath := prefix + ".json"
	if b, err := os.ReadFile(manifestPath); err == nil {
		var m viewManifest
		if json.Unmarshal(b, &m) == nil && m.Version == viewGeneratorVersion && m.Rows == rows && m.Seed == seed &&
			fileSize(f.Base) == m.BaseBytes && fileSize(f.Weather) == m.WeatherBytes && fileSize(f.Stores) == m.StoresBytes {
			f.BaseBytes = m.BaseBytes
			return f, nil
		}
	}
	os.Remove(manifestPath)
	if err := writeViewFiles(f, rows, seed); err != nil {
		return ViewFiles{}, fmt.Errorf("bench: generate %s: %w", prefix, err)
	}
	f.BaseBytes = fileSize(f.Base)
	m := viewManifest{Version: viewGeneratorVersion, Rows: rows, Seed: seed,
		BaseBytes: f.BaseBytes, WeatherBytes: fileSize(f.Weather), StoresBytes: fileSize(f.Stores)}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return ViewFiles{}, err
	}
	if err := os.WriteFile(manifestPath, append(b, '\n'), 0o644); err != nil {
		return ViewFiles{}, err
	}
	return f, nil
}

func writeViewFiles(f ViewFiles, rows int, seed int64) (err error) {
	paths := []string{f.Base, f.Weather, f.Stores}
	var files []*os.File
	defer func() {
		for _, fh := range files {
			fh.Close()
			if err != nil {
				os.Remove(fh.Name())
			}
		}
	}()
	for _, p := range paths {
		fh, err := os.Create(p + ".tmp")
		if err != nil {
			return err
		}
		files = append(files, fh)
	}
	if err := WriteViewCSV(files[0], files[1], files[2], rows, seed); err != nil {
		return err
	}
	var errs []error
	for i, fh := range files {
		errs = append(errs, fh.Close(), os.Rename(fh.Name(), paths[i]))
	}
	return errors.Join(errs...)
}
