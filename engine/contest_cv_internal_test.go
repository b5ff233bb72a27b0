package engine

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/regress"
)

// lucky is a test algorithm that predicts every row of its table exactly
// when fitted on exactly n rows (the session's training part, so it wins
// the test split) and predicts 0 otherwise (so it loses every fold).
type lucky struct {
	n     int
	table map[[2]float64]float64 // (a, b) → y of every row
}

func (l lucky) Key() string  { return "lucky" }
func (l lucky) Name() string { return "Lucky" }
func (l lucky) Scaled() bool { return false }
func (l lucky) Fit(d regress.Data, _ regress.Options) (regress.Model, error) {
	return luckyModel{l, len(d.Y) == l.n}, nil
}

type luckyModel struct {
	l    lucky
	good bool
}

func (m luckyModel) Key() string { return "lucky" }
func (m luckyModel) Predict(x mat.Matrix, dst []float64) {
	for i := range dst {
		if m.good {
			dst[i] = m.l.table[[2]float64{x.At(i, 0), x.At(i, 1)}]
		} else {
			dst[i] = 0
		}
	}
}
func (m luckyModel) Importance() []float64 { return nil }
func (m luckyModel) Refit(d regress.Data, o regress.Options) (regress.Model, error) {
	return m.l.Fit(d, o)
}
func (m luckyModel) MarshalBinary() ([]byte, error) { return nil, errors.New("lucky: not saved") }

// linearData is linearCSV's rows as a matrix.
func linearData(n int) (*mat.Dense, []float64, map[[2]float64]float64) {
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	table := map[[2]float64]float64{}
	for i := range n {
		a, b := float64(i%17), float64((i*7)%11)
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y[i] = 2*a - 3*b + 1 + float64(i%3)*0.1
		table[[2]float64{a, b}] = y[i]
	}
	return x, y, table
}

