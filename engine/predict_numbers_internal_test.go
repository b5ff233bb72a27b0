package engine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/ingest"
)

// lineCSV is a minimal LineText: each row is a line break, its echoed
// cells joined by commas (from the record's text arrays, or the lines)
// and its predictions. A stand-in null rendered in place of a number
// would show as an empty cell.
type lineCSV struct{}

func (lineCSV) Lead() int { return 1 }

func (lineCSV) Missing(fields []arrow.Field, had int) []byte {
	return bytes.Repeat([]byte{','}, len(fields)-had)
}

func (t lineCSV) Rows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int) ([]byte, []int, []int, []int) {
	return t.render(dst, marks, cuts, ends, rec, echoed, nil)
}

func (t lineCSV) LineRows(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int, lines *Lines) ([]byte, []int, []int, []int) {
	return t.render(dst, marks, cuts, ends, rec, echoed, lines)
}

func (lineCSV) render(dst []byte, marks, cuts, ends []int, rec arrow.RecordBatch, echoed int, lines *Lines) ([]byte, []int, []int, []int) {
	for i := range int(rec.NumRows()) {
		dst = append(dst, '\n')
		if lines != nil {
			from := int32(0)
			if i > 0 {
				from = lines.Ends[i-1]
			}
			dst = append(dst, lines.Data[from:lines.Ends[i]]...)
		} else {
			for j := range echoed {
				if j > 0 {
					dst = append(dst, ',')
				}
				if a := rec.Column(j).(*array.String); !a.IsNull(i) {
					dst = append(dst, a.Value(i)...)
				}
			}
		}
		marks = append(marks, len(dst))
		for j := echoed; j < int(rec.NumCols()); j++ {
			dst = append(dst, ',')
			dst = strconv.AppendFloat(dst, rec.Column(j).(*array.Float64).Value(i), 'g', -1, 64)
		}
		cuts, ends = append(cuts, len(dst)), append(ends, len(dst))
	}
	return dst, marks, cuts, ends
}

// cellText is a PredictText that is not a LineText.
type cellText struct{ PredictText }

// textBody is a CSV PredictBody as a PredictSource; numbers counts the
// batches that came with float64 columns.
type textBody struct {
	*PredictBody
	numbers int
}

func (s *textBody) Options() (PredictOptions, bool, error) { return PredictOptions{}, true, nil }

func (s *textBody) Next() (PredictBatch, error) {
	b, err := s.PredictBody.Next()
	if err == nil {
		for _, c := range b.Rec.Columns() {
			if c.DataType().ID() == arrow.FLOAT64 {
				s.numbers++
				break
			}
		}
	}
	return b, err
}

// hiddenHint is a textBody without HintNumbers: every batch comes as
// text.
type hiddenHint struct{ src *textBody }

func (h hiddenHint) Options() (PredictOptions, bool, error) { return h.src.Options() }
func (h hiddenHint) Next() (PredictBatch, error)            { return h.src.Next() }

