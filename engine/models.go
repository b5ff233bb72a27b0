package engine

import (
	"context"
	"sync"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
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

func countValuesSQL(source string, isView bool, column string) (string, error) {
	schema := sqlgen.DataSchema
	if isView {
		schema = sqlgen.ViewSchema
	}
	return sqlgen.CountValues(schema, source, column)
}
