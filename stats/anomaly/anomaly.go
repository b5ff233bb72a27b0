// Package anomaly holds the anomaly family of model sessions (MODELLING
// §8): Isolation Forest, the recorded champion (`isolation_forest_anomalies`,
// §8.1), robust Mahalanobis distances from FastMCD with reweighting as the
// second contestant (§8.4), the offset rule of `containsAnomalies` that
// turns raw scores into the signed `anomaly` column, and the Mahalanobis
// D² kernel of §8.3 over columnar float64 data (Covariance, NewMetric,
// MahalanobisD2) that the engine feeds from Arrow column buffers.
//
// Inputs are dense float64 matrices (rows × columns) with no missing
// values: the engine has imputed, encoded and scaled them (MODELLING §1.2,
// §12). The package imports gonum and stats only: no Arrow, no I/O, no
// logging.
//
// Score semantics (§8.1): every detector has a raw score r(x), higher
// meaning more normal (scikit-learn's score_samples: −s(x) for the forest,
// −D²(x) for MCD); the model keeps an offset chosen on its training rows
// by Threshold, and Score returns anomaly(x) = r(x) − offset. Negative
// means anomalous, more negative more anomalous; a row is flagged when
// anomaly ≤ 0.
//
// Degenerate data, each an error or a defined output, never a panic:
//   - fewer than two rows: ErrTooFewRows (Covariance too); no columns:
//     ErrNoColumns; NaN or ±Inf in a fit: ErrNotFinite;
//   - all rows identical: ErrIdentical from both detectors; the D² kernel
//     itself gives a zero covariance, rank 0 and every D² = 0;
//   - constant columns, complete one-hot blocks, more columns than rows:
//     the pseudo-inverse path (Metric), which ignores directions without
//     variance; the robust fit projects onto the data's span first;
//   - more than half the rows coinciding (in the data's span): the robust
//     fit returns ErrSupport, as scikit-learn's MinCovDet fails;
//   - ties at the contamination quantile (discrete data): every tied row
//     is flagged, so PercentAnomalies may exceed 10 %;
//   - a NaN in a row passed to D2 or Score gives that row NaN (D2) or an
//     arbitrary path (the forest); other rows are unaffected.
package anomaly

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/codec"
)

// Options are what a fit may use besides the data. The zero value fits a
// model for data that contains anomalies (the API's default
// containsAnomalies = true) with one worker.
type Options struct {
	// Seed is the session seed (stats.SeedOf); every random choice draws
	// from stats.Rand(Seed, "<key>/<consumer>").
	Seed uint64
	// Workers bounds the goroutines one fit or score may run; values
	// below 1 mean 1.
	Workers int
	// Clean declares the training rows free of anomalies (the API's
	// containsAnomalies = false): the offset then flags no training row
	// (see Threshold).
	Clean bool
}

func (o Options) workers() int { return max(1, o.Workers) }

// Algorithm is one anomaly detector.
type Algorithm interface {
	Key() string  // stable key, e.g. "isolation_forest_anomalies"
	Name() string // display name, e.g. "Isolation Forest Outlier Detection"
	// Fit fits on every row of x (anomaly sessions have no test split,
	// MODELLING §8.1) and sets the offset by Threshold. x is neither
	// modified nor retained.
	Fit(x *mat.Dense, opt Options) (Model, error)
}

// Model is a fitted detector; it is immutable and safe for concurrent
// use. There is no Refit: anomaly sessions already fit on every row, so
// the saved model is the contest's model (MODELLING §8.1, §5.2).
type Model interface {
	// Key is the Algorithm's key.
	Key() string
	// Columns is the number of input columns the model was fitted on.
	Columns() int
	// Score writes anomaly(x) = r(x) − Offset() for each row of x into
	// dst (len(dst) = rows of x); negative is anomalous. It panics when x
	// does not have Columns() columns or dst is short, programmer errors.
	Score(x mat.Matrix, dst []float64)
	// Offset is the raw-score threshold chosen on the training rows.
	Offset() float64
	// PercentAnomalies is the share of training rows flagged (anomaly ≤
	// 0), the session's `percentAnomalies` metric (§8.2), in [0, 1].
	PercentAnomalies() float64
	encoding.BinaryMarshaler
}

// Errors a fit returns on data it cannot model; the engine reports them
// as a failed session with the message.
var (
	// ErrTooFewRows: fewer than two rows.
	ErrTooFewRows = errors.New("anomaly: too few rows (need at least 2)")
	// ErrNoColumns: no input columns.
	ErrNoColumns = errors.New("anomaly: no input columns")
	// ErrIdentical: every row is the same, so nothing can stand out
	// (every score would tie and the contamination rule would flag all).
	ErrIdentical = errors.New("anomaly: all rows are identical")
	// ErrNotFinite: a NaN or infinite input value (the engine imputes
	// missing values before a fit).
	ErrNotFinite = errors.New("anomaly: input has NaN or infinite values")
)

// Contamination is the share of training rows flagged when the data
// contain anomalies (containsAnomalies = true, MODELLING §8.1).
const Contamination = 0.10

// cleanMargin is how far below the lowest training raw score the offset
// of a clean fit sits (MODELLING §8.1), so no training row is flagged.
const cleanMargin = 1e-12

// Threshold returns the offset for raw training scores (higher = more
// normal), MODELLING §8.1. With clean false it is the Contamination
// quantile of the scores, type 7 (linear interpolation at position
// 0.1·(n−1), §0; not gonum's stat.Quantile): flagging anomaly ≤ 0 then
// marks ⌊0.1·(n−1)⌋ + 1 of n distinct scores, the recorded 184/1831,
// 15/148 and 18/178. With clean true it is min(scores) − 1e-12, so no
// training row is flagged. NaN when scores is empty.
func Threshold(scores []float64, clean bool) float64 {
	if len(scores) == 0 {
		return math.NaN()
	}
	if clean {
		return slices.Min(scores) - cleanMargin
	}
	s := slices.Clone(scores)
	slices.Sort(s)
	return quantile7(s, Contamination)
}

