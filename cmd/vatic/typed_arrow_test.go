//go:build duckdb_arrow

package main

// arrowBuild: this build's store streams results (duckstore.StreamQuery)
// and types a statement's result and parameters by preparing it
// (duckstore.ReadOnlyDescribe).
const arrowBuild = true
