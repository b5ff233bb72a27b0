package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/anomaly"
	"github.com/vaticml/vatic/stats/contest"
	"gonum.org/v1/gonum/mat"
)

// Anomalies model sessions (REFERENCE §6.3, §6.10, §6.13, §6.14, §8.3;
// MODELLING §8). Where the reference is silent this server chooses:
//
//   - The session's target is the score column "anomaly" (numeric, role
//     target, added to the columns); a data-source target, or a column the
//     request named as target, is shown with role none and a warning says
//     it is not used. A data-source column named "anomaly" is refused:
//     its scores could not be told apart from the data.
//   - Every row is a training row (no split, §8.1). Isolation Forest is
//     the champion whenever it fits; robust Mahalanobis (FastMCD) is a
//     second contestant with its own percentAnomalies.
//   - /results holds the rows the champion flags (anomaly ≤ 0) with
//     their columns, /results/anomalyscores every row, and
//     /results/mahalanobisdistances every row with the classical D² of
//     §8.3 (all rows' mean and sample covariance, pseudo-inverse when
//     singular) over the encoded inputs.
//   - The saved model is the champion as fitted (there is nothing to
//     refit: it saw every row); predict adds `anomaly` per row.

// anomalyWarning is the warning of an anomalies session whose data
// source or request names a target (REFERENCE §6.3).
const anomalyWarning = "Anomaly sessions do not use a target column; results are written to a column named 'anomaly'."

// anomalyColumns prepares an anomalies session's columns: the requested
// or data-source target gets role none (its name is returned, "" when
// there is none) and the score column is added as the target.
func anomalyColumns(cols []columnar.Column, requested string) ([]columnar.Column, string, error) {
	if i := columnIndex(cols, sqlgen.AnomalyColumn); i >= 0 {
		return nil, "", MetadataError(map[string][]string{cols[i].Name: {"An anomalies session writes its scores to a column named anomaly; rename this column of the data source."}})
	}
	ignored := ""
	if requested != "" {
		i := columnIndex(cols, requested)
		if i < 0 {
			return nil, "", MetadataError(map[string][]string{requested: {"Target column " + requested + " is not in the data source."}})
		}
		cols[i].Role, ignored = columnar.RoleNone, cols[i].Name
	}
	for i := range cols {
		if cols[i].Role == columnar.RoleTarget {
			cols[i].Role, ignored = columnar.RoleNone, cols[i].Name
		}
	}
	return append(cols, columnar.Column{Name: sqlgen.AnomalyColumn, DataType: columnar.Numeric, Role: columnar.RoleTarget}), ignored, nil
}

// checkAnomalyData checks at creation what an anomalies session needs:
// a feature column and minModelRows rows.
func checkAnomalyData(s *Session, rows int64) error {
	features := 0
	for _, c := range s.Columns {
		if c.Role != columnar.RoleTarget && isFeature(c) {
			features++
		}
	}
	if features == 0 {
		return MetadataError(map[string][]string{"columns": {"An anomalies session needs at least one feature column (numeric, logical, string, text or date)."}})
	}
	if rows < minModelRows {
		return &Error{Kind: Invalid, Msg: fmt.Sprintf("The data source has %d rows; an anomalies session needs at least %d.", rows, minModelRows),
			Details: map[string]any{"dataSourceName": []string{fmt.Sprintf("%d rows; at least %d are needed", rows, minModelRows)}}}
	}
	return nil
}

// anomalyFit is a detector fitted on every row with its scores.
type anomalyFit struct {
	model  anomaly.Model
	scores []float64
}

// anomalyDetectors is the anomaly line-up (anomaly.Algorithms).
func (e *Engine) anomalyDetectors() []anomaly.Algorithm { return anomaly.Algorithms() }

