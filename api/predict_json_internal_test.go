package api

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vaticml/vatic/engine"
)

// jsontextPredictSource is the reading of JSON predict bodies that
// jsonPredictSource's scanner replaced, kept as FuzzJSONPredictSource's
// reference: jsontext's streaming Decoder (duplicate names and invalid
// UTF-8 allowed) reads each key and value, validating the syntax.
type jsontextPredictSource struct {
	jsonColumns
	dec   *jsontext.Decoder
	query predictParams
	extra bool
	state int
	err   error
}

func newJSONTextPredictSource(r io.Reader, maxCols int) *jsontextPredictSource {
	return &jsontextPredictSource{
		jsonColumns: jsonColumns{maxCols: maxCols, byName: map[string]int{}},
		dec:         jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)),
	}
}

func (j *jsontextPredictSource) Next() (engine.PredictBatch, error) {
	if j.err != nil {
		return engine.PredictBatch{}, j.err
	}
	b, err := j.next()
	if err != nil {
		j.err = err
	}
	return b, err
}

func (j *jsontextPredictSource) next() (engine.PredictBatch, error) {
	if j.state == jsonStart {
		switch j.dec.PeekKind() {
		case '{':
			j.dec.ReadToken()
			j.state = jsonTop
		case 0:
			_, err := j.dec.ReadToken()
			if err == io.EOF {
				return engine.PredictBatch{}, engine.Validation("data", "The data field is required.")
			}
			return engine.PredictBatch{}, badJSON(msgNotObject, err)
		default:
			return engine.PredictBatch{}, badJSON(msgNotObject, nil)
		}
	}
	return j.nextBatch(&j.state, j.top, j.readRows)
}

func (j *jsontextPredictSource) top() error {
	for {
		if j.dec.PeekKind() == '}' {
			if _, err := j.dec.ReadToken(); err != nil {
				return badJSON(msgInvalid, err)
			}
			if _, err := j.dec.ReadToken(); err != io.EOF {
				return badJSON(msgInvalid, err)
			}
			j.state = jsonEnd
			return nil
		}
		tok, err := j.dec.ReadToken()
		if err != nil {
			return badJSON(msgInvalid, err)
		}
		key := tok.String()
		if strings.EqualFold(key, "data") {
			if tok, err := j.dec.ReadToken(); err != nil || tok.Kind() != '[' {
				return badJSON(msgDataNotArray, err)
			}
			j.state = jsonData
			return nil
		}
		raw, err := j.dec.ReadValue()
		if err != nil {
			return badJSON(msgInvalid, err)
		}
		if strings.EqualFold(key, "extraParameters") {
			extra, err := decodeExtra([]byte(raw))
			if err != nil {
				return err
			}
			j.query.override(extra)
			j.extra = true
		}
	}
}

func (j *jsontextPredictSource) readRows() error {
	for j.n < predictBatchRows {
		switch j.dec.PeekKind() {
		case ']':
			if _, err := j.dec.ReadToken(); err != nil {
				return badJSON(msgInvalid, err)
			}
			j.state = jsonTop
			return nil
		case '{':
		default:
			_, err := j.dec.ReadValue()
			return because(engine.Validation("data", fmt.Sprintf("Row %d must be an object of column values", j.rows)), err)
		}
		if err := j.readRow(j.n); err != nil {
			return err
		}
		j.n++
		j.rows++
	}
	return nil
}

func (j *jsontextPredictSource) readRow(i int) error {
	bad := func(err error) error {
		return because(engine.Validation("data", fmt.Sprintf("Row %d must be an object of column values", j.rows)), err)
	}
	if _, err := j.dec.ReadToken(); err != nil {
		return bad(err)
	}
	for pos := 0; ; pos++ {
		if j.dec.PeekKind() == '}' {
			if _, err := j.dec.ReadToken(); err != nil {
				return bad(err)
			}
			return nil
		}
		k, err := j.dec.ReadValue()
		if err != nil {
			return bad(err)
		}
		col, err := j.column(k, pos)
		if err != nil {
			return err
		}
		v, err := j.dec.ReadValue()
		if err != nil {
			return bad(err)
		}
		c := j.cols[col]
		switch v[0] {
		case '"':
			if strings.IndexByte(string(v), '\\') >= 0 {
				c.setEscaped(i, v)
			} else {
				c.set(i, v[1:len(v)-1], false)
			}
		case 'n':
			c.setNull(i)
		case '{', '[':
			return engine.Validation(c.name, fmt.Sprintf("Row %d: the value of %s must be a string, number, boolean or null", j.rows, c.name))
		default:
			c.set(i, v, true)
		}
	}
}

// decodedRows is a JSON predict body as a source hands it out: the
// columns of each batch, its rows' values (nil for null) and literal
// marks, and the error that ended it.
type decodedRows struct {
	batches []string
	err     error
}

