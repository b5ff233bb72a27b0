package duckstore

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// sqlType returns the DuckDB column type that holds values of an Arrow type
// without loss: the type DuckDB's own Arrow export maps back to that Arrow
// type, so a table made from a schema reads back with the same schema.
func sqlType(t arrow.DataType) (string, error) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN", nil
	case *arrow.Int8Type:
		return "TINYINT", nil
	case *arrow.Int16Type:
		return "SMALLINT", nil
	case *arrow.Int32Type:
		return "INTEGER", nil
	case *arrow.Int64Type:
		return "BIGINT", nil
	case *arrow.Uint8Type:
		return "UTINYINT", nil
	case *arrow.Uint16Type:
		return "USMALLINT", nil
	case *arrow.Uint32Type:
		return "UINTEGER", nil
	case *arrow.Uint64Type:
		return "UBIGINT", nil
	case *arrow.Float32Type:
		return "FLOAT", nil
	case *arrow.Float64Type:
		return "DOUBLE", nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "VARCHAR", nil
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return "BLOB", nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return "DATE", nil
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "TIMESTAMPTZ", nil
		}
		return "TIMESTAMP", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), nil
	}
	return "", fmt.Errorf("duckstore: no DuckDB column type for Arrow type %s", t)
}
