package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/anomaly"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/contest"
	"github.com/vaticml/vatic/stats/regress"
)

// runSession performs a session that has run before: one a previous
// process left started (an orphan). It reads the session and clears what
// the interrupted run may have left, then runs it as runClaimed does.
func (e *Engine) runSession(ctx context.Context, id string, progress func(int)) error {
	s, err := e.Session(ctx, id)
	if err != nil {
		return err
	}
	if err := e.store.Tx(ctx, func(ctx context.Context) error { return e.clearSessionOutputs(ctx, id) }); err != nil {
		return err
	}
	return e.runClaimed(ctx, s, progress)
}

// runClaimed performs a claimed session that has no outputs yet (a
// requested session never ran): snapshot the data source, prepare the
// rows, run the contest, store contestants, results and the model, and
// mark it completed. Cancellation is checked between steps and between
// candidates.
func (e *Engine) runClaimed(ctx context.Context, s Session, progress func(int)) error {
	switch s.Domain {
	case DomainRegression:
		return e.runRegression(ctx, s, progress)
	case DomainClassification:
		return e.runClassification(ctx, s, progress)
	case DomainAnomalies:
		return e.runAnomalies(ctx, s, progress)
	case string(SessionForecast):
		return e.runForecast(ctx, s, progress)
	case string(SessionImpact):
		return e.runImpact(ctx, s, progress)
	}
	return &Error{Kind: Invalid, Msg: fmt.Sprintf("Sessions of prediction domain %s cannot run on this server.", s.Domain)}
}

// sessionData is a session's prepared rows.
type sessionData struct {
	cols   []columnar.Column // the columns read, snapshot order
	frame  []*frameColumn
	target int   // index of the target in cols
	rows   []int // rows with a target value
	y      []float64
}

// loadSessionData snapshots the data source into schema results and reads
// the columns a model session uses.
func (e *Engine) loadSessionData(ctx context.Context, s Session) (*sessionData, error) {
	var snapCols []string
	var used []columnar.Column
	for _, c := range s.Columns {
		if c.Role == columnar.RoleNone || (s.Domain == DomainAnomalies && c.Role == columnar.RoleTarget) {
			// An anomalies session's target is its score column, not data.
			continue
		}
		snapCols = append(snapCols, c.Name)
		if c.Role == columnar.RoleTarget && s.Domain == DomainClassification {
			// Labels: the values as text, whatever their type (MODELLING
			// §7.1).
			c.DataType = columnar.String
		}
		if c.Role == columnar.RoleTarget || isFeature(c) {
			used = append(used, c)
		}
	}
	schema, order := sqlgen.DataSchema, ""
	if s.sourceIsView {
		schema = sqlgen.ViewSchema
	}
	if ts := columnWithRole(s.Columns, columnar.RoleTimestamp); ts != "" {
		order = ts
	}
	q, err := sqlgen.Snapshot(schema, s.DataSourceName, sqlgen.SnapshotTable(s.ID), snapCols, order)
	if err != nil {
		return nil, err
	}
	if _, err := e.store.Exec(ctx, q); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("The data source %s could not be read: it changed or was removed since the session was requested.", s.DataSourceName), Err: err}
	}
	frame, err := e.readSnapshot(ctx, s.ID, used)
	if err != nil {
		return nil, err
	}
	markMissing(frame, s.MissingValues)
	d := &sessionData{cols: used, frame: frame, target: columnIndex(used, s.TargetColumn)}
	if d.target < 0 {
		return d, nil
	}
	t := frame[d.target]
	if t.isText() {
		for i, ok := range t.OK {
			if ok {
				d.rows = append(d.rows, i)
			}
		}
		return d, nil
	}
	for i, v := range t.Num {
		if !math.IsNaN(v) {
			d.rows = append(d.rows, i)
			d.y = append(d.y, v)
		}
	}
	return d, nil
}

