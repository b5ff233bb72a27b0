package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dailySeries is a CSV of n days from 2018-01-01: sales with a weekly
// cycle, a trend and a promo feature that adds 30 on its days; promo has
// values for extra days past the sales (the forecast window), and one
// sales day (day 100) is a spike the outlier cleaning must find. Day 50
// has no row at all (an empty bucket, imputed with zero by default).
func dailySeries(n, extra int) string {
	var b strings.Builder
	b.WriteString("day,sales,promo\n")
	week := []float64{10, 12, 15, 14, 20, 35, 30}
	for i := range n + extra {
		d := time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		promo := 0
		if i%11 == 3 {
			promo = 1
		}
		if i >= n {
			fmt.Fprintf(&b, "%s,,%d\n", d, promo)
			continue
		}
		if i == 50 {
			continue
		}
		y := 100 + 0.05*float64(i) + week[i%7] + 30*float64(promo) + 2*math.Sin(float64(i)*1.7)
		if i == 100 {
			y += 400
		}
		fmt.Fprintf(&b, "%s,%.3f,%d\n", d, y, promo)
	}
	return b.String()
}

// monthlySeries is a CSV of n months from 2005-01: orders with an
// annual cycle and a trend, as two rows per month of half the value each
// (the session's aggregation sum adds them up), and a temp feature with
// values over the data only.
func monthlySeries(n int) string {
	var b strings.Builder
	b.WriteString("timestamp,orders,temp\n")
	for i := range n {
		y := 80 + 0.2*float64(i) + 15*math.Sin(2*math.Pi*float64(i%12)/12) + 3*math.Cos(float64(i)*2.3)
		for _, day := range []int{3, 17} {
			fmt.Fprintf(&b, "%s,%.3f,%.1f\n", time.Date(2005, time.Month(1+i), day, 6, 0, 0, 0, time.UTC).Format(time.RFC3339), y/2, 10+float64(i%12))
		}
	}
	return b.String()
}

// forecastJSON is the forecast part of a session.
type forecastJSON struct {
	sessionJSON
	StartDate      string   `json:"startDate"`
	EndDate        string   `json:"endDate"`
	ResultInterval string   `json:"resultInterval"`
	Intervals      []string `json:"availablePredictionIntervals"`
}

// forecastResults is GET /results of a forecast.
type forecastResults struct {
	Metrics    map[string]float64  `json:"metrics"`
	Data       []map[string]string `json:"data"`
	TotalCount int                 `json:"totalCount"`
	Links      []linkJSON          `json:"links"`
}

// createForecast posts a forecast session and wants 200.
func (s *testServer) createForecast(t testing.TB, body string) forecastJSON {
	t.Helper()
	res := s.do(t, http.MethodPost, "/v1/sessions/forecast", body, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST /sessions/forecast = %d %s", res.status, res.body)
	}
	return decode[forecastJSON](t, res)
}

