package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats/classify"
)

// Model is a saved model as the API shows it (REFERENCE §2.7).
type Model struct {
	ID             string
	SessionID      string
	Domain         string
	DataSourceName string
	Name           string
	Created        time.Time
	LastUsed       *time.Time
	Target         string
	Algorithm      Algorithm
	Metrics        map[string]float64
	Columns        []columnar.Column
}

// ModelQuery selects models (REFERENCE §8.1, §8.5).
type ModelQuery struct {
	ModelID          string
	DataSourceName   string
	PartialModelName string
	CreatedAfter     *time.Time
	CreatedBefore    *time.Time
	SortBy           string
	Desc, DescGiven  bool
	Page, PageSize   int
}

// ModelSortKeys are the sortBy values of GET /models (REFERENCE §1.6),
// matched in any case: type is the model's predictionDomain, modelName its
// name (compared case-insensitively, as dataSourceName is), lastUsedDate
// the time it last predicted. A model that never predicted has no
// lastUsedDate and comes after those that did in either order. Ties fall
// back to the id, in the same direction. predictionDomain, accepted
// before type was, remains an alias of it.
var ModelSortKeys = []string{"id", "modelName", "dataSourceName", "type", "createdDate", "lastUsedDate", "predictionDomain"}

func (q ModelQuery) filter() (modelFilter, error) {
	f := modelFilter{DataSource: q.DataSourceName, PartialName: q.PartialModelName, After: q.CreatedAfter, Before: q.CreatedBefore}
	if q.ModelID != "" {
		id, err := parseID("modelId", q.ModelID)
		if err != nil {
			return f, err
		}
		f.ID = id
	}
	return f, dateOrder("createdAfterDate", "createdBeforeDate", q.CreatedAfter, q.CreatedBefore)
}

// ListModels returns a page of models, newest first unless sorted, and
// how many match.
func (e *Engine) ListModels(ctx context.Context, q ModelQuery) ([]Model, int, error) {
	sortBy, desc, err := listOrder(ModelSortKeys, q.SortBy, q.Desc, q.DescGiven)
	if err != nil {
		return nil, 0, err
	}
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	f.SortBy, f.Desc = sortBy, desc
	f.Limit, f.Offset = q.PageSize, q.Page*q.PageSize
	return e.listModels(ctx, f)
}

// Model returns a model by id (REFERENCE §8.2: 404 itemType modelId).
func (e *Engine) Model(ctx context.Context, id string) (Model, error) {
	mid, err := parseID("modelId", id)
	if err != nil {
		return Model{}, err
	}
	ms, _, err := e.listModels(ctx, modelFilter{ID: mid, Limit: 1})
	if err != nil {
		return Model{}, err
	}
	if len(ms) == 0 {
		return Model{}, NotFoundError(ItemModel, id)
	}
	return ms[0], nil
}

// DeleteModel removes a model, and the vocabularies it encoded text with
// when the session that built them is gone too (dropUnusedVocabularies).
func (e *Engine) DeleteModel(ctx context.Context, id string) error {
	m, err := e.Model(ctx, id)
	if err != nil {
		return err
	}
	e.models.forget(m.ID)
	return e.deleteModelRows(ctx, []string{m.ID})
}

// DeleteModels removes the models matching q; at least one selector is
// required so that no request deletes every model by accident (REFERENCE
// §8.5).
func (e *Engine) DeleteModels(ctx context.Context, q ModelQuery) error {
	if q.ModelID == "" && q.DataSourceName == "" && q.PartialModelName == "" && q.CreatedAfter == nil && q.CreatedBefore == nil {
		return &Error{Kind: ParametersRequired, Msg: "Some model selection parameters are required.", Details: map[string]any{}}
	}
	f, err := q.filter()
	if err != nil {
		return err
	}
	_, err = e.deleteModels(ctx, f)
	return err
}

// modelsOf removes the models matching f and the sessions that built them
// (cascade=model: REFERENCE §3.4 observed those sessions disappear too).
// A session already gone is skipped.
func (e *Engine) modelsOf(ctx context.Context, f modelFilter) error {
	ms, err := e.deleteModels(ctx, f)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := e.removeSessionsWhere(ctx, sessionFilter{ID: m.SessionID, Limit: 1}); err != nil {
			return err
		}
	}
	return nil
}

