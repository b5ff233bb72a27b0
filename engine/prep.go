package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
)

// This file turns a session's rows into the numeric matrix the algorithms
// see (MODELLING §1.2, §12): imputation with statistics of the training
// rows, logical as 1/0, one-hot strings named <column>:<value>, dates
// expanded into parts. The fitted preparation is part of the saved model,
// so predict replays it on new rows.

// frameColumn holds one column of a session's rows: numbers (numeric,
// logical as 1/0, dates as Unix seconds) with NaN for missing, or text
// with ok=false for missing.
type frameColumn struct {
	Name string
	Type columnar.DataType
	Num  []float64
	Text []string
	OK   []bool // text columns: value present
}

func (c *frameColumn) isText() bool { return c.Type == columnar.String || c.Type == columnar.Text }

func (c *frameColumn) length() int {
	if c.isText() {
		return len(c.Text)
	}
	return len(c.Num)
}

// readFrame drains an Arrow reader into columns typed by cols (by name).
func readFrame(rr array.RecordReader, cols []columnar.Column) ([]*frameColumn, error) {
	out := make([]*frameColumn, len(cols))
	for i, c := range cols {
		out[i] = &frameColumn{Name: c.Name, Type: c.DataType}
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i, fc := range out {
			if err := appendArray(fc, rec.Column(i)); err != nil {
				return nil, err
			}
		}
	}
	return out, rr.Err()
}

// appendArray appends one Arrow array to a frame column, converting what
// the column's type needs.
func appendArray(fc *frameColumn, arr arrow.Array) error {
	n := arr.Len()
	if fc.isText() {
		for i := range n {
			if arr.IsNull(i) {
				fc.Text, fc.OK = append(fc.Text, ""), append(fc.OK, false)
				continue
			}
			fc.Text, fc.OK = append(fc.Text, arrayText(arr, i)), append(fc.OK, true)
		}
		return nil
	}
	switch a := arr.(type) {
	case *array.Float64:
		for i := range n {
			if a.IsNull(i) {
				fc.Num = append(fc.Num, math.NaN())
			} else {
				fc.Num = append(fc.Num, a.Value(i))
			}
		}
	case *array.Boolean:
		for i := range n {
			switch {
			case a.IsNull(i):
				fc.Num = append(fc.Num, math.NaN())
			case a.Value(i):
				fc.Num = append(fc.Num, 1)
			default:
				fc.Num = append(fc.Num, 0)
			}
		}
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		for i := range n {
			if a.IsNull(i) {
				fc.Num = append(fc.Num, math.NaN())
			} else {
				fc.Num = append(fc.Num, float64(a.Value(i).ToTime(unit).UnixNano())/1e9)
			}
		}
	default:
		for i := range n {
			v := math.NaN()
			if !arr.IsNull(i) {
				if f, ok := parseNumber(arrayText(arr, i)); ok {
					v = f
				}
			}
			fc.Num = append(fc.Num, v)
		}
	}
	return nil
}

// arrayText is a value as text (strings as stored, others formatted). It
// copies: Arrow strings alias buffers that are freed with their batch.
func arrayText(arr arrow.Array, i int) string {
	switch a := arr.(type) {
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
	}
	return arr.ValueStr(i)
}

// prepColumn is the fitted preparation of one input column.
type prepColumn struct {
	Name string            `json:"name"`
	Type columnar.DataType `json:"type"`
	// Fill replaces a missing number (numeric, logical, date seconds).
	Fill float64 `json:"fill,omitempty"`
	// FillText replaces a missing string (the training mode).
	FillText string `json:"fillText,omitempty"`
	// Levels are the one-hot levels of a string column (lower-cased).
	Levels []string `json:"levels,omitempty"`
	// Hour says a date column carries a time of day, so it expands to an
	// hour part too.
	Hour bool `json:"hour,omitempty"`
	// Terms are a text column's kept words (MODELLING §10), one feature
	// each, in feature order, and IDF their inverse document frequencies:
	// what predict encodes new text with.
	Terms []string  `json:"terms,omitempty"`
	IDF   []float64 `json:"idf,omitempty"`
}

// pipeline is the fitted preparation of a session's inputs.
type pipeline struct {
	Columns []prepColumn `json:"columns"`
	Target  string       `json:"target"`
	// Missing are the session's missing-value tokens, applied to predicted
	// rows too.
	Missing []string `json:"missing,omitempty"`
	// texts are the text columns' fitted vocabularies, in the order of
	// their columns; the session stores them, the saved model does not
	// need them.
	texts []textFit
}

// fitTarget is the target of the rows a pipeline is fitted on, which
// text columns select their words by: y[i] belongs to rows[i]; y is nil
// when the session has no target (anomalies).
type fitTarget struct {
	y        []float64
	discrete bool
}

