// Package flightsql serves Arrow Flight SQL, read-only, over the live
// database: data engineers' tools (ADBC, JDBC, DBeaver, pandas through
// ADBC) query the datasets while Vatic serves the HTTP API, instead of
// stopping it to open the DuckDB file.
//
// It is an adapter beside api: it declares the Querier it consumes, and
// every statement a client sends goes through it, so the guarantees
// (one SELECT, a read-only transaction, no file system) are the
// Querier's, enforced by the database; this package never inspects SQL
// text. It adds authentication with the HTTP API's keys, a per-query
// timeout and a cap on the rows and bytes one answer may stream.
//
// Statements are stateless on the server: the ticket of an ad-hoc
// statement, and the handle of a prepared one, is the statement's text, so
// nothing is kept between calls, closing a prepared statement is free and
// a restarted server still honours a client's handles. A prepared
// statement's parameters, once a client binds them (DoPut), travel in the
// handle the server hands back (paramHandle).
//
// Schemas come from preparing the statement, before anything runs:
// FlightInfo, GetSchema and CreatePreparedStatement carry the result's
// (and the parameters') Arrow schema.
package flightsql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	fsql "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// Querier runs client statements without letting them write. Both
// methods are safe for concurrent use.
type Querier interface {
	// Describe reports whether ReadOnlyQuery would accept query, without
	// running it, and the schemas of its result and parameters; either is
	// nil when unknown before the parameters' values are.
	Describe(ctx context.Context, query string) (result, params *arrow.Schema, err error)
	// ReadOnlyQuery runs one SELECT statement; cancelling ctx stops it.
	// The caller releases the reader.
	ReadOnlyQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error)
}

// Errors a Querier wraps so the server answers the right gRPC status.
// Others are Internal, logged, and answered without detail.
var (
	// ErrRefused: the statement would write or reach outside the
	// database (PermissionDenied).
	ErrRefused = errors.New("statement refused")
	// ErrInvalid: the statement does not parse, bind or run
	// (InvalidArgument).
	ErrInvalid = errors.New("invalid statement")
	// ErrTooLarge: the database ran out of memory (ResourceExhausted).
	ErrTooLarge = errors.New("result too large")
)

// Options configure a Server. Zero values mean the documented defaults.
type Options struct {
	// Logger receives failures the client is not shown; nil discards.
	Logger *slog.Logger
	// Keys are the accepted API keys, sent as a bearer token or as the
	// password of Flight's basic-auth handshake (any user name).
	Keys map[string]bool
	// TLS, when set, serves TLS; nil serves plain gRPC.
	TLS *tls.Config
	// QueryTimeout bounds one statement, from its start to the last
	// batch sent; 0 means no limit.
	QueryTimeout time.Duration
	// MaxRows and MaxBytes (Arrow buffer bytes) cap one answer: the
	// stream stops with ResourceExhausted before the batch that would
	// pass either. 0 means no cap.
	MaxRows, MaxBytes int64
	// Version is reported by GetSqlInfo.
	Version string
	// MaxQueries bounds the statements running at once; 0 means no
	// bound. One more waits for a slot within its query timeout, then
	// is answered ResourceExhausted: a burst of dashboard queries is
	// served in turn instead of refused, while a sustained overload
	// tells the client to come back rather than queueing forever.
	MaxQueries int
	// Observer, when set, is told of every statement run; nil observes
	// nothing.
	Observer Observer
}

// Observer watches the statements the server runs (for metrics). Its
// methods are called concurrently.
type Observer interface {
	// QueryStarted: a statement got its slot and starts running.
	QueryStarted()
	// QueryDone: a statement that started ended with outcome (see
	// Outcome*) after sending rows rows and bytes Arrow buffer bytes.
	// A statement refused before it started is reported done without a
	// start: when it is described (GetFlightInfo, GetSchema, prepare;
	// refused, invalid) or when it finds no slot (busy).
	QueryDone(outcome string, rows, bytes int64, started bool)
}

