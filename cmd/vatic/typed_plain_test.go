//go:build !duckdb_arrow

package main

// arrowBuild: without duckdb_arrow the store materialises answers and
// cannot reach a prepared statement's types, so schemas stay unknown
// until a statement runs (duckstore.Description's nil schemas).
const arrowBuild = false
