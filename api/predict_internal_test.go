package api

import (
	"encoding/csv"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decodePredictJSON decodes a JSON predict body and returns its rows as maps of
// text (nil for null), with the literal marks, checking the batches'
// record invariants.
func decodePredictJSON(t testing.TB, body string) ([]map[string]*string, []map[string]bool, error) {
	src := newJSONPredictSource(strings.NewReader(body), predictParams{}, 100)
	var rows []map[string]*string
	var lits []map[string]bool
	for {
		b, err := src.Next()
		if err == io.EOF {
			return rows, lits, nil
		}
		if err != nil {
			return nil, nil, err
		}
		for _, c := range b.Rec.Columns() {
			if err := c.(*array.String).ValidateFull(); err != nil {
				t.Fatalf("batch: %v", err)
			}
		}
		for i := range int(b.Rec.NumRows()) {
			row, lit := map[string]*string{}, map[string]bool{}
			for j, f := range b.Rec.Schema().Fields() {
				a := b.Rec.Column(j).(*array.String)
				if a.IsValid(i) {
					// Cloned: the batch's buffers are recycled once it
					// is released (jsonMemory).
					v := strings.Clone(a.Value(i))
					row[f.Name] = &v
				} else {
					row[f.Name] = nil
				}
				lit[f.Name] = b.Literal != nil && b.Literal[j] != nil && b.Literal[j][i]
			}
			rows, lits = append(rows, row), append(lits, lit)
		}
		b.Rec.Release()
	}
}

// The JSON decoder keeps each value's text (numbers as written, strings
// unescaped), marks literals, fills a missing key with null, lets a
// repeated key's last value win, and takes rows from every data array.
func TestJSONPredictSource(t *testing.T) {
	rows, lits, err := decodePredictJSON(t, `{"data":[{"a":1.50,"b":"x\"y","c":true},{"B":"2","a":null,"a":"3"}],"extraParameters":{},"data":[{"d":"\u00e9"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	str := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	want := []string{"1.50|x\"y|true|<null>", "3|2|<null>|<null>", "<null>|<null>|<null>|é"}
	for i, r := range rows {
		if got := str(r["a"]) + "|" + str(r["b"]) + "|" + str(r["c"]) + "|" + str(r["d"]); got != want[i] {
			t.Errorf("row %d = %s, want %s", i, got, want[i])
		}
	}
	if len(rows) != 3 || !lits[0]["a"] || lits[0]["b"] || !lits[0]["c"] || lits[1]["a"] {
		t.Errorf("rows %d, literals %v", len(rows), lits)
	}
	// Whitespace anywhere between tokens, escaped keys, and strings that
	// hold the object's delimiters read as in compact text.
	spaced, spacedLits, err := decodePredictJSON(t, "{ \"data\" : [ {\n\t\"a\" : -1.5e3 ,\r\n \"\\u0062\":\"},\\\\\" , \"c\" :false } , { \"a\":\"x,y}\"\t} ] }")
	if err != nil {
		t.Fatal(err)
	}
	if len(spaced) != 2 || str(spaced[0]["a"]) != "-1.5e3" || str(spaced[0]["b"]) != `},\` || str(spaced[0]["c"]) != "false" ||
		str(spaced[1]["a"]) != "x,y}" || spaced[1]["b"] != nil || !spacedLits[0]["a"] || !spacedLits[0]["c"] || spacedLits[1]["a"] {
		t.Errorf("spaced rows = %v, literals %v", spaced, spacedLits)
	}
	for _, bad := range []string{`{"data":[{"a":[1]}]}`, `{"data":[{"a":1,"b":{"c":1}}]}`, `{"data":[1]}`, `{"data":{}}`, `[]`, `{"data":[{"a":1}]`, `{"data":[]}x`} {
		if _, _, err := decodePredictJSON(t, bad); err == nil {
			t.Errorf("%s decoded, want an error", bad)
		}
	}
}

// BenchmarkPredictJSONDecode decodes the predict benchmark's JSON body
// (100 000 rows × 20 numbers) into batches, without HTTP or scoring.
func BenchmarkPredictJSONDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"data":[`)
	for i := range 100_000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('{')
		for j := range 20 {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`"f` + strconv.Itoa(j) + `":0.` + strconv.Itoa(100000+i*7+j))
		}
		sb.WriteByte('}')
	}
	sb.WriteString(`]}`)
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		src := newJSONPredictSource(strings.NewReader(body), predictParams{}, 100)
		for {
			batch, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			batch.Rec.Release()
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// textRows renders each cell as encoding/csv (CSV) or a JSON string
// would, whether its column takes the direct path (no special byte) or
// not, and marks where each row's echoed cells end.
func TestTextRowsCells(t *testing.T) {
	mem := memory.DefaultAllocator
	texts := [][]string{
		{"1.5", " 2", "\\.", "x\u00a0", "é", ""},         // no special byte: copied, but for the cells' starts
		{"a,b", `q"q`, "line\nbreak", "tab\t", "ok", ""}, // special bytes: rendered
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for j, vals := range texts {
		b := array.NewStringBuilder(mem)
		for i, v := range vals {
			if i == len(vals)-1 {
				b.AppendNull()
			} else {
				b.Append(v)
			}
		}
		fields, cols = append(fields, arrow.Field{Name: "c" + strconv.Itoa(j), Type: arrow.BinaryTypes.String}), append(cols, b.NewArray())
		b.Release()
	}
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{0.1, 1e21, -2, 3.25, 1.0 / 3}, nil)
	fb.AppendNull()
	fields, cols = append(fields, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64}), append(cols, fb.NewArray())
	fb.Release()
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 6)
	defer rec.Release()
	for _, a := range cols {
		a.Release()
	}
	for _, tr := range []*textRows{csvAnswer, jsonAnswer} {
		data, marks, cuts, ends := tr.Rows(nil, nil, nil, nil, rec, 2)
		for i := range 6 {
			var want []byte
			if tr.json {
				want = append(want, ",{"...)
			}
			var mark int
			for j, a := range cols {
				if j == 2 {
					mark = len(want)
				}
				if j > 0 {
					want = append(want, ',')
				}
				if tr.json {
					want = append(appendJSONString(want, fields[j].Name), ':')
				}
				var cell string
				switch {
				case a.IsNull(i):
				case j < 2:
					cell = a.(*array.String).Value(i)
				default:
					cell = strconv.FormatFloat(a.(*array.Float64).Value(i), 'g', -1, 64)
				}
				if tr.json {
					want = appendJSONString(want, cell)
				} else {
					var sb strings.Builder
					w := csv.NewWriter(&sb)
					w.Write([]string{cell, ""})
					w.Flush()
					want = append(want, strings.TrimSuffix(sb.String(), ",\n")...)
				}
			}
			if tr.json {
				want = append(want, '}')
			} else {
				want = append(want, '\n')
			}
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			// One prediction column: the cut is at the closing byte.
			if cuts[i] != ends[i]-1 {
				t.Errorf("json %v row %d: cut at %d, want %d", tr.json, i, cuts[i]-start, ends[i]-1-start)
			}
			if got := string(data[start:ends[i]]); got != string(want) || marks[i]-start != mark {
				t.Errorf("json %v row %d = %q (mark %d), want %q (mark %d)", tr.json, i, got, marks[i]-start, want, mark)
			}
		}
	}
}