func (e *Engine) runAnomalies(ctx context.Context, s Session, progress func(int)) error {
	d, err := e.loadSessionData(ctx, s)
	if err != nil {
		return err
	}
	n := d.frame[0].length()
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	msgs := []Message{{"informational", fmt.Sprintf("%d observations were found in the dataset.", n)}}
	if n < minModelRows {
		return e.failWithMessages(ctx, s, msgs, &Error{Kind: Invalid, Msg: fmt.Sprintf("This data source has too few data points for reliable predictions to be made: %d rows, at least %d are needed.", n, minModelRows)})
	}
	pipe := fitPipeline(d.frame, d.cols, rows, s.MissingValues, fitTarget{})
	msgs = append(msgs, textMessages(pipe)...)
	features, _ := pipe.Features()
	if len(features) == 0 {
		return e.failWithMessages(ctx, s, msgs, &Error{Kind: Invalid, Msg: "No feature column has a value in the data source."})
	}
	// The words of text columns stay a CSR block (issue 16): Isolation
	// Forest reads them a sampled row or a chunk of rows at a time; robust
	// Mahalanobis, like the distances, reads the other columns only
	// (anomalyInput).
	xs, err := pipe.encodeWords(d.frame, rows)
	if err != nil {
		return err
	}
	progress(10)
	if err := ctx.Err(); err != nil {
		return err
	}
	seed := sessionSeed(s.ID)
	workers := runtime.GOMAXPROCS(0)
	opt := anomaly.Options{Seed: seed, Workers: workers, Clean: !extraBool(s.Extra, "containsAnomalies", true)}
	algos := e.anomalyDetectors()
	cands := make([]contest.Candidate[anomalyFit], len(algos))
	for i, a := range algos {
		cands[i] = contest.Func[anomalyFit]{K: a.Key(), F: func() (anomalyFit, error) {
			x, err := anomalyInput(a, xs)
			if err != nil {
				return anomalyFit{}, err
			}
			m, sc, err := anomaly.FitScores(a, x, opt)
			if err != nil {
				return anomalyFit{}, err
			}
			return anomalyFit{model: m, scores: sc}, nil
		}}
	}
	copt := contest.Options{Workers: 1, Metric: "percentAnomalies",
		Progress: func(done, total int) { progress(10 + 70*done/total) }}
	results, err := contest.Run(ctx, cands, func(f anomalyFit) (map[string]float64, error) {
		for _, v := range f.scores {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("the detector gave a score that is not a number")
			}
		}
		return map[string]float64{"percentAnomalies": f.model.PercentAnomalies()}, nil
	}, copt)
	if err != nil {
		return err
	}
	contestants := make([]Contestant, len(results))
	for i, r := range results {
		a := algos[i]
		c := e.contestantOf(ctx, s.ID, a.Key(), a.Name(), false, r.Err, r.Metrics, features, func() []float64 { return nil })
		if r.Err != nil && isDataError(r.Err) {
			c.Message = anomalyFailure(r.Err)
		}
		if errors.Is(r.Err, errOnlyText) {
			msgs = append(msgs, Message{"informational", a.Name() + " did not run: every feature is text, and this detector reads the other columns only."})
		}
		contestants[i] = c
	}
	// Isolation Forest, first in the line-up, is the champion whenever it
	// fits (§8.4); the next detector otherwise.
	best := -1
	for i, r := range results {
		if r.Err == nil {
			best = i
			break
		}
	}
	if best < 0 {
		if r := results[0]; isDataError(r.Err) {
			return e.failWithMessages(ctx, s, msgs, &Error{Kind: Invalid, Msg: anomalyFailure(r.Err), Err: r.Err})
		}
		return e.failContest(ctx, s, contestants, msgs)
	}
	progress(80)
	// The distances leave text out (MODELLING Q6 leaves open whether
	// text-derived columns belong in them): up to maxTextTerms sparse
	// TF-IDF columns per text column would make the covariance nearly
	// singular and the N·d² distances the cost of the session.
	numeric := pipe.withoutText()
	var d2 []float64
	if names, _ := numeric.Features(); len(names) > 0 {
		// The detectors are done with x: its memory holds the columns.
		if d2, err = e.sessionDistances(ctx, s.ID, numeric, n, workers, xs.Dense.RawMatrix().Data); err != nil {
			return err
		}
	} else {
		d2 = make([]float64, n)
		for i := range d2 {
			d2[i] = math.NaN()
		}
		msgs = append(msgs, Message{"informational", "Mahalanobis distances were not computed: every feature is text, and the distances use the other columns only."})
	}
	progress(90)
	champ := results[best].Model
	saved := pipe
	if algos[best].Key() != (anomaly.IsolationForest{}).Key() {
		saved = numeric // a detector that reads no text (anomalyInput)
	}
	blob, err := encodeAnomalyModel(saved, champ.model)
	if err != nil {
		return err
	}
	return e.completeModelSession(ctx, s, completion{
		contestants: contestants, champion: best, selection: selectionSets(contestants, n, n, 0, len(features), champ.scores),
		features: features, messages: msgs, model: blob, texts: pipe.texts,
		writePredictions: func(ctx context.Context) error {
			return e.writeAnomalies(ctx, s.ID, contestants, results, d2)
		},
	})
}

// errOnlyText is the robust Mahalanobis detector's failure when every
// feature is text.
var errOnlyText = errors.New("every feature is text")

