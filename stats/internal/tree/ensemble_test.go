package tree

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomRows are n rows of d values drawn from the thresholds of trees
// (ties with a split), their neighbours, ±0, ±Inf, NaN and normal values.
func randomRows(rng *rand.Rand, trees [][]Node, n, d int) *mat.Dense {
	var thr []float64
	for _, t := range trees {
		for _, nd := range t {
			if nd.Feat >= 0 {
				thr = append(thr, nd.V)
			}
		}
	}
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			v := rng.NormFloat64()
			switch c := rng.IntN(20); {
			case c == 0:
				v = math.NaN()
			case c == 1:
				v = math.Inf(1 - 2*rng.IntN(2))
			case c == 2:
				v = math.Copysign(0, float64(rng.IntN(2)*2-1))
			case c < 12 && len(thr) > 0:
				v = thr[rng.IntN(len(thr))]
				if c > 8 {
					v = math.Nextafter(v, math.Inf(c-10))
				}
			}
			x.Set(i, j, v)
		}
	}
	return x
}

// checkEnsemble fails t unless e's leaves are Find's and its Predict is
// the per-row sum of Leaf to the bit, on the rows of x.
func checkEnsemble(t *testing.T, e *Ensemble, x *mat.Dense, name string) {
	t.Helper()
	n, _ := x.Dims()
	trees := e.Trees()
	e.Walk(x, func(lo, k int, leaves []int32) {
		for i, leaf := range leaves {
			if want := Find(trees[k], x.RawRowView(lo+i)); leaf != want {
				t.Fatalf("%s: row %d tree %d: Walk leaf %d, Find %d", name, lo+i, k, leaf, want)
			}
		}
	})
	got := make([]float64, n)
	e.Predict(0.5, 0.25, x, got)
	for i := range n {
		sum := 0.0
		for _, tr := range trees {
			sum += Leaf(tr, x.RawRowView(i))
		}
		if want := 0.5 + 0.25*sum; math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("%s: row %d: Predict %v, want %v", name, i, got[i], want)
		}
	}
}

// The packed walk reaches Find's leaves and sums the trees as the
// per-row walk does, to the bit, on rows that tie with thresholds or sit
// next to them, NaN, ±Inf and −0 included, in blocks and lanes and the
// rows left over; so does the plain walk a forest falls back to.
func TestEnsemble(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 60 {
		d := 1 + rng.IntN(6)
		trees := make([][]Node, 1+rng.IntN(12))
		for k := range trees {
			trees[k] = randomTree(rng, d, 1+rng.IntN(14))
			for i := range trees[k] {
				nd := &trees[k][i]
				switch c := rng.IntN(30); {
				case nd.Feat < 0:
				case c == 0:
					nd.V = math.Copysign(0, -1)
				case c == 1:
					nd.V = 0
				case c == 2:
					nd.V = math.Inf(1)
				case c < 10:
					nd.V = math.Round(nd.V * 4) // shared thresholds
				}
			}
		}
		n := 1 + rng.IntN(2*ensembleRows+3*Lanes)
		x := randomRows(rng, trees, n, d)
		e := NewEnsemble(trees, d)
		if e.layout(ensembleMinRows) == nil {
			t.Fatalf("trial %d: forest of %d features not packed", trial, d)
		}
		checkEnsemble(t, e, x, "packed")
		if trial%10 == 0 {
			trees[0][0].V = math.NaN() // a NaN threshold keeps the plain walk
			if trees[0][0].Feat < 0 {
				continue
			}
			e := NewEnsemble(trees, d)
			if e.layout(ensembleMinRows) != nil {
				t.Fatalf("trial %d: NaN threshold packed", trial)
			}
			checkEnsemble(t, e, x, "plain")
		}
	}
}