// With a line-rendered answer, a CSV body's numeric feature columns are
// read as numbers as the body is split (NumberHinter): the answer is the
// one every batch read as text gives, byte for byte, whether a batch's
// columns came as numbers, as text (a token, a blank, a quote, a leading
// space, a bad value: its row and column named as before), or a mix.
// A body with the target column, or an answer that is not lines, takes
// no hint.
func TestPredictNumbersHint(t *testing.T) {
	e := newTestEngine(t)
	ctx := t.Context()
	model := e.linearModel(t)
	body := func(n int, header string, row func(i int) string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range n {
			b.WriteString(row(i) + "\n")
		}
		return b.String()
	}
	cases := []struct {
		what, body string
		hinted     bool // some batch must come with numbers
		err        string
	}{
		{"plain", body(5000, "a,b", func(i int) string { return fmt.Sprintf("%d.5,%de-2", i, -i) }), true, ""},
		{"tokens and blanks", body(5000, "b,a,note", func(i int) string {
			switch i % 997 {
			case 5:
				return fmt.Sprintf("NA,%d,x", i)
			case 9:
				return fmt.Sprintf(",%d,y", i)
			case 11:
				return fmt.Sprintf("\"%d\",%d,z", i, i)
			case 13:
				return fmt.Sprintf(" %d,%d,w", i, i)
			}
			return fmt.Sprintf("%d,%d.25,n%d", i, i, i)
		}), true, ""},
		{"bad value late", body(5000, "a,b", func(i int) string {
			if i == 4321 {
				return "1,oops"
			}
			return fmt.Sprintf("%d,%d", i, i)
		}), true, "Row 4321"},
		{"plain first, then a quote and a leading space", body(5000, "a,b", func(i int) string {
			switch i {
			case 2500:
				return fmt.Sprintf("\"%d\",%d", i, i)
			case 3700:
				return fmt.Sprintf("%d, %d", i, i)
			}
			return fmt.Sprintf("%d,%d", i, -i)
		}), true, ""},
		{"target in the body", body(3000, "a,y,b", func(i int) string { return fmt.Sprintf("%d,%d,%d", i, i, i) }), false, ""},
	}
	run := func(body string, hide bool, text PredictText) ([]byte, int, error) {
		src := &textBody{PredictBody: e.NewPredictBody(strings.NewReader(body), PredictCSVBody, 200)}
		defer src.Close()
		var ps PredictSource = src
		if hide {
			ps = hiddenHint{src}
		}
		out, err := e.PredictStream(ctx, model, ps, text)
		if err != nil {
			return nil, src.numbers, err
		}
		defer out.Close()
		var buf bytes.Buffer
		if err := out.WriteRows(&buf); err != nil {
			return nil, src.numbers, err
		}
		return buf.Bytes(), src.numbers, out.Commit()
	}
	for _, c := range cases {
		want, n, werr := run(c.body, true, lineCSV{})
		if n != 0 {
			t.Fatalf("%s: %d batches of numbers with the hint hidden", c.what, n)
		}
		got, n, gerr := run(c.body, false, lineCSV{})
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || (c.err != "" && (gerr == nil || !strings.Contains(gerr.Error(), c.err))) {
			t.Fatalf("%s: error %v with the hint, %v without, want %q", c.what, gerr, werr, c.err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: answer with the hint differs:\n%.400s\nwithout:\n%.400s", c.what, got, want)
		}
		if (n > 0) != c.hinted {
			t.Errorf("%s: %d batches of numbers, want some: %v", c.what, n, c.hinted)
		}
		// An answer that is not lines (Arrow batches, or text rendered
		// cell by cell) takes no hint.
		if _, n, _ := run(c.body, false, nil); n != 0 {
			t.Errorf("%s: %d batches of numbers for an Arrow answer", c.what, n)
		}
		if _, n, _ := run(c.body, false, cellText{lineCSV{}}); n != 0 {
			t.Errorf("%s: %d batches of numbers for a PredictText that is not a LineText", c.what, n)
		}
	}
}

// parseNumber skips the trimming and the token check for a field with
// printable ASCII at both ends when no missing-value token reads as a
// number, and gives what the full rule (trim, parse, not a token) gives
// on every field: "-999" as a token is missing, not -999.
func TestParseNumberTokens(t *testing.T) {
	fields := []string{"-999", " -999", "-999 ", "-999.5", "1.5", "1.50", "1e5", "1E5", "NA", " na ", "na", "", " ",
		"\u00a01.5", "1.5\u2003", "\t1", "1\r", "\v2\f", "x1", "1x", "+.5", "5.", ".", "-", "0x10", "Inf", "1_0", "١"}
	full := func(p *predictor, field string) (float64, bool) {
		tt := trimText(field)
		f, ok := ingest.ParseNumber([]byte(tt))
		return f, ok && (p.tokens == nil || !p.tokens.has(tt))
	}
	for _, tokens := range [][]string{nil, {"NA"}, {"NA", " -999 "}, {"-999"}, {"1.50"}, {"1e5"}, {"na", "?"}} {
		p := &predictor{tokens: missingTokens(tokens)}
		for _, field := range fields {
			got, ok := p.parseNumber([]byte(field))
			want, wok := full(p, field)
			if ok != wok || ok && got != want {
				t.Errorf("tokens %q: parseNumber(%q) = %v, %v, want %v, %v", tokens, field, got, ok, want, wok)
			}
		}
	}
	if _, ok := (&predictor{tokens: missingTokens([]string{"-999"})}).parseNumber([]byte("-999")); ok {
		t.Error(`"-999" read as a number where it is a missing-value token`)
	}
}
