package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// End-to-end tests of the views API (REFERENCE §4, §11.6) over the real
// stack: PUT, GET (rows, CSV, list), DELETE, dataset cascades, restart.

// viewDefJSON is a view definition (REFERENCE §2.5) decoded loosely.
type viewDefJSON struct {
	ViewName     string                `json:"viewName"`
	DataSetName  string                `json:"dataSetName"`
	IsTimeSeries bool                  `json:"isTimeSeries"`
	Columns      map[string]columnJSON `json:"columns"`
	Joins        []map[string]any      `json:"joins"`
	Links        []linkJSON            `json:"links"`
}

// viewRowsJSON is GET /views/{name}: the definition, data and the paging
// envelope (whose links are the only links).
type viewRowsJSON struct {
	ViewName     string                `json:"viewName"`
	DataSetName  string                `json:"dataSetName"`
	IsTimeSeries bool                  `json:"isTimeSeries"`
	Columns      map[string]columnJSON `json:"columns"`
	Joins        []map[string]any      `json:"joins"`
	Data         []map[string]string   `json:"data"`
	pageJSON
}

type viewListJSON struct {
	Items []viewDefJSON `json:"items"`
	pageJSON
}

// The REFERENCE-like scenario: hourly sales of stores, daily weather with
// two observations on 2017-07-03 and none on 2017-07-05, and a store
// lookup keyed by store whose sales column clashes with the base's.
const (
	salesBody = `{"columns":{
		"time":{"dataType":"date","role":"timestamp"},
		"store":{"dataType":"string","role":"feature"},
		"sales":{"dataType":"numeric","role":"target","imputation":"zeroes","aggregation":"sum"}},
	"data":[
		{"time":"2017-07-03T09:00:00Z","store":"s1","sales":"10"},
		{"time":"2017-07-03T15:00:00Z","store":"s2","sales":"20"},
		{"time":"2017-07-04T10:00:00Z","store":"s1","sales":"30"},
		{"time":"2017-07-05T11:00:00Z","store":"s3","sales":"40"}]}`
	weatherBody = `{"columns":{
		"day":{"dataType":"date","role":"timestamp"},
		"temp":{"dataType":"numericMeasure","role":"feature","imputation":"mean","aggregation":"mean"},
		"rain":{"dataType":"numeric","role":"feature","imputation":"zeroes","aggregation":"sum"},
		"observed":{"dataType":"date","role":"none"}},
	"data":[
		{"day":"2017-07-03T00:00:00Z","temp":"20","rain":"1","observed":"2017-07-03T06:00:00Z"},
		{"day":"2017-07-03T12:00:00Z","temp":"24","rain":"2","observed":"2017-07-03T18:00:00Z"},
		{"day":"2017-07-04T00:00:00Z","temp":"30","rain":"0","observed":"2017-07-04T06:00:00Z"}]}`
	storesBody = `{"columns":{
		"store":{"dataType":"string","role":"key"},
		"region":{"dataType":"string","role":"feature"},
		"sales":{"dataType":"numeric","role":"target","aggregation":"sum"}},
	"data":[
		{"store":"s1","region":"north","sales":"100"},
		{"store":"s2","region":"south","sales":"200"}]}`
	scenarioView = `{"dataSetName":"sales","joins":[
		{"dataSet":{"name":"weather"},"columnOptions":{"day":{"joinInterval":"Day"}}},
		{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"storeSales"}}}]}`
)

// scenario loads the three datasets of the scenario.
func scenario(t *testing.T, s *testServer) {
	t.Helper()
	s.putJSON(t, "sales", salesBody)
	s.putJSON(t, "weather", weatherBody)
	s.putJSON(t, "stores", storesBody)
}

// putView sends PUT /v1/views/{name} with a JSON body.
func (s *testServer) putView(t testing.TB, name, body string) response {
	t.Helper()
	return s.do(t, http.MethodPut, "/v1/views/"+name, body, "Content-Type", "application/json")
}

// mustPutView wants 201.
func (s *testServer) mustPutView(t testing.TB, name, body string) viewDefJSON {
	t.Helper()
	res := s.putView(t, name, body)
	if res.status != http.StatusCreated {
		t.Fatalf("PUT /v1/views/%s = %d %s, want 201", name, res.status, res.body)
	}
	return decode[viewDefJSON](t, res)
}

// getView reads GET /v1/views/{name}?query and wants 200.
func (s *testServer) getView(t testing.TB, name, query string) viewRowsJSON {
	t.Helper()
	path := "/v1/views/" + name
	if query != "" {
		path += "?" + query
	}
	res := s.do(t, http.MethodGet, path, nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s = %d %s, want 200", path, res.status, res.body)
	}
	return decode[viewRowsJSON](t, res)
}

func (s *testServer) listViews(t testing.TB, query string) viewListJSON {
	t.Helper()
	res := s.do(t, http.MethodGet, "/v1/views?"+query, nil)
	if res.status != http.StatusOK {
		t.Fatalf("GET /v1/views?%s = %d %s, want 200", query, res.status, res.body)
	}
	return decode[viewListJSON](t, res)
}

// wantNoView checks that GET /views/{name} answers 404 for a view.
func wantNoView(t testing.TB, s *testServer, name string) {
	t.Helper()
	e := wantError(t, "GET /v1/views/"+name, s.do(t, http.MethodGet, "/v1/views/"+url.PathEscape(name), nil), 404, "NotFound", "itemType")
	if e.ErrorDetails["itemType"] != "view" || !strings.EqualFold(e.ErrorDetails["itemId"].(string), name) {
		t.Errorf("GET /v1/views/%s errorDetails = %v, want itemType view, itemId %s", name, e.ErrorDetails, name)
	}
}

func viewNames(items []viewDefJSON) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = v.ViewName
	}
	return out
}