// Outcomes of a statement, as an Observer is told.
const (
	OutcomeOK       = "ok"
	OutcomeRefused  = "refused"   // PermissionDenied
	OutcomeInvalid  = "invalid"   // InvalidArgument
	OutcomeTooLarge = "too_large" // ResourceExhausted: out of memory, or a row or byte cap
	OutcomeBusy     = "busy"      // ResourceExhausted: no slot within the timeout
	OutcomeTimeout  = "timeout"   // DeadlineExceeded
	OutcomeCanceled = "canceled"  // the client went away
	OutcomeError    = "error"     // Internal
)

// outcome names the outcome of a statement's gRPC error.
func outcome(err error) string {
	switch status.Code(err) {
	case codes.OK:
		return OutcomeOK
	case codes.PermissionDenied:
		return OutcomeRefused
	case codes.InvalidArgument:
		return OutcomeInvalid
	case codes.ResourceExhausted:
		return OutcomeTooLarge
	case codes.DeadlineExceeded:
		return OutcomeTimeout
	case codes.Canceled:
		return OutcomeCanceled
	}
	return OutcomeError
}

// nopObserver observes nothing.
type nopObserver struct{}

func (nopObserver) QueryStarted()                        {}
func (nopObserver) QueryDone(string, int64, int64, bool) {}

// Server is a Flight SQL server over a Querier. It is safe for concurrent
// use; Serve runs it.
type Server struct {
	fsql.BaseServer
	q    Querier
	o    Options
	log  *slog.Logger
	grpc *grpc.Server
	// slots holds a token per running statement (MaxQueries); nil
	// without a bound.
	slots chan struct{}
	obs   Observer
}

// New returns a server over q.
func New(q Querier, o Options) (*Server, error) {
	if len(o.Keys) == 0 {
		return nil, errors.New("flightsql: no API keys")
	}
	if o.QueryTimeout < 0 || o.MaxRows < 0 || o.MaxBytes < 0 || o.MaxQueries < 0 {
		return nil, errors.New("flightsql: timeout, caps and query limit must not be negative")
	}
	s := &Server{q: q, o: o, log: o.Logger, obs: o.Observer}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if o.MaxQueries > 0 {
		s.slots = make(chan struct{}, o.MaxQueries)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.Alloc = memory.DefaultAllocator
	for id, v := range map[fsql.SqlInfo]any{
		fsql.SqlInfoFlightSqlServerName:             "vatic",
		fsql.SqlInfoFlightSqlServerVersion:          o.Version,
		fsql.SqlInfoFlightSqlServerArrowVersion:     arrowVersion,
		fsql.SqlInfoFlightSqlServerReadOnly:         true,
		fsql.SqlInfoFlightSqlServerSql:              true,
		fsql.SqlInfoFlightSqlServerSubstrait:        false,
		fsql.SqlInfoFlightSqlServerTransaction:      int32(fsql.SqlTransactionNone),
		fsql.SqlInfoFlightSqlServerCancel:           false,
		fsql.SqlInfoFlightSqlServerStatementTimeout: int32(o.QueryTimeout / time.Millisecond),
	} {
		if err := s.RegisterSqlInfo(id, v); err != nil {
			return nil, fmt.Errorf("flightsql: %w", err)
		}
	}
	auth := flight.CreateServerBasicAuthMiddleware(keyValidator(o.Keys))
	opts := []grpc.ServerOption{grpc.ChainUnaryInterceptor(auth.Unary), grpc.ChainStreamInterceptor(auth.Stream)}
	if o.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.TLS)))
	}
	s.grpc = grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(s.grpc, fsql.NewFlightServer(s))
	return s, nil
}

// arrowVersion is the arrow-go major version the answers are written with.
const arrowVersion = "18"

// Serve answers on ln until Stop or GracefulStop.
func (s *Server) Serve(ln net.Listener) error { return s.grpc.Serve(ln) }

// GracefulStop stops accepting and waits for running calls to end.
func (s *Server) GracefulStop() { s.grpc.GracefulStop() }

// Stop closes every connection, cancelling running calls (and so their
// queries).
func (s *Server) Stop() { s.grpc.Stop() }

// keyValidator accepts the API keys: the basic-auth handshake's password
// is a key and the bearer token it hands back is that key, so a client
// may also send the key as a bearer token directly.
type keyValidator map[string]bool

func (k keyValidator) Validate(_, password string) (string, error) {
	if !k[password] {
		return "", status.Error(codes.Unauthenticated, "invalid API key")
	}
	return password, nil
}

