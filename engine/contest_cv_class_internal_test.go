package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// erring is a test classifier of erringData's rows (column 0 the row id,
// column 1 the class): it predicts the class except on rows whose id is a
// multiple of every (never when every is 0). With lucky > 0, fitted on
// exactly lucky rows (the session's training part, so it wins the test
// split) it is perfect, and fitted on any other number (a fold) it errs
// on every row, or fails when failOff is set. A fit whose weights are not
// balanceWeights of its own rows when balanced (nil when not) fails.
type erring struct {
	key          string
	every, lucky int
	failOff      bool
	balanced     bool
}

func (e erring) Key() string  { return e.key }
func (e erring) Name() string { return e.key }
func (e erring) Scaled() bool { return false }
func (e erring) Fit(d classify.Data, _ classify.Options) (classify.Model, error) {
	if e.balanced != (d.W != nil) || (d.W != nil && !slices.Equal(d.W, balanceWeights(d.Y, d.K))) {
		return nil, errors.New("the weights are not the rows' balance weights")
	}
	m := erringModel{erring: e, k: d.K}
	if e.lucky > 0 && len(d.Y) == e.lucky {
		m.every = 0
	} else if e.lucky > 0 {
		if e.failOff {
			return nil, errors.New("cannot fit off the split")
		}
		m.every = 1
	}
	return m, nil
}

type erringModel struct {
	erring
	k int
}

func (m erringModel) Classes() int { return m.k }
func (m erringModel) Proba(x mat.Matrix, dst *mat.Dense) {
	r, _ := x.Dims()
	dst.Zero()
	for i := range r {
		c := int(x.At(i, 1))
		if m.every > 0 && int(x.At(i, 0))%m.every == 0 {
			c = (c + 1) % m.k
		}
		dst.Set(i, c, 1)
	}
}
func (m erringModel) Importance() []float64 { return nil }
func (m erringModel) Refit(d classify.Data, o classify.Options) (classify.Model, error) {
	return m.erring.Fit(d, o)
}
func (m erringModel) MarshalBinary() ([]byte, error) { return nil, errors.New("erring: not saved") }

// erringData is n rows of three classes in proportions 3:1:1, split as a
// session with id splits them; train is balanced when balance is set.
func erringData(n int, id string, balance bool) (seed uint64, train classify.Data, xTest *mat.Dense, yTest []int) {
	x := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := range n {
		y[i] = max(i%5-2, 0)
		x.Set(i, 0, float64(i))
		x.Set(i, 1, float64(y[i]))
	}
	seed = sessionSeed(id)
	trainPos, testPos := stratifiedSplit(seed, y, 3)
	train = classify.Data{X: denseRows(x, trainPos), Y: pick(y, trainPos), K: 3}
	if balance {
		train.W = balanceWeights(train.Y, 3)
	}
	return seed, train, denseRows(x, testPos), pick(y, testPos)
}

