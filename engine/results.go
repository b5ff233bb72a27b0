package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats/forecast"
)

// Page selects a page of result rows; PageSize 0 means every row.
type Page struct {
	Page, PageSize int
}

// SessionResults returns a session with its results rows (REFERENCE
// §6.10): the champion's test rows for a model session. Before completion,
// or for a session that failed, there are no rows.
func (e *Engine) SessionResults(ctx context.Context, id string, p Page) (Session, *Rows, error) {
	return e.SessionResultsAt(ctx, id, p, "")
}

// SessionResultsAt is SessionResults at a predictionInterval (REFERENCE
// §6.10; "" is the median): a level the session does not offer is 400
// RequestValidation (CheckInterval). A forecast session's rows are its
// window's buckets with the forecast's quantile at that level.
func (e *Engine) SessionResultsAt(ctx context.Context, id string, p Page, interval string) (Session, *Rows, error) {
	s, err := e.Session(ctx, id)
	if err != nil {
		return s, nil, err
	}
	if err := CheckInterval(interval, s.PredictionIntervals); err != nil {
		return s, nil, err
	}
	if s.Status != StatusCompleted {
		return s, &Rows{Reader: emptyReader()}, nil
	}
	if s.Type == SessionForecast || s.Type == SessionImpact {
		rows, err := e.forecastRows(ctx, s, interval, p)
		return s, rows, err
	}
	champ, err := e.sessionChampion(ctx, s.ID)
	if err != nil {
		return s, nil, err
	}
	if s.Domain == DomainAnomalies {
		rows, err := e.anomalyRows(ctx, s, champ, true, false, p)
		return s, rows, err
	}
	rows, err := e.testRowsOf(ctx, s, champ, nil, p)
	return s, rows, err
}

// predictionIntervals are the availablePredictionIntervals of every
// session, and so of the model it builds (REFERENCE §6.10, §8.3): the
// median only, since every model predicts one value, not quantiles.
func predictionIntervals() []string { return []string{"0.5"} }

// CheckInterval validates a predictionInterval parameter (written "0.5"
// or ".5"; "" asks for nothing) against the availablePredictionIntervals
// of a session, or of the session that built a model: anything else is
// 400 RequestValidation naming predictionInterval and listing the values
// (REFERENCE §6.10).
func CheckInterval(v string, available []string) error {
	if v == "" {
		return nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		for _, a := range available {
			if af, _ := strconv.ParseFloat(a, 64); af == f {
				return nil
			}
		}
	}
	return Validation("predictionInterval", "Value for predictionInterval must be one of the session's availablePredictionIntervals: "+strings.Join(available, ", "))
}

// ResultKind names a result of a session that only some sessions have
// (REFERENCE §6.11–§6.16); its value is the last segment of its path.
type ResultKind string

// The results whose availability depends on the session (REFERENCE §11.8).
const (
	ResultConfusionMatrix      ResultKind = "confusionmatrix"
	ResultClassScores          ResultKind = "classscores"
	ResultAnomalyScores        ResultKind = "anomalyscores"
	ResultMahalanobisDistances ResultKind = "mahalanobisdistances"
	ResultOutliers             ResultKind = "outliers"
)

// resultDomains lists, for each result, the prediction domains of the
// sessions that have it once completed (REFERENCE §11.8). It is the one
// place that says which session has which result: the handlers and the
// links of /results ask HasResult.
var resultDomains = map[ResultKind][]string{
	ResultConfusionMatrix:      {DomainClassification},
	ResultClassScores:          {DomainClassification},
	ResultAnomalyScores:        {DomainAnomalies},
	ResultMahalanobisDistances: {DomainAnomalies},
	ResultOutliers:             {string(SessionForecast), string(SessionImpact)},
}

// HasResult reports whether a session has a result: it completed, and its
// prediction domain is one that has it.
func (s Session) HasResult(k ResultKind) bool {
	return s.Status == StatusCompleted && slices.Contains(resultDomains[k], s.Domain)
}

// ResultSession returns a session for one of its results that only some
// sessions have: a session without it is 404 with itemType session, as
// an unknown one is (REFERENCE §6.11: "404 if not a completed
// classification model session").
func (e *Engine) ResultSession(ctx context.Context, id string, k ResultKind) (Session, error) {
	s, err := e.Session(ctx, id)
	if err != nil {
		return s, err
	}
	if !s.HasResult(k) {
		return s, NotFoundError("session", id)
	}
	return s, nil
}