// markMissing treats the session's missing-value tokens (REFERENCE §2.3
// missingValues, MODELLING §12.1) as missing in text columns; numbers,
// logicals and dates were parsed at upload, where the dataset's own tokens
// already applied.
func markMissing(frame []*frameColumn, tokens []string) {
	if len(tokens) == 0 {
		return
	}
	set := map[string]bool{}
	for _, t := range tokens {
		set[strings.ToLower(strings.TrimSpace(t))] = true
	}
	for _, fc := range frame {
		if !fc.isText() {
			continue
		}
		for i, v := range fc.Text {
			if fc.OK[i] && set[strings.ToLower(strings.TrimSpace(v))] {
				fc.OK[i] = false
			}
		}
	}
}

// split draws the test rows (20 %, at least 1, MODELLING §5.2) from the
// session's own random source and returns training and test positions
// into d.rows, each ascending.
func split(seed uint64, n int) (train, test []int) {
	nTest := max(1, int(math.Round(0.2*float64(n))))
	perm := stats.Rand(seed, "split").Perm(n)
	test = slices.Clone(perm[:nTest])
	train = slices.Clone(perm[nTest:])
	slices.Sort(test)
	slices.Sort(train)
	return train, test
}

// pick returns the elements of v at positions.
func pick[T any](v []T, positions []int) []T {
	out := make([]T, len(positions))
	for i, p := range positions {
		out[i] = v[p]
	}
	return out
}

// sessionSeed is MODELLING §0's seed of a session id.
func sessionSeed(id string) uint64 {
	u, _ := uuid.Parse(id)
	return stats.SeedOf(u)
}

// regressionFit is a candidate's fitted model with its test predictions.
type regressionFit struct {
	model regress.Model
	pred  []float64
}

