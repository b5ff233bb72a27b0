package tree

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomTree builds a flat tree of random splits on d features, children
// after their parent as the growers lay them out, up to depth levels.
func randomTree(rng *rand.Rand, d, depth int) []Node {
	t := []Node{{}}
	var grow func(i, level int)
	grow = func(i, level int) {
		if level == depth || rng.IntN(5) == 0 {
			t[i] = Node{V: rng.NormFloat64(), Feat: -1}
			return
		}
		left := int32(len(t))
		t = append(t, Node{}, Node{})
		t[i] = Node{V: rng.NormFloat64(), Feat: int32(rng.IntN(d)), Left: left}
		grow(int(left), level+1)
		grow(int(left)+1, level+1)
	}
	grow(0, 0)
	return t
}

// FindLanes reaches the leaves Find does, NaN included, and Predict's
// sums, lanes and the rows left over alike, equal the per-row walk's to
// the bit.
func TestFindLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d = 5
	for trial := range 50 {
		trees := make([][]Node, 1+rng.IntN(10))
		for k := range trees {
			trees[k] = randomTree(rng, d, 1+rng.IntN(14))
		}
		n := 1 + rng.IntN(3*Lanes+5)
		x := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				v := rng.NormFloat64()
				if rng.IntN(10) == 0 {
					v = math.NaN()
				}
				x.Set(i, j, v)
			}
		}
		for i := 0; i+Lanes <= n; i += Lanes {
			var at [Lanes]int32
			rows := x.RawMatrix().Data[i*d : (i+Lanes)*d]
			for _, tr := range trees {
				FindLanes(tr, rows, d, &at)
				for m, leaf := range at {
					if want := Find(tr, rows[m*d:(m+1)*d]); leaf != want {
						t.Fatalf("trial %d row %d: FindLanes leaf %d, Find %d", trial, i+m, leaf, want)
					}
				}
			}
		}
		got := make([]float64, n)
		Predict(trees, d, 0.5, 0.25, x, got)
		for i := range n {
			sum := 0.0
			for _, tr := range trees {
				sum += Leaf(tr, x.RawRowView(i))
			}
			if want := 0.5 + 0.25*sum; got[i] != want {
				t.Fatalf("trial %d row %d: Predict %v, want %v", trial, i, got[i], want)
			}
		}
	}
}
