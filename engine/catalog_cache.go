package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// catalogCache keeps the catalog entries that reads look up by key in
// memory, so that GET /data/{name}, /sessions/{id}, /models/{id},
// /imports/{id} and the account headers of every answer run no catalog
// SQL once warm. It holds no SQL: the catalog*.go files read and write the
// tables, and call the cache around that. It is owned by the Engine and
// safe for concurrent use.
//
// What it holds, each filled lazily by the first read that misses:
//
//   - datasets: a dataset's entry and columns (loadDataset), keyed by the
//     lower-cased name as asked; the count of its rows (no date range);
//   - tables: the columns of a dataset's data table (tableColumns), keyed
//     by the exact dataset name;
//   - sessions, models, imports: a lookup by id (not hidden sessions only),
//     with the status history and messages of sessions and imports;
//   - usage: the account's counts (Usage).
//
// Lists (GET /data, /sessions, …) still query the catalog.
//
// Invariants:
//
//  1. Invalidate, never write through: a catalog write drops the entries
//     it may change (dropDataset, dropSession, dropModel, dropImport; each
//     also drops usage), and the next read fills them from the committed
//     catalog. The cache never holds a value the catalog did not commit.
//     One exception, for the predict path: a model's lastUsed is moved
//     forward in place after the touch commits (touchModel), since it is
//     the same monotone step the catalog took.
//  2. A drop runs after the write is durable: at once for a statement
//     outside a transaction, when the transaction ends for one inside
//     (afterCommit, hookedStore.Tx). Dropping earlier would let a
//     concurrent read refill the entry from the snapshot before the
//     commit and keep the old value for good. The drop also runs when the
//     transaction rolls back (a failed commit may be ambiguous), which is
//     harmless: the refill reads the unchanged catalog. A rolled-back write
//     therefore never shows.
//  3. A fill cannot resurrect a value older than a drop: a read takes the
//     generation (begin) before its query and stores the result only if no
//     drop happened since (gen unchanged). Every drop bumps gen.
//  4. Reads inside a transaction bypass the cache in both directions: they
//     must see the transaction's own writes, and what they see is not
//     committed.
//  5. Callers get copies: values are cloned on the way in and out, so no
//     caller can change an entry.
//
// A write visible to the next read follows: the writer's call returns after
// its drops (2), and a read after that either misses and queries the
// committed catalog, or finds an entry filled after the drop (3).
type catalogCache struct {
	mu       sync.Mutex
	gen      uint64
	datasets map[string]*datasetEntry
	tables   map[string]map[string]tableColumn
	sessions map[string]Session
	models   map[string]Model
	imports  map[string]Import
	usage    *Usage
	// versions holds, per dataset name (lower case), the generation of its
	// last change (DataVersion); a name never changed since start is 0.
	versions map[string]uint64
}

type datasetEntry struct {
	d        Dataset
	total    int64 // rows of the data table, when hasTotal
	hasTotal bool
	// orderedBy names a column the data table's storage order is known
	// to follow (sqlgen.Sorted), or to not follow when !ordered.
	orderedBy string
	ordered   bool
	// dense says the data table's row ids are 0 … n−1 (sqlgen.Dense),
	// when hasDense.
	dense, hasDense bool
}

func newCatalogCache() *catalogCache {
	return &catalogCache{
		datasets: map[string]*datasetEntry{},
		tables:   map[string]map[string]tableColumn{},
		sessions: map[string]Session{},
		models:   map[string]Model{},
		imports:  map[string]Import{},
		versions: map[string]uint64{},
	}
}

// begin returns the generation a fill started at (invariant 3).
func (c *catalogCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// drop bumps the generation and runs del under the lock.
func (c *catalogCache) drop(del func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.usage = nil
	del()
}

// fill runs put under the lock if nothing was dropped since gen.
func (c *catalogCache) fill(gen uint64, put func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		put()
	}
}

func datasetKey(name string) string { return strings.ToLower(name) }

// dropDataset forgets dataset name (exact): its entry under any spelling,
// its row count and its table's columns.
func (c *catalogCache) dropDataset(name string) {
	c.drop(func() {
		delete(c.datasets, datasetKey(name))
		for k, en := range c.datasets {
			if strings.EqualFold(en.d.Name, name) {
				delete(c.datasets, k)
			}
		}
		delete(c.tables, name)
		c.versions[datasetKey(name)] = c.gen
	})
}

// version returns the generation of dataset name's last change.
func (c *catalogCache) version(name string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.versions[datasetKey(name)]
}

func (c *catalogCache) dropSession(id string) { c.drop(func() { delete(c.sessions, id) }) }
func (c *catalogCache) dropModel(id string)   { c.drop(func() { delete(c.models, id) }) }
func (c *catalogCache) dropImport(id string)  { c.drop(func() { delete(c.imports, id) }) }

