package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
)

// capFrame is n rows of two classes: a numeric column that follows the
// class, a string column of 300 levels that does not, and a text column
// whose documents draw 12 words from 600 at random plus one topic word of
// their class. Encoded, that is far more than maxFeatures features.
func capFrame(n int) ([]*frameColumn, []columnar.Column, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	signal := &frameColumn{Name: "signal", Type: columnar.NumericMeasure}
	code := &frameColumn{Name: "code", Type: columnar.String}
	doc := &frameColumn{Name: "doc", Type: columnar.Text}
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(i % 2)
		signal.Num = append(signal.Num, y[i]+0.3*rng.NormFloat64())
		code.Text, code.OK = append(code.Text, fmt.Sprintf("c%d", rng.IntN(300))), append(code.OK, true)
		words := []string{[]string{"alpha", "beta"}[i%2]}
		for range 12 {
			words = append(words, fmt.Sprintf("w%03dz", rng.IntN(600)))
		}
		doc.Text, doc.OK = append(doc.Text, strings.Join(words, " ")), append(doc.OK, true)
	}
	meta := []columnar.Column{
		{Name: "signal", DataType: columnar.NumericMeasure, Role: columnar.RoleFeature},
		{Name: "code", DataType: columnar.String, Role: columnar.RoleFeature},
		{Name: "doc", DataType: columnar.Text, Role: columnar.RoleFeature},
	}
	return []*frameColumn{signal, code, doc}, meta, y
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// TestFeatureCapKeepsBest checks §9's cap with a target: maxFeatures
// features are kept, the informative ones among them, the matrix has
// their columns (the non-text ones equal to the uncapped encoding's), the
// importance they were ranked by is what the session reports, and a
// saved pipeline (JSON) encodes the same matrix.
func TestFeatureCapKeepsBest(t *testing.T) {
	const n = 400
	frame, meta, y := capFrame(n)
	rows := allRows(n)
	p := fitPipeline(frame, meta, rows, nil, fitTarget{y: y, discrete: true, seed: 7})
	all, _ := p.allFeatures()
	names, _ := p.Features()
	if len(names) != maxFeatures || p.capped <= maxFeatures || len(all) != maxFeatures+len(p.Drop) {
		t.Fatalf("%d features kept of %d (capped %d, %d dropped), want %d", len(names), len(all), p.capped, len(p.Drop), maxFeatures)
	}
	if p.textWidth() == 0 || len(p.Drop) == 0 {
		t.Fatalf("the cap should drop both words (%d kept) and levels (%d dropped)", p.textWidth(), len(p.Drop))
	}
	for _, want := range []string{"signal", "doc:alpha", "doc:beta"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s was left out", want)
		}
	}
	for _, d := range p.Drop {
		if slices.Contains(names, d) {
			t.Errorf("dropped %s is a feature", d)
		}
	}
	if len(p.importance) != maxFeatures {
		t.Fatalf("%d importances for %d features", len(p.importance), maxFeatures)
	}
	// Every kept feature ranks at least as high as every left-out one: the
	// kept minimum is the cut.
	cut := slices.MinFunc(p.importance, func(a, b float64) int {
		switch {
		case math.IsNaN(a):
			return 1
		case math.IsNaN(b):
			return -1
		}
		return int(math.Copysign(1, a-b))
	})
	if !(cut > 0) {
		t.Errorf("the cut is %v: uninformative features were kept over informative ones", cut)
	}
	sp := encodedSplit{pipe: p}
	x, err := p.encode(frame, rows)
	if err != nil {
		t.Fatal(err)
	}
	sp.xTrain = x
	if got := sp.importance(y, true, 7, 2); !slices.Equal(got, p.importance) {
		t.Error("the session's importance is not the one the cap ranked by")
	}
	if _, w := x.Dims(); w != maxFeatures {
		t.Fatalf("matrix width %d, want %d", w, maxFeatures)
	}
	full := p.withoutText()
	full.Drop = nil
	fx, err := full.encode(frame, rows)
	if err != nil {
		t.Fatal(err)
	}
	fullNames, _ := full.Features()
	for j, name := range names {
		if strings.HasPrefix(name, "doc:") {
			continue
		}
		k := slices.Index(fullNames, name)
		if !mat.Equal(x.ColView(j), fx.ColView(k)) {
			t.Errorf("column %s differs from the uncapped encoding", name)
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var saved pipeline
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	sx, err := saved.encode(frame, rows[:50])
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(sx, x.Slice(0, 50, 0, maxFeatures)) {
		t.Error("the saved pipeline encodes differently")
	}
	if msgs := textMessages(p); len(msgs) != 2 || !strings.Contains(msgs[1].Text, "more than 500") {
		t.Errorf("messages %v", msgs)
	}
}

// TestFeatureCapWithoutTarget checks the cap of an anomalies pipeline:
// every non-text feature stays, and the most frequent words fill the
// places left.
func TestFeatureCapWithoutTarget(t *testing.T) {
	const n = 400
	frame, meta, _ := capFrame(n)
	p := fitPipeline(frame, meta, allRows(n), nil, fitTarget{})
	names, _ := p.Features()
	nonText, _ := p.withoutText().Features()
	if len(p.Drop) != 0 || p.importance != nil || len(names) != maxFeatures || p.textWidth() != maxFeatures-len(nonText) {
		t.Fatalf("%d features, %d non-text, %d words, %d dropped", len(names), len(nonText), p.textWidth(), len(p.Drop))
	}
	tf := p.texts[0]
	least := int64(math.MaxInt64)
	for _, r := range tf.index {
		least = min(least, tf.vocab.Terms[r].Count)
	}
	for r, term := range tf.vocab.Terms[:len(tf.vocab.IDF)] {
		if term.Count > least && !slices.Contains(tf.index, r) {
			t.Errorf("word %s (count %d) left out, a word of count %d kept", term.Text, term.Count, least)
		}
	}
}

// TestFeatureCapBelow checks that a pipeline within the cap is untouched.
func TestFeatureCapBelow(t *testing.T) {
	const n = 400
	frame, meta, y := capFrame(n)
	p := fitPipeline(frame[:2], meta[:2], allRows(n), nil, fitTarget{y: y, discrete: true})
	if p.capped != 0 || p.Drop != nil || p.importance != nil {
		t.Fatalf("capped %d, drop %v", p.capped, p.Drop)
	}
}
