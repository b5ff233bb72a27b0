package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/contest"
)

// Classification model sessions (REFERENCE §6.3, §6.11, §6.12;
// MODELLING §5, §7). Where the reference is silent this server chooses:
//
//   - Labels are the target's values as the dataset renders them (a
//     numeric 1 is "1", a logical is "true"/"false"), so a numeric or
//     logical target keeps its spelling in every output; the session's
//     missing-value tokens leave a row out like an empty target.
//   - Classes with fewer than minClassRows rows are left out with the
//     recorded warning, their rows dropped; fewer than two classes left
//     fail the session with the recorded error (MODELLING §7.1).
//   - The split is stratified: round(0.2·n_c) test rows per class, at
//     least one (§5.2). balance (default true) weighs training rows
//     n / (K·n_c) in every algorithm (§7.5).
//   - The champion has the highest macroAverageF1Score; ties go to the
//     higher matthewsCorrelationCoefficient, then to the earlier (simpler)
//     algorithm of the line-up (§7.6). On a small training part the
//     highest stratified cross-validated macroAverageF1Score decides
//     instead, with the rule widened to three standard errors but at most
//     0.03 of macro-F1 (contest_cv.go, cvClassSEs, cvClassMaxGap).
//   - /results and a contestant's rows carry the predicted label; the
//     class scores (the champion's probabilities, §7.4) are stored for the
//     test rows and served by /results/classscores; the confusion matrix
//     is the champion's on the test rows.
//   - availablePredictionIntervals is [] (REFERENCE §6.3).

// minClassRows is the fewest rows a class needs (MODELLING §7.1).
const minClassRows = 5

// parseBool reads a boolean extraParameter: JSON booleans arrive as
// "true"/"false" and .NET sends "True" (REFERENCE §8.3), so any case is
// accepted; the key is matched case-insensitively. def is returned when
// the parameter is absent; ok is false when it is not a boolean.
func parseBool(extra map[string]string, key string, def bool) (v, ok bool) {
	for k, v := range extra {
		if !strings.EqualFold(k, key) {
			continue
		}
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
		if err != nil {
			return def, false
		}
		return b, true
	}
	return def, true
}

// sessionExtra is a session's extraParameters as shown (REFERENCE
// §2.3): {"event": …} for impact, {"balance": …} for classification (the
// effective value), {} otherwise.
func sessionExtra(s Session, req SessionRequest) []ExtraParam {
	switch s.Domain {
	case DomainClassification:
		b, _ := parseBool(req.ExtraParameters, "balance", true)
		return []ExtraParam{{Name: "balance", Value: b}}
	case DomainAnomalies:
		b, _ := parseBool(req.ExtraParameters, "containsAnomalies", true)
		return []ExtraParam{{Name: "containsAnomalies", Value: b}}
	}
	return impactExtra(s)
}

// extraBool is a boolean entry of a session's extraParameters, def when
// absent.
func extraBool(extra []ExtraParam, name string, def bool) bool {
	for _, p := range extra {
		if b, ok := p.Value.(bool); ok && p.Name == name {
			return b
		}
	}
	return def
}

// classSet is a classification target's classes: labels in `classes`
// order and each row's class index.
type classSet struct {
	labels []string
	y      []int // per kept row of sessionData.rows
}

// classOrder sorts labels as MODELLING §7.1 says: numerically when every
// label reads as a number, else in ordinal string order.
func classOrder(labels []string) {
	nums := make(map[string]float64, len(labels))
	for _, l := range labels {
		v, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if err != nil || math.IsNaN(v) {
			slices.Sort(labels)
			return
		}
		nums[l] = v
	}
	slices.SortFunc(labels, func(a, b string) int {
		return cmp.Or(cmp.Compare(nums[a], nums[b]), strings.Compare(a, b))
	})
}

