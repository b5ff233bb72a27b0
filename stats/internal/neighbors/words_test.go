package neighbors_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/neighbors"
)

// wordRows is n rows of dim dense coordinates and words columns of about
// nnz non-zeros each (coarse values, so that many distances tie; rows
// 1, 2 repeat row 0; word column 0 is constant 1 and column 1 empty, both
// left out), as a CSR and as dense rows.
func wordRows(n, dim, words, nnz int, seed uint64) ([]float64, *stats.CSR, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 3))
	dense := make([]float64, n*dim)
	for i := range dense {
		dense[i] = math.Round(rng.NormFloat64())
	}
	csr := stats.NewCSR(n, words, 0)
	full := mat.NewDense(n, words, nil)
	for i := range n {
		if i == 1 || i == 2 {
			copy(dense[i*dim:(i+1)*dim], dense[:dim])
			c, v := csr.Row(0)
			csr.AppendRow(slices.Clone(c), slices.Clone(v))
			full.SetRow(i, full.RawRowView(0))
			continue
		}
		present := map[int32]bool{0: true}
		for range nnz {
			present[int32(2+rng.IntN(words-2))] = true
		}
		var c []int32
		for j := range present {
			c = append(c, j)
		}
		slices.Sort(c)
		v := make([]float64, len(c))
		for t, j := range c {
			v[t] = 1
			if j != 0 {
				v[t] = float64(1 + rng.IntN(3))
			}
			full.Set(i, int(j), v[t])
		}
		csr.AppendRow(c, v)
	}
	return dense, csr, full
}

// TestWordIndexMatchesBrute checks that the sparse search returns exactly
// brute force over the dense rows of the dense coordinates then the
// words divided by their scale (SD: the pooled factor; zero-variance ones dropped): same rows, same
// bit-identical distances, ties by row; repeated rows at distance 0.
func TestWordIndexMatchesBrute(t *testing.T) {
	const n, dim, words = 600, 2, 40
	dense, csr, full := wordRows(n, dim, words, 4, 1)
	ix := neighbors.NewWordIndex(dense, n, dim, csr)
	sd := ix.SD()
	if sd[0] != 0 || sd[1] != 0 {
		t.Fatalf("constant and empty word columns have sd %v, %v, want 0", sd[0], sd[1])
	}
	var keep []int
	for j, s := range sd {
		if s > 0 {
			keep = append(keep, j)
		}
	}
	width := dim + len(keep)
	rows := make([]float64, n*width)
	for i := range n {
		copy(rows[i*width:], dense[i*dim:(i+1)*dim])
		for t, j := range keep {
			rows[i*width+dim+t] = full.At(i, j) / sd[j]
		}
	}
	brute := neighbors.New(rows, n, width)
	var sb, sw neighbors.Searcher
	q := make([]float64, width)
	for qi := range 150 {
		i := qi * 4 % n
		copy(q, rows[i*width:(i+1)*width])
		if qi%2 == 1 {
			q[0] += 0.5 // off the training rows
		}
		wc, wv := csr.Row(i)
		for _, k := range []int{1, 3, 10, 20} {
			want := slices.Clone(brute.Search(q, k, &sb))
			if got := ix.Search(q[:dim], wc, wv, k, &sw); !slices.Equal(got, want) {
				t.Fatalf("query row %d, k %d: sparse %v, brute %v", i, k, got, want)
			}
		}
	}
	got := ix.Search(dense[:dim], csr.Indices[:csr.Indptr[1]], csr.Data[:csr.Indptr[1]], 3, &sw)
	if len(got) != 3 || got[0] != (neighbors.Neighbor{Row: 0}) || got[1] != (neighbors.Neighbor{Row: 1}) || got[2] != (neighbors.Neighbor{Row: 2}) {
		t.Fatalf("row 0 and its two copies: %v, want rows 0, 1, 2 at distance exactly 0", got)
	}
	if got := ix.Search(dense[:dim], nil, nil, n+5, &sw); len(got) != n {
		t.Fatalf("k beyond the rows gave %d, want %d", len(got), n)
	}
}

// Far from the origin (large norms, small differences) the expanded
// distance ‖q‖² + ‖r‖² − 2q·r cancels; the search still ranks by exact
// distances.
func TestWordIndexCancellation(t *testing.T) {
	const n = 50
	csr := stats.NewCSR(n, 3, 0)
	for i := range n {
		// column 0 nearly constant and large once scaled; 1 and 2 vary a little
		csr.AppendRow([]int32{0, 1, 2}, []float64{1e6 + float64(i%2), 1 + 1e-9*float64(i), 2})
	}
	csr.AppendRow(nil, nil) // one empty row, so every column varies
	csr.Rows = n + 1
	ix := neighbors.NewWordIndex(nil, n+1, 0, csr)
	var sr neighbors.Searcher
	for i := range n {
		wc, wv := csr.Row(i)
		got := ix.Search(nil, wc, wv, 1, &sr)
		if got[0].Row != i || got[0].D2 != 0 {
			t.Fatalf("row %d's nearest is %v, want itself at distance 0", i, got)
		}
	}
}

