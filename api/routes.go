package api

import "net/http"

// routes lists every route of the API, one line each (REFERENCE §0.2).
func (s *Server) routes() {
	s.route(http.MethodGet, "/healthz", s.healthz)
	s.route(http.MethodGet, openAPIPath, s.openAPI)

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

	s.route(http.MethodPost, "/v1/sessions/:kind", s.createSession)
	s.route(http.MethodGet, "/v1/sessions", s.listSessions)
	s.route(http.MethodDelete, "/v1/sessions", s.deleteSessions)
	s.route(http.MethodGet, "/v1/sessions/:id", s.getSession)
	s.route(http.MethodHead, "/v1/sessions/:id", s.getSession)
	s.route(http.MethodDelete, "/v1/sessions/:id", s.deleteSession)
	s.route(http.MethodGet, "/v1/sessions/:id/results", s.sessionResults)
	s.route(http.MethodGet, "/v1/sessions/:id/results/confusionmatrix", s.confusionMatrix)
	s.route(http.MethodGet, "/v1/sessions/:id/results/classscores", s.classScores)
	s.route(http.MethodGet, "/v1/sessions/:id/results/anomalyscores", s.anomalyScores)
	s.route(http.MethodGet, "/v1/sessions/:id/results/mahalanobisdistances", s.mahalanobisDistances)
	s.route(http.MethodGet, "/v1/sessions/:id/results/featureimportance", s.featureImportance)
	s.route(http.MethodGet, "/v1/sessions/:id/results/outliers", s.outliers)
	s.route(http.MethodGet, "/v1/sessions/:id/contest", s.contest)
	s.route(http.MethodGet, "/v1/sessions/:id/contest/champion", s.champion)
	s.route(http.MethodGet, "/v1/sessions/:id/contest/contestants", s.contestants)
	s.route(http.MethodGet, "/v1/sessions/:id/contest/contestants/:cid", s.contestant)
	s.route(http.MethodGet, "/v1/sessions/:id/contest/selection", s.selection)

	s.route(http.MethodGet, "/v1/models", s.listModels)
	s.route(http.MethodDelete, "/v1/models", s.deleteModels)
	s.route(http.MethodGet, "/v1/models/:id", s.getModel)
	s.route(http.MethodDelete, "/v1/models/:id", s.deleteModel)
	s.route(http.MethodPost, "/v1/models/:id/predict", s.predict)
	s.route(http.MethodPost, "/v1/model/:id/predict", s.predict)

	s.route(http.MethodGet, "/v1/vocabulary", s.listVocabularies)
	s.route(http.MethodDelete, "/v1/vocabulary", s.deleteVocabularies)
	s.route(http.MethodGet, "/v1/vocabulary/:id", s.getVocabulary)
	s.route(http.MethodDelete, "/v1/vocabulary/:id", s.deleteVocabulary)

	s.route(http.MethodGet, "/v1/messages", s.listMessages)
	s.route(http.MethodGet, "/v1/metrics", s.metricDefinitions)
}