// columnOrder returns the keys of the "columns" object of a JSON body in
// their order on the wire.
func columnOrder(t testing.TB, body []byte) []string {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(top["columns"])))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("columns is not an object: %s", top["columns"])
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestViewScenario(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)

	res := s.putView(t, "sales-weather", scenarioView)
	if res.status != http.StatusCreated {
		t.Fatalf("PUT view = %d %s, want 201", res.status, res.body)
	}
	if got, want := res.header.Get("Location"), s.URL+"/v1/views/sales-weather"; got != want {
		t.Errorf("Location = %q, want %q", got, want)
	}
	golden(t, "view_put", res.body)
	wantOrder := []string{"time", "store", "sales", "temp", "rain", "observed", "region", "storeSales"}
	if got := columnOrder(t, res.body); !slices.Equal(got, wantOrder) {
		t.Errorf("PUT view columns in order %q, want %q", got, wantOrder)
	}
	def := decode[viewDefJSON](t, res)
	if !def.IsTimeSeries || def.DataSetName != "sales" || def.ViewName != "sales-weather" || def.Links == nil || len(def.Links) != 0 {
		t.Errorf("PUT view = %+v, want time series sales-weather over sales with links []", def)
	}
	// Joined columns become features; role none stays none; the base's
	// roles stand.
	for col, role := range map[string]string{"time": "timestamp", "sales": "target", "store": "feature", "temp": "feature", "rain": "feature", "observed": "", "region": "feature", "storeSales": "feature"} {
		if got := def.Columns[col].Role; got != role && !(role == "" && got == "none") {
			t.Errorf("column %s role = %q, want %q", col, got, role)
		}
	}
	if def.Columns["storeSales"].DataType != "numeric" || def.Columns["temp"].DataType != "numericMeasure" || def.Columns["observed"].DataType != "date" {
		t.Errorf("joined column data types = %v", def.Columns)
	}

	// The rows are in the golden; the join rules that make them are in
	// engine/testdata/rules/views.
	getRes := s.do(t, http.MethodGet, "/v1/views/sales-weather", nil)
	if getRes.status != 200 {
		t.Fatalf("GET view = %d %s", getRes.status, getRes.body)
	}
	golden(t, "view_get", getRes.body)

	t.Run("page", func(t *testing.T) {
		p := s.getView(t, "sales-weather", "page=1&pageSize=3")
		if p.PageNumber != 1 || p.PageSize != 3 || p.TotalPages != 2 || p.TotalCount != 4 {
			t.Errorf("page envelope = %+v, want page 1 size 3 of 2 pages, 4 rows", p.pageJSON)
		}
		if got := rowsOf(p.Data, "time"); !slices.Equal(got, []string{"2017-07-05T11:00:00.0000000Z"}) {
			t.Errorf("page 1 times = %q", got)
		}
		rels := map[string]string{}
		for _, l := range p.Links {
			rels[l.Rel] = l.Href
		}
		for _, rel := range []string{"self", "first", "last"} {
			if !strings.Contains(rels[rel], "/v1/views/sales-weather?") {
				t.Errorf("link %s = %q, want one to the view", rel, rels[rel])
			}
		}
		if _, ok := rels["next"]; ok {
			t.Errorf("last page has a next link: %v", p.Links)
		}
	})
	t.Run("list", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views", nil)
		if res.status != 200 {
			t.Fatalf("GET /v1/views = %d %s", res.status, res.body)
		}
		golden(t, "view_list", res.body)
		if strings.Contains(string(res.body), `"data"`) {
			t.Errorf("list items carry data: %s", res.body)
		}
	})
	t.Run("csv", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views/sales-weather", nil, "Accept", "text/csv")
		if res.status != 200 || !strings.HasPrefix(res.header.Get("Content-Type"), "text/csv") {
			t.Fatalf("GET view as CSV = %d %q %s", res.status, res.header.Get("Content-Type"), res.body)
		}
		goldenText(t, "view_rows.golden.csv", res.body)
	})
}

