// Package statstest holds test helpers the stats families share: reading
// the reference data sets and cross-validation folds their testdata
// folders keep, building small matrices, and rescaling word columns
// (EqualWordVariance). It is imported by tests only; of the module it
// imports stats only.
package statstest

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads the CSV file at path (relative to the test's package
// folder, so usually "testdata/<name>.csv") and returns its header and
// its records. It fails tb when the file cannot be read or parsed, or has
// no record after the header.
func ReadCSV(tb testing.TB, path string) (header []string, records [][]string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		tb.Fatalf("%s: %d lines, want a header and at least one record", path, len(recs))
	}
	return recs[0], recs[1:]
}

// ReadFolds reads the file at path as the test indices of cross-validation
// folds, one fold a line, indices separated by spaces (as the reference
// scripts write them).
func ReadFolds(tb testing.TB, path string) [][]int {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var folds [][]int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var fold []int
		for _, s := range strings.Fields(line) {
			i, err := strconv.Atoi(s)
			if err != nil {
				tb.Fatalf("%s: %v", path, err)
			}
			fold = append(fold, i)
		}
		folds = append(folds, fold)
	}
	return folds
}

// Dense returns the n×p matrix with entries f(i, j), called row by row
// (so a generator drawing from one stream fills it reproducibly): the
// small hand-made inputs of the degenerate-data tests.
func Dense(n, p int, f func(i, j int) float64) *mat.Dense {
	x := mat.NewDense(n, p, nil)
	for i := range n {
		for j := range p {
			x.Set(i, j, f(i, j))
		}
	}
	return x
}
