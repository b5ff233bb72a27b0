package api

import (
	"context"
	"net/http"
)

func contextWith(r *http.Request, rec *recorder) context.Context {
	return context.WithValue(r.Context(), requestIDKey, rec)
}
