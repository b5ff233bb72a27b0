package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/flight"
	fsql "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const flightKey = "flight-test-key"

// startServeWithFlight runs `vatic serve` with Flight SQL on free ports
// and returns the HTTP base URL, the Flight address and the stop function.
func startServeWithFlight(t *testing.T, args ...string) (base, flightAddr string, stop func()) {
	t.Helper()
	base, side, stop := startServeHooked(t, append([]string{"-flight-addr", "127.0.0.1:0", "-data", t.TempDir(),
		"-api-key", flightKey, "-api-key", "community-key:community", "-threads", "2"}, args...), func(c *serveConfig) []chan string {
		hook, ch := sendTo()
		c.Flight.ready = hook
		return []chan string{ch}
	})
	return base, side[0], stop
}

func flightClient(t *testing.T, addr string) *fsql.Client {
	t.Helper()
	c, err := fsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bearer is ctx sending key as the bearer token.
func bearer(ctx context.Context, key string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
}

// put uploads a CSV body to dataset name.
func put(t *testing.T, base, name string, body io.Reader) {
	t.Helper()
	req, _ := http.NewRequest("PUT", base+"/v1/data/"+name, body)
	req.Header.Set("api-key", flightKey)
	req.Header.Set("Content-Type", "text/csv")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("PUT %s = %d %s", name, res.StatusCode, b)
	}
}

// query runs one statement (prepared if prepared) and returns its schema
// and rows, or the error of whichever call failed.
func query(ctx context.Context, c *fsql.Client, q string, prepared bool) (*arrow.Schema, []arrow.RecordBatch, error) {
	var info *flight.FlightInfo
	var err error
	if prepared {
		var stmt *fsql.PreparedStatement
		if stmt, err = c.Prepare(ctx, q); err != nil {
			return nil, nil, err
		}
		defer stmt.Close(ctx)
		info, err = stmt.Execute(ctx)
	} else {
		info, err = c.Execute(ctx, q)
	}
	if err != nil {
		return nil, nil, err
	}
	return fetch(ctx, c, info)
}

func fetch(ctx context.Context, c *fsql.Client, info *flight.FlightInfo) (*arrow.Schema, []arrow.RecordBatch, error) {
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return r.Schema(), recs, r.Err()
}

func rowCount(recs []arrow.RecordBatch) int64 {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
		r.Release()
	}
	return n
}

// column returns column name of recs as text, in order.
func column(t *testing.T, recs []arrow.RecordBatch, name string) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		idx := r.Schema().FieldIndices(name)
		if len(idx) == 0 {
			t.Fatalf("no column %s in %v", name, r.Schema())
		}
		col := r.Column(idx[0])
		for i := range col.Len() {
			out = append(out, col.ValueStr(i))
		}
	}
	return out
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if got := status.Code(err); got != code {
		t.Errorf("%s: %v (%s), want %s", what, err, got, code)
	}
}