// anomalyInput is what detector a reads of a session's encoded rows:
// Isolation Forest every column, the words as CSR; the others (robust
// Mahalanobis) the columns other than text, as the distances do (§8.3):
// up to maxTextTerms sparse TF-IDF columns per text column would make
// their covariance nearly singular, and FastMCD's C-steps, d³ and n·d²
// each, took 1 317 s on 3 000 rows with one text column (issue 16).
func anomalyInput(a anomaly.Algorithm, xs *stats.SparseMatrix) (mat.Matrix, error) {
	if _, ok := a.(anomaly.IsolationForest); ok {
		if xs.Words == nil {
			return xs.Dense, nil
		}
		return xs, nil
	}
	if xs.Dense == nil {
		return nil, errOnlyText
	}
	return xs.Dense, nil
}

// isDataError says whether a detector failed on the data rather than by
// a bug: too few rows, no columns, identical rows.
func isDataError(err error) bool {
	return errors.Is(err, anomaly.ErrTooFewRows) || errors.Is(err, anomaly.ErrNoColumns) || errors.Is(err, anomaly.ErrIdentical) || errors.Is(err, errOnlyText)
}

// anomalyFailure words a detector's data error for the session.
func anomalyFailure(err error) string {
	switch {
	case errors.Is(err, anomaly.ErrIdentical):
		return "Every row of the data source has the same feature values: no row can stand out as an anomaly."
	case errors.Is(err, errOnlyText):
		return "Every feature is text, and this detector reads the other columns only."
	case errors.Is(err, anomaly.ErrNoColumns):
		return "No feature column has a value in the data source."
	}
	return "This data source has too few data points for anomaly detection."
}

// writeAnomalies stores an anomalies contest's outputs: every successful
// detector's score of every row (the predictions table) and the rows'
// Mahalanobis distances.
func (e *Engine) writeAnomalies(ctx context.Context, id string, cs []Contestant, results []contest.Result[anomalyFit], d2 []float64) error {
	err := e.writePredictionRows(ctx, id, func(emit func(contestant string, row int64, v float64)) {
		for i, r := range results {
			if r.Err != nil {
				continue
			}
			for j, v := range r.Model.scores {
				emit(cs[i].ID, int64(j), v)
			}
		}
	})
	if err != nil {
		return err
	}
	return e.writeDistances(ctx, id, d2)
}

// anomalyRows reads an anomalies session's rows scored by a contestant:
// the data source's columns, then anomaly, then with distances
// mahalanobis_distance; flaggedOnly keeps the anomalies.
func (e *Engine) anomalyRows(ctx context.Context, s Session, contestant string, flaggedOnly, distances bool, p Page) (*Rows, error) {
	var cols []columnar.Column
	var names []string
	for _, c := range s.Columns {
		if c.Role == columnar.RoleNone || c.Name == s.TargetColumn {
			continue
		}
		cols = append(cols, c)
		names = append(names, c.Name)
	}
	cols = append(cols, columnar.Column{Name: sqlgen.AnomalyColumn, DataType: columnar.Numeric, Role: columnar.RoleNone})
	if distances {
		cols = append(cols, columnar.Column{Name: sqlgen.DistanceColumn, DataType: columnar.Numeric, Role: columnar.RoleNone})
	}
	q, count, args, err := sqlgen.AnomalyRows(s.ID, names, contestant, flaggedOnly, distances, p.PageSize, p.Page*p.PageSize)
	if err != nil {
		return nil, err
	}
	out := &Rows{Columns: cols}
	r, err := e.store.Rows(ctx, count, contestant)
	if err != nil {
		return nil, fmt.Errorf("count results of session %s: %w", s.ID, err)
	}
	if err := scanOne(r, &out.Total); err != nil {
		return nil, err
	}
	if out.Reader, err = e.store.StreamQuery(ctx, q, args...); err != nil {
		return nil, fmt.Errorf("read results of session %s: %w", s.ID, err)
	}
	return out, nil
}

// SessionAnomalyScores returns a completed anomalies session with a page
// of every row and its anomaly score (REFERENCE §6.13); distances adds
// each row's Mahalanobis distance (§6.14).
func (e *Engine) SessionAnomalyScores(ctx context.Context, id string, distances bool, p Page) (Session, *Rows, error) {
	kind := ResultAnomalyScores
	if distances {
		kind = ResultMahalanobisDistances
	}
	s, err := e.ResultSession(ctx, id, kind)
	if err != nil {
		return s, nil, err
	}
	champion, err := e.sessionChampion(ctx, s.ID)
	if err != nil {
		return s, nil, err
	}
	rows, err := e.anomalyRows(ctx, s, champion, false, distances, p)
	return s, rows, err
}

func encodeAnomalyModel(p pipeline, m anomaly.Model) ([]byte, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("serialise model: %w", err)
	}
	return json.Marshal(modelBlob{Pipeline: p, Model: b, Domain: DomainAnomalies})
}
