// Package engine owns Vatic's domain: datasets, views, imports, modelling
// sessions and the models they save, the catalog that records them, and the
// rules of the API that are not about HTTP — upserts, column metadata
// inference and validation, statistics, quotas. It declares the Store it
// needs and classifies every error into a Kind at its boundary.
//
// engine never imports net/http or duckdb-go; SQL over the engine's own
// tables lives in catalog.go and SQL over user data in engine/sqlgen.
package engine