// deleteModels removes the models matching f and returns them.
func (e *Engine) deleteModels(ctx context.Context, f modelFilter) ([]Model, error) {
	ms, _, err := e.listModels(ctx, f)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
		e.models.forget(m.ID)
	}
	return ms, e.deleteModelRows(ctx, ids)
}

// modelCache keeps decoded models, so predict does not decode the bytes
// on every request.
type modelCache struct {
	mu sync.Mutex
	m  map[string]*loadedModel
}

func (c *modelCache) get(id string) (*loadedModel, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[id]
	return m, ok
}

func (c *modelCache) put(id string, m *loadedModel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= 64 {
		c.m = map[string]*loadedModel{}
	}
	c.m[id] = m
}

func (c *modelCache) forget(id string) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

// PredictRow is one submitted row: column name → value as given (a JSON
// string, number, boolean or null; CSV values are strings).
type PredictRow struct {
	Names  []string
	Values []any
}

// PredictRequest is a POST /models/{id}/predict body.
type PredictRequest struct {
	Rows []PredictRow
	// PredictionInterval is the extraParameters (or query) value as given;
	// "" means the median.
	PredictionInterval string
	// IncludeClassScores asks a classification model for one
	// <target>:<class> score per class besides the class (REFERENCE §8.3);
	// a regression model refuses it.
	IncludeClassScores bool
}

// Prediction is the answer: the model and each row echoed as text with
// the prediction added under the target's name.
type Prediction struct {
	Model    Model
	Columns  []string   // output columns, in order
	Rows     [][]string // values as text, "" for missing
	Messages []Message
}

// Predict scores rows with a saved model (REFERENCE §8.3, MODELLING §14):
// the session's preparation is replayed (imputation with training
// statistics, the same one-hot levels), every feature column must be
// present, and each value must read as its column's type. A
// predictionInterval must be one of the model session's
// availablePredictionIntervals, checked as GET /sessions/{id}/results
// checks it.
func (e *Engine) Predict(ctx context.Context, id string, req PredictRequest) (Prediction, error) {
	m, err := e.Model(ctx, id)
	if err != nil {
		return Prediction{}, err
	}
	intervals := predictionIntervals()
	if m.Domain != DomainRegression {
		intervals = []string{}
	}
	if req.IncludeClassScores && m.Domain != DomainClassification {
		return Prediction{}, Validation("includeClassScores", fmt.Sprintf("Class scores exist only for classification models; this model's prediction domain is %s.", m.Domain))
	}
	if err := CheckInterval(req.PredictionInterval, intervals); err != nil {
		return Prediction{}, err
	}
	if len(req.Rows) == 0 {
		return Prediction{}, Validation("data", "The data field is required.")
	}
	n := int64(len(req.Rows))
	if used, err := e.countPredictions(ctx); err != nil {
		return Prediction{}, err
	} else if used+n > e.opts.Allotments.Predictions {
		left := max(e.opts.Allotments.Predictions-used, 0)
		return Prediction{}, &Error{Kind: QuotaExceeded, Msg: fmt.Sprintf("Usage Alert - You have %d Predictions left for this cycle.", left)}
	}
	lm, ok := e.models.get(m.ID)
	if !ok {
		blob, err := e.modelBytes(ctx, m.ID)
		if err != nil {
			return Prediction{}, err
		}
		if lm, err = decodeModel(blob); err != nil {
			return Prediction{}, err
		}
		e.models.put(m.ID, lm)
	}
	frame, cols, err := predictFrame(lm.pipeline, dropTokens(req.Rows, lm.pipeline.Missing), e.opts.MaxColumns)
	if err != nil {
		return Prediction{}, err
	}
	rows := make([]int, len(req.Rows))
	for i := range rows {
		rows[i] = i
	}
	x, err := lm.pipeline.encode(frame, rows)
	if err != nil {
		return Prediction{}, err
	}
	var pred []float64
	var proba *mat.Dense
	var classes []string
	switch {
	case lm.classifier != nil:
		proba = mat.NewDense(len(rows), len(lm.classes), nil)
		lm.classifier.Proba(x, proba)
		classes = lm.classes
	case lm.detector != nil:
		// The anomaly score of each row (MODELLING §8.5), under the
		// session's target name, anomaly.
		pred = make([]float64, len(rows))
		lm.detector.Score(x, pred)
	default:
		pred = make([]float64, len(rows))
		lm.model.Predict(x, pred)
	}
	out := Prediction{Model: m, Messages: []Message{}}
	colIndex := map[string]int{}
	for _, name := range cols {
		if strings.EqualFold(name, m.Target) {
			continue
		}
		colIndex[strings.ToLower(name)] = len(out.Columns)
		out.Columns = append(out.Columns, name)
	}
	out.Columns = append(out.Columns, m.Target)
	nScores := 0
	if req.IncludeClassScores {
		for _, c := range classes {
			out.Columns = append(out.Columns, m.Target+":"+c)
		}
		nScores = len(classes)
	}
	var predicted []int
	if proba != nil {
		predicted = classify.Predict(proba)
	}
	out.Rows = make([][]string, len(req.Rows))
	cells := make([]string, len(req.Rows)*len(out.Columns))
	var layout []string // the names of the previous row, and where each goes
	var slots []int
	for i, r := range req.Rows {
		row := cells[i*len(out.Columns) : (i+1)*len(out.Columns) : (i+1)*len(out.Columns)]
		if !sameLayout(layout, r.Names) {
			layout, slots = r.Names, make([]int, len(r.Names))
			for j, name := range r.Names {
				k, ok := colIndex[strings.ToLower(name)]
				if !ok {
					k = -1
				}
				slots[j] = k
			}
		}
		for j, k := range slots {
			if k >= 0 {
				row[k] = valueString(r.Values[j])
			}
		}
		if proba == nil {
			row[len(row)-1] = strconv.FormatFloat(pred[i], 'g', -1, 64)
		} else {
			at := len(row) - 1 - nScores
			row[at] = classes[predicted[i]]
			for c := range nScores {
				row[at+1+c] = strconv.FormatFloat(proba.At(i, c), 'g', -1, 64)
			}
		}
		out.Rows[i] = row
	}
	if err := e.touchModel(ctx, m.ID, e.now(), n); err != nil {
		return Prediction{}, err
	}
	now := e.now()
	out.Model.LastUsed = &now
	return out, nil
}

