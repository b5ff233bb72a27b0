// Package classify holds the classification family of model sessions
// (MODELLING §7.6): one algorithm per file, each fitting a Model that
// gives per-class probabilities, reports its intrinsic feature importance,
// refits itself with the hyper-parameters it chose, and serialises to
// bytes the engine stores.
//
// Inputs are dense float64 matrices with no missing values (the engine has
// imputed and encoded them, MODELLING §1.2, §12) and class indices
// 0..K-1 in the session's `classes` order (§7.1). Weights are the balance
// weights of §7.5 (nil means unit weights); every algorithm honours them.
// Algorithms that are sensitive to scale standardise internally with the
// training mean and sample standard deviation (Scaled reports it) and keep
// the scaler in the model.
package classify

import (
	"encoding"
	"errors"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/codec"
	"github.com/vaticml/vatic/stats/internal/scale"
)

// Options are what a fit may use besides the data.
type Options struct {
	// Seed is the session seed (stats.SeedOf); every random choice draws
	// from stats.Rand(Seed, "<key>/<consumer>").
	Seed uint64
	// Workers bounds the goroutines one fit may run (≥ 1).
	Workers int
	// Scoring marks a fit that is only scored on held-out rows and then
	// dropped (the engine's cross-validation folds): an iterative solver
	// may stop at its hyper-parameter search's looser tolerance, which
	// ranks fits as well at a fraction of the cost (the logistic
	// regressions' OWL-QN and L-BFGS), and the random forest grows 100
	// of its 200 trees. A saved model is never fitted so.
	Scoring bool
}

// Data is a training set: X has len(Y) rows; Y holds class indices in
// [0, K); W is nil (unit weights) or one positive weight per row. Fits
// do not modify or retain X, Words, Y or W.
//
// A session with text columns passes their words (MODELLING §10) as the
// CSR block Words, whose columns come after X's (X is nil when there are
// no other features), so no n × words dense matrix exists (issue 16); the
// same model then reads rows as a *stats.SparseMatrix of both blocks in Proba.
// Every family reads every word sparsely: logistic regression and both
// naive Bayes through their non-zeros, the tree ensembles splitting word
// columns natively (stats/internal/tree), k-NN through an inverted index
// of the words (stats/internal/neighbors).
type Data struct {
	X     *mat.Dense
	Words *stats.CSR
	Y     []int
	K     int
	W     []float64
}

// rows is the number of rows of d.
func (d Data) rows() int { r, _, _ := stats.WordDims(d.X, d.Words); return r }

// denseCols is the number of X's columns.
func (d Data) denseCols() int { _, c, _ := stats.WordDims(d.X, d.Words); return c }

// wordCols is the number of word columns.
func (d Data) wordCols() int { _, _, w := stats.WordDims(d.X, d.Words); return w }

// row returns row i of d: X's own row without words, else the row
// written into buf (one entry per column).
func (d Data) row(i int, buf []float64) []float64 {
	if d.Words == nil {
		return d.X.RawRowView(i)
	}
	d.sparse().RowTo(i, buf)
	return buf
}

// matrix is d's rows as one matrix: X itself without words.
func (d Data) matrix() mat.Matrix {
	if d.Words == nil {
		return d.X
	}
	return d.sparse()
}

// AsMatrix is d's rows as one matrix (X and Words), for row selection
// and Proba; X itself is its dense block, not a copy.
func AsMatrix(d Data) *stats.SparseMatrix { return d.sparse() }

// sparse is d's rows as a stats.SparseMatrix.
func (d Data) sparse() *stats.SparseMatrix { return stats.JoinWords(d.X, d.Words) }

// AsData is the training set of x's rows: its dense block as X and its
// words, if any, as Words.
func AsData(x mat.Matrix, y []int, k int, w []float64) Data {
	d := Data{Y: y, K: k, W: w}
	d.X, d.Words = stats.TrainingBlocks(x)
	return d
}

// Algorithm is one contestant family with its own hyper-parameter search
// (stratified internal cross-validation on the rows it is given).
type Algorithm interface {
	Key() string  // stable key, e.g. "logistic_regression_l2"
	Name() string // display name, e.g. "Logistic Regression (Ridge)"
	// Scaled reports whether the algorithm standardises its inputs.
	Scaled() bool
	// Fit searches the hyper-parameters and fits on all of d.
	Fit(d Data, opt Options) (Model, error)
}

// Model is a fitted classifier; it is safe for concurrent Proba.
type Model interface {
	// Key is the Algorithm's key.
	Key() string
	// Classes is K, the number of classes the model was fitted for.
	Classes() int
	// Proba writes each row's class probabilities into dst (rows × K):
	// every entry in [0, 1], every row summing to 1 (MODELLING §7.4).
	Proba(x mat.Matrix, dst *mat.Dense)
	// Importance is the model's intrinsic importance per input column
	// (|standardised coefficient| summed over classes, tree gain, …), not
	// normalised; nil when the family has none (k-NN, naive Bayes).
	Importance() []float64
	// Refit fits the same hyper-parameters on new rows, with no search:
	// the saved model is the champion refitted on every row (MODELLING
	// §5.2), and the engine's champion cross-validation refits every
	// contestant on each fold's rows. On the rows the model was fitted on
	// (with the same Options) it gives the same model. x may have more or
	// fewer columns than the fit saw; d.K is the same.
	Refit(d Data, opt Options) (Model, error)
	encoding.BinaryMarshaler
}

