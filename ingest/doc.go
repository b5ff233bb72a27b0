// Package ingest turns a byte stream (CSV or JSON, optionally gzip or zstd
// compressed) into a stream of Arrow record batches with an inferred or
// declared schema. It is the first half of every import: PUT /data bodies and
// remote imports both come through here, and the engine writes the batches
// to storage.
//
// Contract (the engine relies on every line of it):
//
//   - Decompress wraps a body by its Content-Encoding (gzip, x-gzip, zstd,
//     identity, "" = sniff the magic bytes) and caps the decompressed size;
//     going over the cap fails the read with an error matching ErrTooLarge.
//   - FormatOf decides CSV or JSON from a declared content type, a file
//     name, a served content type and at last the first bytes; it is the
//     only table of content types and extensions.
//   - NewCSV and NewJSON return a *Reader. Next/RecordBatch/Err/Release
//     follow arrow's RecordReader contract (a batch is valid until the next
//     call to Next), except that the schema may change between batches in
//     two ways only: an inferred (undeclared) column whose later values do
//     not fit its inferred type becomes String (the "widening" of a column),
//     and a JSON row may bring a column not seen before, appended at the end.
//     Declared columns never change type: a value that does not fit is a
//     *ParseError naming the line or row and the column.
//   - FirstSegment splits a Reader into Segments, each an arrow
//     RecordReader whose batches share one schema, for consumers that need
//     the RecordReader contract whole.
//   - Every field carries its columnar.DataType in its metadata
//     (columnar.Field), so numeric vs text survives.
//   - Missing values (the empty string after trimming spaces, JSON null, and
//     Options.MissingValues tokens) are nulls.
//   - Bad input (malformed CSV or JSON, jagged rows, bad quoting, invalid
//     UTF-8, duplicate column names) is a *ParseError; nothing panics.
//   - Memory is bounded by Options.BatchRows times the row width times a
//     small constant (the number of batches in flight), never by the size of
//     the input.
//
// ingest does not log and imports nothing from this module but columnar.
package ingest