// classesOf finds the classes of the rows' labels, drops rare ones with
// the recorded warning, and returns the rows kept (positions into labels).
// A kept class must name a column "<target>:<class>" (class scores,
// MODELLING §0): a label that cannot (over maxNameLen bytes with the
// target's name, a NUL, invalid UTF-8) fails the session with a message;
// the reference sets no length of its own.
func classesOf(target string, labels []string) (classSet, []int, []Message, error) {
	counts := map[string]int{}
	for _, l := range labels {
		counts[l]++
	}
	var keep []string
	var msgs []Message
	all := make([]string, 0, len(counts))
	for l := range counts {
		all = append(all, l)
	}
	classOrder(all)
	for _, l := range all {
		if counts[l] < minClassRows {
			msgs = append(msgs, Message{"warning", fmt.Sprintf("Target class '%s' is only specified on %d record(s) in the dataset. Classes need a minimum of %d records per class; this class was left out of the model.", l, counts[l], minClassRows)})
			continue
		}
		keep = append(keep, l)
	}
	if len(keep) < 2 {
		return classSet{}, nil, msgs, &Error{Kind: Invalid, Msg: "Dataset has only one valid target class. At least 2 target classes are required to build a model."}
	}
	for _, l := range keep {
		if validColumnName(target+":"+l) != nil {
			return classSet{}, nil, msgs, &Error{Kind: Invalid, Msg: fmt.Sprintf("Target class '%s' cannot name a class-score column: %s:<class> must be 1 to %d bytes of valid text without NUL characters.",
				shownName(strings.ToValidUTF8(strings.ReplaceAll(l, "\x00", ""), "?")), target, maxNameLen)}
		}
	}
	index := make(map[string]int, len(keep))
	for i, l := range keep {
		index[l] = i
	}
	cs := classSet{labels: keep}
	var rows []int
	for i, l := range labels {
		if k, ok := index[l]; ok {
			rows = append(rows, i)
			cs.y = append(cs.y, k)
		}
	}
	return cs, rows, msgs, nil
}

