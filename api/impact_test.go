package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// impactSeries is a CSV of n days from 2018-01-01: visits with a weekly
// cycle and deterministic noise; from day shiftFrom on (the event) visits
// are shift higher.
func impactSeries(n, shiftFrom int, shift float64) string {
	var b strings.Builder
	b.WriteString("day,visits\n")
	week := []float64{10, 12, 15, 14, 20, 35, 30}
	for i := range n {
		d := time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		y := 200 + week[i%7] + 3*math.Sin(float64(i)*1.7) + 2*math.Cos(float64(i)*0.9)
		if i >= shiftFrom {
			y += shift
		}
		fmt.Fprintf(&b, "%s,%.3f\n", d, y)
	}
	return b.String()
}

// impactJSON is the impact part of a session.
type impactJSON struct {
	forecastJSON
	EventName string            `json:"eventName"`
	Extra     map[string]string `json:"extraParameters"`
}

// runImpact creates an impact session on source for 2018-05-01…05-14
// (days 120…133) and waits for it.
func (s *testServer) runImpact(t *testing.T, source string) (impactJSON, sessionJSON) {
	t.Helper()
	res := s.do(t, http.MethodPost, "/v1/sessions/impact",
		`{"dataSourceName": "`+source+`", "targetColumn": "visits", "eventName": "spring-promo", "startDate": "2018-05-01", "endDate": "2018-05-14", "resultInterval": "day"}`,
		"Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST /sessions/impact = %d %s", res.status, res.body)
	}
	created := decode[impactJSON](t, res)
	return created, s.waitSession(t, created.SessionID)
}