// touchModel is the one write-through (invariant 1's exception): after a
// predict's touch of model id has committed, the cached entry's lastUsed
// moves forward to at, as the catalog's did (touchModel's greatest), so
// the entry stays and stays equal to the catalog. The generation still
// moves, so a fill that read the entry before the touch committed is not
// stored (invariant 3). Usage is kept: its prediction count is not cached
// here (Engine.Usage).
func (c *catalogCache) touchModel(id string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if m, ok := c.models[id]; ok && (m.LastUsed == nil || m.LastUsed.Before(at)) {
		m.LastUsed = &at
		c.models[id] = m
	}
}

func (c *catalogCache) dataset(name string) (Dataset, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en, ok := c.datasets[datasetKey(name)]
	if !ok {
		return Dataset{}, false
	}
	return cloneDataset(en.d), true
}

func (c *catalogCache) putDataset(gen uint64, name string, d Dataset) {
	d = cloneDataset(d)
	c.fill(gen, func() { c.datasets[datasetKey(name)] = &datasetEntry{d: d} })
}

// total returns the cached row count of dataset name (exact).
func (c *catalogCache) total(name string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en, ok := c.datasets[datasetKey(name)]
	if !ok || !en.hasTotal || en.d.Name != name {
		return 0, false
	}
	return en.total, true
}

// putTotal records the row count of dataset name, whose entry must be
// cached already (the count belongs to it).
func (c *catalogCache) putTotal(gen uint64, name string, n int64) {
	c.fill(gen, func() {
		if en, ok := c.datasets[datasetKey(name)]; ok && en.d.Name == name {
			en.total, en.hasTotal = n, true
		}
	})
}

// order reports whether dataset name (exact) is known to be stored in
// column's order (ordered) and whether that is known at all (ok).
func (c *catalogCache) order(name, column string) (ordered, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en, found := c.datasets[datasetKey(name)]
	if !found || en.d.Name != name || en.orderedBy == "" || en.orderedBy != column {
		return false, false
	}
	return en.ordered, true
}

// putOrder records whether dataset name, whose entry must be cached, is
// stored in column's order.
func (c *catalogCache) putOrder(gen uint64, name, column string, ordered bool) {
	c.fill(gen, func() {
		if en, ok := c.datasets[datasetKey(name)]; ok && en.d.Name == name {
			en.orderedBy, en.ordered = column, ordered
		}
	})
}

// denseRows reports whether dataset name's row ids are known to be dense
// (dense) and whether that is known at all (ok).
func (c *catalogCache) denseRows(name string) (dense, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en, found := c.datasets[datasetKey(name)]
	if !found || en.d.Name != name || !en.hasDense {
		return false, false
	}
	return en.dense, true
}

// putDense records whether dataset name's row ids are dense; its entry
// must be cached.
func (c *catalogCache) putDense(gen uint64, name string, dense bool) {
	c.fill(gen, func() {
		if en, ok := c.datasets[datasetKey(name)]; ok && en.d.Name == name {
			en.dense, en.hasDense = dense, true
		}
	})
}

func (c *catalogCache) table(name string) (map[string]tableColumn, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tables[name]
	return maps.Clone(t), ok
}

func (c *catalogCache) putTable(gen uint64, name string, t map[string]tableColumn) {
	t = maps.Clone(t)
	c.fill(gen, func() { c.tables[name] = t })
}

func (c *catalogCache) session(id string) (Session, bool) {
	return lookup(c, c.sessions, id, cloneSession)
}

func (c *catalogCache) putSession(gen uint64, s Session) {
	store(c, gen, c.sessions, s.ID, cloneSession(s))
}

func (c *catalogCache) model(id string) (Model, bool) { return lookup(c, c.models, id, cloneModel) }

func (c *catalogCache) putModel(gen uint64, m Model) { store(c, gen, c.models, m.ID, cloneModel(m)) }

func (c *catalogCache) importEntry(id string) (Import, bool) {
	return lookup(c, c.imports, id, cloneImport)
}

func (c *catalogCache) putImport(gen uint64, imp Import) {
	store(c, gen, c.imports, imp.ID, cloneImport(imp))
}

// lookup reads a clone of m[key] under the cache's lock. The maps are made
// once, in newCatalogCache, and never replaced, so passing one is safe.
func lookup[T any](c *catalogCache, m map[string]T, key string, clone func(T) T) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := m[key]
	return clone(v), ok
}

// store fills m[key] with v (already cloned) unless a drop came after gen.
func store[T any](c *catalogCache, gen uint64, m map[string]T, key string, v T) {
	c.fill(gen, func() { m[key] = v })
}

func (c *catalogCache) usageEntry() (Usage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.usage == nil {
		return Usage{}, false
	}
	return *c.usage, true
}

func (c *catalogCache) putUsage(gen uint64, u Usage) {
	c.fill(gen, func() { c.usage = &u })
}