// ErrTooFewRows is returned when a fit cannot run on so few rows.
var ErrTooFewRows = errors.New("classify: too few rows")

// unmarshalers maps a model key to its decoder; each algorithm's file
// registers its own in an init function.
var unmarshalers = map[string]func([]byte) (Model, error){}

// register adds an algorithm to the line-up at its rank (MODELLING §7.6
// order: logistic L2 1, logistic L1 2, naive Bayes 3, k-NN 4, random
// forest 5, gradient boosting 6) with the decoder of its models; each
// algorithm's file calls it from an init function. It panics on a
// duplicate key.
func register(rank int, a Algorithm, decode func([]byte) (Model, error)) {
	lineup = addAlgorithm(lineup, rank, a, decode)
}

// registerText adds an algorithm that runs only in sessions with text
// features (TextAlgorithms) at its rank among those, with the decoder of
// its models, so a saved model loads whatever the session's line-up was.
// It panics on a duplicate key.
func registerText(rank int, a Algorithm, decode func([]byte) (Model, error)) {
	textLineup = addAlgorithm(textLineup, rank, a, decode)
}

// addAlgorithm records a's decoder and returns to with a appended.
func addAlgorithm(to []ranked, rank int, a Algorithm, decode func([]byte) (Model, error)) []ranked {
	if _, dup := unmarshalers[a.Key()]; dup {
		panic("classify: duplicate model key " + a.Key())
	}
	unmarshalers[a.Key()] = decode
	return append(to, ranked{rank, a})
}

// Unmarshal decodes bytes written by a Model's MarshalBinary: the key
// framed by codec.Frame, then the algorithm's payload.
func Unmarshal(data []byte) (Model, error) {
	return codec.Decode(data, unmarshalers, "classify")
}

// Predict returns the arg-max class of each row of p (rows × K), ties to
// the lowest class index (the first in `classes` order, MODELLING §7.4).
func Predict(p *mat.Dense) []int {
	r, k := p.Dims()
	out := make([]int, r)
	for i := range r {
		best := 0
		for j := 1; j < k; j++ {
			if p.At(i, j) > p.At(i, best) {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

// StratifiedFolds is stats.StratifiedFolds, where it moved so that
// stats/contest's repeated stratified k-fold shares it; the family's
// hyper-parameter searches keep calling it here.
func StratifiedFolds(y []int, nClasses, k int, rng *rand.Rand) []int {
	return stats.StratifiedFolds(y, nClasses, k, rng)
}

// Algorithms is the classification line-up of MODELLING §7.6, in its
// order (simpler models first, so they win ties in the contest). It runs
// in every classification session.
func Algorithms() []Algorithm { return byRank(lineup) }

// TextAlgorithms are the algorithms that join the line-up when the
// session has text features (MODELLING §7.6: multinomial naive Bayes,
// which models TF-IDF and count columns), in their order.
func TextAlgorithms() []Algorithm { return byRank(textLineup) }

// Lineup is a session's line-up: Algorithms, with TextAlgorithms merged
// in at their ranks when the session has text features. A text algorithm
// comes after the default one of the same rank (multinomial naive Bayes
// right after Gaussian naive Bayes, MODELLING §7.6), so under the
// contest's one-standard-error rule (contest.ChampionCV, earliest
// candidate within one SE of the best) it stands where its simplicity
// puts it, not behind the tree ensembles.
func Lineup(text bool) []Algorithm {
	if !text {
		return Algorithms()
	}
	return byRank(append(slices.Clone(lineup), textLineup...))
}

// byRank returns the algorithms of rs by ascending rank, equal ranks in
// rs's order.
func byRank(rs []ranked) []Algorithm {
	rs = slices.SortedStableFunc(slices.Values(rs), func(a, b ranked) int { return a.rank - b.rank })
	out := make([]Algorithm, len(rs))
	for i, r := range rs {
		out[i] = r.a
	}
	return out
}

// ranked is a line-up entry.
type ranked struct {
	rank int
	a    Algorithm
}

// lineup and textLineup are filled by register and registerText.
var lineup, textLineup []ranked

// standardizerOf is scale.New on d's rows: with words, the means and
// sample standard deviations count each word's implicit zeros (equal to
// scale.New on the dense rows up to rounding, stats.CSR.ColumnMeanSD),
// without a dense copy.
func standardizerOf(d Data) scale.Standardizer {
	if d.Words == nil {
		return scale.New(d.X)
	}
	var st scale.Standardizer // X's columns, then the words'
	if d.denseCols() > 0 {
		st = scale.New(d.X)
	}
	mean, sd := d.Words.ColumnMeanSD()
	st.Mean = append(st.Mean, mean...)
	st.SD = append(st.SD, sd...)
	return st
}