func (k keyValidator) IsValid(token string) (any, error) {
	if !k[token] {
		return nil, status.Error(codes.Unauthenticated, "invalid API key")
	}
	return nil, nil
}

// status turns a Querier's error into the gRPC status the client sees.
func (s *Server) status(ctx context.Context, err error) error {
	msg := func(sentinel error) string {
		return strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	}
	switch {
	case errors.Is(err, ErrRefused):
		return status.Error(codes.PermissionDenied, "read-only: "+msg(ErrRefused))
	case errors.Is(err, ErrInvalid):
		return status.Error(codes.InvalidArgument, msg(ErrInvalid))
	case errors.Is(err, ErrTooLarge):
		return status.Error(codes.ResourceExhausted, msg(ErrTooLarge))
	case errors.Is(err, context.DeadlineExceeded):
		return status.Errorf(codes.DeadlineExceeded, "the statement ran longer than the per-query timeout (%s)", s.o.QueryTimeout)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	}
	s.log.ErrorContext(ctx, "flight sql statement failed", "err", err)
	return status.Error(codes.Internal, "internal error")
}

// queryContext bounds one statement by the per-query timeout.
func (s *Server) queryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.o.QueryTimeout > 0 {
		return context.WithTimeout(ctx, s.o.QueryTimeout)
	}
	return context.WithCancel(ctx)
}

// describe refuses, before any ticket is handed out, what the query
// would refuse, and types its result and parameters.
func (s *Server) describe(ctx context.Context, query string) (result, params *arrow.Schema, err error) {
	ctx, cancel := s.queryContext(ctx)
	defer cancel()
	result, params, err = s.q.Describe(ctx, query)
	if err != nil {
		err = s.status(ctx, err)
		s.obs.QueryDone(outcome(err), 0, 0, false)
		return nil, nil, err
	}
	return result, params, nil
}

// run streams query's answer under the timeout and the caps. The stream
// stops when the client goes away: the context of the call ends, which
// interrupts the query and ends StreamChunksFromReader.
func (s *Server) run(ctx context.Context, query string, args ...any) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	qctx, cancel := s.queryContext(ctx)
	free, err := s.acquire(qctx)
	if err != nil {
		cancel()
		oc := outcome(err)
		if status.Code(err) == codes.ResourceExhausted {
			oc = OutcomeBusy
		}
		s.obs.QueryDone(oc, 0, 0, false)
		return nil, nil, err
	}
	s.obs.QueryStarted()
	rr, err := s.q.ReadOnlyQuery(qctx, query, args...)
	if err != nil {
		free()
		cancel()
		err = s.status(qctx, err)
		s.obs.QueryDone(outcome(err), 0, 0, true)
		return nil, nil, err
	}
	capped := &cappedReader{RecordReader: rr, s: s, ctx: qctx, cancel: func() { free(); cancel() }}
	ch := make(chan flight.StreamChunk)
	// The framework drains ch until it closes, so this goroutine has an
	// owner; it releases the reader (ending the transaction) when done.
	// It watches the call's context, not qctx: a timeout must reach the
	// client as an error chunk, not as a silently short stream.
	go flight.StreamChunksFromReader(ctx, capped, ch)
	return rr.Schema(), ch, nil
}

// acquire waits for a statement slot (MaxQueries) within ctx, which
// carries the query timeout; free gives the slot back (more calls are
// no-ops).
func (s *Server) acquire(ctx context.Context) (free func(), err error) {
	if s.slots == nil {
		return func() {}, nil
	}
	select {
	case s.slots <- struct{}{}:
		return sync.OnceFunc(func() { <-s.slots }), nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, status.Errorf(codes.ResourceExhausted,
				"%d statements were running for the whole query timeout (%s), the most at once (-flight-max-queries); try again later", s.o.MaxQueries, s.o.QueryTimeout)
		}
		return nil, status.Error(codes.Canceled, "canceled")
	}
}

// maxMessageBytes bounds the Arrow buffers of one streamed batch: gRPC
// clients refuse messages over 4 MiB unless told otherwise, and a DuckDB
// chunk of 2048 rows passes that from about 250 numeric columns on, so
// wider batches go out in row slices of about this size.
const maxMessageBytes = 2 << 20