// SessionOutliers returns a session with a page of the training points
// its time-series preparation smoothed as outliers (REFERENCE §6.16).
// Sessions without outliers (model sessions, and any before completion)
// have no rows: the reference answers them 200 with empty data, not 404.
// A completed forecast session's rows are the buckets of its history the
// Smoothed variant replaced, with <target>:actual and <target>:smooth.
func (e *Engine) SessionOutliers(ctx context.Context, id string, p Page) (Session, *Rows, error) {
	s, err := e.Session(ctx, id)
	if err != nil {
		return s, nil, err
	}
	if !s.HasResult(ResultOutliers) || s.Type != SessionForecast {
		return s, &Rows{Reader: emptyReader()}, nil
	}
	ts := columnWithRole(s.Columns, columnar.RoleTimestamp)
	out := &Rows{Columns: []columnar.Column{
		{Name: ts, DataType: columnar.Date, Role: columnar.RoleTimestamp},
		{Name: s.TargetColumn + ":actual", DataType: columnar.Numeric, Role: columnar.RoleNone},
		{Name: s.TargetColumn + ":smooth", DataType: columnar.Numeric, Role: columnar.RoleNone},
	}}
	q, err := sqlgen.CountOutliers(s.ID)
	if err != nil {
		return s, nil, err
	}
	if err := e.countResults(ctx, s.ID, q, &out.Total); err != nil {
		return s, nil, err
	}
	q, args, err := sqlgen.OutlierRows(s.ID, ts, s.TargetColumn, p.PageSize, p.Page*p.PageSize)
	if err != nil {
		return s, nil, err
	}
	if out.Reader, err = e.store.StreamQuery(ctx, q, args...); err != nil {
		return s, nil, fmt.Errorf("read outliers of session %s: %w", s.ID, err)
	}
	return s, out, nil
}

// countResults runs a count of a session's results.
func (e *Engine) countResults(ctx context.Context, id, q string, dst *int64) error {
	r, err := e.store.Rows(ctx, q)
	if err != nil {
		return fmt.Errorf("count results of session %s: %w", id, err)
	}
	return scanOne(r, dst)
}

// forecastRows reads a page of a forecast session's window at a
// quantile level ("" is the median).
func (e *Engine) forecastRows(ctx context.Context, s Session, interval string, p Page) (*Rows, error) {
	level := forecast.MedianLevel
	if interval != "" {
		f, _ := strconv.ParseFloat(interval, 64)
		for i, l := range forecast.Levels {
			if l == f {
				level = i
			}
		}
	}
	ts := columnWithRole(s.Columns, columnar.RoleTimestamp)
	out := &Rows{Columns: []columnar.Column{
		{Name: ts, DataType: columnar.Date, Role: columnar.RoleTimestamp},
		{Name: s.TargetColumn, DataType: columnar.Numeric, Role: columnar.RoleTarget},
	}}
	q, err := sqlgen.CountForecastRows(s.ID)
	if err != nil {
		return nil, err
	}
	if err := e.countResults(ctx, s.ID, q, &out.Total); err != nil {
		return nil, err
	}
	q, args, err := sqlgen.ForecastRows(s.ID, ts, s.TargetColumn, level, p.PageSize, p.Page*p.PageSize)
	if err != nil {
		return nil, err
	}
	if out.Reader, err = e.store.StreamQuery(ctx, q, args...); err != nil {
		return nil, fmt.Errorf("read results of session %s: %w", s.ID, err)
	}
	return out, nil
}

// testRowsOf reads one contestant's test rows: the data source's columns
// as given, the prediction under the target's name and <target>:actual.
// A classification session's prediction is the class label, followed by
// <target>:<class> scores for the classes in scores (nil: none).
func (e *Engine) testRowsOf(ctx context.Context, s Session, contestant string, scores []string, p Page) (*Rows, error) {
	var cols []columnar.Column
	var names []string
	var target columnar.Column
	for _, c := range s.Columns {
		switch {
		case c.Role == columnar.RoleNone:
		case s.Type == SessionForecast && c.Name != s.TargetColumn && c.Role != columnar.RoleTimestamp:
			// A forecast's holdout rows are buckets: the timestamp and
			// the target only (MODELLING §2.10).
		case c.Name == s.TargetColumn:
			target = c
		default:
			cols = append(cols, c)
			names = append(names, c.Name)
		}
	}
	predicted := target
	var scoreCols []columnar.Column
	if s.Domain == DomainClassification {
		predicted.DataType = columnar.String
		for _, c := range scores {
			scoreCols = append(scoreCols, columnar.Column{Name: target.Name + ":" + c, DataType: columnar.Numeric, Role: columnar.RoleNone})
		}
	}
	out := &Rows{Columns: append(append(append(cols, predicted), scoreCols...), columnar.Column{Name: target.Name + ":actual", DataType: target.DataType, Role: columnar.RoleNone})}
	q, args, err := sqlgen.CountTestRows(s.ID, contestant)
	if err != nil {
		return nil, err
	}
	r, err := e.store.Rows(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("count results of session %s: %w", s.ID, err)
	}
	if err := scanOne(r, &out.Total); err != nil {
		return nil, err
	}
	if s.Domain == DomainClassification {
		q, args, err = sqlgen.ClassTestRows(s.ID, names, s.TargetColumn, contestant, scores, p.PageSize, p.Page*p.PageSize)
	} else {
		q, args, err = sqlgen.TestRows(s.ID, names, s.TargetColumn, contestant, p.PageSize, p.Page*p.PageSize)
	}
	if err != nil {
		return nil, err
	}
	if out.Reader, err = e.store.StreamQuery(ctx, q, args...); err != nil {
		return nil, fmt.Errorf("read results of session %s: %w", s.ID, err)
	}
	return out, nil
}