func TestImpactSessionLevelShift(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "shifted", impactSeries(160, 120, 40))
	res := s.do(t, http.MethodPost, "/v1/sessions/impact",
		`{"dataSourceName": "shifted", "targetColumn": "visits", "eventName": "spring-promo", "startDate": "2018-05-01", "endDate": "2018-05-14"}`,
		"Content-Type", "application/json")
	if res.status != http.StatusOK {
		t.Fatalf("POST /sessions/impact = %d %s", res.status, res.body)
	}
	goldenSession(t, "impact_created", res.body)
	created := decode[impactJSON](t, res)
	if created.Type != "impact" || created.PredictionDomain != "impact" || created.Name != "Impact on shifted" ||
		created.EventName != "spring-promo" || created.Extra["event"] != "spring-promo" || len(created.Extra) != 1 {
		t.Errorf("created = %+v", created)
	}
	done := s.waitSession(t, created.SessionID)
	if done.Status != "completed" || done.Algorithm == nil || done.Algorithm.Key != "ARIMA" {
		t.Fatalf("session = %+v, want completed with ARIMA", done)
	}
	for q, n := range map[string]int{"spring-promo": 1, "other-event": 0} {
		l := decode[struct{ Items []sessionJSON }](t, s.do(t, http.MethodGet, "/v1/sessions?pageSize=100&eventName="+q, nil))
		if len(l.Items) != n {
			t.Errorf("GET /sessions?eventName=%s = %d sessions, want %d", q, len(l.Items), n)
		}
	}
	sid := "/v1/sessions/" + done.SessionID
	res = s.do(t, http.MethodGet, sid, nil)
	goldenSession(t, "impact_completed", res.body)
	got := decode[impactJSON](t, res)
	if got.Extra["event"] != "spring-promo" || got.EventName != "spring-promo" {
		t.Errorf("completed = %+v", got)
	}

	res = s.do(t, http.MethodGet, sid+"/results?pageSize=3", nil)
	goldenSession(t, "impact_results", res.body)
	all := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100", nil))
	if all.TotalCount != 14 || len(all.Data) != 14 || all.Data[0]["day"] != "2018-05-01T00:00:00.0000000Z" || len(all.Data[0]) != 2 {
		t.Fatalf("results = %d of %d: %v", len(all.Data), all.TotalCount, all.Data)
	}
	if len(all.Metrics) != 3 {
		t.Errorf("metrics = %v, want pValue, absoluteEffect and relativeEffect only", all.Metrics)
	}
	// The counterfactual is near the unshifted level (about 219 a day).
	var cf float64
	for _, r := range all.Data {
		var v float64
		fmt.Sscan(r["visits"], &v)
		cf += v
	}
	if cf/14 < 205 || cf/14 > 235 {
		t.Errorf("counterfactual mean %g, want near 219", cf/14)
	}
	if p := all.Metrics["pValue"]; p >= 0.05 {
		t.Errorf("pValue = %g, want < 0.05 for a shift of 40 a day", p)
	}
	if a := all.Metrics["absoluteEffect"]; a < 14*40*0.7 || a > 14*40*1.3 {
		t.Errorf("absoluteEffect = %g, want near %d", a, 14*40)
	}
	if r := all.Metrics["relativeEffect"]; r < 0.1 || r > 0.25 {
		t.Errorf("relativeEffect = %g, want near 0.18", r)
	}
	for _, k := range []string{"pValue", "absoluteEffect", "relativeEffect"} {
		if v := all.Metrics[k]; math.Abs(v*1e4-math.Round(v*1e4)) > 1e-6 {
			t.Errorf("%s = %v, not rounded to 4 decimals", k, v)
		}
	}

	// The counterfactual's upper quantile lies above its median; no outliers.
	hi := decode[forecastResults](t, s.do(t, http.MethodGet, sid+"/results?pageSize=100&predictionInterval=0.95", nil))
	if len(hi.Data) != 14 || hi.Data[0]["visits"] == all.Data[0]["visits"] {
		t.Errorf("0.95 rows = %v, median %v", hi.Data, all.Data[0])
	}
	var lo, up float64
	fmt.Sscan(all.Data[0]["visits"], &lo)
	fmt.Sscan(hi.Data[0]["visits"], &up)
	if up <= lo {
		t.Errorf("0.95 quantile %g not above the median %g", up, lo)
	}
	if res := s.do(t, http.MethodGet, sid+"/results/outliers", nil); res.status != http.StatusOK || !strings.Contains(string(res.body), `"data":[]`) {
		t.Errorf("outliers = %d %s", res.status, res.body)
	}

	// The contest: one contestant, championMetric pValue.
	res = s.do(t, http.MethodGet, sid+"/contest", nil)
	goldenSession(t, "impact_contest", res.body)
	var contest struct {
		ChampionMetric string `json:"championMetric"`
		Champion       struct {
			Metrics   map[string]float64
			Algorithm struct{ Key string }
		}
		Contestants []json.RawMessage
	}
	if err := json.Unmarshal(res.body, &contest); err != nil {
		t.Fatal(err)
	}
	if contest.ChampionMetric != "pValue" || len(contest.Contestants) != 1 || len(contest.Champion.Metrics) != 3 ||
		contest.Champion.Algorithm.Key != done.Algorithm.Key {
		t.Errorf("contest = %s", res.body)
	}
}

func TestImpactSessionNoShift(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "flat", impactSeries(160, 1000, 0))
	_, done := s.runImpact(t, "flat")
	if done.Status != "completed" {
		t.Fatalf("session = %+v", done)
	}
	r := decode[forecastResults](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=100", nil))
	if p := r.Metrics["pValue"]; p < 0.05 {
		t.Errorf("pValue = %g without a shift, want not tiny (metrics %v)", p, r.Metrics)
	}
	if a := r.Metrics["absoluteEffect"]; math.Abs(a) > 14*10 {
		t.Errorf("absoluteEffect = %g without a shift", a)
	}
}

