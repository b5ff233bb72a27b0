package flightsql

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	fsql "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vaticml/vatic/columnar"
)

// The metadata calls SQL tools make on connect, answered from DuckDB's
// information_schema through the same read-only Querier as clients'
// statements. DuckDB's own catalogs (system, temp) are left out: they hold
// no data of Vatic's. Filters are bound as parameters, never spliced in.

// hidden is the WHERE clause leaving DuckDB's own catalogs out.
const hidden = `NOT IN ('system', 'temp')`

// tableTypes are the table types DuckDB's information_schema reports.
var tableTypes = []string{"BASE TABLE", "LOCAL TEMPORARY", "VIEW"}

// metadataInfo is the FlightInfo of a metadata command: its ticket is the
// command, its schema the reference one.
func (s *Server) metadataInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
		Schema:           flight.SerializeSchema(schema, s.Alloc),
	}
}

// rows runs a metadata query and returns its rows as text (NULL is "").
func (s *Server) rows(ctx context.Context, query string, args ...any) ([][]string, error) {
	ctx, cancel := s.queryContext(ctx)
	defer cancel()
	rr, err := s.q.ReadOnlyQuery(ctx, query, args...)
	if err != nil {
		return nil, s.status(ctx, err)
	}
	defer rr.Release()
	var out [][]string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				if col.IsValid(i) {
					// A copy: the text aliases the batch's memory,
					// which the next batch frees.
					row[j] = strings.Clone(col.ValueStr(i))
				}
			}
			out = append(out, row)
		}
	}
	if err := rr.Err(); err != nil {
		return nil, s.status(ctx, err)
	}
	return out, nil
}

// stream sends one batch of schema built from rows: string columns take
// the row's text (an empty one is NULL where the field is nullable),
// binary columns their values from binary, by column index.
func (s *Server) stream(ctx context.Context, schema *arrow.Schema, rows [][]string, binary map[int][][]byte) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.Alloc, schema)
	defer b.Release()
	for i, row := range rows {
		for j, v := range row {
			switch fb := b.Field(j).(type) {
			case *array.StringBuilder:
				if v == "" && schema.Field(j).Nullable {
					fb.AppendNull()
				} else {
					fb.Append(v)
				}
			case *array.BinaryBuilder:
				fb.Append(binary[j][i])
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, nil, status.Error(codes.Internal, err.Error())
	}
	ch := make(chan flight.StreamChunk)
	go flight.StreamChunksFromReader(ctx, rr, ch)
	return schema, ch, nil
}

func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.Catalogs), nil
}

// DoGetCatalogs lists the database's catalogs.
func (s *Server) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	rows, err := s.rows(ctx, `SELECT DISTINCT catalog_name FROM information_schema.schemata WHERE catalog_name `+hidden+` ORDER BY 1`)
	if err != nil {
		return nil, nil, err
	}
	return s.stream(ctx, schema_ref.Catalogs, rows, nil)
}

func (s *Server) GetFlightInfoSchemas(_ context.Context, _ fsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.DBSchemas), nil
}

// DoGetDBSchemas lists schemas, filtered by catalog and a LIKE pattern.
func (s *Server) DoGetDBSchemas(ctx context.Context, cmd fsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	q := `SELECT catalog_name, schema_name FROM information_schema.schemata WHERE catalog_name ` + hidden
	var args []any
	if c := cmd.GetCatalog(); c != nil {
		q += ` AND catalog_name = ?`
		args = append(args, *c)
	}
	if p := cmd.GetDBSchemaFilterPattern(); p != nil {
		q += ` AND schema_name LIKE ?`
		args = append(args, *p)
	}
	rows, err := s.rows(ctx, q+` ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, nil, err
	}
	return s.stream(ctx, schema_ref.DBSchemas, rows, nil)
}

func (s *Server) GetFlightInfoTables(_ context.Context, cmd fsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return s.metadataInfo(desc, schema_ref.TablesWithIncludedSchema), nil
	}
	return s.metadataInfo(desc, schema_ref.Tables), nil
}

// DoGetTables lists tables and views, filtered by catalog, LIKE patterns
// on schema and table names, and table types; with include-schema, each
// table's Arrow schema as the statement SELECT * from it would answer.
func (s *Server) DoGetTables(ctx context.Context, cmd fsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	q := `SELECT table_catalog, table_schema, table_name, table_type FROM information_schema.tables WHERE table_catalog ` + hidden
	var args []any
	if c := cmd.GetCatalog(); c != nil {
		q += ` AND table_catalog = ?`
		args = append(args, *c)
	}
	if p := cmd.GetDBSchemaFilterPattern(); p != nil {
		q += ` AND table_schema LIKE ?`
		args = append(args, *p)
	}
	if p := cmd.GetTableNameFilterPattern(); p != nil {
		q += ` AND table_name LIKE ?`
		args = append(args, *p)
	}
	if types := cmd.GetTableTypes(); len(types) > 0 {
		q += ` AND table_type IN (?` + strings.Repeat(`, ?`, len(types)-1) + `)`
		for _, t := range types {
			args = append(args, t)
		}
	}
	rows, err := s.rows(ctx, q+` ORDER BY 1, 2, 3`, args...)
	if err != nil {
		return nil, nil, err
	}
	if !cmd.GetIncludeSchema() {
		return s.stream(ctx, schema_ref.Tables, rows, nil)
	}
	schemas := make([][]byte, len(rows))
	for i, r := range rows {
		sc, err := s.tableSchema(ctx, r[0], r[1], r[2])
		if err != nil {
			return nil, nil, err
		}
		schemas[i] = flight.SerializeSchema(sc, s.Alloc)
		rows[i] = append(rows[i], "")
	}
	return s.stream(ctx, schema_ref.TablesWithIncludedSchema, rows, map[int][][]byte{4: schemas})
}

// tableSchema is the Arrow schema of a table's rows: DuckDB plans
// SELECT * with LIMIT 0, so nothing is read.
func (s *Server) tableSchema(ctx context.Context, names ...string) (*arrow.Schema, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		q, err := columnar.QuoteIdent(n)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "table name %q: %v", n, err)
		}
		quoted[i] = q
	}
	ctx, cancel := s.queryContext(ctx)
	defer cancel()
	rr, err := s.q.ReadOnlyQuery(ctx, `SELECT * FROM `+strings.Join(quoted, ".")+` LIMIT 0`)
	if err != nil {
		return nil, s.status(ctx, err)
	}
	defer rr.Release()
	return rr.Schema(), nil
}

func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.TableTypes), nil
}

// DoGetTableTypes lists the table types DuckDB reports.
func (s *Server) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	rows := make([][]string, 0, len(tableTypes))
	for _, t := range slices.Sorted(slices.Values(tableTypes)) {
		rows = append(rows, []string{t})
	}
	return s.stream(ctx, schema_ref.TableTypes, rows, nil)
}