// An Ensemble lays out its packed form on its first walk of
// ensembleMinRows rows and no earlier, and walks concurrently while it
// does: small walks before take the plain walk, every walk predicts the
// same (go test -race checks the hand-over).
func TestEnsembleLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d = 4
	trees := make([][]Node, 20)
	for k := range trees {
		trees[k] = randomTree(rng, d, 12)
	}
	small := randomRows(rng, trees, ensembleMinRows-1, d)
	big := randomRows(rng, trees, ensembleMinRows, d)
	e := NewEnsemble(trees, d)
	checkEnsemble(t, e, small, "before")
	if e.lay.Load() != nil {
		t.Fatalf("a walk of %d rows laid out the packed form", ensembleMinRows-1)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			x := small
			if g%2 == 1 {
				x = big
			}
			got := make([]float64, x.RawMatrix().Rows)
			e.Predict(0.5, 0.25, x, got)
			want := make([]float64, len(got))
			Predict(trees, d, 0.5, 0.25, x, want)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Errorf("goroutine %d: row %d: %v, want %v", g, i, got[i], want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	if e.lay.Load() == nil {
		t.Fatalf("a walk of %d rows left the forest unpacked", ensembleMinRows)
	}
	checkEnsemble(t, e, small, "after")
}

// A forest of more features or of a tree of more nodes than the packing
// holds keeps the plain walk, which predicts the same.
func TestEnsembleUnpacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := featMask/Lanes + 1 // 512: d·Lanes overflows the feature bits
	trees := [][]Node{randomTree(rng, 3, 8), randomTree(rng, 3, 8)}
	e := NewEnsemble(trees, d)
	if e.layout(ensembleMinRows) != nil {
		t.Fatalf("forest of %d features packed", d)
	}
	checkEnsemble(t, e, randomRows(rng, trees, 40, d), "plain, wide")
	// Caterpillars of 2²⁰±1 nodes: each split's left child a leaf.
	for _, splits := range []int{1<<19 - 1, 1 << 19} {
		tr := make([]Node, 0, 2*splits+1)
		for i := range splits {
			tr = append(tr, Node{V: float64(i), Feat: 0, Left: int32(len(tr) + 1)}, Node{V: float64(-i), Feat: -1})
		}
		tr = append(tr, Node{V: 1, Feat: -1})
		if packed := NewEnsemble([][]Node{tr}, 3).layout(ensembleMinRows) != nil; packed != (len(tr) <= 1<<20) {
			t.Fatalf("tree of %d nodes: packed %v", len(tr), packed)
		}
	}
}

// benchForest grows trees on n rows of d columns, y a Friedman #1
// function of the first five plus noise: fully grown trees (leaves of
// five rows) as the regression forest's.
func benchForest(n, d, trees int) ([][]Node, *mat.Dense) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rng.Float64()
		}
		y[i] = 10*math.Sin(math.Pi*r[0]*r[1]) + 20*(r[2]-0.5)*(r[2]-0.5) + 10*r[3] + 5*r[4] + rng.NormFloat64()
	}
	data := NewCARTData(Columns(x), y, nil, d, 0)
	f := GrowForest(data, CARTParams{MTry: d, MinLeaf: 5, Draws: n}, trees, 1, "bench", 2)
	xt := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			xt.Set(i, j, rng.Float64())
		}
	}
	return f.Trees, xt
}

// BenchmarkEnsemble predicts with the plain walk (Predict) and the packed
// one on a forest of 200 trees grown on 1 600 and 20 000 rows.
func BenchmarkEnsemble(b *testing.B) {
	for _, n := range []int{1600, 20000} {
		trees, x := benchForest(n, 20, 200)
		nodes := 0
		for _, t := range trees {
			nodes += len(t)
		}
		e := NewEnsemble(trees, 20)
		dst := make([]float64, n)
		b.Run("plain/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				Predict(trees, 20, 0, 1, x, dst)
			}
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(nodes)/200, "nodes/tree")
		})
		b.Run("packed/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				e.Predict(0, 1, x, dst)
			}
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// rank counts the cuts below a value, searched with and without a branch
// (short and long lists), at the cuts, between them, beyond both ends
// and NaN.
func TestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 7, 100, branchlessCuts, branchlessCuts + 1, 3*branchlessCuts + 5} {
		cuts := make([]float64, n)
		for i := range cuts {
			cuts[i] = float64(2 * i)
		}
		for range 2000 {
			v := float64(rng.IntN(2*n+3) - 1)
			if rng.IntN(50) == 0 {
				v = math.NaN()
			}
			want := 0
			for want < n && cuts[want] < v {
				want++
			}
			if math.IsNaN(v) {
				want = n
			}
			if got := rank(cuts, v); got != uint32(want) {
				t.Fatalf("%d cuts: rank(%v) = %d, want %d", n, v, got, want)
			}
		}
	}
}

// A forest without trees predicts base, as Predict does.
func TestEnsembleNoTrees(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	got := make([]float64, 3)
	NewEnsemble(nil, 2).Predict(0.5, 0.25, x, got)
	want := make([]float64, 3)
	Predict(nil, 2, 0.5, 0.25, x, want)
	for i := range got {
		if got[i] != want[i] || got[i] != 0.5 {
			t.Fatalf("row %d: Ensemble %v, Predict %v, want 0.5", i, got[i], want[i])
		}
	}
}
