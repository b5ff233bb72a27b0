package api_test

import "testing"

// MODELLING §13 rule 4 and §12.3: an inferred numeric column of only 0 and
// 1 stays numeric but defaults to mode/mode; a given strategy is kept; a
// later upload does not change the stored strategies.
func TestPutDatasetZeroOneDefaults(t *testing.T) {
	s := newServer(t)
	d := s.putCSV(t, "flags", "flag,n,other\n0,5,1\n1,6,2\n,7,0\n")
	want := map[string][2]string{"flag": {"mode", "mode"}, "n": {"zeroes", "sum"}, "other": {"zeroes", "sum"}}
	for name, w := range want {
		c := d.Columns[name]
		if c.DataType != "numeric" || c.Imputation != w[0] || c.Aggregation != w[1] {
			t.Errorf("PUT flags column %s = %+v, want numeric %s/%s", name, c, w[0], w[1])
		}
	}
	d = s.putJSON(t, "flags2", `{"columns":{"flag":{"imputation":"zeroes"}},"data":[{"flag":0},{"flag":1}]}`)
	if c := d.Columns["flag"]; c.Imputation != "zeroes" || c.Aggregation != "sum" {
		t.Errorf("PUT flags2 with imputation zeroes: flag = %+v, want zeroes/sum", c)
	}
}

// A header-only CSV creates the dataset with its columns but no types: the
// first rows decide them.
func TestPutDatasetHeaderOnly(t *testing.T) {
	s := newServer(t)
	s.putCSV(t, "later", "day,sales\n")
	d := s.putCSV(t, "later", "day,sales\n2017-01-01,1.5\n2017-01-02,2\n")
	if d.Columns["sales"].DataType != "numericMeasure" || d.Columns["day"].Role != "timestamp" || d.RowCount != 2 {
		t.Errorf("PUT after a header-only PUT = %+v, want a time series with numeric sales", d)
	}
}
