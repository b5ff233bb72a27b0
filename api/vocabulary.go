package api

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// vocabularyJSON is a vocabulary summary (REFERENCE §2.9).
type vocabularyJSON struct {
	ID                 string `json:"id"`
	DataSourceName     string `json:"dataSourceName"`
	ColumnName         string `json:"columnName"`
	DataSourceType     string `json:"dataSourceType"`
	CreatedOnDate      string `json:"createdOnDate"`
	CreatedBySessionID string `json:"createdBySessionId"`
	Links              []link `json:"links"`
}

func toVocabularyJSON(base string, v engine.Vocabulary) vocabularyJSON {
	return vocabularyJSON{ID: v.ID, DataSourceName: v.DataSourceName, ColumnName: v.ColumnName, DataSourceType: v.DataSourceType,
		CreatedOnDate: formatEventTime(v.CreatedOn), CreatedBySessionID: v.SessionID,
		Links: []link{{"words", base + "/vocabulary/" + v.ID}}}
}

// wordJSON is one entry of a vocabulary (REFERENCE §2.9): rank only for
// words.
type wordJSON struct {
	Text string `json:"text"`
	Type string `json:"type"`
	Rank *int   `json:"rank,omitempty"`
}

// vocabularyQuery reads the selectors of GET and DELETE /vocabulary
// (REFERENCE §8.6, §8.8) with the aliases clients send: dataSourceName
// (Ruby), createdFromSessionid (the original's own link hrefs) and
// created_from_session (Ruby); vocabularyId (.NET, on delete).
func vocabularyQuery(q params) engine.VocabularyQuery {
	first := func(names ...string) string {
		for _, n := range names {
			if v := q.get(n); v != "" {
				return v
			}
		}
		return ""
	}
	return engine.VocabularyQuery{
		DataSource: first("dataSource", "dataSourceName"),
		Session:    first("createdFromSession", "createdFromSessionid", "created_from_session"),
		ID:         q.get("vocabularyId"),
	}
}

// listVocabularies answers GET /vocabulary.
func (s *Server) listVocabularies(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, desc, err := q.listing()
	if err != nil {
		return err
	}
	vq := vocabularyQuery(q)
	vq.SortBy, vq.Desc, vq.Page, vq.PageSize = q.get("sortBy"), desc, pg, size
	items, total, err := s.engine.ListVocabularies(r.Context(), vq)
	if err != nil {
		return err
	}
	base := baseURL(r)
	out := make([]vocabularyJSON, len(items))
	for i, v := range items {
		out[i] = toVocabularyJSON(base, v)
	}
	return writeList(w, r, pg, size, total, out)
}

// getVocabulary answers GET /vocabulary/{id}: a page of its words, of
// one type when ?type= says so (REFERENCE §8.7).
func (s *Server) getVocabulary(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, err := q.paging()
	if err != nil {
		return err
	}
	v, words, total, err := s.engine.VocabularyWords(r.Context(), p.ByName("id"), q.get("type"), size, pg*size)
	if err != nil {
		return err
	}
	items := make([]wordJSON, len(words))
	for i, w := range words {
		items[i] = wordJSON{Text: w.Text, Type: "word"}
		if w.Stop {
			items[i].Type = "stopWord"
		} else {
			items[i].Rank = &words[i].Rank
		}
	}
	return writeJSON(w, http.StatusOK, struct {
		ID    string     `json:"id"`
		Items []wordJSON `json:"items"`
		page
	}{v.ID, items, newPage(r, pg, size, int64(total))})
}

// deleteVocabulary answers DELETE /vocabulary/{id} (REFERENCE §8.9).
func (s *Server) deleteVocabulary(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.engine.DeleteVocabulary(r.Context(), p.ByName("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteVocabularies answers DELETE /vocabulary (REFERENCE §8.8).
func (s *Server) deleteVocabularies(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.engine.DeleteVocabularies(r.Context(), vocabularyQuery(params(r.URL.Query()))); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