// With cross-validation the folds decide, not the test rows: a classifier
// that is perfect on the test rows and wrong on every fold keeps its test
// metrics but is not champion; without it, it is.
func TestClassificationContestCVDecides(t *testing.T) {
	seed, train, xTest, yTest := erringData(150, "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f", true)
	algos := []classify.Algorithm{erring{key: "lucky", lucky: len(train.Y), balanced: true}, erring{key: "steady", every: 12, balanced: true}}

	results, best, scores, err := classificationContest(t.Context(), algos, train, xTest, yTest, seed, 2, 0, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 || scores != nil || results[0].Metrics[stats.MacroAverageF1Score] != 1 {
		t.Errorf("classificationContest(no cv) champion %d, scores %v, lucky F1 %v; want lucky (0) with F1 1 and no scores",
			best, scores, results[0].Metrics[stats.MacroAverageF1Score])
	}

	var pct []int
	results, best, scores, err = classificationContest(t.Context(), algos, train, xTest, yTest, seed, 2, 3, func(p int) { pct = append(pct, p) })
	if err != nil {
		t.Fatal(err)
	}
	if best != 1 {
		t.Errorf("classificationContest(cv) champion = %d, want 1 (steady)", best)
	}
	if results[0].Metrics[stats.MacroAverageF1Score] != 1 {
		t.Errorf("classificationContest(cv) lucky test F1 = %v, want its test metric 1 kept", results[0].Metrics[stats.MacroAverageF1Score])
	}
	if len(scores) != 2 || len(scores[0].Folds) != cvFolds*3 || scores[0].Mean != 0 || scores[1].Mean < 0.8 {
		t.Errorf("classificationContest(cv) scores = %+v, want %d folds each, lucky at 0 and steady above 0.8", scores, cvFolds*3)
	}
	if !slices.IsSorted(pct) || len(pct) == 0 || pct[len(pct)-1] != 100 {
		t.Errorf("classificationContest(cv) progress = %v, want rising to 100", pct)
	}
}

// Canceling the session during the folds stops the contest with the
// context's error.
func TestClassificationContestCVCanceled(t *testing.T) {
	seed, train, xTest, yTest := erringData(150, "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f", true)
	algos := []classify.Algorithm{erring{key: "steady", every: 12, balanced: true}, erring{key: "other", every: 7, balanced: true}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	last := 0
	_, _, _, err := classificationContest(ctx, algos, train, xTest, yTest, seed, 1, 3, func(p int) {
		last = p
		if p > 10 { // the test fits take the first 10 %
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || last == 100 {
		t.Errorf("classificationContest(canceled in the folds) = %v after %d %%, want context.Canceled before the end", err, last)
	}
}

// The one-SE rule: the best cross-validated mean does not win when an
// earlier (simpler) contestant is within one standard error of it, and a
// contestant far behind does not win for being first.
func TestClassificationContestOneSE(t *testing.T) {
	seed, train, xTest, yTest := erringData(150, "5e4d3c2b-1a09-4f8e-8d7c-6b5a4e3d2c1b", true)
	algos := []classify.Algorithm{
		erring{key: "poor", every: 2, balanced: true}, erring{key: "near", every: 17, balanced: true}, erring{key: "best", every: 19, balanced: true},
	}
	_, best, s, err := classificationContest(t.Context(), algos, train, xTest, yTest, seed, 2, 3, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scores: %s %.4f ± %.4f, %s %.4f ± %.4f, %s %.4f ± %.4f", s[0].Key, s[0].Mean, s[0].SE, s[1].Key, s[1].Mean, s[1].SE, s[2].Key, s[2].Mean, s[2].SE)
	if !(s[2].Mean > s[1].Mean && s[1].Mean >= s[2].Mean-s[2].SE && s[0].Mean < s[2].Mean-s[2].SE) {
		t.Fatalf("scores %+v do not set up the rule: want best ahead, near within one SE of it, poor beyond", s)
	}
	if best != 1 {
		t.Errorf("classificationContest champion = %d (%s), want 1 (near, within one SE of best)", best, algos[max(best, 0)].Key())
	}
}

// A contestant that fails any fold cannot be champion, whatever its test
// metrics; when every contestant fails some fold the test split decides.
// The fold fits are weighed as the test fit is: by their own rows' balance
// weights with balance, unit weights without (erring fails otherwise).
func TestClassificationContestCVFailuresAndBalance(t *testing.T) {
	for _, balance := range []bool{true, false} {
		seed, train, xTest, yTest := erringData(150, "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", balance)
		algos := []classify.Algorithm{
			erring{key: "offsplit", lucky: len(train.Y), failOff: true, balanced: balance}, erring{key: "steady", every: 12, balanced: balance},
		}
		_, best, scores, err := classificationContest(t.Context(), algos, train, xTest, yTest, seed, 2, 3, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		if best != 1 || scores[0].Err == nil || scores[1].Err != nil {
			t.Errorf("balance %v: classificationContest(failing folds) = champion %d, scores %+v; want 1, offsplit's fold error and none for steady", balance, best, scores)
		}
		msg := cvMessage(scores, stats.MacroAverageF1Score, true, cvClassSEs, cvClassMaxGap, 3, len(train.Y))
		if msg.Severity != "debug" || !strings.Contains(msg.Text, "mean macroAverageF1Score is within three standard errors of the highest and at most 0.03 below it wins") ||
			!strings.Contains(msg.Text, "offsplit failed (fold 1: cannot fit off the split)") || !strings.Contains(msg.Text, "steady 0.") {
			t.Errorf("cvMessage() = %+v, want a debug message on macroAverageF1Score naming each contestant", msg)
		}

		_, best, scores, err = classificationContest(t.Context(), algos[:1], train, xTest, yTest, seed, 2, 3, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		if best != 0 || scores[0].Err == nil {
			t.Errorf("balance %v: classificationContest(fails every fold) = champion %d, scores %+v; want the test champion 0 and a fold error", balance, best, scores)
		}
	}
}

func TestCVClassRepeats(t *testing.T) {
	for _, c := range []struct{ n, features, k, want int }{
		{120, 4, 3, 3},   // iris
		{142, 13, 3, 3},  // wine
		{456, 30, 2, 1},  // breast_cancer
		{800, 10, 8, 0},  // 64 000 class-weighted cells
		{1000, 10, 2, 3}, // 20 000
		{cvMaxTrainRows + 1, 1, 2, 0},
		{9, 1, 2, 0},
		{200, 0, 2, 3},
	} {
		if got := cvClassRepeats(c.n, c.features, c.k); got != c.want {
			t.Errorf("cvClassRepeats(%d, %d, %d) = %d, want %d", c.n, c.features, c.k, got, c.want)
		}
	}
}

// A small classification session chooses its champion by stratified
// cross-validation, says so, shows the champion's test metrics and
// chooses the same champion when it runs again; a session above the
// threshold keeps the single split.
func TestSessionCVClassChampion(t *testing.T) {
	e := newTestEngine(t)
	iris, err := os.ReadFile("../stats/classify/testdata/iris.csv")
	if err != nil {
		t.Fatal(err)
	}
	e.putTestCSV(t, "iris", string(iris))
	req := SessionRequest{Type: SessionModel, DataSourceName: "iris", TargetColumn: "species", PredictionDomain: DomainClassification}
	s, err := e.CreateSession(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitSession(t, s.ID)
	if done.Status != StatusCompleted {
		t.Fatalf("iris session = %s %+v, want completed", done.Status, done.Messages)
	}
	note := cvNote(done)
	t.Logf("champion %s; %s", done.Algorithm.Key, note)
	if !strings.Contains(note, "3 × 5-fold cross-validation on the 120 training rows") || !strings.Contains(note, "macroAverageF1Score") {
		t.Errorf("iris session messages = %+v, want the cross-validation note", done.Messages)
	}
	c, err := e.SessionContest(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range c.Contestants {
		if !strings.Contains(note, ct.Algorithm.Key+" ") {
			t.Errorf("cross-validation note %q lacks contestant %s", note, ct.Algorithm.Key)
		}
	}
	if done.Metrics[stats.MacroAverageF1Score] != c.Champion.Metrics[stats.MacroAverageF1Score] || len(c.Champion.Metrics) != len(done.Metrics) {
		t.Errorf("session metrics %v, champion's %v: want the champion's test metrics", done.Metrics, c.Champion.Metrics)
	}
	if err := e.runSession(t.Context(), s.ID, func(int) {}); err != nil {
		t.Fatalf("runSession again: %v", err)
	}
	again, err := e.Session(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Algorithm.Key != done.Algorithm.Key || cvNote(again) != note {
		t.Errorf("run again: champion %s, note %q; want %s, %q", again.Algorithm.Key, cvNote(again), done.Algorithm.Key, note)
	}

	// Above the threshold (two quick algorithms keep the test fast).
	e.classifiers = func(bool) []classify.Algorithm {
		return []classify.Algorithm{classify.LogisticL2{}, classify.NaiveBayes{}}
	}
	var b strings.Builder
	b.WriteString("a,b,label\n")
	n := 1300 // 1 040 training rows
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,%s\n", i%17, (i*7)%11, []string{"x", "y"}[(i%17+(i*7)%11)%2])
	}
	e.putTestCSV(t, "large", b.String())
	req.DataSourceName, req.TargetColumn = "large", "label"
	s, err = e.CreateSession(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	done = e.waitSession(t, s.ID)
	if done.Status != StatusCompleted || cvNote(done) != "" {
		t.Errorf("session on %d rows = %s, note %q; want completed by the single split", n, done.Status, cvNote(done))
	}
}
