package flightsql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A prepared statement's handle is its text; once a client binds
// parameters it is paramMagic, the text's length (uvarint), the text, and
// the parameter row as an Arrow IPC stream, so the values keep their
// Arrow types and the server keeps nothing. SQL text never starts with a
// NUL byte, so a plain handle cannot be read as one with parameters. The
// handle comes from the client: whatever it holds, the statement still
// passes every check of the Querier before it runs.
const paramMagic = "\x00vatic-params\x00"

// encodeHandle is the handle of query with the parameters of row.
func encodeHandle(query string, row arrow.RecordBatch) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(paramMagic)
	b.Write(binary.AppendUvarint(nil, uint64(len(query))))
	b.WriteString(query)
	w := ipc.NewWriter(&b, ipc.WithSchema(row.Schema()))
	if err := w.Write(row); err != nil {
		return nil, status.Errorf(codes.Internal, "encode the parameters: %v", err)
	}
	if err := w.Close(); err != nil {
		return nil, status.Errorf(codes.Internal, "encode the parameters: %v", err)
	}
	return b.Bytes(), nil
}

// decodeHandle is encodeHandle's inverse; a plain handle has no
// parameters.
func decodeHandle(handle []byte) (query string, args []any, err error) {
	rest, ok := bytes.CutPrefix(handle, []byte(paramMagic))
	if !ok {
		return string(handle), nil, nil
	}
	bad := func(why string) error {
		return status.Error(codes.InvalidArgument, "malformed prepared statement handle: "+why)
	}
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return "", nil, bad("statement length")
	}
	query, rest = string(rest[k:k+int(n)]), rest[k+int(n):]
	r, err := ipc.NewReader(bytes.NewReader(rest))
	if err != nil {
		return "", nil, bad(err.Error())
	}
	defer r.Release()
	if !r.Next() {
		return "", nil, bad("no parameter row")
	}
	row := r.RecordBatch()
	if row.NumRows() != 1 {
		return "", nil, bad("not one parameter row")
	}
	args, err = rowValues(row)
	return query, args, err
}

// oneRow reads the parameter batch of DoPut: exactly one row, which
// the caller releases.
func oneRow(r flight.MessageReader) (arrow.RecordBatch, error) {
	var row arrow.RecordBatch
	var rows int64
	for r.Next() {
		b := r.RecordBatch()
		rows += b.NumRows()
		if b.NumRows() > 0 && row == nil {
			b.Retain()
			row = b
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		if row != nil {
			row.Release()
		}
		return nil, status.Errorf(codes.InvalidArgument, "read the parameters: %v", err)
	}
	if rows != 1 {
		if row != nil {
			row.Release()
		}
		return nil, status.Errorf(codes.InvalidArgument, "bind one row of parameters, not %d (run the statement once per row)", rows)
	}
	return row, nil
}

// rowValues are the Go values of row 0, one per column, as
// ReadOnlyQuery binds them.
func rowValues(row arrow.RecordBatch) ([]any, error) {
	args := make([]any, row.NumCols())
	for i, col := range row.Columns() {
		if col.IsNull(0) {
			continue
		}
		switch c := col.(type) {
		case *array.Boolean:
			args[i] = c.Value(0)
		case *array.Int8:
			args[i] = c.Value(0)
		case *array.Int16:
			args[i] = c.Value(0)
		case *array.Int32:
			args[i] = c.Value(0)
		case *array.Int64:
			args[i] = c.Value(0)
		case *array.Uint8:
			args[i] = c.Value(0)
		case *array.Uint16:
			args[i] = c.Value(0)
		case *array.Uint32:
			args[i] = c.Value(0)
		case *array.Uint64:
			args[i] = c.Value(0)
		case *array.Float32:
			args[i] = c.Value(0)
		case *array.Float64:
			args[i] = c.Value(0)
		case *array.String:
			args[i] = c.Value(0)
		case *array.LargeString:
			args[i] = c.Value(0)
		case *array.Binary:
			args[i] = bytes.Clone(c.Value(0))
		case *array.LargeBinary:
			args[i] = bytes.Clone(c.Value(0))
		case *array.Date32:
			args[i] = c.Value(0).ToTime()
		case *array.Date64:
			args[i] = c.Value(0).ToTime()
		case *array.Timestamp:
			// The instant; a zone in the type only says how to show it.
			args[i] = c.Value(0).ToTime(c.DataType().(*arrow.TimestampType).Unit)
		default:
			return nil, status.Error(codes.InvalidArgument, fmt.Sprintf(
				"parameter %d (%s): Arrow type %s is not supported; send booleans, integers, floats, strings, binary, dates or timestamps (cast in SQL for others)",
				i+1, row.ColumnName(i), col.DataType()))
		}
	}
	return args, nil
}