func TestFlightSQL(t *testing.T) {
	base, addr, stop := startServeWithFlight(t, "-flight-max-rows", "100000")
	defer stop()
	put(t, base, "store-sales", strings.NewReader("day,sales\n2017-01-01,1523.07\n2017-01-02,1688.4\n2017-01-03,1700\n"))
	c := flightClient(t, addr)
	ctx := bearer(t.Context(), flightKey)

	t.Run("statement", func(t *testing.T) {
		for _, prepared := range []bool{false, true} {
			schema, recs, err := query(ctx, c, `select * from data."store-sales" order by day`, prepared)
			if err != nil {
				t.Fatalf("prepared=%v: %v", prepared, err)
			}
			if !schema.HasField("day") || !schema.HasField("sales") {
				t.Errorf("schema %v, want day and sales", schema)
			}
			if got := column(t, recs, "sales"); !slices.Equal(got, []string{"1523.07", "1688.4", "1700"}) {
				t.Errorf("prepared=%v: sales = %v", prepared, got)
			}
			rowCount(recs)
		}
	})

	// Schemas come from preparing the statement, before it runs.
	t.Run("schemas", func(t *testing.T) {
		if !arrowBuild {
			t.Skip("the build without duckdb_arrow types statements only when they run")
		}
		const q = `select day, sales from data."store-sales"`
		names := func(s *arrow.Schema) []string {
			var n []string
			for _, f := range s.Fields() {
				n = append(n, f.Name)
			}
			return n
		}
		want := []string{"day", "sales"}
		info, err := c.Execute(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		s, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
		if err != nil || !slices.Equal(names(s), want) {
			t.Errorf("FlightInfo schema %v (%v), want %v", s, err, want)
		}
		res, err := c.GetExecuteSchema(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = flight.DeserializeSchema(res.GetSchema(), memory.DefaultAllocator); err != nil || !slices.Equal(names(s), want) {
			t.Errorf("GetSchema %v (%v), want %v", s, err, want)
		}
		stmt, err := c.Prepare(ctx, q+" where sales > ?")
		if err != nil {
			t.Fatal(err)
		}
		defer stmt.Close(ctx)
		if got := names(stmt.DatasetSchema()); !slices.Equal(got, want) {
			t.Errorf("prepared dataset schema %v, want %v", got, want)
		}
		if p := stmt.ParameterSchema(); p.NumFields() != 1 || p.Field(0).Type.ID() != stmt.DatasetSchema().Field(1).Type.ID() {
			t.Errorf("parameter schema %v, want one field typed like sales", p)
		}
		res, err = stmt.GetSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = flight.DeserializeSchema(res.GetSchema(), memory.DefaultAllocator); err != nil || !slices.Equal(names(s), want) {
			t.Errorf("prepared GetSchema %v (%v), want %v", s, err, want)
		}
		_, err = c.GetExecuteSchema(ctx, `delete from data."store-sales"`)
		wantCode(t, "GetSchema of a DELETE", err, codes.PermissionDenied)
	})

	// Parameters bind from the client's one-row batch.
	t.Run("parameters", func(t *testing.T) {
		stmt, err := c.Prepare(ctx, `select sales from data."store-sales" where sales > ? order by sales`)
		if err != nil {
			t.Fatal(err)
		}
		defer stmt.Close(ctx)
		bind := func(cols ...arrow.Array) {
			fields := make([]arrow.Field, len(cols))
			for i, col := range cols {
				fields[i] = arrow.Field{Name: fmt.Sprintf("p%d", i), Type: col.DataType(), Nullable: true}
			}
			rows := int64(0)
			if len(cols) > 0 {
				rows = int64(cols[0].Len())
			}
			stmt.SetParameters(array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rows))
		}
		float := func(v ...float64) arrow.Array {
			b := array.NewFloat64Builder(memory.DefaultAllocator)
			b.AppendValues(v, nil)
			return b.NewArray()
		}
		bind(float(1600))
		info, err := stmt.Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, recs, err := fetch(ctx, c, info)
		if err != nil {
			t.Fatal(err)
		}
		if got := column(t, recs, "sales"); !slices.Equal(got, []string{"1688.4", "1700"}) {
			t.Errorf("sales > 1600 = %v", got)
		}
		// Another value on the same statement.
		bind(float(1690))
		if info, err = stmt.Execute(ctx); err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil || !slices.Equal(column(t, recs, "sales"), []string{"1700"}) {
			t.Errorf("sales > 1690 = %v (%v)", column(t, recs, "sales"), err)
		}

		bind(float(1, 2))
		_, err = stmt.Execute(ctx)
		wantCode(t, "two parameter rows", err, codes.InvalidArgument)
		bind(float(1), float(2))
		_, err = stmt.Execute(ctx)
		wantCode(t, "two values for one parameter", err, codes.InvalidArgument)
		dec := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 10, Scale: 2})
		dec.Append(decimal128.FromI64(100))
		bind(dec.NewArray())
		_, err = stmt.Execute(ctx)
		wantCode(t, "a decimal parameter", err, codes.InvalidArgument)
		s := array.NewStringBuilder(memory.DefaultAllocator)
		s.Append("not a number")
		bind(s.NewArray())
		if info, err = stmt.Execute(ctx); err == nil {
			_, _, err = fetch(ctx, c, info)
		}
		wantCode(t, "a string for a number", err, codes.InvalidArgument)

		// Dates and timestamps bind as the instant they name.
		when, err := c.Prepare(ctx, `select ?::DATE::VARCHAR as d, ?::TIMESTAMP::VARCHAR as ts`)
		if err != nil {
			t.Fatal(err)
		}
		defer when.Close(ctx)
		d := array.NewDate32Builder(memory.DefaultAllocator)
		d.Append(arrow.Date32FromTime(time.Date(2017, 3, 4, 0, 0, 0, 0, time.UTC)))
		ts := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"})
		ts.Append(arrow.Timestamp(time.Date(2017, 3, 4, 5, 6, 7, 8e6, time.UTC).UnixMilli()))
		dArr, tsArr := d.NewArray(), ts.NewArray()
		when.SetParameters(array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
			{Name: "d", Type: dArr.DataType(), Nullable: true}, {Name: "ts", Type: tsArr.DataType(), Nullable: true},
		}, nil), []arrow.Array{dArr, tsArr}, 1))
		info, err = when.Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil {
			t.Fatal(err)
		}
		if got, want := []string{column(t, recs, "d")[0], column(t, recs, "ts")[0]}, []string{"2017-03-04", "2017-03-04 05:06:07.008"}; !slices.Equal(got, want) {
			t.Errorf("date and timestamp parameters = %v, want %v", got, want)
		}
	})

	t.Run("auth", func(t *testing.T) {
		_, _, err := query(t.Context(), c, `select 1`, false)
		wantCode(t, "no key", err, codes.Unauthenticated)
		_, _, err = query(bearer(t.Context(), "wrong"), c, `select 1`, false)
		wantCode(t, "wrong bearer key", err, codes.Unauthenticated)
		_, err = c.Client.AuthenticateBasicToken(t.Context(), "anyone", "wrong")
		wantCode(t, "wrong basic key", err, codes.Unauthenticated)
		// The handshake with a key (a community one too) hands back a
		// bearer token that works.
		hctx, err := c.Client.AuthenticateBasicToken(t.Context(), "anyone", "community-key")
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err := query(hctx, c, `select 42 as x`, false); err != nil || rowCount(recs) != 1 {
			t.Errorf("after the handshake: %v", err)
		}
	})

	t.Run("metadata", func(t *testing.T) {
		info, err := c.GetCatalogs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, recs, err := fetch(ctx, c, info)
		if err != nil {
			t.Fatal(err)
		}
		if got := column(t, recs, "catalog_name"); !slices.Equal(got, []string{"vatic"}) {
			t.Errorf("catalogs = %v, want [vatic]", got)
		}
		rowCount(recs)

		pattern := "dat%"
		info, err = c.GetDBSchemas(ctx, &fsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pattern})
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil {
			t.Fatal(err)
		}
		if got := column(t, recs, "db_schema_name"); !slices.Equal(got, []string{"data"}) {
			t.Errorf("schemas like dat%% = %v, want [data]", got)
		}
		rowCount(recs)

		schemaName := "data"
		info, err = c.GetTables(ctx, &fsql.GetTablesOpts{DbSchemaFilterPattern: &schemaName, TableTypes: []string{"BASE TABLE"}, IncludeSchema: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil {
			t.Fatal(err)
		}
		if got := column(t, recs, "table_name"); !slices.Equal(got, []string{"store-sales"}) {
			t.Errorf("tables of data = %v, want [store-sales]", got)
		}
		ts, err := flight.DeserializeSchema(recs[0].Column(4).(*array.Binary).Value(0), nil)
		if err != nil || !ts.HasField("day") || !ts.HasField("sales") {
			t.Errorf("store-sales schema = %v, %v", ts, err)
		}
		rowCount(recs)

		info, err = c.GetTableTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil {
			t.Fatal(err)
		}
		if got := column(t, recs, "table_type"); !slices.Contains(got, "BASE TABLE") || !slices.Contains(got, "VIEW") {
			t.Errorf("table types = %v", got)
		}
		rowCount(recs)

		info, err = c.GetSqlInfo(ctx, []fsql.SqlInfo{fsql.SqlInfoFlightSqlServerName, fsql.SqlInfoFlightSqlServerReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		if _, recs, err = fetch(ctx, c, info); err != nil {
			t.Fatal(err)
		}
		vals := recs[0].Column(1).(*array.DenseUnion)
		if n := recs[0].NumRows(); n != 2 || vals.ValueStr(0) != `[0,"vatic"]` || vals.ValueStr(1) != `[1,true]` {
			t.Errorf("sql info: %d rows, %s %s", n, vals.ValueStr(0), vals.ValueStr(1))
		}
		rowCount(recs)
	})

	t.Run("refusals", func(t *testing.T) {
		outside := filepath.Join(t.TempDir(), "out.csv")
		for _, c2 := range []struct {
			sql  string
			code codes.Code
		}{
			{`insert into data."store-sales" values ('2017-01-04', 1)`, codes.PermissionDenied},
			{`drop table data."store-sales"`, codes.PermissionDenied},
			{`copy data."store-sales" to '` + outside + `'`, codes.PermissionDenied},
			{`attach ':memory:' as m`, codes.PermissionDenied},
			{`install httpfs`, codes.PermissionDenied},
			{`load httpfs`, codes.PermissionDenied},
			{`set threads = 1`, codes.PermissionDenied},
			{`select * from read_csv('/etc/passwd')`, codes.PermissionDenied},
			{`select * from read_text('` + filepath.Join(filepath.Dir(outside), "x") + `')`, codes.PermissionDenied},
			{`commit; insert into data."store-sales" values ('2017-01-04', 1)`, codes.PermissionDenied},
			{`select * from enable_logging(storage='file', storage_path='` + filepath.Dir(outside) + `')`, codes.PermissionDenied},
			{`select * from checkpoint()`, codes.PermissionDenied},
			{`select * from query('select 1')`, codes.PermissionDenied},
			{`selec 1`, codes.InvalidArgument},
			{`select * from data.nope`, codes.InvalidArgument},
		} {
			for _, prepared := range []bool{false, true} {
				_, recs, err := query(ctx, c, c2.sql, prepared)
				rowCount(recs)
				wantCode(t, fmt.Sprintf("%s (prepared=%v)", c2.sql, prepared), err, c2.code)
			}
		}
		// Nothing was written, and the server still answers.
		_, recs, err := query(ctx, c, `select * from data."store-sales"`, false)
		if n := rowCount(recs); err != nil || n != 3 {
			t.Errorf("after the refusals: %d rows, %v", n, err)
		}
		if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("COPY wrote %s", outside)
		}
		// A ticket forged from a write is refused at DoGet too.
		ticket, _ := fsql.CreateStatementQueryTicket([]byte(`drop table data."store-sales"`))
		_, _, err = fetch(ctx, c, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}}})
		wantCode(t, "forged ticket", err, codes.PermissionDenied)
	})

	// A batch too wide for one gRPC message under the client's default
	// 4 MiB limit goes out in row slices.
	t.Run("wide", func(t *testing.T) {
		cols := make([]string, 300)
		for i := range cols {
			cols[i] = fmt.Sprintf("range * %d.5 AS c%d", i, i)
		}
		schema, recs, err := query(ctx, c, `select `+strings.Join(cols, ", ")+` from range(2048)`, false)
		batches := len(recs)
		if n := rowCount(recs); err != nil || n != 2048 || schema.NumFields() != 300 {
			t.Errorf("300 columns: %d rows, %v", n, err)
		}
		if batches < 3 {
			t.Errorf("%d batches for 4.9 MB of doubles, want slices of about 2 MiB", batches)
		}
	})

	t.Run("writes", func(t *testing.T) {
		_, err := c.ExecuteUpdate(ctx, `insert into data."store-sales" values ('2017-01-04', 1)`)
		wantCode(t, "ExecuteUpdate", err, codes.PermissionDenied)
		_, err = c.BeginTransaction(ctx)
		wantCode(t, "BeginTransaction", err, codes.PermissionDenied)
	})

	t.Run("cap", func(t *testing.T) {
		_, recs, err := query(ctx, c, `select range as x from range(100000)`, false)
		if n := rowCount(recs); err != nil || n != 100000 {
			t.Errorf("at the cap: %d rows, %v", n, err)
		}
		_, recs, err = query(ctx, c, `select range as x from range(100001)`, false)
		rowCount(recs)
		wantCode(t, "over the cap", err, codes.ResourceExhausted)
	})

	// A query during an upload sees the committed rows only: before the
	// upload's commit, not its rows in progress; after, all of them.
	t.Run("during upload", func(t *testing.T) {
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			put(t, base, "store-sales", pr)
		}()
		if _, err := io.WriteString(pw, "day,sales\n"); err != nil {
			t.Fatal(err)
		}
		for i := range 20000 {
			fmt.Fprintf(pw, "2018-%02d-%02dT%02d:00:00Z,%d\n", i%12+1, i%28+1, i%24, i)
		}
		_, recs, err := query(ctx, c, `select * from data."store-sales"`, false)
		if n := rowCount(recs); err != nil || n != 3 {
			t.Errorf("during the upload: %d rows, %v; want the 3 committed", n, err)
		}
		pw.Close()
		<-done
		_, recs, err = query(ctx, c, `select * from data."store-sales"`, false)
		if n := rowCount(recs); err != nil || n <= 3 {
			t.Errorf("after the upload: %d rows, %v", n, err)
		}
	})

	t.Run("session predictions", func(t *testing.T) {
		var csv strings.Builder
		csv.WriteString("x,y\n")
		for i := range 200 {
			fmt.Fprintf(&csv, "%d,%g\n", i, 3*float64(i)+float64(i%7))
		}
		put(t, base, "reg", strings.NewReader(csv.String()))
		id := startSession(t, base, `{"dataSourceName": "reg", "targetColumn": "y", "predictionDomain": "regression"}`)
		q := fmt.Sprintf(`select d.*, p.prediction
from results."%[1]s/data" d join results."%[1]s/predictions" p using (__row)
where p.contestant = (select champion from catalog.sessions where id = '%[1]s')
order by __row`, id)
		_, recs, err := query(ctx, c, q, true)
		if n := rowCount(recs); err != nil || n == 0 {
			t.Errorf("session predictions join: %d rows, %v", n, err)
		}
	})
}

