package classify_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// wordsData is a small text-like training set: two dense columns and
// `words` word columns of TF-IDF-like non-negative values, about 10 of
// them non-zero a row, the class shifting which words occur. It returns
// the split form (X and Words) and the same rows as one dense matrix.
func wordsData(n, words, k int, seed uint64) (split classify.Data, dense *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 7))
	y := make([]int, n)
	x := mat.NewDense(n, 2, nil)
	csr := stats.NewCSR(n, words, 0)
	full := mat.NewDense(n, 2+words, nil)
	for i := range n {
		c := i % k
		y[i] = c
		x.Set(i, 0, float64(c)+rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		present := make([]bool, words)
		for range 10 {
			j := rng.IntN(words)
			if rng.Float64() < 0.5 {
				j = (c*words/k + rng.IntN(words/k)) % words
			}
			present[j] = true
		}
		var cols []int32
		var vals []float64
		for j, ok := range present {
			if ok {
				cols, vals = append(cols, int32(j)), append(vals, 0.1+rng.Float64())
			}
		}
		csr.AppendRow(cols, vals)
		full.Set(i, 0, x.At(i, 0))
		full.Set(i, 1, x.At(i, 1))
		for u, j := range cols {
			full.Set(i, 2+int(j), vals[u])
		}
	}
	return classify.Data{X: x, Words: csr, Y: y, K: k}, full
}

// probaOf fits a on d and returns its probabilities of x.
func probaOf(t *testing.T, a classify.Algorithm, d classify.Data, x mat.Matrix) (classify.Model, *mat.Dense) {
	t.Helper()
	m, err := a.Fit(d, classify.Options{Seed: 3, Workers: 2})
	if err != nil {
		t.Fatalf("%s: %v", a.Key(), err)
	}
	r, _ := x.Dims()
	p := mat.NewDense(r, d.K, nil)
	m.Proba(x, p)
	return m, p
}

// maxDiff is the largest absolute difference between a and b.
func maxDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// Every family fitted on the words as a CSR block gives the
// probabilities of its fit on the same rows as one dense matrix (below
// stats.MaxDenseWords words nothing is bounded): the sparse paths of logistic
// regression and multinomial naive Bayes to solver tolerance, Gaussian
// naive Bayes to rounding, the others exactly. The model reads both the split rows and dense ones.
func TestWordsBlockMatchesDense(t *testing.T) {
	split, full := wordsData(300, 60, 3, 1)
	dense := classify.Data{X: full, Y: split.Y, K: split.K}
	xs := stats.NewSparseMatrix(split.X, split.Words)
	algos := append(classify.Algorithms(), classify.TextAlgorithms()...)
	for _, a := range algos {
		t.Run(a.Key(), func(t *testing.T) {
			_, want := probaOf(t, a, dense, full)
			m, got := probaOf(t, a, split, xs)
			tol := 0.0
			switch a.Key() {
			case "logistic_regression_l2", "logistic_regression_l1", "multinomial_naive_bayes":
				tol = 1e-4
			case "naive_bayes": // the words' sums over non-zeros round differently
				tol = 1e-9
			case "random_forest_classification": // draws among the present words: forest_words_test.go
				tol = math.Inf(1)
			case "gbm":
				// Boosting splits words sparsely: a word's zero bin sums
				// as node totals minus its non-zeros, so exact ties of
				// this unweighted data's two-valued gradients break by
				// rounding, differently from the dense fit's. Without
				// ties it matches to 1e-12 (TestGBMWordsMatchDense);
				// here only the reading of rows and the bytes are tested.
				tol = math.Inf(1)
			}
			if d := maxDiff(got, want); d > tol {
				t.Fatalf("split-block probabilities differ from the dense fit's by %g (tolerance %g)", d, tol)
			}
			again := mat.NewDense(300, split.K, nil)
			m.Proba(full, again)
			if d := maxDiff(again, got); d > 1e-12 {
				t.Fatalf("the model reads dense rows differently from split ones: %g", d)
			}
			blob, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			back, err := classify.Unmarshal(blob)
			if err != nil {
				t.Fatal(err)
			}
			if back.Key() != a.Key() {
				t.Fatalf("decoded key %s", back.Key())
			}
			back.Proba(xs, again)
			if d := maxDiff(again, got); d != 0 {
				t.Fatalf("round trip changed the probabilities by %g", d)
			}
			if imp := m.Importance(); imp != nil && len(imp) != 62 {
				t.Fatalf("importance of %d columns, want 62", len(imp))
			}
			fold := []int{0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32}
			sub := classify.Data{X: stats.NewSparseMatrix(split.X, split.Words).SelectRows(fold).Dense, Words: split.Words.SelectRows(fold), K: split.K}
			for _, r := range fold {
				sub.Y = append(sub.Y, split.Y[r])
			}
			if _, err := m.Refit(sub, classify.Options{Seed: 3, Workers: 1}); err != nil {
				t.Fatalf("refit on a fold's split rows: %v", err)
			}
		})
	}
}