// TestViewColumnOptionsEchoed: a view's definition shows each join's
// columnOptions as given, {} when there are none, with joinInterval in
// lower case. Which rows the options join is in
// engine/testdata/rules/views.
func TestViewColumnOptionsEchoed(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "ticks", `{"columns":{"t":{"dataType":"date","role":"timestamp"},"shop":{"dataType":"string"}},"data":[{"t":"2017-07-03T09:00:00Z","shop":"a"}]}`)
	s.putJSON(t, "marks", `{"columns":{"at":{"dataType":"date","role":"timestamp"},"mark":{"dataType":"numeric","role":"feature"}},"data":[{"at":"2017-07-03T09:30:00Z","mark":"7"}]}`)
	s.putJSON(t, "shops", `{"columns":{"id":{"dataType":"string","role":"key"},"owner":{"dataType":"string"}},"data":[{"id":"a","owner":"ann"}]}`)
	for _, tc := range []struct{ name, join, want string }{
		{"none", `{"dataSet":{"name":"marks"},"columnOptions":{}}`, `{}`},
		{"none given", `{"dataSet":{"name":"marks"}}`, `{}`},
		{"joinInterval", `{"dataSet":{"name":"marks"},"columnOptions":{"at":{"joinInterval":"Hour"}}}`, `{"at":{"joinInterval":"hour"}}`},
		{"joinTo", `{"dataSet":{"name":"shops"},"columnOptions":{"id":{"joinTo":"shop"}}}`, `{"id":{"joinTo":"shop"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "ticks-" + strings.ReplaceAll(tc.name, " ", "-")
			for _, res := range []response{
				s.putView(t, name, `{"dataSetName":"ticks","joins":[`+tc.join+`]}`),
				s.do(t, http.MethodGet, "/v1/views/"+name, nil),
			} {
				var def struct {
					Joins []struct{ ColumnOptions json.RawMessage }
				}
				if err := json.Unmarshal(res.body, &def); err != nil || len(def.Joins) != 1 {
					t.Fatalf("view %s = %d %s, want one join", name, res.status, res.body)
				}
				if got := string(def.Joins[0].ColumnOptions); got != tc.want {
					t.Errorf("view %s columnOptions = %s, want %s", name, got, tc.want)
				}
			}
		})
	}
}

// TestViewOverrides changes metadata of base and joined columns within
// their storage.
func TestViewOverrides(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	def := s.mustPutView(t, "over", `{"dataSetName":"sales","joins":[
		{"dataSet":{"name":"weather"},"columnOptions":{"day":{"joinInterval":"day"}}},
		{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"storeSales"}}}],
		"columns":{
			"sales":{"dataType":"numericMeasure","role":"feature","imputation":"mean","aggregation":"mean"},
			"temp":{"dataType":"numeric","role":"none","imputation":"zeroes","aggregation":"max"},
			"storeSales":{"role":"target"}}}`)
	want := map[string]columnJSON{
		"sales":      {DataType: "numericMeasure", Role: "feature", Imputation: "mean", Aggregation: "mean"},
		"temp":       {DataType: "numeric", Role: "none", Imputation: "zeroes", Aggregation: "max"},
		"storeSales": {DataType: "numeric", Role: "target"},
	}
	for col, w := range want {
		g := def.Columns[col]
		if g.DataType != w.DataType || g.Role != w.Role || (w.Imputation != "" && g.Imputation != w.Imputation) || (w.Aggregation != "" && g.Aggregation != w.Aggregation) {
			t.Errorf("column %s = %+v, want %+v", col, g, w)
		}
	}
	got := s.getView(t, "over", "")
	if got.Columns["storeSales"].Role != "target" {
		t.Errorf("GET columns = %v, want the overrides kept", got.Columns)
	}
	if v := rowsOf(got.Data, "sales"); !slices.Equal(v, []string{"10", "20", "30", "40"}) {
		t.Errorf("sales = %q, want the base values unchanged", v)
	}
}

// TestViewPutErrors: each refused PUT names the problem and stores
// nothing.
func TestViewPutErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.putJSON(t, "plain", `{"data":[{"a":"1","b":"x"}]}`)
	for _, tc := range []struct {
		name      string
		view      string
		body      string
		status    int
		errorType string
		detail    string // a key errorDetails must have
		golden    string // "" for none
	}{
		{"alias still clashing", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"store"}}}]}`,
			400, "InvalidColumnMetadata", "sales", "view_error_clash"},
		{"alias taking a sibling's name", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":{"temp":{"alias":"rain"}}}]}`,
			400, "InvalidColumnMetadata", "temp", ""},
		{"alias clashing with an earlier join", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"}},{"dataSet":{"name":"weather"},"columnOptions":{"temp":{"alias":"rain"}}}]}`,
			400, "InvalidColumnMetadata", "temp", ""},
		{"override changes storage", "v", `{"dataSetName":"sales","columns":{"sales":{"dataType":"string"}}}`,
			400, "InvalidColumnMetadata", "sales", "view_error_override_storage"},
		{"override date to numeric", "v", `{"dataSetName":"sales","columns":{"time":{"dataType":"numeric"}}}`,
			400, "InvalidColumnMetadata", "time", ""},
		{"override unknown column", "v", `{"dataSetName":"sales","columns":{"nope":{"role":"feature"}}}`,
			400, "InvalidColumnMetadata", "nope", "view_error_override_unknown"},
		{"override invalid dataType", "v", `{"dataSetName":"sales","columns":{"sales":{"dataType":"money"}}}`,
			400, "InvalidColumnMetadata", "sales", ""},
		{"override second target", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"}}],"columns":{"temp":{"role":"target"}}}`,
			400, "InvalidColumnMetadata", "", ""},
		{"join neither dataSet nor calendar", "v", `{"dataSetName":"sales","joins":[{"columnOptions":{}}]}`,
			400, "RequestValidation", "joins[0]", "view_error_join_neither"},
		{"join both dataSet and calendar", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"calendar":{"name":"Nexosis.Holidays-US"}}]}`,
			400, "RequestValidation", "joins[0]", ""},
		{"second join neither", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"}},{}]}`,
			400, "RequestValidation", "joins[1]", ""},
		{"nested joins", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"x"}},"joins":[{"dataSet":{"name":"weather"}}]}]}`,
			400, "RequestValidation", "joins[0].joins", "view_error_nested"},
		{"missing base", "v", `{"dataSetName":"nothing"}`,
			404, "NotFound", "itemType", "view_error_missing_base"},
		{"missing joined", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"gone"}}]}`,
			404, "NotFound", "itemType", "view_error_missing_joined"},
		{"no dataSetName", "v", `{"joins":[]}`,
			400, "RequestValidation", "dataSetName", "view_error_no_dataset"},
		{"blank dataSetName", "v", `{"dataSetName":"  "}`,
			400, "RequestValidation", "dataSetName", ""},
		{"invalid joinInterval", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":{"day":{"joinInterval":"fortnight"}}}]}`,
			400, "RequestValidation", "joins[0].columnOptions.day.joinInterval", "view_error_join_interval"},
		{"joinInterval on a non-date", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"store":{"joinInterval":"day"},"sales":{"alias":"x"}}}]}`,
			400, "RequestValidation", "joins[0].columnOptions.store.joinInterval", ""},
		{"joinTo unknown left column", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"store":{"joinTo":"shop"}}}]}`,
			400, "InvalidColumnMetadata", "store", "view_error_join_to"},
		{"joinTo across storages", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"store":{"joinTo":"sales"},"sales":{"alias":"x"}}}]}`,
			400, "InvalidColumnMetadata", "store", ""},
		{"columnOptions unknown column", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":{"wind":{"alias":"w"}}}]}`,
			400, "InvalidColumnMetadata", "wind", ""},
		{"columnOptions not an object", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"},"columnOptions":[1]}]}`,
			400, "RequestValidation", "columnOptions", ""},
		{"nothing to join on", "v", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"plain"}}]}`,
			400, "RequestValidation", "joins[0].dataSet", "view_error_no_join_column"},
		{"name of a dataset", "weather", `{"dataSetName":"sales"}`,
			400, "RequestValidation", "viewName", "view_error_dataset_name"},
		{"name of a dataset other case", "WEATHER", `{"dataSetName":"sales"}`,
			400, "RequestValidation", "viewName", ""},
		{"malformed JSON", "v", `{"dataSetName":`,
			400, "RequestValidation", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.putView(t, tc.view, tc.body)
			e := wantError(t, "PUT /v1/views/"+tc.view, res, tc.status, tc.errorType, tc.detail)
			if tc.status == 404 {
				if e.ErrorDetails["itemType"] != "dataSet" {
					t.Errorf("404 errorDetails = %v, want itemType dataSet", e.ErrorDetails)
				}
				id, _ := e.ErrorDetails["itemId"].(string)
				if id != "nothing" && id != "gone" {
					t.Errorf("404 errorDetails itemId = %q, want the missing dataset", id)
				}
			}
			if tc.golden != "" {
				golden(t, tc.golden, res.body)
			}
			if strings.EqualFold(tc.view, "weather") {
				// The dataset is untouched.
				if n := s.get(t, "weather", "").TotalCount; n != 3 {
					t.Errorf("weather has %d rows after the refused view, want 3", n)
				}
				return
			}
			wantNoView(t, s, tc.view)
		})
	}
	if l := s.listViews(t, ""); l.TotalCount != 0 || len(l.Items) != 0 {
		t.Errorf("views after refused PUTs = %v, want none", viewNames(l.Items))
	}
}

// TestViewCalendarRefused: calendar joins are refused with a validation
// error naming the calendar, and nothing is stored. (Built-in calendars
// are being added; URL calendars and unknown names stay refused.)
func TestViewCalendarRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	for _, tc := range []struct{ name, join string }{
		{"url", `{"calendar":{"url":"https://calendar.example.com/holidays.ics"}}`},
		{"unknown name", `{"calendar":{"name":"Nexosis.Holidays-ZZ"}}`},
		{"empty calendar", `{"calendar":{}}`},
		{"after a dataset join", `{"dataSet":{"name":"weather"}},{"calendar":{"url":"https://calendar.example.com/h.ics","timeZone":"America/New_York"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.putView(t, "cal", `{"dataSetName":"sales","joins":[`+tc.join+`]}`)
			e := wantError(t, "PUT calendar view", res, 400, "RequestValidation", "")
			found := false
			for k := range e.ErrorDetails {
				if strings.HasPrefix(k, "joins[") && strings.Contains(k, "].calendar") {
					found = true
				}
			}
			if !found || !strings.Contains(strings.ToLower(string(res.body)), "calendar") {
				t.Errorf("calendar refusal = %s, want errorDetails naming joins[i].calendar", res.body)
			}
			wantNoView(t, s, "cal")
		})
	}
}