func TestImpactSessionValidation(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.putCSV(t, "shifted", impactSeries(160, 120, 40)) // 2018-01-01 … 2018-06-09
	post := func(body string) response {
		return s.do(t, http.MethodPost, "/v1/sessions/impact", body, "Content-Type", "application/json")
	}
	ok := `"dataSourceName": "shifted", "targetColumn": "visits"`
	e := wantError(t, "after the data", post(`{`+ok+`, "eventName": "e", "startDate": "2018-06-01", "endDate": "2018-06-20"}`), 400, "InvalidDateRange", "startDate")
	if e.Message != "End Date must be before the last date in the data source" || e.ErrorDetails["endDate"] == nil {
		t.Errorf("after the data = %+v", e)
	}
	wantError(t, "start after the data", post(`{`+ok+`, "eventName": "e", "startDate": "2018-07-01", "endDate": "2018-07-20"}`), 400, "InvalidDateRange", "endDate")
	e = wantError(t, "reversed", post(`{`+ok+`, "eventName": "e", "startDate": "2018-05-10", "endDate": "2018-05-01"}`), 400, "InvalidDateRange", "startDate")
	if e.Message != "Start Date must be before End Date" || e.ErrorDetails["endDate"] == nil {
		t.Errorf("reversed = %+v", e)
	}
	wantError(t, "no event", post(`{`+ok+`, "startDate": "2018-05-01", "endDate": "2018-05-14"}`), 400, "RequestValidation", "eventName")
	wantError(t, "no dates", post(`{`+ok+`, "eventName": "e"}`), 400, "RequestValidation", "startDate")
	if res := s.do(t, http.MethodGet, "/v1/sessions?page=0&pageSize=1", nil); res.header.Get("Nexosis-Account-SessionCount-Current") != "0" {
		t.Errorf("refused requests counted as sessions: %s", res.header.Get("Nexosis-Account-SessionCount-Current"))
	}
}

// A pre-period shorter than three windows (35 days before a 14-day
// window) falls back to ETS; the shift is still found.
func TestImpactSessionETSFallback(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var b strings.Builder
	b.WriteString("day,visits\n")
	week := []float64{10, 12, 15, 14, 20, 35, 30}
	for i := range 49 {
		y := 200 + week[i%7] + 3*math.Sin(float64(i)*1.7)
		if i >= 35 {
			y += 60
		}
		fmt.Fprintf(&b, "%s,%.3f\n", time.Date(2018, 3, 27+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), y)
	}
	s.putCSV(t, "short", b.String())
	_, done := s.runImpact(t, "short") // 2018-05-01 is day 35
	if done.Status != "completed" || done.Algorithm == nil || done.Algorithm.Key != "ETS" {
		t.Fatalf("session = %+v, want completed with ETS", done)
	}
	r := decode[forecastResults](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=100", nil))
	if r.Metrics["pValue"] >= 0.05 || r.Metrics["absoluteEffect"] < 14*60*0.6 || len(r.Metrics) != 3 {
		t.Errorf("metrics = %v, want a significant positive effect near %d", r.Metrics, 14*60)
	}
}

// With a feature the counterfactual is ARIMAX on its window values: a
// regressor that explains the rise in the window leaves no effect, the
// same rise without it is one.
func TestImpactSessionRegressor(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var b strings.Builder
	b.WriteString("day,visits,ads\n")
	for i := range 160 {
		ads := float64((i*7)%5) + 0.5*math.Sin(float64(i))
		if i >= 120 {
			ads += 6
		}
		y := 200 + 5*ads + 3*math.Sin(float64(i)*1.7) + 2*math.Cos(float64(i)*0.9)
		fmt.Fprintf(&b, "%s,%.3f,%.3f\n", time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), y, ads)
	}
	s.putCSV(t, "ads", b.String())
	_, done := s.runImpact(t, "ads")
	if done.Status != "completed" || done.Algorithm == nil || done.Algorithm.Key != "ARIMAX" {
		t.Fatalf("session = %+v, want completed with ARIMAX", done)
	}
	r := decode[forecastResults](t, s.do(t, http.MethodGet, "/v1/sessions/"+done.SessionID+"/results?pageSize=100", nil))
	if r.Metrics["pValue"] < 0.05 || math.Abs(r.Metrics["absoluteEffect"]) > 14*10 {
		t.Errorf("metrics = %v, want the regressor to explain the rise", r.Metrics)
	}
}

