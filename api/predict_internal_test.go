package api

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
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
					v := a.Value(i)
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
	for _, bad := range []string{`{"data":[{"a":[1]}]}`, `{"data":[1]}`, `{"data":{}}`, `[]`, `{"data":[{"a":1}]`, `{"data":[]}x`} {
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