// fitPipeline fits the preparation of the feature columns on the given
// rows (the training rows; all rows for the saved model); missing are the
// session's missing-value tokens, kept for predict; t is the rows' target,
// which text columns select their words by. Text columns come after the
// others, so their many features sit at the end of the matrix.
func fitPipeline(frame []*frameColumn, meta []columnar.Column, rows []int, missing []string, t fitTarget) pipeline {
	p := pipeline{Missing: missing}
	var texts []prepColumn
	for i, fc := range frame {
		c := meta[i]
		if c.Role == columnar.RoleTarget {
			p.Target = c.Name
		}
		if !isFeature(c) {
			continue
		}
		pc := prepColumn{Name: c.Name, Type: c.DataType}
		switch {
		case c.DataType == columnar.Text:
			tf := fitText(fc, rows, t)
			pc.Terms, pc.IDF = tf.terms, tf.idf
			p.texts = append(p.texts, tf)
			texts = append(texts, pc)
			continue
		case fc.isText():
			pc.Levels, pc.FillText = levels(fc, rows)
		default:
			vals := make([]float64, 0, len(rows))
			for _, r := range rows {
				if v := fc.Num[r]; !math.IsNaN(v) {
					vals = append(vals, v)
				}
			}
			pc.Fill = impute(vals, imputationOf(c))
			if c.DataType == columnar.Date {
				for _, v := range vals {
					if math.Mod(v, 86400) != 0 {
						pc.Hour = true
						break
					}
				}
			}
		}
		p.Columns = append(p.Columns, pc)
	}
	p.Columns = append(p.Columns, texts...)
	return p
}

// imputationOf is a column's imputation, or its type's default (MODELLING
// §12.3) when none is set.
func imputationOf(c columnar.Column) columnar.Imputation {
	if c.Imputation != "" {
		return c.Imputation
	}
	switch c.DataType {
	case columnar.NumericMeasure:
		return columnar.ImputeMean
	case columnar.Numeric:
		return columnar.ImputeZeroes
	}
	return columnar.ImputeMode
}

// impute computes the fill value of a strategy over the present values
// (MODELLING §12.2: median is the lower middle value, mode ties go to the
// smallest value); 0 when there are none.
func impute(vals []float64, how columnar.Imputation) float64 {
	if len(vals) == 0 {
		return 0
	}
	switch how {
	case columnar.ImputeMean:
		var s float64
		for _, v := range vals {
			s += v
		}
		return s / float64(len(vals))
	case columnar.ImputeMedian, columnar.ImputeMode, columnar.ImputeMin, columnar.ImputeMax:
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		switch how {
		case columnar.ImputeMedian:
			return sorted[(len(sorted)-1)/2]
		case columnar.ImputeMin:
			return sorted[0]
		case columnar.ImputeMax:
			return sorted[len(sorted)-1]
		}
		best, bestN := sorted[0], 0
		for i := 0; i < len(sorted); {
			j := i
			for j < len(sorted) && sorted[j] == sorted[i] {
				j++
			}
			if j-i > bestN {
				best, bestN = sorted[i], j-i
			}
			i = j
		}
		return best
	}
	return 0
}

// levels lists a string column's distinct lower-cased values in the given
// rows, sorted, and the most frequent (ties: first in order).
func levels(fc *frameColumn, rows []int) ([]string, string) {
	counts := map[string]int{}
	for _, r := range rows {
		if fc.OK[r] {
			counts[strings.ToLower(fc.Text[r])]++
		}
	}
	out := make([]string, 0, len(counts))
	for v := range counts {
		out = append(out, v)
	}
	sort.Strings(out)
	mode, best := "", 0
	for _, v := range out {
		if counts[v] > best {
			mode, best = v, counts[v]
		}
	}
	return out, mode
}

// datePartNames are the parts a date feature expands into.
var datePartNames = []string{"year", "month", "dayOfWeek", "dayOfYear"}

// Features names the encoded input columns in matrix order and says which
// take only a few values (one-hot and logical), for the feature importance
// estimator.
func (p pipeline) Features() (names []string, discrete []bool) {
	add := func(name string, d bool) { names, discrete = append(names, name), append(discrete, d) }
	for _, c := range p.Columns {
		switch {
		case c.Type == columnar.Text:
			for _, t := range c.Terms {
				add(c.Name+":"+t, false)
			}
		case c.Type == columnar.String:
			for _, l := range c.Levels {
				add(c.Name+":"+l, true)
			}
		case c.Type == columnar.Date:
			for _, part := range datePartNames {
				add(c.Name+":"+part, false)
			}
			if c.Hour {
				add(c.Name+":hour", false)
			}
		default:
			add(c.Name, c.Type == columnar.Logical)
		}
	}
	return names, discrete
}