func cloneDataset(d Dataset) Dataset {
	d.Columns = slices.Clone(d.Columns)
	d.MissingValues = slices.Clone(d.MissingValues)
	return d
}

func cloneSession(s Session) Session {
	s.PredictionIntervals = slices.Clone(s.PredictionIntervals)
	s.History = slices.Clone(s.History)
	s.Extra = slices.Clone(s.Extra)
	s.Messages = slices.Clone(s.Messages)
	if s.Algorithm != nil {
		a := *s.Algorithm
		s.Algorithm = &a
	}
	s.Metrics = maps.Clone(s.Metrics)
	s.MissingValues = slices.Clone(s.MissingValues)
	s.Columns = slices.Clone(s.Columns)
	return s
}

func cloneModel(m Model) Model {
	if m.LastUsed != nil {
		t := *m.LastUsed
		m.LastUsed = &t
	}
	m.Metrics = maps.Clone(m.Metrics)
	m.Columns = slices.Clone(m.Columns)
	return m
}

func cloneImport(imp Import) Import {
	imp.Parameters = slices.Clone(imp.Parameters)
	imp.History = slices.Clone(imp.History)
	imp.Messages = slices.Clone(imp.Messages)
	imp.Columns = slices.Clone(imp.Columns)
	imp.Supplied = slices.Clone(imp.Supplied)
	return imp
}

// hookedStore is the Engine's Store: the one it was given, with
// transactions that run the cache drops registered inside them
// (afterCommit) once they end (catalogCache invariant 2).
type hookedStore struct{ Store }

type commitHooksKey struct{}

// commitHooks are the functions to run when the outermost transaction
// ends.
type commitHooks struct {
	mu  sync.Mutex
	fns []func()
}

// Tx runs fn in a transaction of the underlying store; a nested call joins
// the outer transaction, whose end runs the hooks of both.
func (s hookedStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if inTx(ctx) {
		return s.Store.Tx(ctx, fn)
	}
	h := &commitHooks{}
	defer func() {
		// Also after a rollback or a panic: the drops are harmless then.
		h.mu.Lock()
		fns := h.fns
		h.fns = nil
		h.mu.Unlock()
		for _, f := range fns {
			f()
		}
	}()
	return s.Store.Tx(context.WithValue(ctx, commitHooksKey{}, h), fn)
}

// inTx reports whether ctx is inside one of the Engine's transactions.
func inTx(ctx context.Context) bool {
	_, ok := ctx.Value(commitHooksKey{}).(*commitHooks)
	return ok
}

// afterCommit runs drop when the transaction in ctx ends, or at once
// outside a transaction (after the statement that auto-committed). Catalog
// writers call it after their statements.
func afterCommit(ctx context.Context, drop func()) {
	if h, ok := ctx.Value(commitHooksKey{}).(*commitHooks); ok {
		h.mu.Lock()
		h.fns = append(h.fns, drop)
		h.mu.Unlock()
		return
	}
	drop()
}

// cached reports whether a read with ctx may use the cache (invariant 4).
// DataVersion returns a number that changes whenever dataset name (any
// spelling) changes: its rows, columns, metadata, or its deletion and
// re-creation. The change shows once the write has committed and before
// the write returns, so a cache of rendered reads keyed by it (the API's
// page cache) serves every client its own writes. Without the catalog
// cache it is always 0 and such caches must not be used (ok false).
func (e *Engine) DataVersion(name string) (v uint64, ok bool) {
	if e.cache == nil {
		return 0, false
	}
	return e.cache.version(name), true
}

func (e *Engine) cached(ctx context.Context) bool { return e.cache != nil && !inTx(ctx) }

// The writers' side: each drops, after commit, what a catalog write changes.

func (e *Engine) datasetChanged(ctx context.Context, name string) {
	if c := e.cache; c != nil {
		afterCommit(ctx, func() { c.dropDataset(name) })
	}
}

func (e *Engine) sessionChanged(ctx context.Context, id string) {
	if c := e.cache; c != nil {
		afterCommit(ctx, func() { c.dropSession(id) })
	}
}

func (e *Engine) modelsChanged(ctx context.Context, ids ...string) {
	if c := e.cache; c != nil {
		afterCommit(ctx, func() {
			for _, id := range ids {
				c.dropModel(id)
			}
		})
	}
}

// modelTouched moves model id's cached lastUsed to at once a predict's
// touch has committed (catalogCache.touchModel), instead of dropping the
// entry: every predict touches its model, and a drop would make the next
// predict of the same model query the catalog for it again.
func (e *Engine) modelTouched(ctx context.Context, id string, at time.Time) {
	if c := e.cache; c != nil {
		afterCommit(ctx, func() { c.touchModel(id, at) })
	}
}

func (e *Engine) importChanged(ctx context.Context, id string) {
	if c := e.cache; c != nil {
		afterCommit(ctx, func() { c.dropImport(id) })
	}
}