// Contest is a session's contest (REFERENCE §7.1).
type Contest struct {
	Session        Session
	ChampionMetric string
	Champion       Contestant
	Contestants    []Contestant
}

// championMetric is the metric the champion was chosen by, per domain
// (MODELLING §15).
func championMetric(domain string) string {
	switch domain {
	case DomainClassification:
		return "macroAverageF1Score"
	case DomainAnomalies:
		return "percentAnomalies"
	case DomainRegression:
		return "rootMeanSquareError"
	case string(SessionImpact):
		return "pValue"
	}
	return "meanAbsoluteError"
}

// SessionContest returns a completed session's contest; before completion
// there is none (404 itemType contest, REFERENCE §7).
func (e *Engine) SessionContest(ctx context.Context, id string) (Contest, error) {
	s, err := e.Session(ctx, id)
	if err != nil {
		return Contest{}, err
	}
	c := Contest{Session: s, ChampionMetric: championMetric(s.Domain)}
	if s.Status != StatusCompleted || s.IsEstimate {
		return c, NotFoundError("contest", id)
	}
	champ, err := e.sessionChampion(ctx, s.ID)
	if err != nil {
		return c, err
	}
	if c.Contestants, err = e.loadContestants(ctx, s.ID); err != nil {
		return c, err
	}
	for _, ct := range c.Contestants {
		if ct.ID == champ {
			c.Champion = ct
		}
	}
	return c, nil
}

// ContestantRows returns one contestant (the champion when contestant is
// "") of a session with a page of its test rows (REFERENCE §7.2, §7.4).
func (e *Engine) ContestantRows(ctx context.Context, id, contestant string, p Page) (Session, Contestant, *Rows, error) {
	c, err := e.SessionContest(ctx, id)
	if err != nil {
		return c.Session, Contestant{}, nil, err
	}
	ct := c.Champion
	if contestant != "" {
		cid, err := parseID("contestantId", contestant)
		if err != nil {
			return c.Session, Contestant{}, nil, err
		}
		found := false
		for _, x := range c.Contestants {
			if x.ID == cid {
				ct, found = x, true
			}
		}
		if !found {
			return c.Session, Contestant{}, nil, NotFoundError("contestant", contestant)
		}
	}
	if c.Session.Domain == DomainAnomalies {
		rows, err := e.anomalyRows(ctx, c.Session, ct.ID, false, false, p)
		return c.Session, ct, rows, err
	}
	rows, err := e.testRowsOf(ctx, c.Session, ct.ID, nil, p)
	return c.Session, ct, rows, err
}

// SessionSelection returns the data variants of a session's contest
// (REFERENCE §7.5).
func (e *Engine) SessionSelection(ctx context.Context, id string) (Session, []SelectionSet, error) {
	c, err := e.SessionContest(ctx, id)
	if err != nil {
		return c.Session, nil, err
	}
	sets, err := e.loadSelection(ctx, c.Session.ID)
	return c.Session, sets, err
}

// FeatureImportance returns a page of a session's feature importances by
// descending importance and how many there are (REFERENCE §6.15); none
// before completion.
func (e *Engine) FeatureImportance(ctx context.Context, id string, p Page) (Session, []FeatureScore, int, error) {
	s, err := e.Session(ctx, id)
	if err != nil {
		return s, nil, 0, err
	}
	if !s.SupportsImportance {
		return s, []FeatureScore{}, 0, nil
	}
	limit := p.PageSize
	if limit <= 0 {
		limit = 1 << 30
	}
	fs, total, err := e.loadImportance(ctx, s.ID, limit, p.Page*p.PageSize)
	return s, fs, total, err
}