// cappedReader streams the query's batches, sliced to maxMessageBytes,
// and stops its answer at the row and byte caps with an error the stream
// carries to the client.
type cappedReader struct {
	array.RecordReader
	s           *Server
	ctx         context.Context
	cancel      context.CancelFunc
	rows, bytes int64
	// sentRows and sentBytes count the batches passed on (within the
	// caps), for the Observer.
	sentRows, sentBytes int64
	err                 error
	// batch is the reader's current batch, handed out from row off in
	// slices of step rows; cur is the slice handed out.
	batch     arrow.RecordBatch
	off, step int64
	cur       arrow.RecordBatch
}

func (c *cappedReader) Next() bool {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
	if c.err != nil {
		return false
	}
	if c.batch == nil || c.off >= c.batch.NumRows() {
		if !c.RecordReader.Next() {
			return false
		}
		c.batch, c.off = c.RecordReader.RecordBatch(), 0
		n := c.batch.NumRows()
		var size int64
		for _, col := range c.batch.Columns() {
			size += dataBytes(col.Data())
		}
		c.rows += n
		c.bytes += size
		switch {
		case c.s.o.MaxRows > 0 && c.rows > c.s.o.MaxRows:
			c.err = status.Errorf(codes.ResourceExhausted, "the answer has more than %d rows, the cap of one query (-flight-max-rows)", c.s.o.MaxRows)
			return false
		case c.s.o.MaxBytes > 0 && c.bytes > c.s.o.MaxBytes:
			c.err = status.Errorf(codes.ResourceExhausted, "the answer has more than %d bytes, the cap of one query (-flight-max-bytes)", c.s.o.MaxBytes)
			return false
		}
		c.sentRows += n
		c.sentBytes += size
		c.step = n
		if size > maxMessageBytes {
			c.step = max(1, n*maxMessageBytes/size)
		}
	}
	end := min(c.off+c.step, c.batch.NumRows())
	if c.off == 0 && end == c.batch.NumRows() {
		c.batch.Retain()
		c.cur = c.batch
	} else {
		c.cur = c.batch.NewSlice(c.off, end)
	}
	c.off = end
	return true
}

func (c *cappedReader) RecordBatch() arrow.RecordBatch { return c.cur }

// Record is RecordBatch, for readers of the deprecated name.
func (c *cappedReader) Record() arrow.RecordBatch { return c.cur }

// dataBytes is the size of an array's buffers, its children's and
// dictionary's included.
func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}

// Err is the stream's error as a gRPC status, worked out (and logged,
// if internal) once.
func (c *cappedReader) Err() error {
	if c.err == nil {
		if err := c.RecordReader.Err(); err != nil {
			c.err = c.s.status(c.ctx, err)
		}
	}
	return c.err
}

// Release ends the statement: its transaction, its slot, and its
// report to the Observer (a stream the client left early is canceled).
func (c *cappedReader) Release() {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
	err := c.Err()
	if err == nil && c.ctx.Err() != nil {
		err = c.s.status(c.ctx, c.ctx.Err())
	}
	c.RecordReader.Release()
	c.cancel()
	c.s.obs.QueryDone(outcome(err), c.sentRows, c.sentBytes, true)
}

// statementInfo is the FlightInfo of a statement: one endpoint whose
// ticket DoGet redeems, and the result's schema when it is known.
func (s *Server) statementInfo(desc *flight.FlightDescriptor, ticket []byte, result *arrow.Schema) *flight.FlightInfo {
	info := &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}},
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	if result != nil {
		info.Schema = flight.SerializeSchema(result, s.Alloc)
	}
	return info
}

// schemaResult answers GetSchema: the result's schema, which a column
// typed by a parameter leaves unknown until the statement runs.
func (s *Server) schemaResult(result *arrow.Schema) (*flight.SchemaResult, error) {
	if result == nil {
		return nil, status.Error(codes.FailedPrecondition, "the result's schema depends on the parameters' values; run the statement to learn it")
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(result, s.Alloc)}, nil
}

// GetFlightInfoStatement checks an ad-hoc statement and hands out its
// ticket: the statement itself.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd fsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	result, _, err := s.describe(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	ticket, err := fsql.CreateStatementQueryTicket([]byte(cmd.GetQuery()))
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return s.statementInfo(desc, ticket, result), nil
}