// TestViewDatasetNameClash: views and datasets share one namespace.
func TestViewDatasetNameClash(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.mustPutView(t, "combined", `{"dataSetName":"sales"}`)
	for _, name := range []string{"combined", "COMBINED"} {
		res := s.do(t, http.MethodPut, "/v1/data/"+name, `{"data":[{"a":"1"}]}`, "Content-Type", "application/json")
		e := wantError(t, "PUT /v1/data/"+name, res, 400, "RequestValidation", "")
		if !strings.Contains(string(res.body), "view") {
			t.Errorf("PUT /v1/data/%s error = %+v, want it to say a view has the name", name, e)
		}
		if name == "combined" {
			golden(t, "view_error_put_data_view_name", res.body)
		}
		wantError(t, "GET /v1/data/"+name, s.do(t, http.MethodGet, "/v1/data/"+name, nil), 404, "NotFound", "itemType")
	}
	if got := s.getView(t, "combined", ""); got.TotalCount != 4 {
		t.Errorf("view after refused dataset PUT has %d rows, want 4", got.TotalCount)
	}
}

func TestViewList(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.putJSON(t, "other", `{"columns":{"store":{"dataType":"string","role":"key"}},"data":[{"store":"s1","n":"1"}]}`)
	// Created out of order: listing is by name.
	for name, body := range map[string]string{
		"weather-by-sales": `{"dataSetName":"sales","joins":[{"dataSet":{"name":"weather"}}]}`,
		"a-sales-only":     `{"dataSetName":"sales"}`,
		"stores-plus":      `{"dataSetName":"stores","joins":[{"dataSet":{"name":"other"}}]}`,
		"Mixed-Case":       `{"dataSetName":"weather"}`,
		"b-sales-stores":   `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"s2"}}}]}`,
	} {
		s.mustPutView(t, name, body)
	}
	for _, tc := range []struct {
		name, query string
		want        []string
		total       int64
	}{
		{"all", "", []string{"a-sales-only", "b-sales-stores", "Mixed-Case", "stores-plus", "weather-by-sales"}, 5},
		{"partialName", "partialName=SALES", []string{"a-sales-only", "b-sales-stores", "weather-by-sales"}, 3},
		{"partialName none", "partialName=zzz", []string{}, 0},
		{"dataSetName base", "dataSetName=sales", []string{"a-sales-only", "b-sales-stores", "weather-by-sales"}, 3},
		{"dataSetName joined", "dataSetName=weather", []string{"Mixed-Case", "weather-by-sales"}, 2},
		{"dataSetName base or joined", "dataSetName=stores", []string{"b-sales-stores", "stores-plus"}, 2},
		{"dataSetName other case", "dataSetName=OTHER", []string{"stores-plus"}, 1},
		{"dataSetName unknown", "dataSetName=nothing", []string{}, 0},
		{"both filters", "dataSetName=sales&partialName=stores", []string{"b-sales-stores"}, 1},
		{"page 0", "pageSize=2", []string{"a-sales-only", "b-sales-stores"}, 5},
		{"page 1", "page=1&pageSize=2", []string{"Mixed-Case", "stores-plus"}, 5},
		{"page 2", "page=2&pageSize=2", []string{"weather-by-sales"}, 5},
		{"past the end", "page=9&pageSize=2", []string{}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := s.listViews(t, tc.query)
			if got := viewNames(l.Items); !slices.Equal(got, tc.want) {
				t.Errorf("views = %q, want %q", got, tc.want)
			}
			if l.Items == nil {
				t.Errorf("items is null, want []")
			}
			if l.TotalCount != tc.total || l.Links == nil {
				t.Errorf("envelope = %+v, want totalCount %d and links", l.pageJSON, tc.total)
			}
		})
	}
	t.Run("page golden", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views?dataSetName=sales&page=1&pageSize=1", nil)
		if res.status != 200 {
			t.Fatalf("GET /v1/views = %d %s", res.status, res.body)
		}
		golden(t, "view_list_page", res.body)
	})
	t.Run("empty golden", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views?partialName=zzz", nil)
		golden(t, "view_list_empty", res.body)
	})
	for _, q := range []string{"page=-1", "pageSize=0", "pageSize=x", "page=x"} {
		t.Run("bad "+q, func(t *testing.T) {
			wantError(t, "GET /v1/views?"+q, s.do(t, http.MethodGet, "/v1/views?"+q, nil), 400, "RequestValidation", "")
		})
	}
}