// With cross-validation the folds decide, not the test rows: an algorithm
// that is perfect on the test rows and useless on every fold keeps its
// test metrics but is not champion; without it, it is.
func TestRegressionContestCVDecides(t *testing.T) {
	x, y, table := linearData(120)
	seed := sessionSeed("0b5e7f9e-4a6d-4c1e-9d3a-0a4f1c2b3d4e")
	trainPos, testPos := split(seed, len(y))
	xTrain, yTrain, xTest, yTest := denseRows(x, trainPos), pick(y, trainPos), denseRows(x, testPos), pick(y, testPos)
	algos := []regress.Algorithm{lucky{n: len(trainPos), table: table}, regress.OLS{}}

	results, best, scores, err := regressionContest(t.Context(), algos, regress.Data{X: xTrain, Y: yTrain}, xTest, yTest, seed, 2, 0, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 || scores != nil || results[0].Metrics[stats.RootMeanSquareError] != 0 {
		t.Errorf("regressionContest(no cv) champion %d, scores %v, lucky RMSE %v; want lucky (0) with RMSE 0 and no scores",
			best, scores, results[0].Metrics[stats.RootMeanSquareError])
	}

	var pct []int
	results, best, scores, err = regressionContest(t.Context(), algos, regress.Data{X: xTrain, Y: yTrain}, xTest, yTest, seed, 2, 3, func(p int) { pct = append(pct, p) })
	if err != nil {
		t.Fatal(err)
	}
	if best != 1 {
		t.Errorf("regressionContest(cv) champion = %d (%s), want 1 (ols)", best, algos[max(best, 0)].Key())
	}
	if results[0].Metrics[stats.RootMeanSquareError] != 0 {
		t.Errorf("regressionContest(cv) lucky test RMSE = %v, want its test metric 0 kept", results[0].Metrics[stats.RootMeanSquareError])
	}
	if len(scores) != 2 || len(scores[0].Folds) != cvFolds*3 || scores[0].Mean < 10*scores[1].Mean {
		t.Errorf("regressionContest(cv) scores = %+v, want %d folds each and lucky far behind", scores, cvFolds*3)
	}
	if !slices.IsSorted(pct) || len(pct) == 0 || pct[len(pct)-1] != 100 {
		t.Errorf("regressionContest(cv) progress = %v, want rising to 100", pct)
	}
}

// A contestant whose test fit failed is reported with its error among the
// scores and cannot be champion; when the folds fail for everyone the test
// RMSE decides.
func TestRegressionContestCVFailures(t *testing.T) {
	x, y, table := linearData(60)
	seed := sessionSeed("7d1c9a52-2f3e-4b8a-a6c7-5e9d0f1a2b3c")
	trainPos, testPos := split(seed, len(y))
	xTrain, yTrain, xTest, yTest := denseRows(x, trainPos), pick(y, trainPos), denseRows(x, testPos), pick(y, testPos)

	algos := []regress.Algorithm{brokenAlgorithm{panics: true}, brokenAlgorithm{}, regress.Ridge{}}
	_, best, scores, err := regressionContest(t.Context(), algos, regress.Data{X: xTrain, Y: yTrain}, xTest, yTest, seed, 2, 3, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if best != 2 || scores[0].Err == nil || scores[1].Err == nil || scores[2].Err != nil {
		t.Errorf("regressionContest(two broken) = champion %d, scores %+v; want 2 with the others' errors", best, scores)
	}
	msg := cvMessage(scores, stats.RootMeanSquareError, false, cvRegressionSEs, cvRegressionMaxGap, 3, len(trainPos))
	if msg.Severity != "debug" || !strings.Contains(msg.Text, "panics failed") || !strings.Contains(msg.Text, "fails failed (cannot fit)") ||
		!strings.Contains(msg.Text, "ridge ") {
		t.Errorf("cvMessage() = %+v, want a debug message naming each contestant", msg)
	}

	// Predicting NaN off the training part fails every fold: with nobody
	// through the folds, the test RMSE decides.
	nan := nanOffSplit{lucky{n: len(trainPos), table: table}}
	_, best, scores, err = regressionContest(t.Context(), []regress.Algorithm{nan}, regress.Data{X: xTrain, Y: yTrain}, xTest, yTest, seed, 2, 3, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 || scores[0].Err == nil {
		t.Errorf("regressionContest(fails every fold) = champion %d, scores %+v; want the test champion 0 and a fold error", best, scores)
	}
}

// nanOffSplit predicts NaN except when fitted on the training part.
type nanOffSplit struct{ lucky }

func (n nanOffSplit) Fit(d regress.Data, o regress.Options) (regress.Model, error) {
	if len(d.Y) != n.n {
		return nanModel{}, nil
	}
	return n.lucky.Fit(d, o)
}

type nanModel struct{ luckyModel }

func (nanModel) Predict(_ mat.Matrix, dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}

func TestCVRepeats(t *testing.T) {
	for _, c := range []struct{ n, features, want int }{
		{9, 2, 0}, {10, 2, 3}, {240, 10, 3}, {cvMaxTrainRows, 20, 3}, {cvMaxTrainRows + 1, 2, 0}, {80000, 10, 0},
		{1000, 21, 1}, {300, 200, 1}, {1000, 60, 1}, {1000, 61, 0}, {240, 0, 3},
	} {
		if got := cvRepeats(c.n, c.features); got != c.want {
			t.Errorf("cvRepeats(%d, %d) = %d, want %d", c.n, c.features, got, c.want)
		}
	}
}

// cvNote returns the session's cross-validation message, or "".
func cvNote(s Session) string {
	for _, m := range s.Messages {
		if m.Severity == "debug" && strings.HasPrefix(m.Text, "The champion was chosen by") {
			return m.Text
		}
	}
	return ""
}

// A small session chooses its champion by cross-validation, says so in a
// debug message, shows the champion's test metrics, and chooses the same
// champion when it runs again; a session above the threshold keeps the
// single split.
func TestSessionCVChampion(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "small", linearCSV(200))
	s, err := e.CreateSession(t.Context(), regressionRequest("small"))
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitSession(t, s.ID)
	if done.Status != StatusCompleted {
		t.Fatalf("small session = %s %+v, want completed", done.Status, done.Messages)
	}
	note := cvNote(done)
	t.Logf("champion %s; %s", done.Algorithm.Key, note)
	if !strings.Contains(note, "3 × 5-fold cross-validation on the 160 training rows") {
		t.Errorf("small session messages = %+v, want the cross-validation note", done.Messages)
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
	if done.Metrics[stats.RootMeanSquareError] != c.Champion.Metrics[stats.RootMeanSquareError] || len(c.Champion.Metrics) != 4 {
		t.Errorf("session metrics %v, champion's %v: want the champion's test metrics", done.Metrics, c.Champion.Metrics)
	}
	// The target is linear: the one-SE rule keeps a linear model.
	if k := done.Algorithm.Key; k != "ols" && k != "ridge" && k != "lasso" {
		t.Errorf("small linear session champion = %s, want a linear model", k)
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
	e.regressors = func() []regress.Algorithm { return regress.Algorithms()[:2] }
	n := int(math.Ceil(float64(cvMaxTrainRows+1) / 0.8))
	e.putTestCSV(t, "large", linearCSV(n))
	s, err = e.CreateSession(t.Context(), regressionRequest("large"))
	if err != nil {
		t.Fatal(err)
	}
	done = e.waitSession(t, s.ID)
	if done.Status != StatusCompleted || cvNote(done) != "" {
		t.Errorf("session on %d rows = %s, note %q; want completed by the single split", n, done.Status, cvNote(done))
	}
}

// denseRows copies the rows of x at positions into a new matrix.
func denseRows(x *mat.Dense, positions []int) *mat.Dense {
	_, c := x.Dims()
	out := mat.NewDense(len(positions), c, nil)
	for i, p := range positions {
		out.SetRow(i, x.RawRowView(p))
	}
	return out
}