func (e *Engine) runRegression(ctx context.Context, s Session, progress func(int)) error {
	d, err := e.loadSessionData(ctx, s)
	if err != nil {
		return err
	}
	n := len(d.rows)
	var msgs []Message
	msgs = append(msgs, Message{"informational", fmt.Sprintf("%d observations were found in the dataset.", n)})
	if skipped := d.frame[d.target].length() - n; skipped > 0 {
		msgs = append(msgs, Message{"informational", fmt.Sprintf("%d rows without a value for %s were left out.", skipped, s.TargetColumn)})
	}
	if n < minModelRows {
		return &Error{Kind: Invalid, Msg: fmt.Sprintf("This data source has too few data points for reliable predictions to be made: %d rows with a value for %s, at least %d are needed.", n, s.TargetColumn, minModelRows)}
	}
	seed := sessionSeed(s.ID)
	trainPos, testPos := split(seed, n)
	trainRows, testRows := pick(d.rows, trainPos), pick(d.rows, testPos)
	yTrain, yTest := pick(d.y, trainPos), pick(d.y, testPos)
	sp, err := encodeSplit(d, trainRows, testRows, s.MissingValues, fitTarget{y: yTrain})
	if err != nil {
		return e.failWithMessages(ctx, s, msgs, err)
	}
	msgs = append(msgs, textMessages(sp.pipe)...)
	features := sp.features
	// The words stay a CSR block (issue 16): every family reads them
	// sparsely (regress.Data).
	train := regress.AsData(sp.xTrain, yTrain)
	progress(10)
	if err := ctx.Err(); err != nil {
		return err
	}
	workers := runtime.GOMAXPROCS(0)
	importance := sp.importance(yTrain, false, seed, workers)
	progress(20)

	var algos []regress.Algorithm
	for _, a := range e.regressors() {
		if why := outOfBudget(a.Key(), len(trainPos), len(testPos), len(features)); why != "" {
			msgs = append(msgs, Message{"informational", why})
			continue
		}
		algos = append(algos, a)
	}
	repeats := cvRepeats(len(trainPos), len(features))
	results, best, cvScores, err := regressionContest(ctx, algos, train, rowsMatrix(sp.xTest), yTest, seed, workers, repeats,
		func(pct int) { progress(20 + 70*pct/100) })
	if err != nil {
		return err
	}
	if cvScores != nil {
		msgs = append(msgs, cvMessage(cvScores, stats.RootMeanSquareError, false, cvRegressionSEs, cvRegressionMaxGap, repeats, len(trainPos)))
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
	// The saved model: the champion refitted on every row, with a
	// preparation fitted on every row too (MODELLING §5.2).
	all := fitPipeline(d.frame, d.cols, d.rows, s.MissingValues, fitTarget{y: d.y})
	xAll, err := all.encodeWords(d.frame, d.rows)
	if err != nil {
		return err
	}
	dAll := regress.AsData(xAll, d.y)
	final, err := results[best].Model.model.Refit(dAll, regress.Options{Seed: seed, Workers: workers})
	if err != nil {
		return fmt.Errorf("refit champion: %w", err)
	}
	progress(95)
	blob, err := encodeModel(all, final)
	if err != nil {
		return err
	}
	selection := selectionSets(contestants, n, len(trainPos), len(testPos), len(features), d.y)
	return e.completeModelSession(ctx, s, completion{
		contestants: contestants, champion: best, selection: selection, features: features, importance: importance,
		testRows: testRows, preds: results, messages: msgs, model: blob, texts: all.texts,
	})
}

// encodedSplit is a model session's preparation fitted on its training
// rows, with both parts encoded, the text columns' words as a CSR block
// (pipeline.encodeWords).
type encodedSplit struct {
	pipe          pipeline
	features      []string
	discrete      []bool
	xTrain, xTest *stats.SparseMatrix
}

// encodeSplit fits the preparation on the training rows (MODELLING §1.2,
// §12), t being their target, and encodes the training and test rows with
// it.
func encodeSplit(d *sessionData, trainRows, testRows []int, missing []string, t fitTarget) (encodedSplit, error) {
	pipe := fitPipeline(d.frame, d.cols, trainRows, missing, t)
	sp := encodedSplit{pipe: pipe}
	sp.features, sp.discrete = pipe.Features()
	if len(sp.features) == 0 {
		msg := "No feature column has a value in the training rows."
		if len(pipe.texts) > 0 {
			msg = "No feature column has a value in the training rows, and no text column has a word that occurs in at least 2 and at most 95% of them and varies with the target."
		}
		return sp, &Error{Kind: Invalid, Msg: msg}
	}
	var err error
	if sp.xTrain, err = pipe.encodeWords(d.frame, trainRows); err != nil {
		return sp, err
	}
	sp.xTest, err = pipe.encodeWords(d.frame, testRows)
	return sp, err
}

// rowsMatrix is the matrix the models read of encoded rows x: its dense
// block itself without words (read in place by every family), else x, the
// words kept sparse.
func rowsMatrix(x *stats.SparseMatrix) mat.Matrix {
	if x.Words == nil {
		return x.Dense
	}
	return x
}

// createResults runs a CREATE statement of a session's results table
// (what names it in the error).
func (e *Engine) createResults(ctx context.Context, q string, err error, what string) error {
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, q); err != nil {
		return fmt.Errorf("create %s: %w", what, err)
	}
	return nil
}

// importance is the feature importance of §9 of the training part,
// y its target: measured on the encoded columns, except the text columns'
// words, which come at the end of the matrix and keep the importance
// their column selected them by (text.Importance, the same definition
// computed on the sparse TF-IDF matrix: the k-NN estimator over up to
// maxTextTerms columns per text column would cost more than the contest).
func (sp encodedSplit) importance(y []float64, targetDiscrete bool, seed uint64, workers int) []float64 {
	var out []float64
	if m := sp.xTrain.DenseCols(); m > 0 {
		out = stats.FeatureImportance(sp.xTrain.Dense, y, sp.discrete[:m], targetDiscrete, seed, workers)
	}
	for _, tf := range sp.pipe.texts {
		out = append(out, tf.importance...)
	}
	return out
}

