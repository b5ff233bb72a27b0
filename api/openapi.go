package api

import (
	_ "embed"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// openAPIDocument is the OpenAPI 3.1 description of every route the
// server serves (GET /v1/openapi.json). openapi_internal_test.go checks
// that it and the router agree route by route, and the end-to-end tests
// validate every JSON response they receive against its schemas, so it
// cannot drift from what the server sends.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIPath is served without a key, like /healthz: integrators and
// their tools read the contract before they have one.
const openAPIPath = "/v1/openapi.json"

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, err := w.Write(openAPIDocument)
	return err
}