// TestViewGetQuery: include, date range, CSV paging and 404.
func TestViewGetQuery(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.mustPutView(t, "sw", scenarioView)
	for _, tc := range []struct {
		name, query string
		times       []string
		cols        []string // the keys of every row; nil for all
		total       int64
	}{
		{"include repeated", "include=temp&include=region", nil, []string{"temp", "region"}, 4},
		{"include comma", "include=sales,storeSales", nil, []string{"sales", "storeSales"}, 4},
		{"include other case", "include=TEMP", nil, []string{"temp"}, 4},
		{"include timestamp", "include=time", []string{"2017-07-03T09:00:00.0000000Z", "2017-07-03T15:00:00.0000000Z", "2017-07-04T10:00:00.0000000Z", "2017-07-05T11:00:00.0000000Z"}, []string{"time"}, 4},
		{"startDate", "startDate=2017-07-04&include=time", []string{"2017-07-04T10:00:00.0000000Z", "2017-07-05T11:00:00.0000000Z"}, []string{"time"}, 2},
		{"endDate", "endDate=2017-07-03T15:00:00Z&include=time", []string{"2017-07-03T09:00:00.0000000Z", "2017-07-03T15:00:00.0000000Z"}, []string{"time"}, 2},
		{"range", "startDate=2017-07-03T10:00:00Z&endDate=2017-07-04T23:00:00Z&include=time,temp", []string{"2017-07-03T15:00:00.0000000Z", "2017-07-04T10:00:00.0000000Z"}, []string{"time", "temp"}, 2},
		{"range empty", "startDate=2018-01-01&include=time", []string{}, []string{"time"}, 0},
		{"range and page", "startDate=2017-07-03T10:00:00Z&page=1&pageSize=1&include=time", []string{"2017-07-04T10:00:00.0000000Z"}, []string{"time"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.getView(t, "sw", tc.query)
			if got.TotalCount != tc.total {
				t.Errorf("totalCount = %d, want %d", got.TotalCount, tc.total)
			}
			if tc.times != nil {
				if ts := rowsOf(got.Data, "time"); !slices.Equal(ts, tc.times) {
					t.Errorf("times = %q, want %q", ts, tc.times)
				}
			}
			for i, r := range got.Data {
				var keys []string
				for k := range r {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				want := slices.Clone(tc.cols)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("row %d columns = %q, want %q", i, keys, want)
				}
			}
			// The definition still shows every column.
			if len(got.Columns) != 8 || got.ViewName != "sw" {
				t.Errorf("definition with %s = %s with %d columns, want sw with 8", tc.query, got.ViewName, len(got.Columns))
			}
		})
	}
	t.Run("range golden", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views/sw?startDate=2017-07-04&endDate=2017-07-05T23:59:59Z&include=time,temp,region&pageSize=1", nil)
		if res.status != 200 {
			t.Fatalf("GET = %d %s", res.status, res.body)
		}
		golden(t, "view_get_range", res.body)
	})
	t.Run("csv paged", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views/sw?page=1&pageSize=2&include=time,temp", nil, "Accept", "text/csv")
		if res.status != 200 {
			t.Fatalf("GET CSV = %d %s", res.status, res.body)
		}
		want := "time,temp\n2017-07-04T10:00:00.0000000Z,30\n2017-07-05T11:00:00.0000000Z,\n"
		if got := strings.ReplaceAll(string(res.body), "\r\n", "\n"); got != want {
			t.Errorf("CSV page 1 =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("csv all with range", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views/sw?startDate=2017-07-04&include=store,rain", nil, "Accept", "text/csv")
		want := "store,rain\ns1,0\ns3,\n"
		if got := strings.ReplaceAll(string(res.body), "\r\n", "\n"); res.status != 200 || got != want {
			t.Errorf("CSV = %d\n%s\nwant\n%s", res.status, got, want)
		}
	})
	t.Run("csv beyond a default page", func(t *testing.T) {
		// Without page or pageSize CSV has every row, more than one page.
		var rows []string
		for i := 0; i < 120; i++ {
			rows = append(rows, fmt.Sprintf(`{"k":"k%03d"}`, i))
		}
		s.putJSON(t, "many", `{"columns":{"k":{"dataType":"string","role":"key"}},"data":[`+strings.Join(rows, ",")+`]}`)
		s.mustPutView(t, "many-view", `{"dataSetName":"many"}`)
		res := s.do(t, http.MethodGet, "/v1/views/many-view", nil, "Accept", "text/csv")
		if n := strings.Count(strings.TrimSpace(string(res.body)), "\n"); res.status != 200 || n != 120 {
			t.Errorf("CSV of 120 rows has %d data lines (status %d)", n, res.status)
		}
		if j := s.getView(t, "many-view", ""); j.TotalCount != 120 || len(j.Data) >= 120 {
			t.Errorf("JSON default page has %d of %d rows, want one page", len(j.Data), j.TotalCount)
		}
	})
	for _, tc := range []struct{ name, query, errorType string }{
		{"start after end", "startDate=2017-07-05&endDate=2017-07-03", "InvalidDateRange"},
		{"bad startDate", "startDate=yesterday", "RequestValidation"},
		{"bad page", "page=-1", "RequestValidation"},
		{"bad pageSize", "pageSize=abc", "RequestValidation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, "GET /v1/views/sw?"+tc.query, s.do(t, http.MethodGet, "/v1/views/sw?"+tc.query, nil), 400, tc.errorType, "")
		})
	}
	t.Run("unknown view", func(t *testing.T) {
		res := s.do(t, http.MethodGet, "/v1/views/nothing", nil)
		wantError(t, "GET unknown view", res, 404, "NotFound", "itemType")
		golden(t, "view_error_404_view", res.body)
		wantError(t, "CSV unknown view", s.do(t, http.MethodGet, "/v1/views/nothing", nil, "Accept", "text/csv"), 404, "NotFound", "itemType")
	})
	t.Run("a dataset is not a view", func(t *testing.T) {
		wantNoView(t, s, "sales")
	})
	t.Run("name in another case", func(t *testing.T) {
		if got := s.getView(t, "SW", ""); got.ViewName != "sw" || got.TotalCount != 4 {
			t.Errorf("GET /views/SW = %s with %d rows, want sw with 4", got.ViewName, got.TotalCount)
		}
	})
}

// TestViewWithoutJoins: a view of only a base dataset, not a time series.
func TestViewWithoutJoins(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putJSON(t, "plain", `{"data":[{"a":"1","b":"x"},{"a":"2","b":"y"}]}`)
	res := s.putView(t, "plain-view", `{"dataSetName":"PLAIN","viewName":"ignored"}`)
	if res.status != 201 {
		t.Fatalf("PUT = %d %s", res.status, res.body)
	}
	if strings.Contains(string(res.body), `"joins"`) {
		t.Errorf("view without joins = %s, want joins omitted", res.body)
	}
	def := decode[viewDefJSON](t, res)
	if def.ViewName != "plain-view" || def.DataSetName != "plain" || def.IsTimeSeries {
		t.Errorf("definition = %+v, want plain-view over plain (stored spelling), not a time series", def)
	}
	got := s.getView(t, "plain-view", "")
	if v := rowsOf(got.Data, "b"); !slices.Equal(v, []string{"x", "y"}) {
		t.Errorf("rows = %v", got.Data)
	}
}

