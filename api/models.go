package api

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// modelJSON is a model summary (REFERENCE §2.7).
type modelJSON struct {
	Columns          columnsJSON        `json:"columns,omitempty"`
	ModelID          string             `json:"modelId"`
	SessionID        string             `json:"sessionId"`
	PredictionDomain string             `json:"predictionDomain"`
	DataSourceName   string             `json:"dataSourceName"`
	CreatedDate      string             `json:"createdDate"`
	Algorithm        engine.Algorithm   `json:"algorithm"`
	ModelName        string             `json:"modelName"`
	LastUsedDate     string             `json:"lastUsedDate,omitempty"`
	Metrics          map[string]float64 `json:"metrics"`
	Links            []link             `json:"links"`
}

func toModelJSON(base string, m engine.Model, detail bool) modelJSON {
	out := modelJSON{Columns: m.Columns, ModelID: m.ID, SessionID: m.SessionID, PredictionDomain: m.Domain,
		DataSourceName: m.DataSourceName, CreatedDate: formatEventTime(m.Created), Algorithm: m.Algorithm,
		ModelName: m.Name, Metrics: m.Metrics}
	if m.LastUsed != nil {
		out.LastUsedDate = formatEventTime(*m.LastUsed)
	}
	if out.Metrics == nil {
		out.Metrics = map[string]float64{}
	}
	train := link{"train", base + "/sessions/" + m.SessionID}
	if detail {
		out.Links = []link{{"self", base + "/models/" + m.ID}, train}
	} else {
		out.Links = []link{train}
	}
	return out
}

// modelQuery reads the selectors of GET and DELETE /models (REFERENCE
// §8.1, §8.5).
func modelQuery(q params) (engine.ModelQuery, error) {
	var out engine.ModelQuery
	var err error
	out.ModelID = q.get("modelId")
	out.DataSourceName = q.get("dataSourceName")
	if out.DataSourceName == "" {
		out.DataSourceName = q.get("dataSetName")
	}
	out.PartialModelName = q.get("partialModelName")
	if out.CreatedAfter, err = firstDate(q, "createdAfterDate", "createdAfter"); err != nil {
		return out, err
	}
	out.CreatedBefore, err = firstDate(q, "createdBeforeDate", "createdBefore")
	return out, err
}

// listModels answers GET /models.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	mq, err := modelQuery(q)
	if err != nil {
		return err
	}
	mq.SortBy, mq.Desc, mq.DescGiven, mq.Page, mq.PageSize = q.get("sortBy"), desc, q.has("sortOrder"), pg, size
	items, total, err := s.engine.ListModels(r.Context(), mq)
	if err != nil {
		return err
	}
	base := baseURL(r)
	out := make([]modelJSON, len(items))
	for i, m := range items {
		out[i] = toModelJSON(base, m, false)
	}
	return writeList(w, r, pg, size, total, out)
}

// getModel answers GET /models/{id}.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	m, err := s.engine.Model(r.Context(), p.ByName("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toModelJSON(baseURL(r), m, true))
}

// deleteModel answers DELETE /models/{id}.
func (s *Server) deleteModel(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.engine.DeleteModel(r.Context(), p.ByName("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteModels answers DELETE /models (REFERENCE §8.5).
func (s *Server) deleteModels(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	mq, err := modelQuery(params(r.URL.Query()))
	if err != nil {
		return err
	}
	if err := s.engine.DeleteModels(r.Context(), mq); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