// GetSchemaStatement types an ad-hoc statement's result without running
// it.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd fsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	result, _, err := s.describe(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	return s.schemaResult(result)
}

// DoGetStatement runs the statement of a ticket.
func (s *Server) DoGetStatement(ctx context.Context, ticket fsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.run(ctx, string(ticket.GetStatementHandle()))
}

// CreatePreparedStatement checks the statement; its handle is its text.
func (s *Server) CreatePreparedStatement(ctx context.Context, req fsql.ActionCreatePreparedStatementRequest) (fsql.ActionCreatePreparedStatementResult, error) {
	if len(req.GetTransactionId()) > 0 {
		return fsql.ActionCreatePreparedStatementResult{}, status.Error(codes.InvalidArgument, "transactions are not supported: every statement runs in its own read-only transaction")
	}
	result, params, err := s.describe(ctx, req.GetQuery())
	if err != nil {
		return fsql.ActionCreatePreparedStatementResult{}, err
	}
	isUpdate := false
	return fsql.ActionCreatePreparedStatementResult{
		Handle: []byte(req.GetQuery()), DatasetSchema: result, ParameterSchema: params, IsUpdate: &isUpdate,
	}, nil
}

// ClosePreparedStatement has nothing to free.
func (s *Server) ClosePreparedStatement(context.Context, fsql.ActionClosePreparedStatementRequest) error {
	return nil
}

// GetFlightInfoPreparedStatement checks the statement again (the handle
// comes from the client) and hands out the command as its ticket.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd fsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	result, err := s.describeHandle(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return s.statementInfo(desc, desc.Cmd, result), nil
}

// describeHandle checks and types the statement of a prepared
// statement's handle.
func (s *Server) describeHandle(ctx context.Context, cmd fsql.PreparedStatementQuery) (*arrow.Schema, error) {
	query, _, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	result, _, err := s.describe(ctx, query)
	return result, err
}

// GetSchemaPreparedStatement types a prepared statement's result.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd fsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	result, err := s.describeHandle(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return s.schemaResult(result)
}

// DoGetPreparedStatement runs a prepared statement with the parameters
// its handle carries.
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd fsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	query, args, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	return s.run(ctx, query, args...)
}

// DoPutPreparedStatementQuery binds the parameters of a prepared
// statement: one row, one column per parameter. The server keeps
// nothing; the handle it answers carries the values.
func (s *Server) DoPutPreparedStatementQuery(ctx context.Context, cmd fsql.PreparedStatementQuery, r flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	query, _, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	_, params, err := s.describe(ctx, query)
	if err != nil {
		return nil, err
	}
	row, err := oneRow(r)
	if err != nil {
		return nil, err
	}
	defer row.Release()
	if params != nil && int(row.NumCols()) != params.NumFields() {
		return nil, status.Errorf(codes.InvalidArgument, "the statement takes %d parameters, the batch has %d columns", params.NumFields(), row.NumCols())
	}
	if _, err := rowValues(row); err != nil {
		return nil, err
	}
	return encodeHandle(query, row)
}

// errReadOnly answers the protocol's write calls: updates, ingestion and
// transactions (a statement already runs in a transaction of its own).
var errReadOnly = status.Error(codes.PermissionDenied, "read-only: this server runs SELECT statements only; write through Vatic's HTTP API")

// DoPutCommandStatementUpdate refuses an ad-hoc update.
func (s *Server) DoPutCommandStatementUpdate(context.Context, fsql.StatementUpdate) (int64, error) {
	return 0, errReadOnly
}

// DoPutPreparedStatementUpdate refuses a prepared update.
func (s *Server) DoPutPreparedStatementUpdate(context.Context, fsql.PreparedStatementUpdate, flight.MessageReader) (int64, error) {
	return 0, errReadOnly
}

// DoPutCommandStatementIngest refuses bulk ingestion.
func (s *Server) DoPutCommandStatementIngest(context.Context, fsql.StatementIngest, flight.MessageReader) (int64, error) {
	return 0, errReadOnly
}

// BeginTransaction refuses client transactions.
func (s *Server) BeginTransaction(context.Context, fsql.ActionBeginTransactionRequest) ([]byte, error) {
	return nil, errReadOnly
}