func TestViewDelete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, query string }{
		{"plain", ""},
		{"cascade sessions", "?cascade=sessions"},
		{"cascade list", "?cascade=session,model&cascade=vocabulary"},
		{"options alias", "?options=session"},
		{"other case", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			scenario(t, s)
			s.mustPutView(t, "doomed", scenarioView)
			s.mustPutView(t, "kept", `{"dataSetName":"sales"}`)
			name := "doomed"
			if tc.name == "other case" {
				name = "DOOMED"
			}
			res := s.do(t, http.MethodDelete, "/v1/views/"+name+tc.query, nil)
			if res.status != http.StatusNoContent || len(res.body) != 0 {
				t.Fatalf("DELETE = %d %q, want 204 and no body", res.status, res.body)
			}
			wantNoView(t, s, "doomed")
			e := wantError(t, "DELETE again", s.do(t, http.MethodDelete, "/v1/views/doomed", nil), 404, "NotFound", "itemType")
			if e.ErrorDetails["itemType"] != "view" {
				t.Errorf("DELETE again errorDetails = %v, want itemType view", e.ErrorDetails)
			}
			if got := viewNames(s.listViews(t, "").Items); !slices.Equal(got, []string{"kept"}) {
				t.Errorf("views after delete = %q, want [kept]", got)
			}
			// The datasets are untouched and the name is free again.
			for ds, n := range map[string]int64{"sales": 4, "weather": 3, "stores": 2} {
				if got := s.get(t, ds, "").TotalCount; got != n {
					t.Errorf("%s has %d rows after deleting the view, want %d", ds, got, n)
				}
			}
			s.mustPutView(t, "doomed", `{"dataSetName":"weather"}`)
			s.putJSON(t, "doomed2", `{"data":[{"a":"1"}]}`)
		})
	}
	t.Run("bogus cascade", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		scenario(t, s)
		s.mustPutView(t, "v", `{"dataSetName":"sales"}`)
		res := s.do(t, http.MethodDelete, "/v1/views/v?cascade=everything", nil)
		wantError(t, "DELETE cascade=everything", res, 400, "RequestValidation", "cascade")
		golden(t, "view_error_delete_cascade", res.body)
		if got := s.getView(t, "v", ""); got.TotalCount != 4 {
			t.Errorf("view after refused delete has %d rows, want 4", got.TotalCount)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		s.putJSON(t, "ds", `{"data":[{"a":"1"}]}`)
		e := wantError(t, "DELETE unknown", s.do(t, http.MethodDelete, "/v1/views/nothing", nil), 404, "NotFound", "itemType")
		if e.ErrorDetails["itemType"] != "view" || e.ErrorDetails["itemId"] != "nothing" {
			t.Errorf("errorDetails = %v, want itemType view, itemId nothing", e.ErrorDetails)
		}
		// DELETE /views of a dataset's name does not touch the dataset.
		wantError(t, "DELETE /views/ds", s.do(t, http.MethodDelete, "/v1/views/ds", nil), 404, "NotFound", "itemType")
		if s.get(t, "ds", "").TotalCount != 1 {
			t.Errorf("dataset ds changed by DELETE /views/ds")
		}
	})
}

// TestViewDeleteDataset: deleting a dataset a view reads keeps the view
// (reads answer 404 naming the dataset) unless cascade names views.
func TestViewDeleteDataset(t *testing.T) {
	t.Parallel()
	t.Run("without cascade", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		scenario(t, s)
		s.mustPutView(t, "sw", scenarioView)
		if res := s.do(t, http.MethodDelete, "/v1/data/weather", nil); res.status != 204 {
			t.Fatalf("DELETE /data/weather = %d %s", res.status, res.body)
		}
		for _, accept := range []string{"application/json", "text/csv"} {
			res := s.do(t, http.MethodGet, "/v1/views/sw", nil, "Accept", accept)
			e := wantError(t, "GET view of a deleted dataset ("+accept+")", res, 404, "NotFound", "itemType")
			if e.ErrorDetails["itemType"] != "dataSet" || e.ErrorDetails["itemId"] != "weather" {
				t.Errorf("errorDetails = %v, want itemType dataSet, itemId weather", e.ErrorDetails)
			}
			if accept == "application/json" {
				golden(t, "view_error_404_joined_deleted", res.body)
			}
		}
		// Still listed, under either dataset, with its definition.
		l := s.listViews(t, "dataSetName=weather")
		if got := viewNames(l.Items); !slices.Equal(got, []string{"sw"}) {
			t.Fatalf("views of weather = %q, want [sw]", got)
		}
		if l.Items[0].DataSetName != "sales" || len(l.Items[0].Joins) != 2 {
			t.Errorf("listed broken view = %+v, want its definition", l.Items[0])
		}
		// The dataset coming back mends the view.
		s.putJSON(t, "weather", weatherBody)
		if got := s.getView(t, "sw", ""); rowsOf(got.Data, "temp")[0] != "22" {
			t.Errorf("view after weather is back = %v", got.Data)
		}
		// The base going away breaks it too.
		if res := s.do(t, http.MethodDelete, "/v1/data/sales", nil); res.status != 204 {
			t.Fatalf("DELETE /data/sales = %d %s", res.status, res.body)
		}
		e := wantError(t, "GET view of a deleted base", s.do(t, http.MethodGet, "/v1/views/sw", nil), 404, "NotFound", "itemType")
		if e.ErrorDetails["itemType"] != "dataSet" || e.ErrorDetails["itemId"] != "sales" {
			t.Errorf("errorDetails = %v, want itemType dataSet, itemId sales", e.ErrorDetails)
		}
		// DELETE of the broken view works.
		if res := s.do(t, http.MethodDelete, "/v1/views/sw", nil); res.status != 204 {
			t.Errorf("DELETE broken view = %d %s", res.status, res.body)
		}
		wantNoView(t, s, "sw")
	})
	for _, tc := range []struct{ name, dataset, query string }{
		{"cascade view on joined", "weather", "cascade=view"},
		{"cascade views on joined", "stores", "cascade=views"},
		{"cascade list on base", "sales", "cascade=session,view"},
		{"cascade other case", "WEATHER", "cascade=View"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			scenario(t, s)
			s.putJSON(t, "unrelated", `{"data":[{"a":"1"}]}`)
			s.mustPutView(t, "sw", scenarioView)
			s.mustPutView(t, "other", `{"dataSetName":"unrelated"}`)
			if res := s.do(t, http.MethodDelete, "/v1/data/"+tc.dataset+"?"+tc.query, nil); res.status != 204 {
				t.Fatalf("DELETE /data/%s?%s = %d %s", tc.dataset, tc.query, res.status, res.body)
			}
			wantNoView(t, s, "sw")
			if got := viewNames(s.listViews(t, "").Items); !slices.Equal(got, []string{"other"}) {
				t.Errorf("views = %q, want [other]", got)
			}
			if got := s.getView(t, "other", ""); got.TotalCount != 1 {
				t.Errorf("unrelated view has %d rows, want 1", got.TotalCount)
			}
		})
	}
	t.Run("rows only keeps the view", func(t *testing.T) {
		t.Parallel()
		s := newServer(t)
		scenario(t, s)
		s.mustPutView(t, "sw", scenarioView)
		if res := s.do(t, http.MethodDelete, "/v1/data/weather?startDate=2017-07-04&cascade=view", nil); res.status != 204 {
			t.Fatalf("DELETE rows = %d %s", res.status, res.body)
		}
		got := s.getView(t, "sw", "include=temp")
		if v := rowsOf(got.Data, "temp"); !slices.Equal(v, []string{"22", "22", "", ""}) {
			t.Errorf("temp after deleting weather rows from 07-04 = %q", v)
		}
	})
}