func TestForecastSessionDailyWithFeature(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "store", dailySeries(200, 14))
	res := s.do(t, http.MethodPost, "/v1/sessions/forecast",
		`{"dataSourceName": "store", "targetColumn": "sales", "startDate": "2018-07-20T00:00:00Z", "endDate": "2018-08-02", "resultInterval": "Day"}`,
		"Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST /sessions/forecast = %d %s", res.status, res.body)
	}
	goldenSession(t, "forecast_created", res.body)
	created := decode[forecastJSON](t, res)
	if created.Type != "forecast" || created.PredictionDomain != "forecast" || created.Name != "Forecast on store" ||
		created.StartDate != "2018-07-20T00:00:00+00:00" || created.EndDate != "2018-08-02T00:00:00+00:00" || created.ResultInterval != "day" ||
		strings.Join(created.Intervals, ",") != "0.5" {
		t.Errorf("created = %+v", created)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" || done.Algorithm == nil || done.ModelID != "" || !done.SupportsFeatureImportance {
		t.Fatalf("session = %+v, want completed with an algorithm, feature importance and no model", done)
	}
	msgs := []string{}
	for _, m := range done.Messages {
		msgs = append(msgs, m.Message)
	}
	if len(msgs) < 2 || msgs[0] != "199 observations were found in the dataset." ||
		msgs[1] != "199 daily observations were found in the dataset before 2018-08-02T23:59:59.9999999Z." ||
		!slices.Contains(msgs, "The seasonal candidates +A (a period of 365.25 day buckets) were left out: the 186 buckets they would be fitted on hold fewer than two cycles.") {
		t.Errorf("messages = %q", msgs)
	}
	sid := "/v1/sessions/" + done.SessionID
	res = s.do(t, http.MethodGet, sid, nil)
	goldenSession(t, "forecast_completed", res.body)
	got := decode[forecastJSON](t, res)
	if strings.Join(got.Intervals, ",") != "0.01,0.05,0.2,0.5,0.8,0.95,0.99" {
		t.Errorf("availablePredictionIntervals = %v, want the 7 levels", got.Intervals)
	}

	// Results: one row per day of the window, timestamp and target.
	res = s.do(t, http.MethodGet, sid+"/results?pageSize=3", nil)
	goldenSession(t, "forecast_results", res.body)
	all := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	if all.TotalCount != 14 || len(all.Data) != 14 {
		t.Fatalf("results = %d rows of %d, want 14", len(all.Data), all.TotalCount)
	}
	if all.Data[0]["day"] != "2018-07-20T00:00:00.0000000Z" || all.Data[13]["day"] != "2018-08-02T00:00:00.0000000Z" || len(all.Data[0]) != 2 {
		t.Errorf("results rows = %v .. %v", all.Data[0], all.Data[13])
	}
	for _, k := range []string{"meanAbsoluteError", "meanAbsolutePercentError", "meanAbsoluteScaledError", "rootMeanSquareError"} {
		if _, ok := all.Metrics[k]; !ok {
			t.Errorf("metrics = %v, want %s", all.Metrics, k)
		}
	}
	// The promo days of the window (i%11 == 3) forecast about 30 more.
	med := map[string]float64{}
	for i, row := range all.Data {
		v, err := strconv.ParseFloat(row["sales"], 64)
		if err != nil {
			t.Fatalf("row %d sales %q", i, row["sales"])
		}
		med[row["day"]] = v
		want := 100 + 0.05*float64(200+i) + []float64{10, 12, 15, 14, 20, 35, 30}[(200+i)%7]
		if (200+i)%11 == 3 {
			want += 30
		}
		if math.Abs(v-want) > 8 {
			t.Errorf("forecast of %s = %.2f, want about %.2f", row["day"], v, want)
		}
	}
	lo := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100&predictionInterval=0.05", nil))
	hi := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100&predictionInterval=.95", nil))
	for i := range lo.Data {
		l, _ := strconv.ParseFloat(lo.Data[i]["sales"], 64)
		h, _ := strconv.ParseFloat(hi.Data[i]["sales"], 64)
		if m := med[lo.Data[i]["day"]]; !(l <= m && m <= h && l < h) {
			t.Errorf("row %d: 0.05 %v, 0.5 %v, 0.95 %v not ordered", i, l, m, h)
		}
	}
	wantError(t, "unknown level", s.do(t, http.MethodGet, sid+"/results?predictionInterval=0.3", nil), 400, "RequestValidation", "predictionInterval")
	rels := map[string]bool{}
	for _, l := range all.Links {
		rels[l.Rel] = true
	}
	for _, r := range []string{"contest", "outliers", "prediction-interval:0.01", "prediction-interval:0.99"} {
		if !rels[r] {
			t.Errorf("results links %v lack %s", rels, r)
		}
	}
	res = s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil, "Accept", "text/csv")
	lines := strings.Split(strings.TrimSpace(string(res.body)), "\n")
	if res.status != http.StatusOK || len(lines) != 15 || lines[0] != "day,sales" || res.header.Get("Nexosis-Session-Status") != "Completed" {
		t.Errorf("results as CSV = %d %q", res.status, lines)
	}

	// Outliers: the spike of day 100 (2018-04-11).
	res = s.do(t, http.MethodGet, sid+"/results/outliers", nil)
	goldenSession(t, "forecast_outliers", res.body)
	out := decode[forecastResults](t, res)
	found := false
	for _, row := range out.Data {
		if row["day"] == "2018-04-11T00:00:00.0000000Z" {
			found = true
			a, _ := strconv.ParseFloat(row["sales:actual"], 64)
			sm, _ := strconv.ParseFloat(row["sales:smooth"], 64)
			if a < 500 || sm > 300 {
				t.Errorf("outlier row = %v, want actual above 500 smoothed below 300", row)
			}
		}
	}
	if !found {
		t.Errorf("outliers = %v, want 2018-04-11", out.Data)
	}

	// Feature importance: promo, the one regressor, scores 1.
	res = s.do(t, http.MethodGet, sid+"/results/featureimportance", nil)
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"featureImportance":{"promo":1}`) {
		t.Errorf("featureimportance = %d %s", res.status, res.body)
	}

	// The contest.
	res = s.do(t, http.MethodGet, sid+"/contest", nil)
	goldenForecastContest(t, "forecast_contest", res.body)
	var contest struct {
		ChampionMetric string `json:"championMetric"`
		Champion       struct {
			ID        string
			Metrics   map[string]float64
			Algorithm struct{ Key string }
		}
		Contestants []struct {
			ID                   string
			Algorithm            struct{ Key string }
			DataSourceProperties []string `json:"dataSourceProperties"`
			Metrics              map[string]float64
		}
	}
	if err := json.Unmarshal(res.body, &contest); err != nil {
		t.Fatal(err)
	}
	if contest.ChampionMetric != "meanAbsoluteError" || contest.Champion.Algorithm.Key != done.Algorithm.Key {
		t.Errorf("champion %s by %s, session algorithm %s", contest.Champion.Algorithm.Key, contest.ChampionMetric, done.Algorithm.Key)
	}
	keys, smoothed, failed := map[string]bool{}, false, ""
	for _, c := range contest.Contestants {
		keys[c.Algorithm.Key] = true
		switch strings.Join(c.DataSourceProperties, ",") {
		case "Aggregated,Imputed,Smoothed":
			smoothed = true
		case "Aggregated,Imputed":
		default:
			t.Errorf("contestant %s dataSourceProperties %v", c.Algorithm.Key, c.DataSourceProperties)
		}
		if len(c.Metrics) == 0 {
			failed = c.ID
			continue
		}
		if c.Metrics["meanAbsoluteError"] < contest.Champion.Metrics["meanAbsoluteError"] {
			t.Errorf("contestant %s beats the champion's MAE", c.Algorithm.Key)
		}
	}
	for _, k := range []string{"naive", "seasonal_naive+W", "ETS+W", "TSLM+W", "LM", "ENSEMBLE"} {
		if !keys[k] {
			t.Errorf("contestants %v lack %s", keys, k)
		}
	}
	if !smoothed {
		t.Errorf("no Smoothed contestant")
	}
	res = s.do(t, http.MethodGet, sid+"/contest/champion?pageSize=100", nil)
	goldenSession(t, "forecast_champion", firstRows(t, res.body, 2))
	champ := decode[forecastResults](t, res)
	if champ.TotalCount != 14 || champ.Data[0]["day"] != "2018-07-06T00:00:00.0000000Z" || champ.Data[0]["sales:actual"] == "" || len(champ.Data[0]) != 3 {
		t.Errorf("champion rows = %d %v, want the 14 holdout days from 2018-07-06 with actuals", champ.TotalCount, champ.Data)
	}
	res = s.do(t, http.MethodGet, sid+"/contest/contestants", nil)
	if res.status != http.StatusOK {
		t.Errorf("GET contestants = %d %s", res.status, res.body)
	}
	if failed != "" {
		res = s.do(t, http.MethodGet, sid+"/contest/contestants/"+failed, nil)
		if res.status != http.StatusOK || !strings.Contains(string(res.body), `"metrics":{}`) {
			t.Errorf("GET failed contestant = %d %s", res.status, res.body)
		}
	}
	res = s.do(t, http.MethodGet, sid+"/contest/selection", nil)
	goldenSession(t, "forecast_selection", res.body)
	// 200 days of history: day 50, without a row, imputed.
	if !strings.Contains(string(res.body), `"metrics":{"featureCount":1,"observationCount":200,"testCount":14,"trainingCount":186,"weeklySeasonality":`) {
		t.Errorf("selection = %s", res.body)
	}
}

// firstRows keeps the first n rows of a rows response's data for a golden.
func firstRows(t *testing.T, body []byte, n int) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(m["data"], &rows); err != nil {
		t.Fatal(err)
	}
	cut, err := json.Marshal(rows[:min(n, len(rows))])
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.Replace(string(body), string(m["data"]), string(cut), 1))
}

// goldenForecastContest keeps a contest's shape: the contestants' list
// depends on the data (which seasons fit, which candidates fail), so it is
// cut to its first entry.
func goldenForecastContest(t *testing.T, name string, body []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var cs []json.RawMessage
	if err := json.Unmarshal(m["contestants"], &cs); err != nil {
		t.Fatal(err)
	}
	cut, _ := json.Marshal(cs[:1])
	goldenSession(t, name, []byte(strings.Replace(string(body), string(m["contestants"]), string(cut), 1)))
}

func TestForecastSessionMonthly(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "orders", monthlySeries(120))
	// A view of the dataset is a data source like any other.
	if res := s.do(t, http.MethodPut, "/v1/views/ordersview", `{"dataSetName": "orders"}`); res.status != http.StatusCreated {
		t.Fatalf("PUT view = %d %s", res.status, res.body)
	}
	// Parameters in the query and the body, as the Ruby client sends
	// them; the window a year after the data (a gap of 12 months that
	// the forecast covers and does not return).
	const query = "/v1/sessions/forecast?dataSetName=ordersview&targetColumn=orders&resultInterval=month&startDate=2016-01-15&endDate=2016-12-01"
	body := `{"columns": {"orders": {"dataType": "numericMeasure", "aggregation": "sum"}}}`
	res := s.do(t, http.MethodPost, query+"&isEstimate=true", body, "Content-Type", "application/json")
	if est := decode[forecastJSON](t, res); res.status != http.StatusOK || est.Status != "estimated" || !est.IsEstimate {
		t.Errorf("estimate = %d %s", res.status, res.body)
	}
	res = s.do(t, http.MethodPost, query, body, "Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST forecast = %d %s", res.status, res.body)
	}
	created := decode[forecastJSON](t, res)
	if created.ResultInterval != "month" || created.DataSourceName != "ordersview" {
		t.Errorf("created = %+v", created)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	var msgs []string
	for _, m := range done.Messages {
		msgs = append(msgs, m.Severity+": "+m.Message)
	}
	want := []string{
		"informational: 240 observations were found in the dataset.",
		"informational: 120 monthly observations were found in the dataset before 2016-12-31T23:59:59.9999999Z.",
		"warning: Feature column temp has no values for the prediction range of 2016-01-01T00:00:00.0000000Z - 2016-12-31T23:59:59.9999999Z",
		"informational: The last value of orders is 12 month buckets before the forecast window; the forecast runs from 2015-01-01T00:00:00.0000000Z and only the window is returned.",
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if done.SupportsFeatureImportance {
		t.Errorf("supportsFeatureImportance with its one feature dropped")
	}
	sid := "/v1/sessions/" + done.SessionID
	all := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	if all.TotalCount != 12 || all.Data[0]["timestamp"] != "2016-01-01T00:00:00.0000000Z" || all.Data[11]["timestamp"] != "2016-12-01T00:00:00.0000000Z" {
		t.Fatalf("results = %d %v", all.TotalCount, all.Data)
	}
	for i, row := range all.Data {
		v, _ := strconv.ParseFloat(row["orders"], 64)
		k := 132 + i
		want := 80 + 0.2*float64(k) + 15*math.Sin(2*math.Pi*float64(k%12)/12)
		if math.Abs(v-want) > 8 {
			t.Errorf("forecast of %s = %.2f, want about %.2f", row["timestamp"], v, want)
		}
	}
	champ := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/contest/champion?pageSize=100", nil))
	if champ.TotalCount != 12 || champ.Data[0]["timestamp"] != "2014-01-01T00:00:00.0000000Z" {
		t.Errorf("champion rows = %d %v, want the 12 holdout months of 2014", champ.TotalCount, champ.Data)
	}
	var c struct {
		Contestants []struct{ Algorithm struct{ Key, Name string } }
	}
	if err := json.Unmarshal(s.do(t, http.MethodGet, sid+"/contest", nil).body, &c); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, ct := range c.Contestants {
		names[ct.Algorithm.Key] = ct.Algorithm.Name
	}
	if names["ETS+MA"] != "ETS w/ Annual" || names["seasonal_mean+MA"] != "Seasonal Mean w/ Annual" {
		t.Errorf("contestant names = %v", names)
	}
}

func TestForecastSessionBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "store", dailySeries(60, 0))
	s.putCSV(t, "flat", "a,b\n1,2\n3,4\n")
	s.putCSV(t, "words", "day,w\n2018-01-01,x\n2018-01-02,y\n")
	s.putJSON(t, "typed", `{"columns": {"day": {"dataType": "date", "role": "timestamp"}, "y": {"dataType": "numeric", "role": "target"}}}`)
	post := func(body string) response {
		return s.do(t, http.MethodPost, "/v1/sessions/forecast", body, "Content-Type", "application/json")
	}
	const ok = `"dataSourceName": "store", "targetColumn": "sales"`
	for _, c := range []struct {
		name, body, errorType, detail string
		status                        int
	}{
		{"unknown source", `{"dataSourceName": "nope", "targetColumn": "y", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "NotFound", "", 404},
		{"no source", `{"targetColumn": "y", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "RequestValidation", "dataSourceName", 400},
		{"no start", `{` + ok + `, "endDate": "2018-03-05"}`, "RequestValidation", "startDate", 400},
		{"no end", `{` + ok + `, "startDate": "2018-03-05"}`, "RequestValidation", "endDate", 400},
		{"bad start", `{` + ok + `, "startDate": "soon", "endDate": "2018-03-05"}`, "RequestValidation", "startDate", 400},
		{"bad interval", `{` + ok + `, "startDate": "2018-03-01", "endDate": "2018-03-05", "resultInterval": "seconds"}`, "RequestValidation", "resultInterval", 400},
		{"reversed dates", `{` + ok + `, "startDate": "2018-03-05", "endDate": "2018-03-01"}`, "InvalidDateRange", "startDate", 400},
		{"window past -max-forecast-buckets", `{` + ok + `, "resultInterval": "hour", "startDate": "2018-03-01", "endDate": "2019-03-01"}`, "RequestValidation", "endDate", 400},
		{"target not in data", `{"dataSourceName": "store", "targetColumn": "zz", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "InvalidColumnMetadata", "zz", 400},
		{"string target", `{"dataSourceName": "words", "targetColumn": "w", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "InvalidColumnMetadata", "w", 400},
		{"no timestamp", `{"dataSourceName": "flat", "targetColumn": "b", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "InvalidColumnMetadata", "timestamp", 400},
		{"timestamp not a date", `{"dataSourceName": "flat", "targetColumn": "b", "startDate": "2018-03-01", "endDate": "2018-03-05", "columns": {"a": {"role": "timestamp"}}}`, "InvalidColumnMetadata", "a", 400},
		{"no rows", `{"dataSourceName": "typed", "startDate": "2018-03-01", "endDate": "2018-03-05"}`, "NoData", "dataSetName", 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, c.name, post(c.body), c.status, c.errorType, c.detail)
		})
	}
	wantError(t, "impact", s.do(t, http.MethodPost, "/v1/sessions/impact", `{`+ok+`, "startDate": "2018-03-01", "endDate": "2018-03-05"}`), 400, "RequestValidation", "eventName")
	if res := s.do(t, http.MethodGet, "/v1/sessions?page=0&pageSize=1", nil); res.header.Get("Nexosis-Account-SessionCount-Current") != "0" {
		t.Errorf("refused requests counted as sessions: %s", res.header.Get("Nexosis-Account-SessionCount-Current"))
	}

	// Known only when the data is read: the session fails with a message.
	for _, c := range []struct{ name, body, message string }{
		{"history shorter than twice the window", `{` + ok + `, "startDate": "2018-03-02", "endDate": "2018-04-10"}`,
			"This data source has too few data points for reliable predictions to be made: 60 day buckets of sales before 2018-03-02T00:00:00.0000000Z, at least 80 are needed (twice the 40 buckets of the forecast window)."},
		{"window before the data", `{` + ok + `, "startDate": "2017-03-01", "endDate": "2017-03-10"}`,
			"No value of sales was found before the forecast window starts at 2017-03-01T00:00:00.0000000Z."},
		{"gap too long", `{` + ok + `, "resultInterval": "hour", "startDate": "2019-03-01", "endDate": "2019-03-02"}`,
			"The forecast window starts 8760 hour buckets after the last value of sales (2018-03-01T00:00:00.0000000Z); at most 5000 buckets can be forecast past the data."},
	} {
		t.Run(c.name, func(t *testing.T) {
			created := s.createForecast(t, c.body)
			done := s.waitSession(t, created.SessionID)
			if done.Status != "failed" || len(done.Messages) == 0 || done.Messages[len(done.Messages)-1].Message != c.message {
				t.Errorf("session = %s %+v, want failed with %q", done.Status, done.Messages, c.message)
			}
			res := s.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/results", nil)
			if res.status != http.StatusOK || !strings.Contains(string(res.body), `"data":[]`) {
				t.Errorf("results of a failed forecast = %d %s", res.status, res.body)
			}
			wantError(t, "contest of a failed forecast", s.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/contest", nil), 404, "NotFound", "")
		})
	}
}

