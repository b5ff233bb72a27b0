package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/vaticml/vatic/api"
	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// fieldsOf decodes a JSON object into its raw fields, to tell an absent
// field from an empty one.
func fieldsOf(t testing.TB, what string, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v in %s", what, err, b)
	}
	return m
}

// compatMode is what one Options.Compat value emits (REFERENCE §9 rows 3,
// 11, 12, 19 and the compatibility switch).
type compatMode struct {
	compat          api.Compat
	s3, azure       string // import type of S3 and Azure imports
	noCallback      string // raw callbackUrl of a session without one; "" when absent
	modelItemType   string // 404 itemType of an unknown model
	pendingSupplied bool   // import columns echo the request until completed
}

var compatModes = []compatMode{
	{api.CompatSpec, "objectstore", "blobstore", `""`, "modelId", false},
	{api.CompatOriginal, "s3", "azure", "", "model", true},
}

// The import type and the columns of imports that have not completed,
// through every import endpoint, in both modes; the import paths accept
// both spellings in either mode.
func TestCompatImports(t *testing.T) {
	store := remotetest.NewS3(t)
	store.CreateBucket(t, "sample-data")
	store.Put(t, "sample-data", "sales.csv", []byte("day,sales\n2017-01-01,10\n2017-01-02,20\n"), "text/csv")
	const supplied = `{"day":{"dataType":"date","role":"timestamp"},"sales":{"role":"target"},"note":{"dataType":"string","role":"none"}}`
	for _, m := range compatModes {
		t.Run(m.compat.String(), func(t *testing.T) {
			s := newServer(t, withCompat(m.compat), withRemote(remote.Options{S3Endpoint: store.Endpoint}))
			pendingColumns := "{}"
			if m.pendingSupplied {
				pendingColumns = supplied
			}
			// Each import fails (a missing object, a connection string
			// that does not parse), so its columns stay the pending ones.
			for _, c := range []struct{ path, body, want string }{
				{"s3", `{"dataSetName":"a","bucket":"sample-data","path":"none.csv","columns":` + supplied + `}`, m.s3},
				{"objectstore", `{"dataSetName":"a","bucket":"sample-data","path":"none.csv","columns":` + supplied + `}`, m.s3},
				{"S3", `{"dataSetName":"a","bucket":"sample-data","path":"none.csv"}`, m.s3},
				{"azure", `{"dataSetName":"b","connectionString":"nonsense","container":"c","blob":"x.csv","columns":` + supplied + `}`, m.azure},
				{"BlobStore", `{"dataSetName":"b","connectionString":"nonsense","container":"c","blob":"x.csv","columns":{}}`, m.azure},
				{"url", `{"dataSetName":"c","url":"http://127.0.0.1:9/none.csv","columns":` + supplied + `}`, "url"},
			} {
				res := s.do(t, http.MethodPost, "/v1/imports/"+c.path, c.body, "Content-Type", "application/json")
				if res.status != http.StatusOK {
					t.Fatalf("POST /imports/%s = %d %s", c.path, res.status, res.body)
				}
				wantColumns := pendingColumns
				if c.path == "S3" || c.path == "BlobStore" { // no metadata supplied
					wantColumns = "{}"
				}
				created := fieldsOf(t, "POST /imports/"+c.path, res.body)
				if got := string(created["type"]); got != `"`+c.want+`"` {
					t.Errorf("POST /imports/%s type = %s, want %q", c.path, got, c.want)
				}
				if got := string(created["columns"]); got != wantColumns {
					t.Errorf("POST /imports/%s columns = %s, want %s", c.path, got, wantColumns)
				}
				var id string
				_ = json.Unmarshal(created["importId"], &id)
				if done := waitImport(t, s, id); done.Status != "failed" {
					t.Fatalf("import from /imports/%s = %+v, want failed", c.path, done)
				}
				got := fieldsOf(t, "GET /imports/"+id, s.do(t, http.MethodGet, "/v1/imports/"+id, nil).body)
				if string(got["type"]) != `"`+c.want+`"` || string(got["columns"]) != wantColumns {
					t.Errorf("GET /imports/{id} of /imports/%s: type %s columns %s, want %q and %s", c.path, got["type"], got["columns"], c.want, wantColumns)
				}
			}
			res := s.do(t, http.MethodGet, "/v1/imports?sortBy=requestedDate&sortOrder=asc", nil)
			var list struct {
				Items []map[string]json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(res.body, &list); err != nil || len(list.Items) != 6 {
				t.Fatalf("GET /imports = %d %s, want 6 items", res.status, res.body)
			}
			for i, want := range []string{m.s3, m.s3, m.s3, m.azure, m.azure, "url"} {
				if got := string(list.Items[i]["type"]); got != `"`+want+`"` {
					t.Errorf("GET /imports item %d type = %s, want %q", i, got, want)
				}
			}
			if got := string(list.Items[0]["columns"]); got != pendingColumns {
				t.Errorf("GET /imports item 0 columns = %s, want %s", got, pendingColumns)
			}
		})
	}
}

// Once an import has completed, its columns are the dataset's metadata in
// both modes.
func TestCompatCompletedImportColumns(t *testing.T) {
	store := remotetest.NewS3(t)
	store.CreateBucket(t, "sample-data")
	store.Put(t, "sample-data", "sales.csv", []byte("day,sales\n2017-01-01,10\n2017-01-02,20\n"), "text/csv")
	for _, m := range compatModes {
		t.Run(m.compat.String(), func(t *testing.T) {
			s := newServer(t, withCompat(m.compat), withRemote(remote.Options{S3Endpoint: store.Endpoint}))
			imp := postImport(t, s, "s3", map[string]any{"dataSetName": "sales", "bucket": "sample-data", "path": "sales.csv",
				"columns": map[string]any{"sales": map[string]string{"role": "target"}}})
			if done := waitImport(t, s, imp.ImportID); done.Status != "completed" {
				t.Fatalf("import = %+v, want completed", done)
			}
			want := string(fieldsOf(t, "GET /data/sales", s.do(t, http.MethodGet, "/v1/data/sales?pageSize=1", nil).body)["columns"])
			got := fieldsOf(t, "GET /imports/{id}", s.do(t, http.MethodGet, "/v1/imports/"+imp.ImportID, nil).body)
			if string(got["columns"]) != want || string(got["type"]) != `"`+m.s3+`"` {
				t.Errorf("completed import: type %s columns %s, want %q and %s", got["type"], got["columns"], m.s3, want)
			}
		})
	}
}

// callbackUrl of sessions without one, wherever a session is shown; a
// callbackUrl given is shown in both modes, and "" or null on input mean
// none in both.
func TestCompatSessionCallbackURL(t *testing.T) {
	for _, m := range compatModes {
		t.Run(m.compat.String(), func(t *testing.T) {
			s := newServer(t, withCompat(m.compat))
			s.putCSV(t, "friedman", firstLines(friedman1(t), 120))
			want := func(what string, body []byte, raw string) {
				t.Helper()
				got, ok := fieldsOf(t, what, body)["callbackUrl"]
				switch {
				case raw == "" && ok:
					t.Errorf("%s callbackUrl = %s, want it absent", what, got)
				case raw != "" && string(got) != raw:
					t.Errorf("%s callbackUrl = %s (present %v), want %s", what, got, ok, raw)
				}
			}
			post := func(extra string) []byte {
				t.Helper()
				res := s.do(t, http.MethodPost, "/v1/sessions/model",
					`{"dataSourceName":"friedman","targetColumn":"y","predictionDomain":"regression"`+extra+`}`, "Content-Type", "application/json")
				if res.status != http.StatusOK {
					t.Fatalf("POST /sessions/model with %s = %d %s", extra, res.status, res.body)
				}
				return res.body
			}
			// Estimates never run: their bodies are all these checks need.
			for _, extra := range []string{`,"isEstimate":true`, `,"isEstimate":true,"callbackUrl":""`, `,"isEstimate":true,"callbackUrl":null`} {
				want("POST /sessions/model with"+extra, post(extra), m.noCallback)
			}
			want("POST /sessions/model with a callbackUrl", post(`,"isEstimate":true,"callbackUrl":"http://127.0.0.1:9/hook"`), `"http://127.0.0.1:9/hook"`)

			// A session that runs, to reach every endpoint that shows one.
			body := post("")
			var created struct{ SessionID string }
			_ = json.Unmarshal(body, &created)
			if done := s.waitSession(t, created.SessionID); done.Status != "completed" {
				t.Fatalf("session = %+v, want completed", done)
			}
			sid := "/v1/sessions/" + created.SessionID
			for _, path := range []string{sid, sid + "/results", sid + "/results/featureimportance", sid + "/contest", sid + "/contest/selection"} {
				res := s.do(t, http.MethodGet, path, nil)
				if res.status != http.StatusOK {
					t.Fatalf("GET %s = %d %s", path, res.status, res.body)
				}
				want("GET "+path, res.body, m.noCallback)
			}
			res := s.do(t, http.MethodGet, "/v1/sessions?pageSize=10", nil)
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(res.body, &list); err != nil || len(list.Items) != 5 {
				t.Fatalf("GET /sessions = %d %s, want 5 items", res.status, res.body)
			}
			withCallback := 0
			for i, it := range list.Items {
				if string(fieldsOf(t, "GET /sessions", it)["callbackUrl"]) == `"http://127.0.0.1:9/hook"` {
					withCallback++
					continue
				}
				want(fmt.Sprintf("GET /sessions item %d", i), it, m.noCallback)
			}
			if withCallback != 1 {
				t.Errorf("GET /sessions: %d items with the callbackUrl, want 1", withCallback)
			}
		})
	}
}

// The 404 of an unknown model in both modes, through every model route;
// other item types are the same in both.
func TestCompatModelNotFound(t *testing.T) {
	const unknown = "0163aa10-4c1e-4e9b-a2f7-6d0b8c3e5f21"
	for _, m := range compatModes {
		t.Run(m.compat.String(), func(t *testing.T) {
			s := newServer(t, withCompat(m.compat))
			for _, c := range []struct{ method, path, body, itemType string }{
				{http.MethodGet, "/v1/models/" + unknown, "", m.modelItemType},
				{http.MethodDelete, "/v1/models/" + unknown, "", m.modelItemType},
				{http.MethodPost, "/v1/models/" + unknown + "/predict", `{"data":[{"x0":"1"}]}`, m.modelItemType},
				{http.MethodGet, "/v1/sessions/" + unknown, "", "session"},
				{http.MethodGet, "/v1/imports/" + unknown, "", "import"},
			} {
				what := c.method + " " + c.path
				e := wantError(t, what, s.do(t, c.method, c.path, c.body), http.StatusNotFound, "NotFound", "itemType")
				if e.ErrorDetails["itemType"] != c.itemType || e.ErrorDetails["itemId"] != unknown {
					t.Errorf("%s errorDetails = %v, want itemType %s, itemId %s", what, e.ErrorDetails, c.itemType, unknown)
				}
				if want := "Item of type " + c.itemType + " with identifier " + unknown + " was not found"; e.Message != want {
					t.Errorf("%s message = %q, want %q", what, e.Message, want)
				}
			}
			// A malformed id stays a validation error on modelId.
			wantError(t, "GET /models/not-a-guid", s.do(t, http.MethodGet, "/v1/models/not-a-guid", nil), http.StatusBadRequest, "RequestValidation", "modelId")
		})
	}
}