// TestImpactSessionEstimateAndRestart: an estimate of an impact session
// is answered at once and runs nothing; an impact session requested before
// a restart runs after it with its event and window, and GET /sessions
// finds it by type, event and the request dates.
func TestImpactSessionEstimateAndRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newServer(t, withDir(dir))
	s.putCSV(t, "shifted", impactSeries(160, 120, 40))
	body := `{"dataSourceName": "shifted", "targetColumn": "visits", "eventName": "spring-promo", "startDate": "2018-05-01", "endDate": "2018-05-14"}`
	res := s.do(t, http.MethodPost, "/v1/sessions/impact?isEstimate=true", body, "Content-Type", "application/json")
	est := decode[impactJSON](t, res)
	time.Sleep(1100 * time.Millisecond) // requestedAfterDate below has whole seconds
	before := time.Now().UTC().Add(-50 * time.Millisecond).Format(time.RFC3339Nano)
	if res.status != http.StatusOK || est.Status != "estimated" || !est.IsEstimate || est.EventName != "spring-promo" ||
		res.header.Get("Nexosis-Session-Status") != "Estimated" {
		t.Fatalf("estimate = %d %s", res.status, res.body)
	}
	created := decode[impactJSON](t, s.do(t, http.MethodPost, "/v1/sessions/impact", body, "Content-Type", "application/json"))
	forecastID := s.createForecast(t, `{"dataSourceName": "shifted", "targetColumn": "visits", "startDate": "2018-06-09", "endDate": "2018-06-12"}`).SessionID
	s.Close()

	s2 := newServer(t, withDir(dir))
	done := s2.waitSession(t, created.SessionID)
	if done.Status != "completed" {
		t.Fatalf("impact after restart = %+v", done)
	}
	got := decode[impactJSON](t, s2.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID, nil))
	if got.EventName != "spring-promo" || got.Extra["event"] != "spring-promo" || got.StartDate != "2018-05-01T00:00:00+00:00" || got.EndDate != "2018-05-14T00:00:00+00:00" {
		t.Errorf("impact after restart = %+v", got)
	}
	all := decode[forecastResults](t, s2.do(t, http.MethodGet, "/v1/sessions/"+created.SessionID+"/results?pageSize=100", nil))
	if all.TotalCount != 14 || all.Metrics["pValue"] >= 0.05 {
		t.Errorf("results after restart = %d rows, metrics %v", all.TotalCount, all.Metrics)
	}
	s2.waitSession(t, forecastID)
	// The estimate is kept as such and never runs.
	if e := decode[impactJSON](t, s2.do(t, http.MethodGet, "/v1/sessions/"+est.SessionID, nil)); e.Status != "estimated" {
		t.Errorf("estimate after restart = %+v", e)
	}

	esc := func(v string) string { return strings.ReplaceAll(v, "+", "%2B") }
	for q, want := range map[string]string{
		"type=impact":                                          created.SessionID + "," + est.SessionID,
		"sessionType=forecast":                                 forecastID,
		"type=impact&eventName=spring-promo":                   created.SessionID + "," + est.SessionID,
		"type=forecast&eventName=spring-promo":                 "",
		"eventName=other":                                      "",
		"requestedAfterDate=" + esc(before):                    created.SessionID + "," + forecastID,
		"requestedBeforeDate=" + esc(before):                   est.SessionID,
		"requestedAfterDate=" + esc(before) + "&type=forecast": forecastID,
		"dataSourceName=shifted&type=impact":                   created.SessionID + "," + est.SessionID,
	} {
		l := decode[struct{ Items []sessionJSON }](t, s2.do(t, http.MethodGet, "/v1/sessions?pageSize=100&"+q, nil))
		var ids []string
		for _, it := range l.Items {
			ids = append(ids, it.SessionID)
		}
		slices.Sort(ids)
		w := strings.Split(want, ",")
		if want == "" {
			w = nil
		}
		slices.Sort(w)
		if !slices.Equal(ids, w) {
			t.Errorf("GET /sessions?%s = %v, want %v", q, ids, w)
		}
	}
}