// contestantOf is how one model-session candidate fared, as stored: its
// metrics and scaled intrinsic importance, or its failure (a panic is
// logged with its stack and shown as a plain failure).
func (e *Engine) contestantOf(ctx context.Context, session, key, name string, scaled bool, err error, metrics map[string]float64, features []string, importance func() []float64) Contestant {
	c := Contestant{ID: uuid.NewString(), Algorithm: Algorithm{Key: key, Name: name, Description: name},
		Properties: []string{"Imputed"}, Metrics: map[string]float64{}, Importance: map[string]float64{}}
	if scaled {
		c.Properties = append(c.Properties, "Scaled")
	}
	if err == nil {
		c.Metrics = metrics
		c.Importance = scaledImportance(features, importance())
		return c
	}
	c.Message = "The algorithm failed on this data source."
	var pe *contest.PanicError
	if errors.As(err, &pe) {
		e.log.ErrorContext(ctx, "contestant panicked", LogSessionID, session, LogAlgorithm, key, "panic", pe.Value, "stack", string(pe.Stack))
	} else {
		e.log.WarnContext(ctx, "contestant failed", LogSessionID, session, LogAlgorithm, key, LogErr, err)
		c.Message = err.Error()
	}
	return c
}

// failWithMessages records a model session's messages so far, then fails
// it with err.
func (e *Engine) failWithMessages(ctx context.Context, s Session, msgs []Message, err error) error {
	if txErr := e.addSessionMessages(ctx, s.ID, msgs...); txErr != nil {
		return txErr
	}
	return err
}

// regressionContest fits every algorithm on the training part train and
// scores it on the test rows xTest (rowsMatrix of the encoded ones), then picks the champion: by cvRepeats × cvFolds-fold
// cross-validation on the training part when cvRepeats > 0
// (contest_cv.go), else, or when no contestant survives every fold, by the
// lowest test RMSE. It returns the
// test results in algos' order, the champion's index (-1 when every
// contestant failed) and the cross-validation scores (nil without cv).
// progress receives a percentage of the contest done.
func regressionContest(ctx context.Context, algos []regress.Algorithm, train regress.Data, xTest mat.Matrix, yTest []float64,
	seed uint64, workers, cvRepeats int, progress func(pct int)) ([]contest.Result[regressionFit], int, []contest.CVScore, error) {
	// One test fit per contestant against 5 or 15 fold fits.
	share := 100
	if cvRepeats > 0 {
		share = 10
	}
	cands := make([]contest.Candidate[regressionFit], len(algos))
	for i, a := range algos {
		cands[i] = contest.Func[regressionFit]{K: a.Key(), F: func() (regressionFit, error) {
			m, err := a.Fit(train, regress.Options{Seed: seed, Workers: workers})
			if err != nil {
				return regressionFit{}, err
			}
			pred := make([]float64, len(yTest))
			m.Predict(xTest, pred)
			return regressionFit{model: m, pred: pred}, nil
		}}
	}
	opt := contest.Options{Workers: 1, Metric: stats.RootMeanSquareError,
		Progress: func(done, total int) { progress(share * done / total) }}
	results, err := contest.Run(ctx, cands, func(f regressionFit) (map[string]float64, error) {
		for _, v := range f.pred {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("the model predicted a value that is not a number")
			}
		}
		return stats.RegressionMetrics(yTest, f.pred), nil
	}, opt)
	if err != nil {
		return nil, -1, nil, err
	}
	best := contest.Champion(results, opt)
	if cvRepeats == 0 || best < 0 {
		return results, best, nil, nil
	}
	best, scores, err := championByCV(results, best, false, cvRegressionSEs, cvRegressionMaxGap, func(at []int) ([]contest.CVScore, error) {
		return rankRegressionCV(ctx, pick(algos, at), train, seed, cvRepeats, workers, func(done, total int) {
			progress(share + (100-share)*done/total)
		})
	})
	if err != nil {
		return nil, -1, nil, err
	}
	return results, best, scores, nil
}

// knnBudget bounds the distance computations of k-NN's test predictions
// (test rows × training rows × features): about 30 s on two cores.
const knnBudget = 4e10

// outOfBudget says why an algorithm is left out of a contest on data this
// size (MODELLING §16's budget), or "".
func outOfBudget(key string, nTrain, nTest, nFeatures int) string {
	if key == "knn" && float64(nTrain)*float64(nTest)*float64(nFeatures) > knnBudget {
		return fmt.Sprintf("knn was left out of the contest: comparing %d test rows with %d training rows on %d features would take too long.", nTest, nTrain, nFeatures)
	}
	return ""
}