// Every family with an importance reads words past stats.MaxDenseWords,
// which a bounded block kept at most: some of the 86 words j ≡ 0 (mod 7),
// which a bounded block of the 500 best by an importance of j mod 7
// would have left out, get importance. (Boosting's few early-stopped
// trees on 200 rows split on few words; TestGBMWordsMatchDense shows it
// splitting past the 500th word.)
func TestWordsEveryWord(t *testing.T) {
	split, _ := wordsData(200, 600, 3, 2)
	for _, a := range []classify.Algorithm{classify.RandomForest{}, classify.LogisticL2{}} {
		m, err := a.Fit(split, classify.Options{Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got := m.Importance()
		if len(got) != 602 {
			t.Fatalf("%s: importance of %d columns, want 602", a.Key(), len(got))
		}
		low := 0
		for j, v := range got[2:] {
			if v != 0 && j%7 == 0 {
				low++
			}
		}
		if low == 0 {
			t.Fatalf("%s read none of the words a bounded block would leave out", a.Key())
		}
	}
}

// Fits side by side on one AsData training set (which they only read)
// give what they give on their own.
func TestWordsSharedBlock(t *testing.T) {
	split, _ := wordsData(200, 600, 3, 4)
	shared := classify.AsData(stats.NewSparseMatrix(split.X, split.Words), split.Y, split.K, nil)
	algos := []classify.Algorithm{classify.RandomForest{}, classify.GradientBoosting{}, classify.KNN{}}
	got := make([]*mat.Dense, len(algos))
	done := make(chan int)
	for i, a := range algos {
		go func() {
			m, err := a.Fit(shared, classify.Options{Seed: 3, Workers: 1})
			if err == nil {
				got[i] = mat.NewDense(200, split.K, nil)
				m.Proba(stats.NewSparseMatrix(split.X, split.Words), got[i])
			}
			done <- i
		}()
	}
	for range algos {
		<-done
	}
	for i, a := range algos {
		_, want := probaOf(t, a, split, stats.NewSparseMatrix(split.X, split.Words))
		if got[i] == nil || maxDiff(got[i], want) != 0 {
			t.Fatalf("%s on the shared block differs from its own fit", a.Key())
		}
	}
}

// A bounded model's bytes cut short or corrupted decode to an error,
// never a panic.
func TestWordsBoundedUnmarshalRejects(t *testing.T) {
	split, _ := wordsData(60, 600, 2, 5)
	blob, _, _ := boundedForest(t, split)
	for _, cut := range []int{1, 10, 20, 30, 40, 200, 4000, len(blob) - 1} {
		if _, err := classify.Unmarshal(blob[:cut]); err == nil {
			t.Fatalf("%d of %d bytes decoded", cut, len(blob))
		}
	}
	bad := append([]byte(nil), blob...)
	bad[1+len("bounded_words")+17+7] = 0x7f // the word count's high byte
	if _, err := classify.Unmarshal(bad); err == nil {
		t.Fatal("an absurd word count decoded")
	}
}

// oldBounded is inner, fitted on the bounded block of 2 dense columns and
// the given words out of 600, framed and decoded as the bounded models
// earlier stops saved (stats.MarshalBounded): the old forests, boosting
// and k-NN models must still decode and predict. It returns the bytes too.
func oldBounded(t *testing.T, inner classify.Model, words []int) (classify.Model, []byte) {
	t.Helper()
	blob, err := stats.MarshalBounded(stats.Bounded{Width: 602, Dense: 2, Words: words}, inner)
	if err != nil {
		t.Fatal(err)
	}
	m, err := classify.Unmarshal(blob)
	if err != nil {
		t.Fatal(err)
	}
	return m, blob
}