// predictFrame reads submitted rows into frame columns for the model's
// inputs, checking that each input column is present in every row's
// schema (at least once) and each value has the column's type. It returns
// every column name seen, in first-seen order, for the echo. The names
// follow the rules of a dataset's (checkDataColumnName), and there may be
// at most maxCols of them.
func predictFrame(p pipeline, rows []PredictRow, maxCols int) ([]*frameColumn, []string, error) {
	var names []string
	seen := map[string]bool{}
	var prev []string
	for _, r := range rows {
		if len(r.Names) > 0 && sameLayout(r.Names, prev) {
			continue
		}
		prev = r.Names
		for _, n := range r.Names {
			if k := strings.ToLower(n); !seen[k] {
				if len(names) == maxCols {
					return nil, nil, Validation("data", fmt.Sprintf("The rows have more than %d columns; the column limit is %d", maxCols, maxCols))
				}
				if err := checkDataColumnName(n); err != nil {
					return nil, nil, err
				}
				seen[k] = true
				names = append(names, n)
			}
		}
	}
	var missing []string
	frame := make([]*frameColumn, len(p.Columns))
	for i, pc := range p.Columns {
		if !seen[strings.ToLower(pc.Name)] {
			missing = append(missing, pc.Name)
			continue
		}
		fc := &frameColumn{Name: pc.Name, Type: pc.Type}
		if fc.isText() {
			fc.Text, fc.OK = make([]string, 0, len(rows)), make([]bool, 0, len(rows))
		} else {
			fc.Num = make([]float64, 0, len(rows))
		}
		pos := -1 // where the previous row had this column: rows usually share a layout
		for ri, r := range rows {
			var v any
			present := false
			if pos >= 0 && pos < len(r.Names) && strings.EqualFold(r.Names[pos], pc.Name) {
				v, present = r.Values[pos], true
			} else if pos = index(r.Names, pc.Name); pos >= 0 {
				v, present = r.Values[pos], true
			}
			if err := appendValue(fc, v, present); err != nil {
				return nil, nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("Row %d: %s", ri, err), Details: map[string]any{
					pc.Name: []string{fmt.Sprintf("row %d: %s", ri, err)}}}
			}
		}
		frame[i] = fc
	}
	if len(missing) > 0 {
		details := map[string]any{}
		for _, m := range missing {
			details[m] = []string{"The model needs column " + m + "; no row has it."}
		}
		return nil, nil, &Error{Kind: Invalid, Msg: "Feature columns are missing from the data: " + strings.Join(missing, ", "), Details: details}
	}
	return frame, names, nil
}

