package columnar

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// DataType is a column's data type as the API names it (REFERENCE §2.1).
// The zero value means "not given".
type DataType string

// The data types of the API, in their output spelling.
const (
	String         DataType = "string"
	Numeric        DataType = "numeric"
	NumericMeasure DataType = "numericMeasure"
	Logical        DataType = "logical"
	Date           DataType = "date"
	Text           DataType = "text"
)

// DataTypes lists every data type in a fixed order.
var DataTypes = []DataType{String, Numeric, NumericMeasure, Logical, Date, Text}

// ParseDataType matches s case-insensitively against the data types.
func ParseDataType(s string) (DataType, bool) { return parseEnum(s, DataTypes) }

// IsNumeric reports whether values of t are stored as numbers.
func (t DataType) IsNumeric() bool { return t == Numeric || t == NumericMeasure }

// Storage is the storage class of t: Numeric for both numeric types, String
// for string and text, otherwise t itself. Two data types with the same
// storage share an Arrow and a DuckDB type.
func (t DataType) Storage() DataType {
	switch t {
	case NumericMeasure:
		return Numeric
	case Text:
		return String
	}
	return t
}

// TimestampType is the Arrow type of date columns: microseconds, UTC,
// without a zone so that DuckDB stores it as TIMESTAMP.
var TimestampType = &arrow.TimestampType{Unit: arrow.Microsecond}

// ArrowType returns the Arrow type that holds values of t.
func (t DataType) ArrowType() arrow.DataType {
	switch t.Storage() {
	case Numeric:
		return arrow.PrimitiveTypes.Float64
	case Logical:
		return arrow.FixedWidthTypes.Boolean
	case Date:
		return TimestampType
	}
	return arrow.BinaryTypes.String
}

// SQLType returns the DuckDB column type that holds values of t.
func (t DataType) SQLType() string {
	switch t.Storage() {
	case Numeric:
		return "DOUBLE"
	case Logical:
		return "BOOLEAN"
	case Date:
		return "TIMESTAMP"
	}
	return "VARCHAR"
}

// DataTypeOfSQL maps a DuckDB column type name back to the storage class
// that SQLType gives it (integers and decimals read as Numeric).
func DataTypeOfSQL(name string) DataType {
	switch {
	case name == "BOOLEAN":
		return Logical
	case strings.HasPrefix(name, "TIMESTAMP"), name == "DATE":
		return Date
	case name == "VARCHAR":
		return String
	}
	return Numeric
}

// Role is what a column is used for by sessions (REFERENCE §2.1). The zero
// value means "no role assigned".
type Role string

// The roles of the API.
const (
	RoleNone      Role = "none"
	RoleTimestamp Role = "timestamp"
	RoleTarget    Role = "target"
	RoleFeature   Role = "feature"
	RoleKey       Role = "key"
)

// Roles lists every role in a fixed order.
var Roles = []Role{RoleNone, RoleTimestamp, RoleTarget, RoleFeature, RoleKey}

// ParseRole matches s case-insensitively against the roles.
func ParseRole(s string) (Role, bool) { return parseEnum(s, Roles) }

// Imputation is the strategy that fills missing values (REFERENCE §2.1).
type Imputation string

// The imputation strategies of the API.
const (
	ImputeZeroes Imputation = "zeroes"
	ImputeMean   Imputation = "mean"
	ImputeMedian Imputation = "median"
	ImputeMode   Imputation = "mode"
	ImputeMin    Imputation = "min"
	ImputeMax    Imputation = "max"
)

// Imputations lists every imputation strategy.
var Imputations = []Imputation{ImputeZeroes, ImputeMean, ImputeMedian, ImputeMode, ImputeMin, ImputeMax}

// ParseImputation matches s case-insensitively.
func ParseImputation(s string) (Imputation, bool) { return parseEnum(s, Imputations) }

// Aggregation is the strategy that combines values of one time bucket.
type Aggregation string

// The aggregation strategies of the API.
const (
	AggSum    Aggregation = "sum"
	AggMean   Aggregation = "mean"
	AggMedian Aggregation = "median"
	AggMode   Aggregation = "mode"
	AggMin    Aggregation = "min"
	AggMax    Aggregation = "max"
)

// Aggregations lists every aggregation strategy.
var Aggregations = []Aggregation{AggSum, AggMean, AggMedian, AggMode, AggMin, AggMax}

// ParseAggregation matches s case-insensitively.
func ParseAggregation(s string) (Aggregation, bool) { return parseEnum(s, Aggregations) }

// Defaults returns the default imputation and aggregation of a data type
// (REFERENCE §2.1, MODELLING §12.3); date and text columns have none.
func Defaults(t DataType) (Imputation, Aggregation) {
	switch t {
	case Numeric:
		return ImputeZeroes, AggSum
	case NumericMeasure:
		return ImputeMean, AggMean
	case Logical, String:
		return ImputeMode, AggMode
	}
	return "", ""
}

func parseEnum[T ~string](s string, all []T) (T, bool) {
	s = strings.TrimSpace(s)
	for _, v := range all {
		if strings.EqualFold(s, string(v)) {
			return v, true
		}
	}
	// Accept snake_case spellings such as stop_word or numeric_measure.
	if strings.Contains(s, "_") {
		return parseEnum(strings.ReplaceAll(s, "_", ""), all)
	}
	var zero T
	return zero, false
}

// Column is one column's metadata as stored for a dataset.
type Column struct {
	Name        string
	DataType    DataType
	Role        Role
	Imputation  Imputation
	Aggregation Aggregation
}

// Spec is column metadata as a client supplied it: each field is the raw
// text, "" when absent. The engine validates it.
type Spec struct {
	Name        string
	DataType    string
	Role        string
	Imputation  string
	Aggregation string
}

// MetaDataType is the Arrow field metadata key that carries a column's
// DataType through record batches (numericMeasure and text share their
// storage type with numeric and string).
const MetaDataType = "vatic.dataType"

// MetaRole is the Arrow field metadata key that carries a column's Role
// in the Arrow and Parquet answers of the API.
const MetaRole = "vatic.role"

// Field returns the Arrow field for a column of type t.
func Field(name string, t DataType) arrow.Field {
	return arrow.Field{
		Name:     name,
		Type:     t.ArrowType(),
		Nullable: true,
		Metadata: arrow.NewMetadata([]string{MetaDataType}, []string{string(t)}),
	}
}

// FieldDataType returns the DataType recorded on f, or the one implied by
// its Arrow type when none is recorded.
func FieldDataType(f arrow.Field) DataType {
	if i := f.Metadata.FindKey(MetaDataType); i >= 0 {
		if t, ok := ParseDataType(f.Metadata.Values()[i]); ok {
			return t
		}
	}
	switch f.Type.ID() {
	case arrow.FLOAT64, arrow.FLOAT32, arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8,
		arrow.UINT64, arrow.UINT32, arrow.UINT16, arrow.UINT8, arrow.DECIMAL128:
		return Numeric
	case arrow.BOOL:
		return Logical
	case arrow.TIMESTAMP, arrow.DATE32, arrow.DATE64:
		return Date
	}
	return String
}