// drain reads every batch of src into a comparable text.
func drain(t testing.TB, next func() (engine.PredictBatch, error)) decodedRows {
	var d decodedRows
	for {
		b, err := next()
		if err != nil {
			if err != io.EOF {
				d.err = err
			}
			return d
		}
		var sb strings.Builder
		for j, f := range b.Rec.Schema().Fields() {
			a := b.Rec.Column(j).(*array.String)
			// Validate, not ValidateFull: an unescaped string keeps its
			// invalid UTF-8 (only unquoting replaces it).
			if err := a.Validate(); err != nil {
				t.Fatalf("batch: %v", err)
			}
			fmt.Fprintf(&sb, "%q:", f.Name)
			for i := range a.Len() {
				lit := b.Literal != nil && b.Literal[j] != nil && b.Literal[j][i]
				switch {
				case a.IsNull(i):
					sb.WriteString(" null")
				case lit:
					fmt.Fprintf(&sb, " %s", a.Value(i))
				default:
					fmt.Fprintf(&sb, " %q", a.Value(i))
				}
			}
			sb.WriteByte('\n')
		}
		d.batches = append(d.batches, sb.String())
		b.Rec.Release()
	}
}

// sameError reports whether two sources' errors are the same to a client:
// the same message on the same field, or both a body too deep (whichever
// error came first then depends on how the body was read).
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	deepA, deepB := errors.Is(a, engine.ErrJSONTooDeep), errors.Is(b, engine.ErrJSONTooDeep)
	if deepA || deepB {
		return true
	}
	var ea, eb *engine.Error
	if !errors.As(a, &ea) || !errors.As(b, &eb) {
		return a.Error() == b.Error()
	}
	return ea.Kind == eb.Kind && ea.Msg == eb.Msg && fmt.Sprint(ea.Details) == fmt.Sprint(eb.Details)
}

// FuzzJSONPredictSource reads each body with the scanner, handed the body
// in reads of a fuzzed size into a buffer of a fuzzed size, and with jsontext's Decoder: both accept it
// with the same batches (columns, values, literals) and parameters, or
// both reject it with the same error. Both read through
// engine.LimitJSONDepth, as predict does, and a column limit of 4.
func FuzzJSONPredictSource(f *testing.F) {
	for _, seed := range []string{
		`{"data":[{"a":1.50,"b":"x\"y","c":true},{"B":"2","a":null,"a":"3"}],"extraParameters":{},"data":[{"d":"\u00e9"}]}`,
		"{ \"data\" : [ {\n\t\"a\" : -1.5e3 ,\r\n \"\\u0062\":\"},\\\\\" , \"c\" :false } , { \"a\":\"x,y}\"\t} ] }",
		`{"data":[{"a":[1]}]}`, `{"data":[{"a":1,"b":{"c":1}}]}`, `{"data":[1]}`, `{"data":{}}`, `[]`, `{"data":[{"a":1}]`, `{"data":[]}x`,
		`{"data":[{"a":1,"b":2,"c":3,"d":4,"e":5}]}`, `{"data":[{"a":1,"b":2,"c":3,"d":4,"e":[}]}`, `{"data":[{"a":[1,}]}`,
		`{"extraParameters":{"includeClassScores":"True","predictionInterval":0.5},"data":[{"x":"\ud800"}]}`,
		`{"x":[1,{"a":null,"b":[true,false,-0.0e+1]}],"DATA":[{"\u0061":1},{},{"a":"\/\b\f\n\r\t"}]}`,
		"{\"data\":[{\"x0\":\"\xff\",\"\xfe\":1}]}", `{"data":[{}, ]}`, `{"data":[,{}]}`, `{"data" 1}`, `{"data":"x"}`, `{,"data":[]}`,
		`{"data":[{"a":01}]}`, `{"data":[{"a":1.}]}`, `{"data":[{"a":tru}]}`, `{"data":[{"a":"\x"}]}`, "{\"data\":[{\"a\":\"\x01\"}]}", ``, ` `, `{}`,
		`{"data":[` + strings.Repeat("[", 70), `{"data":[{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}]}`,
	} {
		f.Add(seed, uint16(0))
		f.Add(seed, uint16(3))
	}
	f.Fuzz(func(t *testing.T, body string, chunk uint16) {
		var r io.Reader = strings.NewReader(body)
		if chunk > 0 {
			r = &chunkReader{r: r, size: int(chunk)}
		}
		scan := newJSONPredictSource(engine.LimitJSONDepth(r), predictParams{}, 4)
		if chunk > 0 {
			// A small buffer, which rows and values outgrow.
			scan.buf = make([]byte, 1+int(chunk)%32)
		}
		ref := newJSONTextPredictSource(engine.LimitJSONDepth(strings.NewReader(body)), 4)
		got, want := drain(t, scan.Next), drain(t, ref.Next)
		if !sameError(got.err, want.err) {
			t.Fatalf("%q: scanner error %v, jsontext error %v", body, got.err, want.err)
		}
		if got.err != nil {
			return
		}
		if strings.Join(got.batches, "\n") != strings.Join(want.batches, "\n") {
			t.Fatalf("%q: scanner batches\n%s\njsontext batches\n%s", body, got.batches, want.batches)
		}
		if scan.extra != ref.extra || scan.query != ref.query {
			t.Fatalf("%q: scanner parameters %v %+v, jsontext %v %+v", body, scan.extra, scan.query, ref.extra, ref.query)
		}
	})
}

// chunkReader hands out at most size bytes a read.
type chunkReader struct {
	r    io.Reader
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.size)]) }