// sameLayout reports whether two rows name the same columns in the same
// order (the common case: every row shares one slice).
func sameLayout(a, b []string) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	if &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// dropTokens returns rows where values equal to a missing-value token
// (any case) read as missing; the echo keeps the values as given.
func dropTokens(rows []PredictRow, tokens []string) []PredictRow {
	if len(tokens) == 0 {
		return rows
	}
	set := map[string]bool{}
	for _, t := range tokens {
		set[strings.ToLower(strings.TrimSpace(t))] = true
	}
	out := make([]PredictRow, len(rows))
	for i, r := range rows {
		vals := make([]any, len(r.Values))
		for j, v := range r.Values {
			if s, ok := v.(string); ok && set[strings.ToLower(strings.TrimSpace(s))] {
				v = nil
			}
			vals[j] = v
		}
		out[i] = PredictRow{Names: r.Names, Values: vals}
	}
	return out
}

// index finds name among names, in any case; -1 when absent.
func index(names []string, name string) int {
	for i, n := range names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// appendValue adds one submitted value to a frame column; absent, null and
// empty values are missing (imputed).
func appendValue(fc *frameColumn, v any, present bool) error {
	s, isString := v.(string)
	missing := !present || v == nil || (isString && strings.TrimSpace(s) == "")
	if fc.isText() {
		if missing {
			fc.Text, fc.OK = append(fc.Text, ""), append(fc.OK, false)
			return nil
		}
		fc.Text, fc.OK = append(fc.Text, valueString(v)), append(fc.OK, true)
		return nil
	}
	if missing {
		fc.Num = append(fc.Num, math.NaN())
		return nil
	}
	switch fc.Type {
	case columnar.Logical:
		switch x := v.(type) {
		case bool:
			fc.Num = append(fc.Num, b2f(x))
			return nil
		case float64, json.Number:
			if t := valueString(x); t == "0" || t == "1" {
				fc.Num = append(fc.Num, map[string]float64{"0": 0, "1": 1}[t])
				return nil
			}
		case string:
			if b, ok := parseLogical(x); ok {
				fc.Num = append(fc.Num, b2f(b))
				return nil
			}
		}
		return fmt.Errorf("value %q of %s is not a logical value", valueString(v), fc.Name)
	case columnar.Date:
		if t, ok := columnar.ParseTime(valueString(v)); ok {
			fc.Num = append(fc.Num, float64(t.UnixNano())/1e9)
			return nil
		}
		return fmt.Errorf("value %q of %s is not a date", valueString(v), fc.Name)
	}
	switch x := v.(type) {
	case float64:
		fc.Num = append(fc.Num, x)
		return nil
	case json.Number:
		if f, err := x.Float64(); err == nil {
			fc.Num = append(fc.Num, f)
			return nil
		}
	case bool:
		fc.Num = append(fc.Num, b2f(x))
		return nil
	case string:
		if f, ok := parseNumber(strings.TrimSpace(x)); ok {
			fc.Num = append(fc.Num, f)
			return nil
		}
	}
	return fmt.Errorf("value %q of %s is not a number", valueString(v), fc.Name)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// valueString renders a submitted value as the response echoes it.
func valueString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func countValuesSQL(source string, isView bool, column string) (string, error) {
	schema := sqlgen.DataSchema
	if isView {
		schema = sqlgen.ViewSchema
	}
	return sqlgen.CountValues(schema, source, column)
}
