package ingest

import "github.com/vaticml/vatic/columnar"

// WithBlockBytes sets the CSV block size, so that tests can put chunk
// boundaries anywhere.
func WithBlockBytes(o Options, n int) Options {
	o.blockBytes = n
	return o
}

// InferType runs the type inference over one column's values.
func InferType(values [][]byte, missing []string) columnar.DataType {
	cv := newConverter(Options{MissingValues: missing})
	return cv.inferValues(len(values), func(i int) []byte { return values[i] })
}

// CheckPageHeader exposes the Parquet page header check.
var CheckPageHeader = checkPageHeader