// scaledImportance maps a model's intrinsic importance to feature names,
// scaled so the largest is 1 (MODELLING §5.3); non-finite values are left
// out.
func scaledImportance(features []string, imp []float64) map[string]float64 {
	out := map[string]float64{}
	if len(imp) != len(features) {
		return out
	}
	top := 0.0
	for _, v := range imp {
		if !math.IsNaN(v) && math.Abs(v) > top {
			top = math.Abs(v)
		}
	}
	if top == 0 {
		return out
	}
	for i, v := range imp {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[features[i]] = math.Abs(v) / top
		}
	}
	return out
}

// selectionSets lists each distinct data variant the contestants used with
// MODELLING §1.3's metrics.
func selectionSets(cs []Contestant, n, nTrain, nTest, nFeatures int, y []float64) []SelectionSet {
	mean, sd := meanSD(y)
	var out []SelectionSet
	seen := map[string]bool{}
	for _, c := range cs {
		key := fmt.Sprint(c.Properties)
		if seen[key] {
			continue
		}
		seen[key] = true
		m := map[string]float64{"observationCount": float64(n), "trainingCount": float64(nTrain), "testCount": float64(nTest),
			"featureCount": float64(nFeatures), "mean": mean}
		if !math.IsNaN(sd) {
			m["standardDeviation"] = sd
			if mean != 0 {
				m["coefficientOfVariation"] = sd / mean
			}
		}
		out = append(out, SelectionSet{Properties: c.Properties, Metrics: m})
	}
	return out
}

func meanSD(y []float64) (float64, float64) {
	var s float64
	for _, v := range y {
		s += v
	}
	mean := s / float64(len(y))
	if len(y) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(y)-1))
}

// failContest records contestants that all failed and fails the session.
func (e *Engine) failContest(ctx context.Context, s Session, cs []Contestant, msgs []Message) error {
	err := e.store.Tx(ctx, func(ctx context.Context) error {
		if err := e.saveContestants(ctx, s.ID, cs); err != nil {
			return err
		}
		return e.addSessionMessages(ctx, s.ID, msgs...)
	})
	if err != nil {
		return err
	}
	return &Error{Kind: Invalid, Msg: "No algorithm could be run on this data source. Please retry or contact support with the session id."}
}

// completion is everything a completed model session stores.
type completion struct {
	contestants []Contestant
	champion    int
	selection   []SelectionSet
	features    []string
	importance  []float64
	testRows    []int // the snapshot __row of each test row, in prediction order
	preds       []contest.Result[regressionFit]
	messages    []Message
	model       []byte
	// texts are the saved model's text columns, whose vocabularies the
	// session stores.
	texts []textFit
	// writePredictions, when set, stores the test predictions instead of
	// preds (classification: labels, class scores, confusion matrix).
	writePredictions func(ctx context.Context) error
}

// completeModelSession writes a finished contest in one transaction:
// predictions, contestants, selection, importance, the model, and the
// session's completed status.
func (e *Engine) completeModelSession(ctx context.Context, s Session, c completion) error {
	champ := c.contestants[c.champion]
	return e.store.Tx(ctx, func(ctx context.Context) error {
		write := c.writePredictions
		if write == nil {
			write = func(ctx context.Context) error {
				return e.writePredictions(ctx, s.ID, c.contestants, c.preds, c.testRows)
			}
		}
		if err := write(ctx); err != nil {
			return err
		}
		if err := e.saveContestants(ctx, s.ID, c.contestants); err != nil {
			return err
		}
		if err := e.saveSelection(ctx, s.ID, c.selection); err != nil {
			return err
		}
		supports, err := e.saveImportance(ctx, s.ID, c.features, c.importance)
		if err != nil {
			return err
		}
		modelID, err := uuid.NewV7()
		if err != nil {
			return err
		}
		now := e.now()
		if err := e.insertModel(ctx, Model{ID: modelID.String(), SessionID: s.ID, Domain: s.Domain, DataSourceName: s.DataSourceName,
			Name: s.Name, Created: now, Target: s.TargetColumn, Algorithm: champ.Algorithm, Metrics: champ.Metrics, Columns: s.Columns}, c.model); err != nil {
			return err
		}
		if err := e.saveVocabularies(ctx, s, now, c.texts); err != nil {
			return err
		}
		return e.completeSession(ctx, s.ID, sessionEnd{modelID: modelID.String(), champion: champ, supports: supports, messages: c.messages})
	})
}

