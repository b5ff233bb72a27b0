package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// tokenRow reads a row the slow, sure way, for comparison.
func tokenRow(t *testing.T, raw string) ([]string, []any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(raw)))
	d.UseNumber()
	var names []string
	var vals []any
	if _, err := d.Token(); err != nil {
		t.Fatal(err)
	}
	for d.More() {
		tok, _ := d.Token()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		names, vals = append(names, tok.(string)), append(vals, v)
	}
	return names, vals
}

func TestScanFlatRow(t *testing.T) {
	for _, raw := range []string{
		`{}`, `{"a":1}`, ` { "a" : -1.5e3 , "b":"x" ,"c":true,"d":false,"e":null } `,
		`{"a\"b":"c\\d\u00e9\n","é":"ü"}`, `{"a":"","b":0}`, "{\"a\":\t1\n}",
	} {
		row, ok := scanFlatRow([]byte(raw), nil)
		if !ok {
			t.Errorf("scanFlatRow(%s) not ok", raw)
			continue
		}
		names, vals := tokenRow(t, raw)
		if len(names) == 0 {
			names, vals = nil, nil
		}
		if !reflect.DeepEqual(row.Names, names) || !reflect.DeepEqual(row.Values, vals) {
			t.Errorf("scanFlatRow(%s) = %q %#v, want %q %#v", raw, row.Names, row.Values, names, vals)
		}
	}
	for _, raw := range []string{`{"a":[1]}`, `{"a":{"b":1}}`, `{"a":1,"a":2}`} {
		if _, ok := scanFlatRow([]byte(raw), nil); ok {
			t.Errorf("scanFlatRow(%s) ok, want the slow path", raw)
		}
	}
	layout := []string{"a", "b"}
	row, ok := scanFlatRow([]byte(`{"a":1,"b":2}`), layout)
	if !ok || &row.Names[0] != &layout[0] {
		t.Errorf("scanFlatRow with the same columns does not share the layout")
	}
	row, _ = scanFlatRow([]byte(`{"b":1,"a":2}`), layout)
	if &row.Names[0] == &layout[0] || row.Names[0] != "b" {
		t.Errorf("scanFlatRow with other columns = %q, want its own order", row.Names)
	}
}