// startSession creates a session and waits for it to complete.
func startSession(t *testing.T, base, body string) string {
	t.Helper()
	do := func(method, path, body string) map[string]any {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("api-key", flightKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode/100 != 2 {
			t.Fatalf("%s %s = %d, %v %v", method, path, res.StatusCode, out, err)
		}
		return out
	}
	id, _ := do("POST", "/v1/sessions/model", body)["sessionId"].(string)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		switch st := do("GET", "/v1/sessions/"+id, "")["status"]; st {
		case "completed":
			return id
		case "failed", "cancelled":
			t.Fatalf("session %s %v", id, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("session %s did not complete", id)
	return ""
}

// The per-query timeout stops a long statement with DeadlineExceeded.
func TestFlightSQLTimeout(t *testing.T) {
	_, addr, stop := startServeWithFlight(t, "-flight-query-timeout", "300ms")
	defer stop()
	c := flightClient(t, addr)
	ctx := bearer(t.Context(), flightKey)
	start := time.Now()
	_, recs, err := query(ctx, c, `select count(*) from range(1000000000000)`, false)
	rowCount(recs)
	wantCode(t, "long query", err, codes.DeadlineExceeded)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v to stop the query", d)
	}
}

// A client that goes away stops its query, whether DuckDB is still
// computing the answer or the answer is streaming: the server's shutdown,
// which waits for running calls (here up to a minute), ends at once after.
func TestFlightSQLClientGone(t *testing.T) {
	_, addr, stop := startServeWithFlight(t, "-shutdown-grace", "1m")
	c := flightClient(t, addr)
	ctx := bearer(t.Context(), flightKey)

	// Computing: a count over 10^12 rows, cancelled after 300ms.
	qctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, recs, err := query(qctx, c, `select count(*) from range(1000000000000)`, false)
		rowCount(recs)
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		wantCode(t, "cancelled", err, codes.Canceled)
	case <-time.After(20 * time.Second):
		t.Fatal("a cancelled query did not end")
	}

	// Streaming: one batch of five million rows read, then the client
	// leaves.
	qctx, cancel = context.WithCancel(ctx)
	info, err := c.Execute(qctx, `select range as x from range(5000000)`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.DoGet(qctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatalf("no first batch: %v", r.Err())
	}
	cancel()
	r.Release()

	// The server still answers, then stops without waiting for either.
	_, recs, err := query(ctx, c, `select 1`, false)
	if n := rowCount(recs); err != nil || n != 1 {
		t.Errorf("after the cancels: %d rows, %v", n, err)
	}
	start := time.Now()
	stop()
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("shutdown took %v: a cancelled query kept running", d)
	}
}

func TestParseServeFlight(t *testing.T) {
	c, err := parseServe(nil, env(map[string]string{"VATIC_FLIGHT_ADDR": "127.0.0.1:8815", "VATIC_FLIGHT_MAX_ROWS": "10", "VATIC_FLIGHT_MAX_QUERIES": "3"}), io.Discard)
	if err != nil || c.Flight.Addr != "127.0.0.1:8815" || c.Flight.MaxRows != 10 || c.Flight.MaxBytes != 4<<30 || c.Flight.QueryTimeout != 10*time.Minute || c.Flight.MaxQueries != 3 {
		t.Errorf("from the environment: %+v, %v", c.Flight, err)
	}
	if c, err := parseServe(nil, env(nil), io.Discard); err != nil || c.Flight.Addr != "" || c.Flight.MaxQueries != runtime.NumCPU() {
		t.Errorf("default: Flight SQL on %q, %d queries at once, %v; want off, the number of CPUs", c.Flight.Addr, c.Flight.MaxQueries, err)
	}
	for _, args := range [][]string{
		{"-flight-tls-cert", "cert.pem"},
		{"-flight-tls-key", "key.pem"},
		{"-flight-max-rows", "-1"},
		{"-flight-query-timeout", "-1s"},
		{"-flight-max-queries", "-1"},
	} {
		if _, err := parseServe(args, env(nil), io.Discard); err == nil {
			t.Errorf("parseServe(%q) accepted", args)
		}
	}
}

// With -flight-tls-cert/-key the server speaks TLS only.
func TestFlightSQLTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool := selfSigned(t, certFile, keyFile)
	_, addr, stop := startServeWithFlight(t, "-flight-tls-cert", certFile, "-flight-tls-key", keyFile)
	defer stop()
	c, err := fsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := bearer(t.Context(), flightKey)
	if _, recs, err := query(ctx, c, `select 42 as x`, false); err != nil || rowCount(recs) != 1 {
		t.Errorf("over TLS: %v", err)
	}
	plain := flightClient(t, addr)
	_, _, err = query(ctx, plain, `select 42 as x`, false)
	wantCode(t, "plain gRPC to a TLS server", err, codes.Unavailable)
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files
// and returns a pool that trusts it.
func selfSigned(t *testing.T, certFile, keyFile string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vatic test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// The Flight metrics move with the statements: outcomes, rows sent, and
// the in-flight gauge while a stream is open.
func TestFlightSQLMetrics(t *testing.T) {
	_, side, stop := startServeHooked(t, []string{"-flight-addr", "127.0.0.1:0", "-metrics-addr", "127.0.0.1:0",
		"-data", t.TempDir(), "-api-key", flightKey, "-threads", "2"}, func(c *serveConfig) []chan string {
		fh, fch := sendTo()
		c.Flight.ready = fh
		mh, mch := sendTo()
		c.metricsReady = mh
		return []chan string{fch, mch}
	})
	defer stop()
	c := flightClient(t, side[0])
	metricsURL := "http://" + side[1] + "/metrics"
	ctx := bearer(t.Context(), flightKey)
	get := func(name string, labels map[string]string) float64 {
		t.Helper()
		v, _ := value(scrape(t, metricsURL), name, labels)
		return v
	}
	if _, recs, err := query(ctx, c, `select range from range(5000)`, false); err != nil || rowCount(recs) != 5000 {
		t.Fatalf("5000 rows: %v", err)
	}
	_, _, err := query(ctx, c, `delete from data.nothing`, false)
	wantCode(t, "a DELETE", err, codes.PermissionDenied)
	// 8 bytes a BIGINT, and a validity bit.
	if got := get("vatic_flight_bytes_sent_total", nil); got < 5000*8 || got > 5000*9 {
		t.Errorf("vatic_flight_bytes_sent_total = %v, want 5000 BIGINTs' worth", got)
	}
	for name, want := range map[string]float64{"vatic_flight_rows_sent_total": 5000, "vatic_flight_queries_in_flight": 0} {
		if got := get(name, nil); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for outcome, want := range map[string]float64{"ok": 1, "refused": 1} {
		if got := get("vatic_flight_queries_total", map[string]string{"outcome": outcome}); got != want {
			t.Errorf("vatic_flight_queries_total{outcome=%s} = %v, want %v", outcome, got, want)
		}
	}

	// An open stream is in flight until the client goes away. (An
	// endless scan only streams in the Arrow build; the other would
	// compute it whole first.)
	if !arrowBuild {
		return
	}
	sctx, cancel := context.WithCancel(ctx)
	info, err := c.Execute(sctx, `select range from range(1000000000000)`)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := c.DoGet(sctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !rd.Next() {
		t.Fatal(rd.Err())
	}
	if got := get("vatic_flight_queries_in_flight", nil); got != 1 {
		t.Errorf("in flight during a stream = %v, want 1", got)
	}
	cancel()
	rd.Release()
	for deadline := time.Now().Add(10 * time.Second); get("vatic_flight_queries_in_flight", nil) != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stream stayed in flight after the client left")
		}
	}
	if got := get("vatic_flight_queries_total", map[string]string{"outcome": "canceled"}); got != 1 {
		t.Errorf("vatic_flight_queries_total{outcome=canceled} = %v, want 1", got)
	}
}