// encode builds the matrix of the given rows as one dense matrix; frame
// columns are found by name (case-insensitively), so predict can pass
// columns in any order. With text it makes the words dense (n × words):
// only the paths that read no sparse input call it (the distances'
// batches, distances.go); the model sessions (classification,
// regression, anomalies) and their predictions read encodeWords, the
// words as a CSR block.
func (p pipeline) encode(frame []*frameColumn, rows []int) (*mat.Dense, error) {
	x, err := p.encodeWords(frame, rows)
	if err != nil {
		return nil, err
	}
	return x.ToDense(), nil
}

// encodeWords builds the matrix of the given rows as encode does, with
// the text columns' words (the last columns, fitPipeline) as a CSR block
// after the dense block of the others (nil when there are none), so a
// text column is never a dense matrix (issue 16). Without text the dense
// block is encode's matrix.
func (p pipeline) encodeWords(frame []*frameColumn, rows []int) (*stats.SparseMatrix, error) {
	return p.encodeWordsInto(frame, rows, nil)
}

// encodeWordsInto is encodeWords with the dense block's values in
// get(n) (cleared first) rather than a new slice, when get is not nil:
// predict batches reuse them (predictFloats).
func (p pipeline) encodeWordsInto(frame []*frameColumn, rows []int, get func(n int) []float64) (*stats.SparseMatrix, error) {
	byName := map[string]*frameColumn{}
	for _, fc := range frame {
		byName[strings.ToLower(fc.Name)] = fc
	}
	names, _ := p.Features()
	width := len(names)
	if len(rows) == 0 || width == 0 {
		return nil, fmt.Errorf("nothing to encode: %d rows, %d features", len(rows), width)
	}
	denseWidth := width
	for _, pc := range p.Columns {
		if pc.Type == columnar.Text {
			denseWidth -= len(pc.Terms)
		}
	}
	var x *mat.Dense
	if denseWidth > 0 {
		var data []float64
		if get != nil {
			data = get(len(rows) * denseWidth)
			clear(data)
		}
		x = mat.NewDense(len(rows), denseWidth, data)
	}
	var words []*stats.CSR
	col := 0
	for _, pc := range p.Columns {
		fc, ok := byName[strings.ToLower(pc.Name)]
		if !ok {
			return nil, fmt.Errorf("column %s is missing", pc.Name)
		}
		switch {
		case pc.Type == columnar.Text:
			if len(pc.Terms) > 0 {
				words = append(words, encodeText(pc, fc, rows))
			}
		case pc.Type == columnar.String:
			index := make(map[string]int, len(pc.Levels))
			for i, l := range pc.Levels {
				index[l] = i
			}
			for i, r := range rows {
				v := pc.FillText
				if fc.OK[r] {
					v = strings.ToLower(fc.Text[r])
				}
				if j, ok := index[v]; ok {
					x.Set(i, col+j, 1)
				}
			}
			col += len(pc.Levels)
		case pc.Type == columnar.Date:
			for i, r := range rows {
				v := fc.Num[r]
				if math.IsNaN(v) {
					v = pc.Fill
				}
				t := time.Unix(0, int64(v*1e9)).UTC()
				x.Set(i, col, float64(t.Year()))
				x.Set(i, col+1, float64(t.Month()))
				x.Set(i, col+2, float64(t.Weekday()))
				x.Set(i, col+3, float64(t.YearDay()))
				if pc.Hour {
					x.Set(i, col+4, float64(t.Hour()))
				}
			}
			col += len(datePartNames)
			if pc.Hour {
				col++
			}
		default:
			for i, r := range rows {
				v := fc.Num[r]
				if math.IsNaN(v) {
					v = pc.Fill
				}
				x.Set(i, col, v)
			}
			col++
		}
	}
	if len(words) == 0 {
		return stats.NewSparseMatrix(x, nil), nil
	}
	return stats.NewSparseMatrix(x, stats.HStack(len(rows), words...)), nil
}

// readSnapshot reads a session's snapshot columns, streamed: DuckDB
// hands each chunk over as it computes it, and never holds a second copy
// of the snapshot beside the frame being built.
func (e *Engine) readSnapshot(ctx context.Context, session string, cols []columnar.Column) ([]*frameColumn, error) {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	q, err := sqlgen.ReadSnapshot(sqlgen.SnapshotTable(session), names)
	if err != nil {
		return nil, err
	}
	rr, err := e.store.StreamQuery(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read session data: %w", err)
	}
	defer rr.Release()
	return readFrame(rr, cols)
}
