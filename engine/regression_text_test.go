package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
)

// regressionTextCSV is n rows of a numeric column x, a text column doc
// and a target y: doc has 20–40 words drawn from a Zipf law over 5 000
// pseudo-words, and y is x plus the sum of its words' effects (one in
// five words has a non-zero one) plus noise, so the text explains most of
// y. It returns the CSV and the rows' (x, doc, y).
func regressionTextCSV(n int) (string, [][3]string) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 5_000)
	effect := make([]float64, len(words))
	for i := range words {
		words[i] = fmt.Sprintf("w%dq", i)
		if i%5 == 0 {
			effect[i] = rng.NormFloat64()
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	var b strings.Builder
	b.WriteString("x,doc,y\n")
	rows := make([][3]string, n)
	var doc strings.Builder
	for i := range n {
		x := rng.NormFloat64()
		y := x + 0.5*rng.NormFloat64()
		doc.Reset()
		for k := range 20 + rng.IntN(21) {
			w := int(zipf.Uint64())
			if k > 0 {
				doc.WriteByte(' ')
			}
			doc.WriteString(words[w])
			y += effect[w]
		}
		rows[i] = [3]string{strconv.FormatFloat(x, 'g', -1, 64), doc.String(), strconv.FormatFloat(y, 'g', -1, 64)}
		fmt.Fprintf(&b, "%s,%s,%s\n", rows[i][0], rows[i][1], rows[i][2])
	}
	return b.String(), rows
}

// regressionTextRequest is a regression session of y with doc as text.
func regressionTextRequest(source string) SessionRequest {
	r := regressionRequest(source)
	r.Columns = []columnar.Spec{{Name: "doc", DataType: string(columnar.Text)}}
	return r
}

// A regression session with a text column completes with a champion,
// and its saved model predicts from the text: on the session's own rows
// the predictions follow y (which the words mostly make), and the same x
// with other words predicts otherwise.
func TestRegressionTextSession(t *testing.T) {
	e := newTestEngine(t)
	csv, rows := regressionTextCSV(600)
	e.putTestCSV(t, "docs", csv)
	s, err := e.CreateSession(t.Context(), regressionTextRequest("docs"))
	if err != nil {
		t.Fatal(err)
	}
	// The contest cross-validates six families on 480 training rows and
	// 1 000 words: over a minute under the race detector on 2 cores.
	done := waitSessionWithin(t, e, s.ID, 10*time.Minute)
	if done.Status != StatusCompleted || done.ModelID == "" || done.Algorithm == nil {
		t.Fatalf("text regression session = %s %+v, want completed with a model", done.Status, done.Messages)
	}
	c, err := e.SessionContest(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	words := 0
	for name := range c.Champion.Importance {
		if strings.HasPrefix(name, "doc") {
			words++
		}
	}
	if words == 0 || len(c.Contestants) < 2 {
		t.Fatalf("champion %s importance over %d words, %d contestants; want the words among its features", c.Champion.Algorithm.Key, words, len(c.Contestants))
	}
	t.Logf("champion %s, test RMSE %.4g, %d word features", c.Champion.Algorithm.Key, c.Champion.Metrics["rootMeanSquareError"], words)

	const m = 100
	in := make([][]string, 0, 2*m)
	for _, r := range rows[:m] {
		in = append(in, []string{r[0], r[1]})
	}
	for i, r := range rows[:m] {
		in = append(in, []string{r[0], rows[m+i][1]}) // another row's words
	}
	recs, err := e.predictText(t.Context(), done.ModelID, []string{"x", "doc"}, in)
	if err != nil {
		t.Fatal(err)
	}
	var pred []float64
	for _, rec := range recs {
		for j, f := range rec.Schema().Fields() {
			if f.Name == "y" {
				pred = append(pred, rec.Column(j).(*array.Float64).Float64Values()...)
			}
		}
		rec.Release()
	}
	if len(pred) != 2*m {
		t.Fatalf("%d predictions, want %d", len(pred), 2*m)
	}
	var sse, sst, ymean, moved float64
	for _, r := range rows[:m] {
		y, _ := strconv.ParseFloat(r[2], 64)
		ymean += y / m
	}
	for i, r := range rows[:m] {
		y, _ := strconv.ParseFloat(r[2], 64)
		if math.IsNaN(pred[i]) || math.IsInf(pred[i], 0) {
			t.Fatalf("prediction %d = %v", i, pred[i])
		}
		sse += (y - pred[i]) * (y - pred[i])
		sst += (y - ymean) * (y - ymean)
		moved = max(moved, math.Abs(pred[m+i]-pred[i]))
	}
	if r2 := 1 - sse/sst; r2 < 0.5 || moved == 0 {
		t.Errorf("saved model's R² on its own rows %.3f, largest change with other words %g; want the words to matter", r2, moved)
	}
}

// BenchmarkRegressionText is a regression session with a text column
// through the engine (regressionTextCSV: the upload, the preparation, the
// contest with its cross-validation when the rows allow it, the refit on
// every row and the saved model; VATIC_BENCH_TEXT_ROWS rows, 3 000 by
// default). It reports the champion's test RMSE. The sessions have fixed
// ids (the split and every fit draw from the id, MODELLING §0), so two
// builds compare on the same split. Run it under /usr/bin/time -v for the
// peak RSS, as BenchmarkEncodeSplitText100k.
func BenchmarkRegressionText(b *testing.B) {
	n := 3_000
	if v, err := strconv.Atoi(os.Getenv("VATIC_BENCH_TEXT_ROWS")); err == nil && v > 0 {
		n = v
	}
	csv, _ := regressionTextCSV(n)
	e := newBenchEngine(b)
	if _, _, err := e.PutDataset(b.Context(), PutRequest{Name: "docs", Body: strings.NewReader(csv), Format: FormatHints{ContentType: "text/csv"}}); err != nil {
		b.Fatal(err)
	}
	run := 0
	for b.Loop() {
		run++
		s, rec, err := e.planSession(b.Context(), regressionTextRequest("docs"))
		if err != nil {
			b.Fatal(err)
		}
		s.ID, s.Status = fmt.Sprintf("b0000000-0000-4000-8000-%012d", run), StatusRequested
		s.Requested, s.StatusDate = time.Now(), time.Now()
		s.History = []StatusChange{{Date: s.Requested, Status: StatusRequested}}
		if err := e.store.Tx(b.Context(), func(ctx context.Context) error { return e.insertSession(ctx, s, rec) }); err != nil {
			b.Fatal(err)
		}
		e.sessions.notify()
		for s.Status != StatusCompleted && s.Status != StatusFailed {
			time.Sleep(50 * time.Millisecond)
			if s, err = e.Session(b.Context(), s.ID); err != nil {
				b.Fatal(err)
			}
		}
		c, err := e.SessionContest(b.Context(), s.ID)
		if err != nil || s.Status != StatusCompleted {
			b.Fatal(err, s.Status, s.Messages)
		}
		for _, k := range c.Contestants {
			b.Logf("%s: RMSE %.4f %s", k.Algorithm.Key, k.Metrics["rootMeanSquareError"], k.Message)
		}
		b.ReportMetric(c.Champion.Metrics["rootMeanSquareError"], "champion-RMSE")
	}
}
