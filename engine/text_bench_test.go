package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// textSessionFrame is a classification session's rows of one text column
// and a numeric one: n documents of 20–40 words drawn from a Zipf law
// over 20 000 pseudo-words, each class (of k) drawing half its words from
// its own shuffle of the list, so many words vary with the class.
func textSessionFrame(n, k int) (*sessionData, []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 20_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dq", i)
	}
	perms := make([][]int, k)
	for c := range perms {
		perms[c] = rng.Perm(len(words))
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	doc := &frameColumn{Name: "doc", Type: columnar.Text}
	num := &frameColumn{Name: "x", Type: columnar.NumericMeasure}
	y := make([]float64, n)
	var sb strings.Builder
	for i := range n {
		c := rng.IntN(k)
		y[i] = float64(c)
		sb.Reset()
		for range 20 + rng.IntN(21) {
			w := int(zipf.Uint64())
			if rng.IntN(2) == 0 {
				w = perms[c][w]
			}
			sb.WriteString(words[w])
			sb.WriteByte(' ')
		}
		doc.Text, doc.OK = append(doc.Text, sb.String()), append(doc.OK, true)
		num.Num = append(num.Num, rng.NormFloat64()+y[i])
	}
	d := &sessionData{
		cols: []columnar.Column{
			{Name: "x", DataType: columnar.NumericMeasure, Role: columnar.RoleFeature},
			{Name: "doc", DataType: columnar.Text, Role: columnar.RoleFeature},
		},
		frame: []*frameColumn{num, doc},
		rows:  make([]int, n),
	}
	for i := range d.rows {
		d.rows[i] = i
	}
	return d, y
}

// BenchmarkEncodeSplitText100k is a classification session's preparation
// of 100 000 rows with one text column (6 classes, 80 % training rows):
// the vocabulary, the word selection and the encoded training and test
// matrices the contest receives. MB-matrices is their size (the dense
// block at 8 bytes an entry, the words' CSR at 12 a non-zero and 8 a
// row); run it under
// /usr/bin/time -v for the peak RSS:
//
//	go test -tags duckdb_arrow -c -o /tmp/engine.test ./engine
//	/usr/bin/time -v /tmp/engine.test -test.run '^$' -test.bench EncodeSplitText100k -test.benchtime 1x
func BenchmarkEncodeSplitText100k(b *testing.B) {
	const n, k = 100_000, 6
	d, y := textSessionFrame(n, k)
	nTest := n / 5
	train, test := d.rows[nTest:], d.rows[:nTest]
	for b.Loop() {
		sp, err := encodeSplit(d, train, test, nil, fitTarget{y: y[nTest:], discrete: true})
		if err != nil {
			b.Fatal(err)
		}
		_, c := sp.xTrain.Dims()
		b.ReportMetric(float64(matrixBytes(sp.xTrain)+matrixBytes(sp.xTest))/1e6, "MB-matrices")
		b.ReportMetric(float64(c), "features")
	}
}

// matrixBytes is the memory of x's values: its dense block and its
// words' CSR arrays.
func matrixBytes(x *stats.SparseMatrix) int {
	r, _ := x.Dims()
	b := 8 * r * x.DenseCols()
	if x.Words != nil {
		b += 12*x.Words.NNZ() + 8*(r+1)
	}
	return b
}

// BenchmarkClassificationText is the contest of a classification
// session with one text column (textSessionFrame, 6 classes, 80 %
// training rows; VATIC_BENCH_TEXT_ROWS rows, 20 000 by default): the
// preparation, every contestant's test fit (no cross-validation above
// cvMaxTrainRows) and their scores. Run it under /usr/bin/time -v for the
// peak RSS, as BenchmarkEncodeSplitText100k.
func BenchmarkClassificationText(b *testing.B) {
	const k = 6
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("VATIC_BENCH_TEXT_ROWS")); err == nil && v > 0 {
		n = v
	}
	d, y := textSessionFrame(n, k)
	nTest := n / 5
	train, test := d.rows[nTest:], d.rows[:nTest]
	yTrain, yTest := make([]int, len(train)), make([]int, len(test))
	for i, r := range train {
		yTrain[i] = int(y[r])
	}
	for i, r := range test {
		yTest[i] = int(y[r])
	}
	for b.Loop() {
		sp, err := encodeSplit(d, train, test, nil, fitTarget{y: y[nTest:], discrete: true})
		if err != nil {
			b.Fatal(err)
		}
		td := classify.AsData(sp.xTrain, yTrain, k, nil)
		var algos []classify.Algorithm
		for _, a := range classify.Lineup(true) {
			if outOfBudget(a.Key(), len(train), len(test), len(sp.features)) == "" {
				algos = append(algos, a)
			}
		}
		results, best, _, err := classificationContest(context.Background(), algos, td, sp.xTest, yTest, 1, runtime.GOMAXPROCS(0), 0, func(int) {})
		if err != nil || best < 0 {
			b.Fatal(err, best)
		}
		for _, r := range results {
			b.Logf("%s: macro-F1 %.4f (err %v)", r.Key, r.Metrics[stats.MacroAverageF1Score], r.Err)
		}
		b.ReportMetric(results[best].Metrics[stats.MacroAverageF1Score], "champion-F1")
		b.ReportMetric(float64(len(algos)), "contestants")
	}
}