// BenchmarkTextRows renders one predict batch (16384 rows of 20 echoed
// numbers' text and a prediction) as CSV and as JSON rows.
func BenchmarkTextRows(b *testing.B) {
	const rows, ncol = predictBatchRows, 20
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewPCG(1, 2))
	var fields []arrow.Field
	var cols []arrow.Array
	for j := range ncol {
		sb := array.NewStringBuilder(mem)
		for range rows {
			sb.Append(strconv.FormatFloat(r.Float64(), 'f', 6, 64))
		}
		fields, cols = append(fields, arrow.Field{Name: "f" + strconv.Itoa(j), Type: arrow.BinaryTypes.String}), append(cols, sb.NewArray())
		sb.Release()
	}
	fb := array.NewFloat64Builder(mem)
	for range rows {
		fb.Append(r.NormFloat64() * 10)
	}
	fields, cols = append(fields, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64}), append(cols, fb.NewArray())
	fb.Release()
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rows)
	defer rec.Release()
	for _, a := range cols {
		a.Release()
	}
	for _, tr := range []*textRows{csvAnswer, jsonAnswer} {
		name := "csv"
		if tr.json {
			name = "json"
		}
		b.Run(name, func(b *testing.B) {
			var data []byte
			var marks, cuts, ends []int
			for b.Loop() {
				data, marks, cuts, ends = tr.Rows(data[:0], marks[:0], cuts[:0], ends[:0], rec, ncol)
			}
			b.SetBytes(int64(len(data)))
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// hasSpecial's eight-bytes-at-a-time tests agree with the byte table on
// every special byte at every offset of words and tails, and on random
// text.
func TestHasSpecial(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tr := range []*textRows{csvAnswer, jsonAnswer} {
		table := func(data []byte) bool {
			for _, b := range data {
				if tr.special[b] {
					return true
				}
			}
			return false
		}
		for n := range 20 {
			for pos := range n {
				for c := range 256 {
					data := []byte(strings.Repeat("a", n))
					data[pos] = byte(c)
					if got, want := tr.hasSpecial(data), table(data); got != want {
						t.Fatalf("json %v: hasSpecial(%q) = %v, want %v", tr.json, data, got, want)
					}
				}
			}
		}
		for range 10000 {
			data := make([]byte, r.IntN(40))
			for k := range data {
				data[k] = byte(r.IntN(256))
			}
			if got, want := tr.hasSpecial(data), table(data); got != want {
				t.Fatalf("json %v: hasSpecial(%q) = %v, want %v", tr.json, data, got, want)
			}
		}
	}
}
