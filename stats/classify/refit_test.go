package classify_test

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/classify"
)

// TestRefitKeepsSearch checks what the engine's champion cross-validation
// relies on when it refits each contestant's test fit on a fold's rows
// instead of fitting it anew: Refit on the rows Fit saw gives Fit's model
// byte for byte, and Refit on 80 % of them (a fold's training part) fits
// the hyper-parameters Fit chose there, with no search of its own. On
// those rows a new search would choose another C for both logistic
// regressions (10 for 3.16) and another number of gbm rounds (104 for
// 79), so a Refit that searched again would fail.
func TestRefitKeepsSearch(t *testing.T) {
	d, sub := refitData(t, "wine")
	opt := classify.Options{Seed: 7, Workers: 2}
	for _, a := range append(classify.Algorithms(), classify.TextAlgorithms()...) {
		t.Run(a.Key(), func(t *testing.T) {
			m, err := a.Fit(d, opt)
			if err != nil {
				t.Fatalf("%s.Fit(wine) error %v", a.Key(), err)
			}
			same, err := m.Refit(d, opt)
			if err != nil {
				t.Fatalf("%s Refit(wine) error %v", a.Key(), err)
			}
			if b1, b2 := marshal(t, m), marshal(t, same); !bytes.Equal(b1, b2) {
				t.Errorf("%s: Refit on Fit's rows gives a different model (%d bytes, Fit's %d)", a.Key(), len(b2), len(b1))
			}
			r, err := m.Refit(sub, opt)
			if err != nil {
				t.Fatalf("%s Refit(80 %% of wine) error %v", a.Key(), err)
			}
			if mat.Equal(proba(r, d.X), proba(m, d.X)) {
				t.Errorf("%s: Refit(80 %% of wine) predicts as the fit on every row, want a new fit", a.Key())
			}
			// The fixed-hyper-parameter fit on the subset Refit must equal.
			var want classify.Model
			switch fm := m.(type) {
			case *classify.LogisticModel:
				want, err = classify.FitLogisticAt(a.Key(), sub, fm.C())
			case *classify.KNNModel:
				want, err = classify.FitKNNAt(sub, fm.K(), fm.DistanceWeighted())
			case *classify.MultinomialNBModel:
				want, err = classify.FitMultinomialNBAt(sub, fm.Alpha())
			}
			if err != nil {
				t.Fatalf("%s at Fit's hyper-parameters on 80 %% of wine: %v", a.Key(), err)
			}
			if want != nil && !bytes.Equal(marshal(t, r), marshal(t, want)) {
				t.Errorf("%s: Refit(80 %% of wine) differs from the fit at Fit's hyper-parameters", a.Key())
			}
			if a.Key() == "gbm" {
				if got, rounds := classify.GBMRounds(r), classify.GBMRounds(m); got != rounds {
					t.Errorf("gbm: Refit(80 %% of wine) boosted %d rounds, want Fit's %d", got, rounds)
				}
			}
		})
	}
}

func marshal(t *testing.T, m classify.Model) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("%s MarshalBinary error %v", m.Key(), err)
	}
	return b
}

// TestRefitScoring checks the looser fits of Options.Scoring, which the
// engine's cross-validation folds score: on breast cancer and wine (80 %
// of the rows, balanced), a scoring Refit predicts the same class as the
// full-precision one on at least 99 % of every row, and its class scores
// stay within 2·10⁻³, except the random forest's: its scoring fit is the
// first 100 of the 200 trees (forestScoringTrees), whose vote fractions
// differ by up to 0.065 on these sets (0.1 allowed). The other algorithms
// ignore Scoring. The logistic regressions' were within 7·10⁻⁵ at the C
// their searches chose at a tolerance of 1e-6; at logisticSearchTol
// (1e-4), with the grid up to C = 100, L1's search picked C = 31.6 on
// wine, where 200 OWL-QN iterations left its scores within 1.5·10⁻³.
func TestRefitScoring(t *testing.T) {
	for _, name := range []string{"wine", "breast_cancer"} {
		d, sub := refitData(t, name)
		for _, a := range classify.Algorithms() {
			m, err := a.Fit(d, classify.Options{Seed: 7, Workers: 2})
			if err != nil {
				t.Fatalf("%s.Fit(%s) error %v", a.Key(), name, err)
			}
			full, err := m.Refit(sub, classify.Options{Seed: 7, Workers: 2})
			if err != nil {
				t.Fatalf("%s Refit error %v", a.Key(), err)
			}
			scored, err := m.Refit(sub, classify.Options{Seed: 7, Workers: 2, Scoring: true})
			if err != nil {
				t.Fatalf("%s scoring Refit error %v", a.Key(), err)
			}
			pf, ps := proba(full, d.X), proba(scored, d.X)
			cf, cs := classify.Predict(pf), classify.Predict(ps)
			differ := 0
			for i := range cf {
				if cf[i] != cs[i] {
					differ++
				}
			}
			if differ*100 > len(cf) {
				t.Errorf("%s on %s: a scoring Refit predicts another class on %d of %d rows", a.Key(), name, differ, len(cf))
			}
			var gap float64
			for i, v := range pf.RawMatrix().Data {
				gap = max(gap, math.Abs(v-ps.RawMatrix().Data[i]))
			}
			bound := 2e-3
			if a.Key() == "random_forest_classification" {
				bound = 0.1
			}
			if gap > bound {
				t.Errorf("%s on %s: scoring Refit's class scores differ by up to %.3g, want ≤ %g", a.Key(), name, gap, bound)
			}
			t.Logf("%s %s: %d classes differ, scores by up to %.2g", name, a.Key(), differ, gap)
		}
	}
}

// refitData loads a set with balanced weights and the training part of
// its first stratified fold (four fifths of the rows), also balanced.
func refitData(t *testing.T, name string) (d, sub classify.Data) {
	t.Helper()
	d = loadCSV(t, name)
	d.W = balanced(d.Y, d.K)
	fold := classify.StratifiedFolds(d.Y, d.K, 5, stats.Rand(3, "test/folds"))
	var rows []int
	for i, f := range fold {
		if f != 0 {
			rows = append(rows, i)
		}
	}
	sub = subset(d, rows)
	sub.W = balanced(sub.Y, sub.K)
	return d, sub
}