// quantile7 is the type-7 p-quantile of sorted (MODELLING §0).
func quantile7(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Flagged is the share of anomaly values ≤ 0; 0 when empty.
func Flagged(anomaly []float64) float64 {
	if len(anomaly) == 0 {
		return 0
	}
	k := 0
	for _, a := range anomaly {
		if a <= 0 {
			k++
		}
	}
	return float64(k) / float64(len(anomaly))
}

// Algorithms is the anomaly line-up in contest order: Isolation Forest
// (the champion, §8.1), then robust Mahalanobis (§8.4).
func Algorithms() []Algorithm { return []Algorithm{IsolationForest{}, RobustMahalanobis{}} }

// FitScores is a.Fit(x, opt) together with the fitted model's Score of
// every row of x, equal to it bit for bit, computed once and with up to
// opt.Workers goroutines: Isolation Forest scores its training rows
// anyway to choose the offset, so a session that needs both would
// otherwise walk every row through every tree twice, the second time on
// one goroutine (about 1 CPU-s of a 200 000-row session).
//
// Isolation Forest also takes a *stats.SparseMatrix (a session's rows
// with its text columns' words as CSR) and never makes it dense as a
// whole; the other detectors take a *mat.Dense.
func FitScores(a Algorithm, x mat.Matrix, opt Options) (Model, []float64, error) {
	if f, ok := a.(IsolationForest); ok {
		m, scores, err := f.fit(x, opt)
		if err != nil {
			return nil, nil, err
		}
		return m, scores, nil
	}
	xd, ok := x.(*mat.Dense)
	if !ok {
		return nil, nil, fmt.Errorf("anomaly: %s reads a dense matrix, not %T", a.Key(), x)
	}
	if _, ok := a.(RobustMahalanobis); ok {
		e, err := fitMCD(xd, opt)
		if err != nil {
			return nil, nil, err
		}
		// Score's computation, on all workers: D2 does not depend on them.
		m := e.model
		scores := make([]float64, e.n)
		m.metric.D2(e.cols, scores, opt.workers())
		for i, v := range scores {
			scores[i] = -v - m.offset
		}
		return m, scores, nil
	}
	m, err := a.Fit(xd, opt)
	if err != nil {
		return nil, nil, err
	}
	r, _ := xd.Dims()
	scores := make([]float64, r)
	m.Score(xd, scores)
	return m, scores, nil
}

// unmarshalers maps a model key to its decoder.
var unmarshalers = map[string]func([]byte) (Model, error){
	forestKey: unmarshalForest,
	mcdKey:    unmarshalMCD,
}

// Unmarshal decodes bytes written by a Model's MarshalBinary, framed by
// codec.Frame (the key's length in one byte, the key), then the model's
// payload.
func Unmarshal(data []byte) (Model, error) {
	return codec.Decode(data, unmarshalers, "anomaly")
}

// checkFit validates a training matrix: at least two rows, one column,
// finite values, not every row the same. x is a *mat.Dense or, for
// Isolation Forest, any matrix fit reads (rowTo).
func checkFit(x mat.Matrix) error {
	if x == nil {
		return ErrTooFewRows
	}
	if d, ok := x.(*mat.Dense); ok && (d == nil || d.IsEmpty()) {
		return ErrTooFewRows
	}
	n, d := x.Dims()
	if d < 1 {
		return ErrNoColumns
	}
	if n < 2 {
		return ErrTooFewRows
	}
	varies := false
	first := rowOf(x, 0, make([]float64, d))
	buf := make([]float64, d)
	for i := range n {
		for j, v := range rowOf(x, i, buf) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ErrNotFinite
			}
			if v != first[j] {
				varies = true
			}
		}
	}
	if !varies {
		return ErrIdentical
	}
	return nil
}

// checkScore panics on a programmer error in a Score call.
func checkScore(x mat.Matrix, d int, dst []float64) int {
	r, c := x.Dims()
	if c != d {
		panic(fmt.Sprintf("anomaly: score with %d columns, model has %d", c, d))
	}
	if len(dst) < r {
		panic(fmt.Sprintf("anomaly: score of %d rows into %d values", r, len(dst)))
	}
	return r
}

// columns copies the rows of x into one slice per column (the layout
// of the D² kernel).
func columns(x mat.Matrix) [][]float64 {
	r, c := x.Dims()
	cols := make([][]float64, c)
	for j := range cols {
		cols[j] = make([]float64, r)
	}
	if d, ok := x.(*mat.Dense); ok {
		for i := range r {
			for j, v := range d.RawRowView(i) {
				cols[j][i] = v
			}
		}
		return cols
	}
	for i := range r {
		for j := range c {
			cols[j][i] = x.At(i, j)
		}
	}
	return cols
}

// parallel calls f on the chunks [lo, hi) of [0, n), chunk values long,
// from up to workers goroutines. Which goroutine runs a chunk does not
// matter to callers that write per-chunk results, so their output does
// not depend on the number of workers.
func parallel(n, chunk, workers int, f func(c, lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers = max(1, min(workers, chunks))
	if workers == 1 {
		for c := range chunks {
			f(c, c*chunk, min(n, (c+1)*chunk))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				f(c, c*chunk, min(n, (c+1)*chunk))
			}
		})
	}
	wg.Wait()
}