// NewWordIndex scales every varying word column by the pooled factor
// sqrt(mean of their sample variances), computed here by two passes over
// the dense columns: each varying column's SD is that one value, the
// constant and empty columns 0 (left out), the kept words are the raw
// values divided by it, and the scaled block's variances sum to the
// number of varying columns, as z-scored columns' would.
func TestWordIndexPooledScale(t *testing.T) {
	const n, dim, words = 300, 1, 30
	dense, csr, full := wordRows(n, dim, words, 3, 5)
	variance := make([]float64, words)
	var sum float64
	var varying int
	for j := range words {
		var mean float64
		for i := range n {
			mean += full.At(i, j)
		}
		mean /= n
		for i := range n {
			d := full.At(i, j) - mean
			variance[j] += d * d
		}
		variance[j] /= n - 1
		if j >= 2 { // wordRows: column 0 constant, 1 empty
			if variance[j] == 0 {
				t.Fatalf("word column %d does not vary", j)
			}
			sum += variance[j]
			varying++
		}
	}
	pooled := math.Sqrt(sum / float64(varying))
	ix := neighbors.NewWordIndex(dense, n, dim, csr)
	sd := ix.SD()
	if sd[0] != 0 || sd[1] != 0 {
		t.Fatalf("constant and empty word columns have scale %v, %v, want 0", sd[0], sd[1])
	}
	for j := 2; j < words; j++ {
		if sd[j] != sd[2] || math.Abs(sd[j]-pooled) > 1e-12*pooled {
			t.Fatalf("word column %d (variance %g) scaled by %g, want the pooled %g for every column", j, variance[j], sd[j], pooled)
		}
	}
	var total float64
	for j := 2; j < words; j++ {
		total += variance[j] / (sd[j] * sd[j])
	}
	if math.Abs(total-float64(varying)) > 1e-9*float64(varying) {
		t.Fatalf("scaled words' variances sum to %g, want %d", total, varying)
	}
	w := ix.Words()
	for i := range n {
		rc, rv := csr.Row(i)
		wc, wv := w.Row(i)
		if len(wc) != len(rc)-1 || rc[0] != 0 { // every row holds the constant column 0, left out
			t.Fatalf("row %d keeps %v of %v", i, wc, rc)
		}
		for u, j := range wc {
			if j != rc[u+1] || wv[u] != rv[u+1]/sd[j] {
				t.Fatalf("row %d word %d: kept %g, want %g / %g", i, j, wv[u], rv[u+1], sd[j])
			}
		}
	}
}

// A decoded index rejects parts that do not fit together.
func TestDecodeWordIndexRejects(t *testing.T) {
	dense, csr, _ := wordRows(20, 1, 10, 3, 2)
	ix := neighbors.NewWordIndex(dense, 20, 1, csr)
	if _, err := neighbors.DecodeWordIndex(ix.Dense(), 20, 1, ix.SD(), ix.Words()); err != nil {
		t.Fatalf("a sound index: %v", err)
	}
	w := ix.Words()
	bad := []func() (*stats.CSR, []float64){
		func() (*stats.CSR, []float64) { c := *w; c.Rows = 19; return &c, ix.SD() },
		func() (*stats.CSR, []float64) { return w, ix.SD()[:9] },
		func() (*stats.CSR, []float64) {
			c := *w
			c.Indices = slices.Clone(w.Indices)
			c.Indices[0] = 0 // a left-out column
			return &c, ix.SD()
		},
		func() (*stats.CSR, []float64) {
			c := *w
			c.Indptr = slices.Clone(w.Indptr)
			c.Indptr[5], c.Indptr[6] = c.Indptr[6], c.Indptr[5]-1
			return &c, ix.SD()
		},
		func() (*stats.CSR, []float64) {
			s := slices.Clone(ix.SD())
			s[3] = math.NaN()
			return w, s
		},
	}
	for i, b := range bad {
		c, s := b()
		if _, err := neighbors.DecodeWordIndex(ix.Dense(), 20, 1, s, c); err == nil {
			t.Errorf("bad part %d decoded", i)
		}
	}
}

// SplitRows reads a SparseMatrix in place and dense rows of every column
// alike.
func TestSplitRows(t *testing.T) {
	dense, csr, full := wordRows(30, 2, 12, 3, 4)
	dm := mat.NewDense(30, 2, dense)
	all := mat.NewDense(30, 14, nil)
	for i := range 30 {
		copy(all.RawRowView(i), dm.RawRowView(i))
		copy(all.RawRowView(i)[2:], full.RawRowView(i))
	}
	type split struct {
		row []float64
		wc  []int32
		wv  []float64
	}
	var a, b []split
	neighbors.SplitRows(stats.NewSparseMatrix(dm, csr), 2, func(_ int, row []float64, wc []int32, wv []float64) {
		a = append(a, split{slices.Clone(row), slices.Clone(wc), slices.Clone(wv)})
	})
	neighbors.SplitRows(all, 2, func(_ int, row []float64, wc []int32, wv []float64) {
		b = append(b, split{slices.Clone(row), slices.Clone(wc), slices.Clone(wv)})
	})
	for i := range a {
		if !slices.Equal(a[i].row, b[i].row) || !slices.Equal(a[i].wc, b[i].wc) || !slices.Equal(a[i].wv, b[i].wv) {
			t.Fatalf("row %d: sparse %v, dense %v", i, a[i], b[i])
		}
	}
}
