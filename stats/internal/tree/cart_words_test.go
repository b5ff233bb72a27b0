package tree

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats"
)

// wordData is random training data of n rows: d dense columns
// (column-major), nw word columns as a CSR with about density of each
// row's words non-zero (values in (0, 1], or in [−1, 1] \ {0} when neg),
// and the same columns as one dense column-major block of d+nw columns.
func wordData(rng *rand.Rand, n, d, nw int, density float64, neg bool) (x []float64, words *stats.CSR, dense []float64) {
	x = make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	dense = make([]float64, n*(d+nw))
	copy(dense, x)
	words = stats.NewCSR(n, nw, 0)
	for i := range n {
		var cols []int32
		var vals []float64
		for j := range nw {
			if rng.Float64() >= density {
				continue
			}
			v := float64(1+rng.IntN(8)) / 8 // ties within a word included
			if neg && rng.IntN(2) == 0 {
				v = -v
			}
			cols = append(cols, int32(j))
			vals = append(vals, v)
			dense[(d+j)*n+i] = v
		}
		words.AppendRow(cols, vals)
	}
	return x, words, dense
}

// leafOf is the leaf tree t sends row i of column-major x (n rows,
// width columns) to.
func leafOf(t []Node, x []float64, n, width, i int) int32 {
	row := make([]float64, width)
	for j := range row {
		row[j] = x[j*n+i]
	}
	return Find(t, row)
}

// TestSparseCARTEqualsDense grows one tree on the same data given as
// dense columns only and as dense columns plus CSR words (none, some or
// many dense columns; words with negative values too; regression and
// classes) with every feature tried: both trees must put every training
// row in leaves of the same value (distribution), and their total gains
// must agree (also with a bootstrap), up to rounding (1e-9 relative: the zero group's sums are
// node totals less the non-zeros', and a text-only node sums its rows in
// index order rather than in column 0's). The trees need not be
// identical: the candidates are drawn in another order, so of two
// features that split a node's rows the same way (frequent with sparse
// words in small nodes) either may be chosen, and the threshold differs;
// the weights are continuous so two different partitions do not tie.
func TestSparseCARTEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial, c := range []struct {
		d, nw, k, minLeaf int
		density           float64
		neg               bool
	}{
		{0, 40, 0, 3, 0.2, false},
		{2, 600, 0, 5, 0.03, false},
		{3, 30, 0, 1, 0.3, true},
		{0, 50, 3, 1, 0.2, false},
		{2, 600, 2, 2, 0.03, false},
		{1, 30, 3, 1, 0.3, true},
	} {
		n := 300
		x, words, dense := wordData(rng, n, c.d, c.nw, c.density, c.neg)
		y, w := make([]float64, n), make([]float64, n)
		for i := range y {
			w[i] = 0.5 + rng.Float64()
			y[i] = rng.NormFloat64()
			if c.k > 0 {
				y[i] = float64(rng.IntN(c.k))
			}
			if _, vals := words.Row(i); c.k == 0 { // a signal in the words
				for _, v := range vals {
					y[i] += 3 * v
				}
			}
		}
		width := c.d + c.nw
		p := CARTParams{MTry: width, MinLeaf: c.minLeaf} // no bootstrap: every row is a training row
		sp := NewSparseCARTData(x, words, y, w, c.d, c.k)
		if sp.Width() != width {
			t.Fatalf("trial %d: width %d, want %d", trial, sp.Width(), width)
		}
		fs := GrowForest(sp, p, 3, 7, "t", 2)
		fd := GrowForest(NewCARTData(dense, y, w, width, c.k), p, 3, 7, "t", 1)
		if len(fs.Gain) != width {
			t.Fatalf("trial %d: %d gains, want %d", trial, len(fs.Gain), width)
		}
		sum := func(g []float64) (s float64) {
			for _, v := range g {
				s += v
			}
			return s
		}
		if gs, gd := sum(fs.Gain), sum(fd.Gain); math.Abs(gs-gd) > 1e-9*math.Abs(gd) {
			t.Errorf("trial %d: total gain %.15g sparse, %.15g dense", trial, gs, gd)
		}
		// With a bootstrap (the same draws: they come first), the in-bag
		// compaction of the words too; out-of-bag rows may land apart.
		pb := p
		pb.Draws = n
		bs := GrowForest(sp, pb, 3, 7, "t", 1)
		bd := GrowForest(NewCARTData(dense, y, w, width, c.k), pb, 3, 7, "t", 2)
		if gs, gd := sum(bs.Gain), sum(bd.Gain); math.Abs(gs-gd) > 1e-9*math.Abs(gd) {
			t.Errorf("trial %d: bootstrap total gain %.15g sparse, %.15g dense", trial, gs, gd)
		}
		for tr := range fs.Trees {
			for i := range n {
				ls, ld := leafOf(fs.Trees[tr], dense, n, width, i), leafOf(fd.Trees[tr], dense, n, width, i)
				if c.k == 0 {
					vs, vd := fs.Trees[tr][ls].V, fd.Trees[tr][ld].V
					if math.Abs(vs-vd) > 1e-9*(1+math.Abs(vd)) {
						t.Fatalf("trial %d tree %d row %d: leaf %.15g sparse, %.15g dense", trial, tr, i, vs, vd)
					}
					continue
				}
				ds := fs.Dist[tr][int(ls)*c.k : int(ls+1)*c.k]
				dd := fd.Dist[tr][int(ld)*c.k : int(ld+1)*c.k]
				for j := range ds {
					if math.Abs(ds[j]-dd[j]) > 1e-9 {
						t.Fatalf("trial %d tree %d row %d: distribution %v sparse, %v dense", trial, tr, i, ds, dd)
					}
				}
			}
		}
		// Words are split on, and a word's splits can only be where it is
		// present in the training rows.
		used := 0
		for _, nodes := range fs.Trees {
			for _, nd := range nodes {
				if int(nd.Feat) >= c.d {
					used++
				}
			}
		}
		if c.nw > 0 && used == 0 {
			t.Errorf("trial %d: no split on a word", trial)
		}
	}
}

// TestSparseCARTData checks the value-sorted CSC: stored zeros dropped,
// each word's non-zeros by increasing value and, on ties, by row.
func TestSparseCARTData(t *testing.T) {
	words := stats.NewCSR(4, 2, 0)
	words.AppendRow([]int32{0, 1}, []float64{0.5, -1})
	words.AppendRow([]int32{0}, []float64{0.25})
	words.AppendRow([]int32{0, 1}, []float64{0.5, 0})
	words.AppendRow([]int32{1}, []float64{2})
	cd := NewSparseCARTData(nil, words, make([]float64, 4), nil, 0, 0)
	if !slices.Equal(cd.wp, []int32{0, 3, 5}) || !slices.Equal(cd.wr, []int32{1, 0, 2, 0, 3}) ||
		!slices.Equal(cd.wv, []float64{0.25, 0.5, 0.5, -1, 2}) {
		t.Errorf("CSC %v %v %v", cd.wp, cd.wr, cd.wv)
	}
	defer func() {
		if recover() == nil {
			t.Error("NaN word: no panic")
		}
	}()
	words.AppendRow([]int32{1}, []float64{math.NaN()})
	NewSparseCARTData(nil, words, make([]float64, 5), nil, 0, 0)
}
