package engine

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/stats"
)

// maxFeatures is MODELLING §9's global cap: "when the encoded feature
// count exceeds 500 (typical after text expansion), keep the 500 best for
// the contest".
const maxFeatures = 500

// capFeatures applies §9's cap to a pipeline fitted on rows with target t:
// when it encodes more than maxFeatures features, it keeps the
// maxFeatures best by the feature importance of §9 and leaves the others
// out of the encoded matrix (text words leave their column's terms, other
// features are listed in Drop). The importance is the one the session
// reports: §9's estimator on the non-text features of the rows, and each
// word's text.Importance (engine/text.go); features whose importance
// cannot be computed (NaN, §0) rank last, ties keep the earlier feature.
// The kept features' importance is remembered, so the session does not
// estimate it again.
//
// A pipeline without a target (anomalies) has no importance: it keeps
// every non-text feature (the Mahalanobis distances read them all,
// MODELLING §8.3) and fills the places left, if any, with words by corpus
// frequency (their vocabulary's rank order) across its text columns.
func (p *pipeline) capFeatures(frame []*frameColumn, rows []int, t fitTarget) {
	names, discrete := p.Features()
	if len(names) <= maxFeatures {
		return
	}
	p.capped = len(names)
	nonText := p.withoutText()
	m := len(names) - p.textWidth()
	score := make([]float64, 0, len(names))
	if t.y != nil {
		if m > 0 {
			x, err := nonText.encode(frame, rows)
			if err != nil {
				return
			}
			score = append(score, stats.FeatureImportance(x, t.y, discrete[:m], t.discrete, t.seed, runtime.GOMAXPROCS(0))...)
		}
		for _, tf := range p.texts {
			score = append(score, tf.importance...)
		}
	} else {
		// Non-text features first (+Inf), then words by count.
		for range m {
			score = append(score, math.Inf(1))
		}
		for _, tf := range p.texts {
			for _, r := range tf.index {
				score = append(score, float64(tf.vocab.Terms[r].Count))
			}
		}
	}
	order := make([]int, len(names))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := score[a], score[b]
		switch {
		case math.IsNaN(sa) && math.IsNaN(sb):
			return 0
		case math.IsNaN(sa):
			return 1
		case math.IsNaN(sb):
			return -1
		}
		return cmp.Compare(sb, sa)
	})
	kept := maxFeatures
	if t.y == nil {
		kept = max(kept, m)
	}
	keep := make([]bool, len(names))
	for _, j := range order[:kept] {
		keep[j] = true
	}
	for j := range m {
		if !keep[j] {
			p.Drop = append(p.Drop, names[j])
		}
	}
	at := m
	ti := 0
	for ci := range p.Columns {
		pc := &p.Columns[ci]
		if pc.Type != columnar.Text {
			continue
		}
		tf := &p.texts[ti]
		ti++
		var terms []string
		var idf []float64
		var kept textFit
		for k := range pc.Terms {
			if keep[at+k] {
				terms, idf = append(terms, pc.Terms[k]), append(idf, pc.IDF[k])
				kept.terms, kept.index = append(kept.terms, tf.terms[k]), append(kept.index, tf.index[k])
				if tf.importance != nil {
					kept.importance = append(kept.importance, tf.importance[k])
				}
			}
		}
		at += len(pc.Terms)
		pc.Terms, pc.IDF = terms, idf
		tf.terms, tf.idf, tf.index, tf.importance = kept.terms, idf, kept.index, kept.importance
	}
	if t.y != nil {
		for j, k := range keep {
			if k {
				p.importance = append(p.importance, score[j])
			}
		}
	}
}

// textWidth is how many features p's text columns encode.
func (p pipeline) textWidth() int {
	w := 0
	for _, c := range p.Columns {
		if c.Type == columnar.Text {
			w += len(c.Terms)
		}
	}
	return w
}

// capMessage tells the session that §9's cap left features out, if it did.
func capMessage(p pipeline) []Message {
	if p.capped == 0 {
		return nil
	}
	how := "by feature importance"
	if p.importance == nil {
		how = "every non-text feature, then the most frequent words"
	}
	names, _ := p.Features()
	return []Message{{"informational", fmt.Sprintf("The data encode %d features, more than %d: the contest uses %d of them (%s).", p.capped, maxFeatures, len(names), how)}}
}
