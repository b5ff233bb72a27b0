package statstest_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/internal/statstest"
)

func TestReadCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,x\n2,y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	header, recs := statstest.ReadCSV(t, path)
	if !slices.Equal(header, []string{"a", "b"}) || len(recs) != 2 || !slices.Equal(recs[1], []string{"2", "y"}) {
		t.Errorf("ReadCSV = %v, %v, want [a b], [[1 x] [2 y]]", header, recs)
	}
}

func TestReadFolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "folds.txt")
	if err := os.WriteFile(path, []byte("0 3\n1 2 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	folds := statstest.ReadFolds(t, path)
	if len(folds) != 2 || !slices.Equal(folds[0], []int{0, 3}) || !slices.Equal(folds[1], []int{1, 2, 4}) {
		t.Errorf("ReadFolds = %v, want [[0 3] [1 2 4]]", folds)
	}
}

func TestDense(t *testing.T) {
	var calls [][2]int
	x := statstest.Dense(2, 3, func(i, j int) float64 {
		calls = append(calls, [2]int{i, j})
		return float64(10*i + j)
	})
	if got := x.RawMatrix().Data; !slices.Equal(got, []float64{0, 1, 2, 10, 11, 12}) {
		t.Errorf("Dense(2, 3, 10i+j) = %v, want [0 1 2 10 11 12]", got)
	}
	if calls[1] != [2]int{0, 1} || calls[3] != [2]int{1, 0} {
		t.Errorf("Dense called f in order %v, want row by row", calls)
	}
}
