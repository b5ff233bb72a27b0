package engine

import (
	"context"
	"database/sql"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Store is the table storage the engine needs (implemented by
// duckstore). All methods are safe for concurrent use.
//
// Transactions travel in the context: inside Tx, every call made with the
// context fn receives runs in that transaction.
type Store interface {
	// Exec runs one statement and reports the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Rows runs a small query (the catalog's); the caller closes the rows.
	Rows(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	// Query runs one parameterised statement; the caller releases the reader.
	Query(ctx context.Context, query string, args ...any) (array.RecordReader, error)
	// StreamQuery is Query with the result computed chunk by chunk as the
	// reader advances, instead of whole before the first batch: memory
	// stays bounded and the first bytes of a large answer leave at once.
	// Nothing else may run on its connection until the reader is released.
	StreamQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error)
	// Append drains rr into table (quoted) by column name and reports how
	// many rows were written.
	Append(ctx context.Context, table string, rr array.RecordReader) (int64, error)
	// CreateTable creates table (quoted) with a column per field of schema.
	CreateTable(ctx context.Context, table string, schema *arrow.Schema) error
	// Tx runs fn in one transaction; fn's error rolls it back.
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}
