package bench_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// smallAnomalies is anomalies.py's output for iris seed 0 and wine seed 3
// (regenerate with BENCH_UPDATE_FIXTURE=1 go test ./bench -run
// AnomalyReportPython).
const smallAnomalies = "testdata/sklearn-anomalies-small.json"

// readSet reads a set of classData: its header and rows, the class last.
func readSet(t testing.TB, set string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(classData + "/" + set + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[0], recs[1:]
}

func TestAnomalyTasks(t *testing.T) {
	// Rows and anomalies of every task (MODELLING-free: counts of the
	// shared sets and the 5 % rules of bench.AnomalyTasks).
	want := map[string][2]int{"breast_cancer": {357 + 11, 11}, "wine": {130 + 7, 7}, "iris": {100 + 5, 5}}
	for _, spec := range bench.AnomalyTasks {
		header, rows := readSet(t, spec.Name)
		for seed := range uint64(5) {
			task, err := bench.LoadAnomalyTask(classData, spec, seed)
			if err != nil {
				t.Fatal(err)
			}
			if task.Name != spec.Name || task.Seed != seed || !slices.Equal(task.Header, header[:len(header)-1]) {
				t.Errorf("%s seed %d: task %s seed %d, header %q; want the set's features", spec.Name, seed, task.Name, task.Seed, task.Header)
			}
			if w := want[spec.Name]; len(task.Rows) != w[0] || len(task.Anomalous) != w[0] || task.Anomalies() != w[1] {
				t.Errorf("%s seed %d: %d rows (%d labels), %d anomalies; want %d and %d", spec.Name, seed, len(task.Rows), len(task.Anomalous), task.Anomalies(), w[0], w[1])
			}
			// The rows are the set's, features only, in file order: every
			// normal-class row, and anomalies only from the anomalous class.
			j := 0
			for _, r := range rows {
				class := r[len(r)-1]
				if j < len(task.Rows) && slices.Equal(task.Rows[j], r[:len(r)-1]) {
					if task.Anomalous[j] != (class == spec.Anomalous) {
						t.Errorf("%s seed %d row %d: class %s, anomalous %v", spec.Name, seed, j, class, task.Anomalous[j])
					}
					j++
				} else if slices.Contains(spec.Normal, class) {
					t.Fatalf("%s seed %d: normal row %q left out or out of order", spec.Name, seed, r)
				}
			}
			if j != len(task.Rows) {
				t.Errorf("%s seed %d: %d of %d rows found in the set, in order", spec.Name, seed, j, len(task.Rows))
			}
			again, _ := bench.LoadAnomalyTask(classData, spec, seed)
			if !slices.Equal(again.Anomalous, task.Anomalous) {
				t.Errorf("%s seed %d: two builds differ", spec.Name, seed)
			}
		}
		// Rows are kept in file order, so another sample of anomalies
		// changes the rows too; compare the anomalies' features instead.
		distinct := map[string]bool{}
		for seed := range uint64(5) {
			task, _ := bench.LoadAnomalyTask(classData, spec, seed)
			var a []string
			for i, r := range task.Rows {
				if task.Anomalous[i] {
					a = append(a, strings.Join(r, ","))
				}
			}
			distinct[strings.Join(a, ";")] = true
		}
		if len(distinct) < 5 {
			t.Errorf("%s: the 5 seeds drew %d distinct samples of anomalies, want 5", spec.Name, len(distinct))
		}
	}
	bad := bench.AnomalyTaskSpec{Name: "wine", Normal: []string{"class_0"}, Anomalous: "class_3", Share: 0.05}
	if _, err := bench.LoadAnomalyTask(classData, bad, 0); err == nil || !strings.Contains(err.Error(), `"class_3"`) {
		t.Errorf("LoadAnomalyTask(class_3) = %v, want an error naming the class", err)
	}
	// A share below one row still plants one anomaly; one above the class
	// plants the whole class.
	for _, c := range []struct {
		share float64
		want  int
	}{{0.001, 1}, {5, 48}} {
		spec := bench.AnomalyTaskSpec{Name: "wine", Normal: []string{"class_0"}, Anomalous: "class_2", Share: c.share}
		if task, err := bench.LoadAnomalyTask(classData, spec, 0); err != nil || task.Anomalies() != c.want {
			t.Errorf("LoadAnomalyTask(share %v) planted %v anomalies (%v), want %d", c.share, task, err, c.want)
		}
	}
}

func TestROCAUC(t *testing.T) {
	f := func(pos []bool, score []float64, want float64) {
		t.Helper()
		if got, err := bench.ROCAUC(pos, score); err != nil || math.Abs(got-want) > 1e-15 {
			t.Errorf("ROCAUC(%v, %v) = %v, %v, want %v", pos, score, got, err, want)
		}
	}
	f([]bool{false, true, false, true}, []float64{1, 3, 2, 4}, 1)
	f([]bool{false, true, false, true}, []float64{4, 2, 3, 1}, 0)
	f([]bool{false, true, false, true}, []float64{7, 7, 7, 7}, 0.5)
	// Positives 0.8 and 0.4 against negatives 0.5, 0.3 and 0.4: 3 + 1 + ½
	// of the 6 pairs ordered right.
	f([]bool{true, false, true, false, false}, []float64{0.8, 0.5, 0.4, 0.3, 0.4}, 4.5/6)
	f([]bool{true, false}, []float64{math.Inf(1), math.Inf(-1)}, 1)
	for _, c := range []struct {
		pos   []bool
		score []float64
	}{
		{nil, nil},
		{[]bool{true, false}, []float64{1}},
		{[]bool{true, true}, []float64{1, 2}},
		{[]bool{false, false}, []float64{1, 2}},
		{[]bool{true, false}, []float64{math.NaN(), 2}},
	} {
		if got, err := bench.ROCAUC(c.pos, c.score); err == nil {
			t.Errorf("ROCAUC(%v, %v) = %v, nil, want an error", c.pos, c.score, got)
		}
	}
}

func readAnomalyFixture(t testing.TB) *bench.AnomalyReport {
	t.Helper()
	f, err := os.Open(smallAnomalies)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := bench.ParseAnomalyReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestParseAnomalyReport(t *testing.T) {
	rep := readAnomalyFixture(t)
	if len(rep.Tasks) != 2 || rep.Tasks[0].Task != "iris" || rep.Tasks[0].Rows != 105 || rep.Tasks[0].Anomalies != 5 ||
		rep.Tasks[1].Task != "wine" || rep.Tasks[1].Seed != 3 || len(rep.Tasks[1].Models) != 2 {
		t.Errorf("fixture: %+v, want iris seed 0 (105 rows, 5 anomalies) and wine seed 3, two models", rep.Tasks)
	}
	results := rep.Results()
	got := countByName(results)
	if len(results) != 4 || got["Anomalies/wine/model=elliptic_envelope/impl=sklearn"] != 1 || got["Anomalies/iris/model=isolation_forest/impl=sklearn"] != 1 {
		t.Errorf("Results gave %v, want one line per task and model", got)
	}
	r, m := results[3], rep.Tasks[1].Models[1]
	if auc, _ := r.Metric(bench.UnitROCAUC); auc != m.ROCAUC || r.Elapsed != time.Duration(math.Round(m.FitSeconds*1e9)) || r.Labels[bench.LabelSeed] != "3" {
		t.Errorf("last result %+v, want ROC-AUC %v, fit %vs, seed 3", r, m.ROCAUC, m.FitSeconds)
	}

	b, _ := os.ReadFile(smallAnomalies)
	bad := func(what string, edit func(map[string]any)) {
		t.Helper()
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		e, _ := json.Marshal(d)
		if _, err := bench.ParseAnomalyReport(bytes.NewReader(e)); err == nil {
			t.Errorf("ParseAnomalyReport(%s) = nil error, want one", what)
		}
	}
	task := func(d map[string]any) map[string]any { return d["tasks"].([]any)[0].(map[string]any) }
	model := func(d map[string]any) map[string]any { return task(d)["models"].([]any)[0].(map[string]any) }
	bad("no tasks", func(d map[string]any) { d["tasks"] = []any{} })
	bad("no models", func(d map[string]any) { task(d)["models"] = []any{} })
	bad("no anomalies", func(d map[string]any) { task(d)["anomalies"] = 0.0 })
	bad("only anomalies", func(d map[string]any) { task(d)["anomalies"] = task(d)["rows"] })
	bad("a score short", func(d map[string]any) { s := model(d)["scores"].([]any); model(d)["scores"] = s[1:] })
	bad("ROC-AUC above 1", func(d map[string]any) { model(d)["rocAuc"] = 1.5 })
	bad("no key", func(d map[string]any) { model(d)["key"] = "" })
	if _, err := bench.ParseAnomalyReport(strings.NewReader("sklearn: iris …")); err == nil {
		t.Error("ParseAnomalyReport(not JSON) = nil error, want one")
	}
}

func TestAnomalyChecks(t *testing.T) {
	auc := func(v float64) []bench.Metric { return []bench.Metric{{Value: v, Unit: bench.UnitROCAUC}} }
	champ := map[string]string{bench.LabelChampion: "isolation_forest_anomalies"}
	results := []bench.Result{
		{Name: "Anomalies/wine/model=isolation_forest/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.94)},
		{Name: "Anomalies/wine/model=elliptic_envelope/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.98)},
		{Name: "Anomalies/wine/model=isolation_forest/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.92)},
		{Name: "Anomalies/wine/model=elliptic_envelope/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.96)},
		{Name: "Anomalies/iris/model=isolation_forest/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.98)},
		{Name: "Anomalies/iris/model=elliptic_envelope/impl=sklearn", Elapsed: time.Second, Metrics: auc(0.95)},
		{Name: "Anomalies/wine/impl=vatic", Elapsed: time.Second, Metrics: auc(0.95), Labels: champ},
		{Name: "Anomalies/wine/impl=vatic", Elapsed: time.Second, Metrics: auc(0.93), Labels: champ},
		{Name: "Anomalies/iris/impl=vatic", Elapsed: time.Second, Metrics: auc(0.965), Labels: champ},
		{Name: "Anomalies/wine/contestant=robust_mahalanobis/impl=vatic", Metrics: auc(0.97)},
		{Name: "Anomalies/wine/contestant=robust_mahalanobis/impl=vatic", Metrics: auc(0.99)},
	}
	want := []struct {
		workload, what string
		value          float64
		pass, note     bool
	}{
		{"Anomalies/wine", "ROC-AUC vatic−best sklearn", 0.94 - 0.97, false, false},
		{"Anomalies/wine/vatic", "champion ROC-AUC", 0.94, false, true},
		{"Anomalies/wine/vatic", "robust_mahalanobis ROC-AUC", 0.98, false, true},
		{"Anomalies/wine/sklearn", "isolation_forest ROC-AUC", 0.93, false, true},
		{"Anomalies/wine/sklearn", "elliptic_envelope ROC-AUC", 0.97, false, true},
		{"Anomalies/iris", "ROC-AUC vatic−best sklearn", -0.015, true, false},
		{"Anomalies/iris/vatic", "champion ROC-AUC", 0.965, false, true},
		{"Anomalies/iris/sklearn", "isolation_forest ROC-AUC", 0.98, false, true},
		{"Anomalies/iris/sklearn", "elliptic_envelope ROC-AUC", 0.95, false, true},
	}
	got := bench.Checks(results)
	if len(got) != len(want) {
		t.Fatalf("Checks = %+v, want %d checks", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Workload != w.workload || g.What != w.what || g.Pass != w.pass || g.Note != w.note || math.Abs(g.Value-w.value) > 1e-12 {
			t.Errorf("Checks[%d] = %+v, want %+v", i, g, w)
		}
	}
	if d := got[0].Detail; !strings.Contains(d, "elliptic_envelope") || !strings.Contains(d, "2 sessions and 2 seeds") {
		t.Errorf("wine detail %q, want the better detector and the counts", d)
	}
	if d := got[1].Detail; !strings.Contains(d, "isolation_forest_anomalies×2") {
		t.Errorf("wine vatic detail %q, want the champions", d)
	}
}

// TestClientAnomalyScores: every page is read, values come back as text
// whether the server sends strings or numbers, and a short answer is an
// error; a contestant's rows are read alike.
func TestClientAnomalyScores(t *testing.T) {
	const n = 2345
	total := n
	var pages []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/sessions/s-1/contest/contestants":
			fmt.Fprint(w, `{"items":[{"id":"c-1","algorithm":{"key":"isolation_forest_anomalies","name":"Isolation Forest"}},`+
				`{"id":"c-2","algorithm":{"key":"robust_mahalanobis"}}],"pageNumber":0,"totalCount":2}`)
			return
		case "/v1/sessions/s-1/results/anomalyscores", "/v1/sessions/s-1/contest/contestants/c-2":
		default:
			http.NotFound(w, r)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		pages = append(pages, r.URL.RawQuery)
		var rows []string
		for i := page * size; i < min((page+1)*size, n); i++ {
			rows = append(rows, fmt.Sprintf(`{"x":%d,"anomaly":"%g"}`, i, float64(i)/10))
		}
		fmt.Fprintf(w, `{"metrics":{"percentAnomalies":0.1},"data":[%s],"pageNumber":%d,"pageSize":%d,"totalCount":%d}`, strings.Join(rows, ","), page, size, total)
	}))
	defer srv.Close()
	c := &bench.Client{BaseURL: srv.URL + "/v1"}
	rows, err := c.AnomalyScores(t.Context(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n || rows[n-1]["x"] != strconv.Itoa(n-1) || rows[1001]["anomaly"] != "100.1" || len(pages) != 3 {
		t.Errorf("AnomalyScores read %d rows in pages %q, last %v; want %d rows in 3 pages", len(rows), pages, rows[len(rows)-1], n)
	}
	cs, err := c.Contestants(t.Context(), "s-1")
	if err != nil || len(cs) != 2 || cs[1].ID != "c-2" || cs[1].Algorithm.Key != "robust_mahalanobis" {
		t.Errorf("Contestants = %+v, %v, want c-1 and c-2 with their keys", cs, err)
	}
	pages = nil
	if rows, err := c.ContestantScores(t.Context(), "s-1", "c-2"); err != nil || len(rows) != n || len(pages) != 3 {
		t.Errorf("ContestantScores read %d rows in pages %q, %v; want %d rows in 3 pages", len(rows), pages, err, n)
	}
	total = n + 1 // the server claims a row it never sends
	if _, err := c.AnomalyScores(t.Context(), "s-1"); err == nil || !strings.Contains(err.Error(), "totalCount 2346") {
		t.Errorf("AnomalyScores(short) = %v, want an error naming totalCount", err)
	}
	if _, err := c.AnomalyScores(t.Context(), "s-2"); err == nil {
		t.Error("AnomalyScores(unknown session) = nil error, want one")
	}
}

// FuzzParseAnomalyReport: any document is a report or an error, never a
// panic, and an accepted one gives a result per task and model.
func FuzzParseAnomalyReport(f *testing.F) {
	b, err := os.ReadFile(smallAnomalies)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"tasks":[{"task":"t","rows":2,"anomalies":1,"models":[{"key":"k","rocAuc":1,"scores":[1,2]}]}]}`))
	f.Add([]byte(`{"tasks":[{}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		rep, err := bench.ParseAnomalyReport(bytes.NewReader(doc))
		if err != nil {
			return
		}
		want := 0
		for _, task := range rep.Tasks {
			want += len(task.Models)
		}
		if got := len(rep.Results()); got != want {
			t.Errorf("Results gave %d results for %d models", got, want)
		}
		bench.Checks(rep.Results())
	})
}
