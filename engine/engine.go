package engine

import (
	"context"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/ingest"
	"github.com/vaticml/vatic/stats/classify"
	"github.com/vaticml/vatic/stats/regress"
)

// Options configure an Engine. Zero values mean the documented defaults.
type Options struct {
	// Logger receives lifecycle lines; nil discards them.
	Logger *slog.Logger
	// Clock returns the current time; nil means time.Now. Times are stored
	// in UTC.
	Clock func() time.Time
	// Allocator backs Arrow buffers; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
	// BatchRows is the number of rows per Arrow batch of an import
	// (default 65536).
	BatchRows int
	// ImportWorkers is the number of parallel CSV parsers of one import
	// (default GOMAXPROCS).
	ImportWorkers int
	// MaxDecodedBytes caps the size of an import body after decompression
	// (default 1 GiB; negative means no cap), so a small gzip bomb cannot
	// expand without bound.
	MaxDecodedBytes int64
	// MaxColumns is the most columns a dataset may have, and so the most
	// an upload, an import or a predict body may bring (default
	// ingest.DefaultMaxColumns, 4096). Ingest checks it as a CSV header or
	// JSON keys are read; a write that would widen a dataset past it is
	// refused.
	MaxColumns int
	// Fetcher opens remote files: import sources and the iCal calendars of
	// views. It belongs to the Engine, which lends it to both; nil disables
	// imports and URL calendars.
	Fetcher Fetcher
	// ImportConcurrency is how many imports run at once (default 2).
	ImportConcurrency int
	// ImportTimeout bounds one import from fetch to commit (default 2h).
	ImportTimeout time.Duration
	// ImportMaxBytes caps an imported file after decompression (default
	// 16 GiB).
	ImportMaxBytes int64
	// SessionConcurrency is how many sessions run at once (default 1: a
	// session already uses every core).
	SessionConcurrency int
	// SessionTimeout bounds one session (default 1h).
	SessionTimeout time.Duration
	// MaxForecastBuckets bounds the buckets one forecast or impact session
	// predicts: the window plus any gap between the last value and the
	// window (default DefaultMaxForecastBuckets). A longer horizon fails
	// the request (400) or the session with a message naming the limit.
	MaxForecastBuckets int
	// PredictMemory is how many bytes of a predict answer's batches
	// are kept in memory while its rows are scored; the answer waits for
	// the last row (so a bad value anywhere is a 400), and the batches
	// past it wait in a temporary file under TempDir. 0 means
	// DefaultPredictMemory; negative keeps none in memory.
	PredictMemory int64
	// MaxRestarts is how many times an import or a session may be cut off
	// by the server stopping (a crash, a kill, a shutdown while it runs)
	// before it fails instead of running again from the start (default 3).
	// The count is durable: New counts the jobs it finds started.
	MaxRestarts int
	// TempDir holds the files an upload spools to disk (JSON rows read
	// before the metadata that follows them); "" means the system's
	// temporary directory. When set, the engine owns it alone: New removes
	// the spool files a killed process left there.
	TempDir string
	// Notifier delivers session status changes to callback URLs; nil sends
	// none.
	Notifier Notifier
	// Allotments are the account quotas reported in the Nexosis-Account-*
	// headers and enforced (429 QuotaExceeded); zero fields default to
	// math.MaxInt32, the original service's "unlimited".
	Allotments Allotments
}

// Allotments are the quota limits of the account.
type Allotments struct {
	DataSets    int64 // datasets that may exist at once
	Predictions int64 // rows predicted per cycle
	Sessions    int64 // sessions requested per cycle
	// DataSetSize is the bytes all datasets may hold together: the sum of
	// their Size (dataSetSize), checked after each write (see
	// checkDataSetSize). math.MaxInt32, the default, means unlimited and is
	// not enforced: as bytes it would be a real 2 GiB cap, below the import
	// limit.
	DataSetSize int64
}

// unlimited is the allotment the original service sent for "no limit".
const unlimited = math.MaxInt32

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 1 << 16
	}
	if o.ImportWorkers <= 0 {
		o.ImportWorkers = runtime.GOMAXPROCS(0)
	}
	if o.MaxDecodedBytes == 0 {
		o.MaxDecodedBytes = 1 << 30
	}
	if o.ImportConcurrency <= 0 {
		o.ImportConcurrency = 2
	}
	if o.ImportTimeout <= 0 {
		o.ImportTimeout = 2 * time.Hour
	}
	if o.SessionConcurrency <= 0 {
		o.SessionConcurrency = 1
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = time.Hour
	}
	if o.MaxForecastBuckets <= 0 {
		o.MaxForecastBuckets = DefaultMaxForecastBuckets
	}
	if o.PredictMemory == 0 {
		o.PredictMemory = DefaultPredictMemory
	}
	if o.MaxColumns <= 0 {
		o.MaxColumns = ingest.DefaultMaxColumns
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 3
	}
	if o.ImportMaxBytes <= 0 {
		o.ImportMaxBytes = 16 << 30
	}
	for _, p := range []*int64{&o.Allotments.DataSets, &o.Allotments.Predictions, &o.Allotments.Sessions, &o.Allotments.DataSetSize} {
		if *p <= 0 {
			*p = unlimited
		}
	}
	return o
}