// TestViewReplace: a second PUT replaces the definition.
func TestViewReplace(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.mustPutView(t, "sw", scenarioView)
	res := s.putView(t, "SW", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"stores"},"columnOptions":{"sales":{"alias":"lookupSales"}}}],"columns":{"region":{"role":"none"}}}`)
	if res.status != http.StatusCreated {
		t.Fatalf("second PUT = %d %s, want 201", res.status, res.body)
	}
	golden(t, "view_put_replaced", res.body)
	def := decode[viewDefJSON](t, res)
	if def.ViewName != "sw" {
		t.Errorf("replaced view name = %q, want the stored spelling sw", def.ViewName)
	}
	if got := columnOrder(t, res.body); !slices.Equal(got, []string{"time", "store", "sales", "region", "lookupSales"}) {
		t.Errorf("replaced columns = %q", got)
	}
	got := s.getView(t, "sw", "")
	if _, ok := got.Columns["temp"]; ok || len(got.Joins) != 1 {
		t.Errorf("GET after replace = columns %v joins %v, want the weather join gone", got.Columns, got.Joins)
	}
	if v := rowsOf(got.Data, "lookupSales"); !slices.Equal(v, []string{"100", "200", "100", ""}) {
		t.Errorf("lookupSales = %q", v)
	}
	for _, r := range got.Data {
		if _, ok := r["temp"]; ok {
			t.Errorf("row %v still has temp", r)
		}
	}
	if got.Columns["region"].Role != "none" {
		t.Errorf("region role = %q, want the override none", got.Columns["region"].Role)
	}
	l := s.listViews(t, "")
	if len(l.Items) != 1 || l.TotalCount != 1 {
		t.Fatalf("views after replace = %q, want one", viewNames(l.Items))
	}
	// Listing by the dataset no longer joined finds nothing.
	if l := s.listViews(t, "dataSetName=weather"); len(l.Items) != 0 {
		t.Errorf("views of weather after replace = %q, want none", viewNames(l.Items))
	}
	// Deleting weather no longer affects it.
	if res := s.do(t, http.MethodDelete, "/v1/data/weather", nil); res.status != 204 {
		t.Fatalf("DELETE weather = %d", res.status)
	}
	if got := s.getView(t, "sw", ""); got.TotalCount != 4 {
		t.Errorf("view after weather deleted has %d rows", got.TotalCount)
	}
	// A refused replacement keeps the old definition.
	wantError(t, "bad replacement", s.putView(t, "sw", `{"dataSetName":"nothing"}`), 404, "NotFound", "itemType")
	if got := s.getView(t, "sw", ""); len(got.Joins) != 1 || got.DataSetName != "sales" {
		t.Errorf("view after refused replacement = %+v", got)
	}
}

// TestViewRestart: a view survives closing and reopening the stack.
func TestViewRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newServer(t, withDir(dir))
	scenario(t, s)
	s.mustPutView(t, "sw", scenarioView)
	before := s.do(t, http.MethodGet, "/v1/views/sw", nil)
	list := s.do(t, http.MethodGet, "/v1/views?dataSetName=stores", nil)
	s.Close()

	s2 := newServer(t, withDir(dir))
	after := s2.do(t, http.MethodGet, "/v1/views/sw", nil)
	if after.status != 200 {
		t.Fatalf("GET after restart = %d %s", after.status, after.body)
	}
	if b, a := string(normalize(before.body)), string(normalize(after.body)); b != a {
		t.Errorf("view after restart differs:\nbefore %s\nafter  %s", b, a)
	}
	if b, a := string(normalize(list.body)), string(normalize(s2.do(t, http.MethodGet, "/v1/views?dataSetName=stores", nil).body)); b != a {
		t.Errorf("list after restart differs:\nbefore %s\nafter  %s", b, a)
	}
	// It still works as a view: cascade finds it and the name is taken.
	wantError(t, "PUT /data/sw after restart", s2.do(t, http.MethodPut, "/v1/data/sw", `{"data":[{"a":"1"}]}`, "Content-Type", "application/json"), 400, "RequestValidation", "")
	if res := s2.do(t, http.MethodDelete, "/v1/data/stores?cascade=view", nil); res.status != 204 {
		t.Fatalf("DELETE stores = %d %s", res.status, res.body)
	}
	wantNoView(t, s2, "sw")
}

// TestViewFollowsDatasets: view rows are computed on read, so new rows and
// new columns of the datasets show, and odd column names are quoted.
func TestViewFollowsDatasets(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	s.mustPutView(t, "sw", scenarioView)
	s.putJSON(t, "stores", `{"data":[{"store":"s3","region":"east","sales":"300","manager":"m"}]}`)
	s.putJSON(t, "weather", `{"data":[{"day":"2017-07-05T00:00:00Z","temp":"40","rain":"9","observed":"2017-07-05T01:00:00Z"}]}`)
	got := s.getView(t, "sw", "")
	if c, ok := got.Columns["manager"]; !ok || c.Role != "feature" {
		t.Errorf("columns = %v, want the new stores column manager as a feature", got.Columns)
	}
	for col, want := range map[string][]string{
		"manager":    {"", "", "", "m"},
		"region":     {"north", "south", "north", "east"},
		"storeSales": {"100", "200", "100", "300"},
		"temp":       {"22", "22", "30", "40"},
	} {
		if v := rowsOf(got.Data, col); !slices.Equal(v, want) {
			t.Errorf("%s = %q, want %q", col, v, want)
		}
	}
	if l := s.listViews(t, ""); len(l.Items) != 1 || len(l.Items[0].Columns) != 9 {
		t.Errorf("listed view = %+v, want 9 columns", l.Items)
	}

	s.putJSON(t, "odd", `{"columns":{"t":{"dataType":"date","role":"timestamp"}},"data":[{"t":"2017-07-03T00:00:00Z","va\"l'ue":"1","store":"s1"}]}`)
	def := s.mustPutView(t, "odd view", `{"dataSetName":"sales","joins":[{"dataSet":{"name":"odd"},"columnOptions":{"t":{"joinInterval":"day"},"store":{"alias":"x y; DROP"}}}]}`)
	if _, ok := def.Columns["x y; DROP"]; !ok {
		t.Errorf("columns = %v, want the alias x y; DROP", def.Columns)
	}
	got = s.getView(t, "odd%20view", "")
	if v := rowsOf(got.Data, `va"l'ue`); !slices.Equal(v, []string{"1", "1", "", ""}) {
		t.Errorf(`va"l'ue = %q`, v)
	}
	if v := rowsOf(got.Data, "x y; DROP"); !slices.Equal(v, []string{"s1", "s1", "", ""}) {
		t.Errorf("x y; DROP = %q", v)
	}
}

