package api

import "net/http"

// routes lists every route of the API, one line each (REFERENCE §0.2).
func (s *Server) routes() {
	s.route(http.MethodGet, "/healthz", s.healthz)

	s.route(http.MethodGet, "/v1/data", s.listDatasets)
	s.route(http.MethodPut, "/v1/data/:name", s.putDataset)
	s.route(http.MethodGet, "/v1/data/:name", s.getDataset)
	s.route(http.MethodHead, "/v1/data/:name", s.getDataset)
	s.route(http.MethodDelete, "/v1/data/:name", s.deleteDataset)
	s.route(http.MethodGet, "/v1/data/:name/stats", s.datasetStats)
	s.route(http.MethodGet, "/v1/data/:name/stats/:column", s.columnStats)

	s.route(http.MethodPut, "/v1/views/:name", s.putView)
	s.route(http.MethodGet, "/v1/views", s.listViews)
	s.route(http.MethodGet, "/v1/views/:name", s.getView)
	s.route(http.MethodDelete, "/v1/views/:name", s.deleteView)

	s.route(http.MethodPost, "/v1/imports/:kind", s.createImport)
	s.route(http.MethodGet, "/v1/imports", s.listImports)
	s.route(http.MethodGet, "/v1/imports/:id", s.getImport)
}