// Engine is Vatic's domain service. It is safe for concurrent use.
type Engine struct {
	store Store
	opts  Options
	log   *slog.Logger

	mu    sync.Mutex
	locks map[string]chan struct{} // per dataset (lower-cased name): a one-slot semaphore

	// fetcher opens remote files for imports and view calendars (nil: no
	// remote sources); the one owner of Options.Fetcher.
	fetcher  Fetcher
	imports  *importPool // nil without a fetcher
	sessions *sessionPool
	models   modelCache
	// predictions is the count of predictions made (catalog.usage), read
	// from the store once and then kept by PredictStream, which adds each
	// answer's rows as touchModel, the count's one writer, starts to commit
	// them, and takes them back if that fails.
	predictions predictionCount
	// cache holds the catalog entries reads look up (catalogCache); nil
	// only for an Engine not made by New.
	cache *catalogCache
	// regressors is the regression line-up (regress.Algorithms; tests
	// substitute failing algorithms).
	regressors func() []regress.Algorithm
	// classifiers is the classification line-up of a session with or
	// without text features (classify.Lineup; tests substitute a shorter
	// one).
	classifiers func(text bool) []classify.Algorithm
	// rowsIngested counts the rows uploads and imports committed since
	// New (Gauges).
	rowsIngested atomic.Int64
}

// New opens an engine on store, applying catalog migrations first.
func New(ctx context.Context, store Store, opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	e := &Engine{store: hookedStore{store}, opts: opts, log: opts.Logger, fetcher: opts.Fetcher, locks: map[string]chan struct{}{},
		regressors: regress.Algorithms, classifiers: classify.Lineup, cache: newCatalogCache()}
	if err := e.migrate(ctx); err != nil {
		return nil, err
	}
	// The prediction count is read before any request can predict: a
	// first read racing a predict's commit could count that predict twice.
	if _, err := e.predictions.get(ctx, e.countPredictions); err != nil {
		return nil, err
	}
	if opts.TempDir != "" {
		n, err := ingest.RemoveSpools(opts.TempDir)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			e.log.InfoContext(ctx, "removed spool files left by a previous process", "dir", opts.TempDir, "files", n)
		}
	}
	if e.fetcher != nil {
		if err := e.startImports(ctx); err != nil {
			return nil, err
		}
	}
	if err := e.startSessions(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close stops the engine's background work: running imports are canceled
// (they stay started and run again at the next start) and their workers
// waited for. It does not close the store.
func (e *Engine) Close() error {
	if e.imports != nil {
		e.imports.stop()
	}
	if e.sessions != nil {
		e.sessions.stop()
	}
	return nil
}

func (e *Engine) now() time.Time { return e.opts.Clock().UTC().Truncate(time.Microsecond) }

// lock serialises writers of one dataset (names match case-insensitively);
// it returns the unlock function. Waiting ends with ctx: a writer whose
// request is canceled stops queueing behind one that holds the lock (say,
// an upload that stalled until the API aborts it) and gets ctx's error.
func (e *Engine) lock(ctx context.Context, name string) (unlock func(), err error) {
	key := strings.ToLower(name)
	e.mu.Lock()
	sem, ok := e.locks[key]
	if !ok {
		sem = make(chan struct{}, 1)
		e.locks[key] = sem
	}
	e.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Usage is the account's consumption, reported next to Allotments.
type Usage struct {
	DataSets    int64
	Predictions int64
	Sessions    int64
}

// Allotments returns the configured quotas.
func (e *Engine) Allotments() Allotments { return e.opts.Allotments }

// Usage counts what the account uses now, from the catalog: stored
// datasets, stored sessions other than estimates, and rows predicted
// (REFERENCE §1.9; there is no billing cycle, so counts never reset).
// The counts are cached (catalogCache) until a catalog write changes them.
//
// Predictions comes from the engine's own running count (predictionCount,
// which every committed predict adds to) rather than the cached entry, so
// a predict does not drop the cached counts: the account headers of the
// next answer then need no query.
func (e *Engine) Usage(ctx context.Context) (Usage, error) {
	if !e.cached(ctx) {
		return e.queryUsage(ctx)
	}
	u, ok := e.cache.usageEntry()
	if !ok {
		gen := e.cache.begin()
		var err error
		if u, err = e.queryUsage(ctx); err != nil {
			return u, err
		}
		e.cache.putUsage(gen, u)
	}
	var err error
	u.Predictions, err = e.predictions.get(ctx, e.countPredictions)
	return u, err
}

// Ping checks that the store answers a query.
func (e *Engine) Ping(ctx context.Context) error {
	_, err := e.countDatasets(ctx)
	return err
}

func (e *Engine) queryUsage(ctx context.Context) (Usage, error) {
	var u Usage
	var err error
	if u.DataSets, err = e.countDatasets(ctx); err != nil {
		return u, err
	}
	if u.Sessions, err = e.countSessions(ctx); err != nil {
		return u, err
	}
	u.Predictions, err = e.countPredictions(ctx)
	return u, err
}
