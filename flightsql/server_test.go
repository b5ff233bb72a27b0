package flightsql_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	fsql "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/vaticml/vatic/flightsql"
)

// heldQuerier answers every statement with one row, then holds the
// stream (ignoring its context, as a query stuck in a long operator
// would) until hold closes.
type heldQuerier struct{ hold chan struct{} }

func (heldQuerier) Describe(context.Context, string) (result, params *arrow.Schema, err error) {
	return nil, nil, nil
}

func (q heldQuerier) ReadOnlyQuery(context.Context, string, ...any) (array.RecordReader, error) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.Append(1)
	col := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, err
	}
	return &heldReader{RecordReader: rr, hold: q.hold}, nil
}

type heldReader struct {
	array.RecordReader
	hold chan struct{}
	sent bool
}

func (h *heldReader) Next() bool {
	if h.sent {
		<-h.hold
		return false
	}
	h.sent = true
	return h.RecordReader.Next()
}

// outcomes counts an Observer's reports.
type outcomes struct {
	mu       sync.Mutex
	done     map[string]int
	inFlight int
	rows     int64
}

func (o *outcomes) QueryStarted() { o.mu.Lock(); o.inFlight++; o.mu.Unlock() }

func (o *outcomes) QueryDone(outcome string, rows, _ int64, started bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if started {
		o.inFlight--
	}
	o.done[outcome]++
	o.rows += rows
}

// With -flight-max-queries 1, a statement arriving while another runs
// waits for the slot within its query timeout, then is answered
// ResourceExhausted; once the slot frees, statements run again.
func TestMaxQueries(t *testing.T) {
	q := heldQuerier{hold: make(chan struct{})}
	obs := &outcomes{done: map[string]int{}}
	srv, err := flightsql.New(q, flightsql.Options{Keys: map[string]bool{"k": true}, MaxQueries: 1, QueryTimeout: 300 * time.Millisecond, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	c, err := fsql.NewClient(ln.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer k")
	// run runs a statement to its end.
	run := func() error {
		info, err := c.Execute(ctx, "select 1")
		if err != nil {
			t.Fatal(err)
		}
		rd, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			return err
		}
		defer rd.Release()
		for rd.Next() {
		}
		return rd.Err()
	}
	info, err := c.Execute(ctx, "select 1")
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Next() {
		t.Fatalf("first statement: %v", first.Err())
	}
	if err := run(); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("second statement while the first holds the slot: %v, want ResourceExhausted", err)
	}
	close(q.hold)
	for first.Next() {
	}
	first.Release()
	if err := run(); err != nil {
		t.Fatalf("a statement after the slot freed: %v", err)
	}
	// The server reports a statement done once it has released it,
	// just after the client saw the end.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		obs.mu.Lock()
		done, busy, inFlight := obs.done[flightsql.OutcomeOK]+obs.done[flightsql.OutcomeTimeout], obs.done[flightsql.OutcomeBusy], obs.inFlight
		obs.mu.Unlock()
		if done == 2 && busy == 1 && inFlight == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("observed %v, %d in flight; want one busy, two ok or timeout (the first may outlive its timeout), none in flight", obs.done, inFlight)
		}
	}
}
