package api

import (
	"bytes"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// requirePaid refuses the contest endpoints to a community-plan key
// (REFERENCE §7: 403).
func (s *Server) requirePaid(r *http.Request) error {
	if plan, ok := s.authenticate(r); ok && plan == PlanCommunity {
		return &engine.Error{Kind: engine.Forbidden, Msg: "The contest endpoints are not available on the community plan."}
	}
	return nil
}

// contestantJSON is a contestant (REFERENCE §2.8).
type contestantJSON struct {
	ID                   string                        `json:"id"`
	Algorithm            engine.Algorithm              `json:"algorithm"`
	DataSourceProperties []string                      `json:"dataSourceProperties"`
	Metrics              map[string]float64            `json:"metrics"`
	FeatureImportance    map[string]map[string]float64 `json:"algorithmFeatureImportance"`
	Links                []link                        `json:"links"`
}

func toContestantJSON(base, sessionID string, c engine.Contestant) contestantJSON {
	out := contestantJSON{ID: c.ID, Algorithm: c.Algorithm, DataSourceProperties: c.Properties, Metrics: c.Metrics,
		FeatureImportance: map[string]map[string]float64{},
		Links:             []link{{"self", base + "/sessions/" + sessionID + "/contest/contestants/" + c.ID}}}
	if out.Metrics == nil {
		out.Metrics = map[string]float64{}
	}
	if out.DataSourceProperties == nil {
		out.DataSourceProperties = []string{}
	}
	for f, v := range c.Importance {
		out.FeatureImportance[f] = map[string]float64{"value": v}
	}
	return out
}

// paidContest reads a session's contest for a paid-plan caller, with its
// contestants rendered.
func (s *Server) paidContest(r *http.Request, id string) (engine.Contest, []contestantJSON, error) {
	if err := s.requirePaid(r); err != nil {
		return engine.Contest{}, nil, err
	}
	c, err := s.engine.SessionContest(r.Context(), id)
	if err != nil {
		return c, nil, err
	}
	base := baseURL(r)
	cs := make([]contestantJSON, len(c.Contestants))
	for i, ct := range c.Contestants {
		cs[i] = toContestantJSON(base, c.Session.ID, ct)
	}
	return c, cs, nil
}

// contest answers GET /sessions/{id}/contest (REFERENCE §7.1).
func (s *Server) contest(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	c, cs, err := s.paidContest(r, p.ByName("id"))
	if err != nil {
		return err
	}
	base := baseURL(r)
	sid := base + "/sessions/" + c.Session.ID
	sj := toSessionJSON(base, c.Session, nil, s.opts.Compat)
	sj.Columns = nil
	sj.Links = []link{{"self", sid + "/contest"}, {"session", sid}, {"champion", sid + "/contest/champion"},
		{"contestants", sid + "/contest/contestants"}, {"selection", sid + "/contest/selection"}}
	return writeJSON(w, http.StatusOK, struct {
		ChampionMetric string           `json:"championMetric"`
		Champion       contestantJSON   `json:"champion"`
		Contestants    []contestantJSON `json:"contestants"`
		sessionJSON
	}{c.ChampionMetric, toContestantJSON(base, c.Session.ID, c.Champion), cs, sj})
}

// champion answers GET /sessions/{id}/contest/champion (REFERENCE §7.2).
func (s *Server) champion(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.contestantRows(w, r, p.ByName("id"), "")
}

// contestant answers GET /sessions/{id}/contest/contestants/{cid}
// (REFERENCE §7.4).
func (s *Server) contestant(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return s.contestantRows(w, r, p.ByName("id"), p.ByName("cid"))
}

// contestantRows writes a contestant with a page of its test rows.
func (s *Server) contestantRows(w http.ResponseWriter, r *http.Request, sessionID, contestantID string) error {
	if err := s.requirePaid(r); err != nil {
		return err
	}
	pg, size, page, err := resultPaging(r)
	if err != nil {
		return err
	}
	sess, ct, rows, err := s.engine.ContestantRows(r.Context(), sessionID, contestantID, page)
	if err != nil {
		return err
	}
	defer rows.Release()
	if err := engine.CheckInterval(params(r.URL.Query()).get("predictionInterval"), sess.PredictionIntervals); err != nil {
		return err
	}
	cj := toContestantJSON(baseURL(r), sessionID, ct)
	cj.Links = nil
	head, err := jsonMarshal(cj)
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte(`,"links":null}`))
	return s.writeRowsBody(w, r, rows, acceptedFormat(r), appendRowTime, head, newPage(r, pg, size, rows.Total))
}

// contestants answers GET /sessions/{id}/contest/contestants (REFERENCE
// §7.3): every contestant under items, with the paging envelope added.
func (s *Server) contestants(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	_, cs, err := s.paidContest(r, p.ByName("id"))
	if err != nil {
		return err
	}
	n := max(len(cs), 1)
	return writeJSON(w, http.StatusOK, struct {
		Items []contestantJSON `json:"items"`
		page
	}{cs, newPage(r, 0, n, int64(len(cs)))})
}

// selection answers GET /sessions/{id}/contest/selection (REFERENCE §7.5).
func (s *Server) selection(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.requirePaid(r); err != nil {
		return err
	}
	sess, sets, err := s.engine.SessionSelection(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	type metricSet struct {
		Properties []string           `json:"dataSetProperties"`
		Metrics    map[string]float64 `json:"metrics"`
	}
	ms := make([]metricSet, len(sets))
	for i, st := range sets {
		ms[i] = metricSet{st.Properties, st.Metrics}
	}
	base := baseURL(r)
	sj := toSessionJSON(base, sess, nil, s.opts.Compat)
	sj.Columns = nil
	sid := base + "/sessions/" + sess.ID
	sj.Links = []link{{"self", sid + "/contest/selection"}, {"data", dataLink(base, sess)}, {"contest", sid + "/contest"}}
	if sess.ModelID != "" {
		sj.Links = append(sj.Links, link{"model", base + "/models/" + sess.ModelID})
	}
	return writeJSON(w, http.StatusOK, struct {
		MetricSets []metricSet `json:"metricSets"`
		sessionJSON
	}{ms, sj})
}