// stratifiedSplit draws round(0.2·n_c) test rows (at least 1) of each
// class from the session's "split" source (MODELLING §5.2) and returns
// training and test positions into y, each ascending.
func stratifiedSplit(seed uint64, y []int, k int) (train, test []int) {
	byClass := make([][]int, k)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	rng := stats.Rand(seed, "split")
	for _, rows := range byClass {
		nTest := max(1, int(math.Round(0.2*float64(len(rows)))))
		perm := rng.Perm(len(rows))
		for j, p := range perm {
			if j < nTest {
				test = append(test, rows[p])
			} else {
				train = append(train, rows[p])
			}
		}
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test
}

// balanceWeights are §7.5's training weights n / (K·n_c).
func balanceWeights(y []int, k int) []float64 {
	counts := make([]float64, k)
	for _, c := range y {
		counts[c]++
	}
	w := make([]float64, len(y))
	n := float64(len(y))
	for i, c := range y {
		w[i] = n / (float64(k) * counts[c])
	}
	return w
}

// classificationFit is a candidate's fitted model with its test
// probabilities and predicted classes.
type classificationFit struct {
	model classify.Model
	proba *mat.Dense
	pred  []int
}

func (e *Engine) runClassification(ctx context.Context, s Session, progress func(int)) error {
	d, err := e.loadSessionData(ctx, s)
	if err != nil {
		return err
	}
	tcol := d.frame[d.target]
	labels := make([]string, len(d.rows))
	for i, r := range d.rows {
		labels[i] = tcol.Text[r]
	}
	var msgs []Message
	msgs = append(msgs, Message{"informational", fmt.Sprintf("%d observations were found in the dataset.", len(d.rows))})
	if skipped := tcol.length() - len(d.rows); skipped > 0 {
		msgs = append(msgs, Message{"informational", fmt.Sprintf("%d rows without a value for %s were left out.", skipped, s.TargetColumn)})
	}
	cs, kept, warn, err := classesOf(s.TargetColumn, labels)
	msgs = append(msgs, warn...)
	if err != nil {
		return e.failWithMessages(ctx, s, msgs, err)
	}
	rows := pick(d.rows, kept)
	n, k := len(rows), len(cs.labels)
	if n < minModelRows {
		return &Error{Kind: Invalid, Msg: fmt.Sprintf("This data source has too few data points for reliable predictions to be made: %d rows with a value for %s, at least %d are needed.", n, s.TargetColumn, minModelRows)}
	}
	balance := extraBool(s.Extra, "balance", true)
	seed := sessionSeed(s.ID)
	trainPos, testPos := stratifiedSplit(seed, cs.y, k)
	trainRows, testRows := pick(rows, trainPos), pick(rows, testPos)
	yTrain, yTest := pick(cs.y, trainPos), pick(cs.y, testPos)
	yf := make([]float64, len(yTrain))
	for i, c := range yTrain {
		yf[i] = float64(c)
	}
	sp, err := encodeSplit(d, trainRows, testRows, s.MissingValues, fitTarget{y: yf, discrete: true})
	if err != nil {
		return e.failWithMessages(ctx, s, msgs, err)
	}
	msgs = append(msgs, textMessages(sp.pipe)...)
	features, xTrain, xTest := sp.features, sp.xTrain, sp.xTest
	progress(10)
	if err := ctx.Err(); err != nil {
		return err
	}
	workers := runtime.GOMAXPROCS(0)
	importance := sp.importance(yf, true, seed, workers)
	progress(20)

	var w []float64
	if balance {
		w = balanceWeights(yTrain, k)
	}
	train := classify.AsData(xTrain, yTrain, k, w)
	var algos []classify.Algorithm
	for _, a := range e.classifiers(sp.pipe.textFeatures()) {
		if why := outOfBudget(a.Key(), len(trainPos), len(testPos), len(features)); why != "" {
			msgs = append(msgs, Message{"informational", why})
			continue
		}
		algos = append(algos, a)
	}
	repeats := cvClassRepeats(len(trainPos), len(features), k)
	results, best, cvScores, err := classificationContest(ctx, algos, train, xTest, yTest, seed, workers, repeats,
		func(pct int) { progress(20 + 70*pct/100) })
	if err != nil {
		return err
	}
	if cvScores != nil {
		msgs = append(msgs, cvMessage(cvScores, stats.MacroAverageF1Score, true, cvClassSEs, cvClassMaxGap, repeats, len(trainPos)))
	}
	contestants := make([]Contestant, len(results))
	for i, r := range results {
		a := algos[i]
		contestants[i] = e.contestantOf(ctx, s.ID, a.Key(), a.Name(), a.Scaled(), r.Err, r.Metrics, features, func() []float64 { return r.Model.model.Importance() })
	}
	if best < 0 {
		return e.failContest(ctx, s, contestants, msgs)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	yAll := make([]float64, len(cs.y))
	for i, c := range cs.y {
		yAll[i] = float64(c)
	}
	all := fitPipeline(d.frame, d.cols, rows, s.MissingValues, fitTarget{y: yAll, discrete: true})
	xAll, err := all.encodeWords(d.frame, rows)
	if err != nil {
		return err
	}
	var wAll []float64
	if balance {
		wAll = balanceWeights(cs.y, k)
	}
	dAll := classify.AsData(xAll, cs.y, k, wAll)
	final, err := results[best].Model.model.Refit(dAll, classify.Options{Seed: seed, Workers: workers})
	if err != nil {
		return fmt.Errorf("refit champion: %w", err)
	}
	progress(95)
	blob, err := encodeClassifier(all, final, cs.labels)
	if err != nil {
		return err
	}
	champ := results[best].Model
	confusion := stats.ConfusionMatrix(yTest, champ.pred, k)
	return e.completeModelSession(ctx, s, completion{
		contestants: contestants, champion: best, selection: selectionSets(contestants, n, len(trainPos), len(testPos), len(features), yAll),
		features: features, importance: importance, testRows: testRows, messages: msgs, model: blob, texts: all.texts,
		writePredictions: func(ctx context.Context) error {
			return e.writeClassification(ctx, s.ID, contestants, results, testRows, cs.labels, champ.proba, confusion)
		},
	})
}

// classificationContest fits every algorithm on train and scores it on
// the test rows, then picks the champion as regressionContest does: by
// cvRepeats × cvFolds-fold stratified cross-validation on train when
// cvRepeats > 0 (contest_cv.go; each fold refits a test fit's
// hyper-parameters on its rows, weighed as train's are, by their own
// balance weights when train has weights), else, or when no
// contestant survives every fold, by classificationChampion. It returns
// the test results in algos' order, the champion's index (-1 when every
// contestant failed) and the cross-validation scores (nil without cv).
// progress receives a percentage of the contest done.
func classificationContest(ctx context.Context, algos []classify.Algorithm, train classify.Data, xTest mat.Matrix, yTest []int,
	seed uint64, workers, cvRepeats int, progress func(pct int)) ([]contest.Result[classificationFit], int, []contest.CVScore, error) {
	// One test fit per contestant against 5 or 15 fold fits.
	share := 100
	if cvRepeats > 0 {
		share = 10
	}
	cands := make([]contest.Candidate[classificationFit], len(algos))
	for i, a := range algos {
		cands[i] = contest.Func[classificationFit]{K: a.Key(), F: func() (classificationFit, error) {
			m, err := a.Fit(train, classify.Options{Seed: seed, Workers: workers})
			if err != nil {
				return classificationFit{}, err
			}
			p := mat.NewDense(len(yTest), train.K, nil)
			m.Proba(xTest, p)
			return classificationFit{model: m, proba: p, pred: classify.Predict(p)}, nil
		}}
	}
	// The contestants fit side by side, each with up to workers
	// goroutines of its own: most fits are serial on small data (gbm's
	// histograms below parallelCells, the logistic searches' last folds),
	// so one at a time would leave cores idle, and the scheduler shares
	// them when both are parallel.
	opt := contest.Options{Workers: workers, Metric: stats.MacroAverageF1Score, HigherIsBetter: true,
		Progress: func(done, total int) { progress(share * done / total) }}
	results, err := contest.Run(ctx, cands, func(f classificationFit) (map[string]float64, error) {
		if err := checkClassScores(f.proba); err != nil {
			return nil, err
		}
		return stats.ClassificationMetrics(yTest, f.pred, train.K, f.proba), nil
	}, opt)
	if err != nil {
		return nil, -1, nil, err
	}
	best := classificationChampion(results)
	if cvRepeats == 0 || best < 0 {
		return results, best, nil, nil
	}
	best, scores, err := championByCV(results, best, true, cvClassSEs, cvClassMaxGap, func(at []int) ([]contest.CVScore, error) {
		fits := make([]classify.Model, len(at))
		for j, i := range at {
			fits[j] = results[i].Model.model
		}
		return rankClassificationCV(ctx, fits, train, seed, cvRepeats, workers, func(done, total int) {
			progress(share + (100-share)*done/total)
		})
	})
	if err != nil {
		return nil, -1, nil, err
	}
	return results, best, scores, nil
}

// checkClassScores fails a model whose class scores leave [0, 1]
// (MODELLING §7.4).
func checkClassScores(p *mat.Dense) error {
	for _, v := range p.RawMatrix().Data {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return errors.New("the model gave a class score outside [0, 1]")
		}
	}
	return nil
}

// classificationChampion is MODELLING §7.6's champion: the highest
// macroAverageF1Score, ties to the higher MCC, then to the earlier
// candidate; -1 when none succeeded.
func classificationChampion(rs []contest.Result[classificationFit]) int {
	best := -1
	for i, r := range rs {
		if r.Err != nil {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		f, bf := r.Metrics[stats.MacroAverageF1Score], rs[best].Metrics[stats.MacroAverageF1Score]
		m, bm := r.Metrics[stats.MatthewsCorrelationCoefficient], rs[best].Metrics[stats.MatthewsCorrelationCoefficient]
		if f > bf || (f == bf && m > bm) {
			best = i
		}
	}
	return best
}

// writeClassification stores a classification contest's outputs: every
// successful contestant's predicted class per test row, the classes, the
// champion's class scores and its confusion matrix.
func (e *Engine) writeClassification(ctx context.Context, id string, cs []Contestant, results []contest.Result[classificationFit], rows []int, labels []string, scores *mat.Dense, confusion [][]int) error {
	err := e.writePredictionRows(ctx, id, func(emit func(contestant string, row int64, v float64)) {
		for i, r := range results {
			if r.Err != nil {
				continue
			}
			for j, p := range r.Model.pred {
				emit(cs[i].ID, int64(rows[j]), float64(p))
			}
		}
	})
	if err != nil {
		return err
	}
	q, err := sqlgen.CreateClasses(id)
	if err := e.createResults(ctx, q, err, "classes"); err != nil {
		return err
	}
	cb := array.NewRecordBuilder(e.opts.Allocator, arrow.NewSchema([]arrow.Field{
		{Name: "idx", Type: arrow.PrimitiveTypes.Int32}, {Name: "label", Type: arrow.BinaryTypes.String},
	}, nil))
	defer cb.Release()
	for i, l := range labels {
		cb.Field(0).(*array.Int32Builder).Append(int32(i))
		cb.Field(1).(*array.StringBuilder).Append(l)
	}
	rec := cb.NewRecordBatch()
	defer rec.Release()
	if err := e.appendTable(ctx, sqlgen.ClassesTable(id), rec); err != nil {
		return err
	}
	q, err = sqlgen.CreateClassScores(id, len(labels))
	if err := e.createResults(ctx, q, err, "class scores"); err != nil {
		return err
	}
	fields := []arrow.Field{{Name: sqlgen.RowColumn, Type: arrow.PrimitiveTypes.Int64}}
	for i := range labels {
		fields = append(fields, arrow.Field{Name: sqlgen.ScoreColumn(i), Type: arrow.PrimitiveTypes.Float64})
	}
	sb := array.NewRecordBuilder(e.opts.Allocator, arrow.NewSchema(fields, nil))
	defer sb.Release()
	for j, r := range rows {
		sb.Field(0).(*array.Int64Builder).Append(int64(r))
		for i := range labels {
			sb.Field(i + 1).(*array.Float64Builder).Append(scores.At(j, i))
		}
	}
	srec := sb.NewRecordBatch()
	defer srec.Release()
	if err := e.appendTable(ctx, sqlgen.ClassScoresTable(id), srec); err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, `INSERT INTO catalog.session_classes VALUES (?, ?, ?)`, id, mustJSON(labels), mustJSON(confusion)); err != nil {
		return fmt.Errorf("save classes: %w", err)
	}
	return nil
}

// sessionClasses reads a completed classification session's classes and
// confusion matrix.
func (e *Engine) sessionClasses(ctx context.Context, id string) (labels []string, confusion [][]int, err error) {
	rows, err := e.store.Rows(ctx, `SELECT classes, confusion FROM catalog.session_classes WHERE session_id = ?`, id)
	if err != nil {
		return nil, nil, err
	}
	var l, c string
	if err := scanOne(rows, &l, &c); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal([]byte(l), &labels); err != nil {
		return nil, nil, fmt.Errorf("session %s classes: %w", id, err)
	}
	if err := json.Unmarshal([]byte(c), &confusion); err != nil {
		return nil, nil, fmt.Errorf("session %s confusion matrix: %w", id, err)
	}
	return labels, confusion, nil
}

// ConfusionMatrix is a completed classification session's confusion
// matrix (REFERENCE §6.11).
type ConfusionMatrix struct {
	Session Session
	Classes []string
	Matrix  [][]int
}

// SessionConfusionMatrix returns a completed classification session's
// classes and its champion's confusion matrix on the test rows; any
// other session is 404 (REFERENCE §6.11).
func (e *Engine) SessionConfusionMatrix(ctx context.Context, id string) (ConfusionMatrix, error) {
	s, err := e.ResultSession(ctx, id, ResultConfusionMatrix)
	if err != nil {
		return ConfusionMatrix{}, err
	}
	labels, m, err := e.sessionClasses(ctx, s.ID)
	if err != nil {
		return ConfusionMatrix{}, err
	}
	return ConfusionMatrix{Session: s, Classes: labels, Matrix: m}, nil
}

// SessionClassScores returns a completed classification session with its
// classes and a page of its test rows with the champion's class scores
// (REFERENCE §6.12).
func (e *Engine) SessionClassScores(ctx context.Context, id string, p Page) (Session, []string, *Rows, error) {
	s, err := e.ResultSession(ctx, id, ResultClassScores)
	if err != nil {
		return s, nil, nil, err
	}
	labels, _, err := e.sessionClasses(ctx, s.ID)
	if err != nil {
		return s, nil, nil, err
	}
	champion, err := e.sessionChampion(ctx, s.ID)
	if err != nil {
		return s, nil, nil, err
	}
	rows, err := e.testRowsOf(ctx, s, champion, labels, p)
	return s, labels, rows, err
}