// sharedSeries reads a series of the shared data directory
// (VATIC_SHARED_DATA, else the repository's sibling shared/data, from a
// clone or a worktree), or skips the test.
func sharedSeries(t *testing.T, file string) string {
	t.Helper()
	dirs := []string{os.Getenv("VATIC_SHARED_DATA"), "../../shared/data", "../../../shared/data"}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, file)); err == nil {
			return string(b)
		}
	}
	t.Skipf("no %s in %v (set VATIC_SHARED_DATA)", file, dirs)
	return ""
}

// TestForecastSessionWeeklyCO2: the Mauna Loa weekly series (2284 weeks
// from 1958) is capped to its last 2000 weeks, and the next year's
// forecast follows the seasonal rise.
func TestForecastSessionWeeklyCO2(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "co2", sharedSeries(t, "co2_weekly.csv"))
	created := s.createForecast(t, `{"dataSourceName": "co2", "targetColumn": "co2", "resultInterval": "week", "startDate": "2001-12-31", "endDate": "2002-12-23"}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	capped := false
	for _, m := range done.Messages {
		capped = capped || strings.HasPrefix(m.Message, "Only the last 2000 buckets of history, from ")
	}
	if !capped {
		t.Errorf("messages = %+v, want the 2000-bucket cap", done.Messages)
	}
	sid := "/v1/sessions/" + done.SessionID
	all := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	if all.TotalCount != 52 || all.Data[0]["timestamp"] != "2001-12-31T00:00:00.0000000Z" {
		t.Fatalf("results = %d rows from %v", all.TotalCount, all.Data[0])
	}
	// CO2 in 2002 ran between 370 and 377 ppm.
	for _, row := range all.Data {
		if v, err := strconv.ParseFloat(row["co2"], 64); err != nil || v < 366 || v > 381 {
			t.Errorf("forecast of %s = %q, want within [366, 381]", row["timestamp"], row["co2"])
		}
	}
	if mae := all.Metrics["meanAbsoluteError"]; mae <= 0 || mae > 2 {
		t.Errorf("holdout meanAbsoluteError = %v, want within (0, 2] ppm", mae)
	}
}

// TestForecastSessionSkippedCandidate: 36 months with a 12-month window
// leave 24 months to fit on, too few cycles for STL-ETS: it stays in the
// contest with metrics {} (REFERENCE §7, MODELLING §2.5) and a debug
// message names it.
func TestForecastSessionSkippedCandidate(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "orders", monthlySeries(36))
	created := s.createForecast(t, `{"dataSourceName": "orders", "targetColumn": "orders", "resultInterval": "month", "startDate": "2008-01-01", "endDate": "2008-12-01"}`)
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	debug := false
	for _, m := range done.Messages {
		debug = debug || m.Severity == "debug" && m.Message == "STL-ETS+MA was skipped: needs more than two full cycles (period 12, 24 points)."
	}
	if !debug {
		t.Errorf("messages = %+v, want STL-ETS+MA's skip", done.Messages)
	}
	sid := "/v1/sessions/" + done.SessionID
	var c struct {
		Contestants []struct {
			ID        string
			Algorithm struct{ Key string }
			Metrics   map[string]float64
		}
	}
	if err := json.Unmarshal(s.do(t, http.MethodGet, sid+"/contest", nil).body, &c); err != nil {
		t.Fatal(err)
	}
	skipped := ""
	for _, ct := range c.Contestants {
		if ct.Algorithm.Key == "STL-ETS+MA" {
			skipped = ct.ID
			if len(ct.Metrics) != 0 {
				t.Errorf("skipped contestant metrics = %v", ct.Metrics)
			}
		}
	}
	res := s.do(t, http.MethodGet, sid+"/contest/contestants/"+skipped, nil)
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"metrics":{}`) || !strings.Contains(string(res.body), `"data":[]`) {
		t.Errorf("GET skipped contestant = %d %s", res.status, res.body)
	}
	res = s.do(t, http.MethodGet, sid+"/contest/contestants?pageSize=100", nil)
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"metrics":{}`) {
		t.Errorf("GET contestants = %d %s", res.status, res.body)
	}
}

// TestForecastSessionIntervals: hourly buckets cut in UTC whatever the
// offset of startDate, and yearly ones without seasons.
func TestForecastSessionIntervals(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var hours, years strings.Builder
	hours.WriteString("at,load\n")
	for i := range 24 * 12 { // short enough to leave out the 168-hour season, so that -race stays quick
		at := time.Date(2018, 1, 1, i, 20, 0, 0, time.UTC)
		fmt.Fprintf(&hours, "%s,%.2f\n", at.Format(time.RFC3339), 50+20*math.Sin(2*math.Pi*float64(i%24)/24)+math.Cos(float64(i)))
	}
	s.putCSV(t, "hours", hours.String())
	years.WriteString("year,volume\n")
	for i := range 100 {
		fmt.Fprintf(&years, "%d-01-01,%.1f\n", 1871+i, 900+100*math.Sin(float64(i)*0.7)+float64(i))
	}
	s.putCSV(t, "years", years.String())
	for _, c := range []struct {
		name, body, ts, first, before, start string
		rows                                 int
	}{
		{"hour", `{"dataSourceName": "hours", "targetColumn": "load", "resultInterval": "hour", "startDate": "2018-01-12T08:30:00+08:00", "endDate": "2018-01-12T23:30:00Z"}`,
			"at", "2018-01-12T00:00:00.0000000Z", "264 hourly observations were found in the dataset before 2018-01-12T23:59:59.9999999Z.", "2018-01-12T00:30:00+00:00", 24},
		{"year", `{"dataSourceName": "years", "targetColumn": "volume", "resultInterval": "year", "startDate": "1971-06-01", "endDate": "1980-01-01"}`,
			"year", "1971-01-01T00:00:00.0000000Z", "100 yearly observations were found in the dataset before 1980-12-31T23:59:59.9999999Z.", "1971-06-01T00:00:00+00:00", 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			created := s.createForecast(t, c.body)
			if created.StartDate != c.start {
				t.Errorf("startDate = %s, want %s", created.StartDate, c.start)
			}
			done := s.waitSession(t, created.SessionID)
			if done.Status != "completed" || len(done.Messages) < 2 || done.Messages[1].Message != c.before {
				t.Fatalf("session = %s %+v", done.Status, done.Messages)
			}
			all := decode[forecastResults](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=100", nil))
			if all.TotalCount != c.rows || all.Data[0][c.ts] != c.first {
				t.Errorf("results = %d rows from %v, want %d from %s", all.TotalCount, all.Data[0], c.rows, c.first)
			}
		})
	}
}

// TestForecastSessionSurvivesRestart: the window is kept with the
// request, so a forecast requested before a restart runs after it, and
// reads back its dates from the catalog.
func TestForecastSessionSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newServer(t, withDir(dir))
	s.putCSV(t, "orders", monthlySeries(60))
	created := s.createForecast(t, `{"dataSourceName": "orders", "targetColumn": "orders", "resultInterval": "month", "startDate": "2010-01-01", "endDate": "2010-06-01"}`)
	s.Close()
	s2 := newServer(t, withDir(dir))
	if done := s2.waitSession(t, created.SessionID); done.Status != "completed" {
		t.Fatalf("session after restart = %+v", done)
	}
	got := decode[forecastJSON](t, s2.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID, nil))
	if got.StartDate != "2010-01-01T00:00:00+00:00" || got.EndDate != "2010-06-01T00:00:00+00:00" || got.ResultInterval != "month" {
		t.Errorf("session after restart = %+v", got)
	}
	all := decode[forecastResults](t, s2.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/results", nil))
	if all.TotalCount != 6 {
		t.Errorf("results after restart = %d rows, want 6", all.TotalCount)
	}
}

// TestForecastSessionOffsetBuckets: buckets are cut in the offset
// startDate carries (MODELLING §2.2): a daily window from
// 2018-03-02T00:00:00+08:00 has days starting at 16:00Z, and the rows
// carry those starts in UTC.
func TestForecastSessionOffsetBuckets(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "store", dailySeries(60, 0))
	created := s.createForecast(t, `{"dataSourceName": "store", "targetColumn": "sales", "startDate": "2018-03-02T00:00:00+08:00", "endDate": "2018-03-05T00:00:00+08:00", "resultInterval": "day"}`)
	if created.StartDate != "2018-03-01T16:00:00+00:00" {
		t.Errorf("startDate = %s", created.StartDate)
	}
	if done := s.waitSession(t, created.SessionID); done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	all := decode[forecastResults](t, s.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/results?pageSize=100", nil))
	var days []string
	for _, r := range all.Data {
		days = append(days, r["day"])
	}
	want := []string{"2018-03-01T16:00:00.0000000Z", "2018-03-02T16:00:00.0000000Z", "2018-03-03T16:00:00.0000000Z", "2018-03-04T16:00:00.0000000Z"}
	if !slices.Equal(days, want) {
		t.Errorf("result days = %v, want %v", days, want)
	}
}