// writePredictions stores every successful contestant's test predictions.
// rows are the snapshot row numbers of the test rows, in prediction order.
func (e *Engine) writePredictions(ctx context.Context, id string, cs []Contestant, results []contest.Result[regressionFit], rows []int) error {
	return e.writePredictionRows(ctx, id, func(emit func(contestant string, row int64, v float64)) {
		for i, r := range results {
			if r.Err != nil {
				continue
			}
			for j, p := range r.Model.pred {
				emit(cs[i].ID, int64(rows[j]), p)
			}
		}
	})
}

// writePredictionRows creates a session's predictions table (contestant,
// snapshot row, prediction) and stores the rows add emits, of regression
// tests and forecast holdouts alike; a prediction that is not finite is
// stored as NULL.
func (e *Engine) writePredictionRows(ctx context.Context, id string, add func(emit func(contestant string, row int64, v float64))) error {
	q, err := sqlgen.CreatePredictions(sqlgen.PredictionsTable(id))
	if err := e.createResults(ctx, q, err, "predictions"); err != nil {
		return err
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "contestant", Type: arrow.BinaryTypes.String},
		{Name: sqlgen.RowColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: "prediction", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(e.opts.Allocator, schema)
	defer b.Release()
	add(func(contestant string, row int64, v float64) {
		b.Field(0).(*array.StringBuilder).Append(contestant)
		b.Field(1).(*array.Int64Builder).Append(row)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.Field(2).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(v)
		}
	})
	rec := b.NewRecordBatch()
	defer rec.Release()
	return e.appendTable(ctx, sqlgen.PredictionsTable(id), rec)
}

// modelBlob is a saved model's bytes: the preparation and the fitted
// algorithm; a classifier also keeps its classes (labels in `classes`
// order), which tell the decoder to read a classify model.
type modelBlob struct {
	Pipeline pipeline `json:"pipeline"`
	Model    []byte   `json:"model"`
	Classes  []string `json:"classes,omitempty"`
	// Domain is set for an anomaly detector ("anomalies").
	Domain string `json:"domain,omitempty"`
}

func encodeModel(p pipeline, m regress.Model) ([]byte, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("serialise model: %w", err)
	}
	return json.Marshal(modelBlob{Pipeline: p, Model: b})
}

func encodeClassifier(p pipeline, m classify.Model, classes []string) ([]byte, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("serialise model: %w", err)
	}
	return json.Marshal(modelBlob{Pipeline: p, Model: b, Classes: classes})
}

// loadedModel is a saved model ready to predict: a regression model, or a
// classifier with its classes.
type loadedModel struct {
	target     string // the model's target column (Model.Target)
	pipeline   pipeline
	model      regress.Model
	classifier classify.Model
	classes    []string
	detector   anomaly.Model
}

func decodeModel(blob []byte) (*loadedModel, error) {
	var mb modelBlob
	if err := json.Unmarshal(blob, &mb); err != nil {
		return nil, fmt.Errorf("decode model: %w", err)
	}
	if mb.Domain == DomainAnomalies {
		m, err := anomaly.Unmarshal(mb.Model)
		if err != nil {
			return nil, err
		}
		return &loadedModel{pipeline: mb.Pipeline, detector: m}, nil
	}
	if len(mb.Classes) > 0 {
		m, err := classify.Unmarshal(mb.Model)
		if err != nil {
			return nil, err
		}
		if m.Classes() != len(mb.Classes) {
			return nil, fmt.Errorf("decode model: %d classes, the classifier has %d", len(mb.Classes), m.Classes())
		}
		return &loadedModel{pipeline: mb.Pipeline, classifier: m, classes: mb.Classes}, nil
	}
	m, err := regress.Unmarshal(mb.Model)
	if err != nil {
		return nil, err
	}
	return &loadedModel{pipeline: mb.Pipeline, model: m}, nil
}