// TestViewNameEscapedInLinks: a view name with a space is escaped in
// Location and in the paging links.
func TestViewNameEscapedInLinks(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	res := s.putView(t, "my%20view", `{"dataSetName":"sales"}`)
	if res.status != 201 {
		t.Fatalf("PUT = %d %s", res.status, res.body)
	}
	if got, want := res.header.Get("Location"), s.URL+"/v1/views/my%20view"; got != want {
		t.Errorf("Location = %q, want %q", got, want)
	}
	if def := decode[viewDefJSON](t, res); def.ViewName != "my view" {
		t.Errorf("viewName = %q, want %q", def.ViewName, "my view")
	}
	got := s.getView(t, "my%20view", "pageSize=1")
	if got.ViewName != "my view" || got.TotalCount != 4 {
		t.Fatalf("GET = %s with %d rows", got.ViewName, got.TotalCount)
	}
	for _, l := range got.Links {
		if _, err := url.Parse(l.Href); err != nil || strings.Contains(l.Href, " ") {
			t.Errorf("paging link %q of GET /v1/views/my%%20view is not a valid, escaped URL", l.Href)
		}
	}
}

// TestViewListBroken: a view whose joined dataset was deleted is still
// listed with the metadata it had.
func TestViewListBroken(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	scenario(t, s)
	def := s.mustPutView(t, "sw", scenarioView)
	if res := s.do(t, http.MethodDelete, "/v1/data/weather", nil); res.status != 204 {
		t.Fatalf("DELETE weather = %d", res.status)
	}
	l := s.listViews(t, "")
	if len(l.Items) != 1 {
		t.Fatalf("views = %q, want [sw]", viewNames(l.Items))
	}
	item := l.Items[0]
	if item.ViewName != "sw" || item.DataSetName != "sales" || len(item.Joins) != 2 {
		t.Errorf("broken view listed as %+v", item)
	}
	if len(item.Columns) != len(def.Columns) || !item.IsTimeSeries {
		t.Errorf("broken view listed with %d columns, isTimeSeries %v; want the %d columns it had", len(item.Columns), item.IsTimeSeries, len(def.Columns))
	}
}

// TestViewSharedColumnNames: a model session reads a view of two time
// series sharing sales, transactions and timeStamp, with an alias for the
// right transactions, as every official client's live view tests do
// (REFERENCE §11.6, §9 row 31). The view's columns and rows, and the
// refused clashing alias, are in engine/testdata/rules/views.
func TestViewSharedColumnNames(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	// 24 days (enough for a regression session); beta lacks every third.
	var alpha, beta []string
	for i := range 24 {
		day := fmt.Sprintf("2017-01-%02d", i+1)
		alpha = append(alpha, fmt.Sprintf(`{"timeStamp":%q,"sales":"%d","transactions":"%d"}`, day, 10*(i+1), i%5+1))
		if i%3 != 1 {
			beta = append(beta, fmt.Sprintf(`{"timeStamp":%q,"sales":"%d","transactions":"%d"}`, day, 1000*(i+1), 100*(i+1)))
		}
	}
	s.putJSON(t, "alpha", `{"columns":{
		"timeStamp":{"dataType":"date","role":"timestamp"},
		"sales":{"dataType":"numeric","role":"target","imputation":"zeroes","aggregation":"sum"},
		"transactions":{"dataType":"numeric","role":"feature","imputation":"median","aggregation":"max"}},
		"data":[`+strings.Join(alpha, ",")+`]}`)
	s.putJSON(t, "beta", `{"columns":{
		"timeStamp":{"dataType":"date","role":"timestamp"},
		"sales":{"dataType":"numericMeasure","role":"target"},
		"transactions":{"dataType":"numeric","role":"feature"}},
		"data":[`+strings.Join(beta, ",")+`]}`)
	s.mustPutView(t, "alpha-beta-aliased", `{"dataSetName":"alpha","joins":[{"dataSet":{"name":"beta"},"columnOptions":{"transactions":{"alias":"otherTransactions"}}}]}`)

	created := s.createSession(t, `{"dataSourceName":"alpha-beta-aliased","targetColumn":"sales","predictionDomain":"regression"}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session on alpha-beta-aliased = %s %+v, want completed", done.Status, done.Messages)
	}
	if _, ok := done.Columns["otherTransactions"]; !ok || len(done.Columns) != 4 {
		t.Errorf("session columns = %v, want the view's four", done.Columns)
	}
}
