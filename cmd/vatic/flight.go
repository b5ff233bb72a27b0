package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/api"
	"github.com/vaticml/vatic/duckstore"
	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/flightsql"
)

// flightConfig configures the Arrow Flight SQL listener (off without Addr).
type flightConfig struct {
	Addr             string
	TLSCert, TLSKey  string
	QueryTimeout     time.Duration
	MaxRows          int64
	MaxBytes         int64
	MaxQueries       int
	ready            func(addr string) // tests: the listening address
	shutdownDeadline time.Duration
}

// flightQuerier is the store as the Flight SQL server consumes it: the
// store's read-only queries, with its errors told apart in the server's
// vocabulary.
type flightQuerier struct{ store *duckstore.Store }

func (f flightQuerier) Describe(ctx context.Context, query string) (result, params *arrow.Schema, err error) {
	d, err := f.store.ReadOnlyDescribe(ctx, query)
	return d.Result, d.Params, flightError(err)
}

func (f flightQuerier) ReadOnlyQuery(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	rr, err := f.store.ReadOnlyQuery(ctx, query, args...)
	return rr, flightError(err)
}

func flightError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, duckstore.ErrRefused):
		return fmt.Errorf("%w: %w", flightsql.ErrRefused, err)
	case errors.Is(err, duckstore.ErrInvalidQuery):
		return fmt.Errorf("%w: %w", flightsql.ErrInvalid, err)
	case errors.Is(err, duckstore.ErrTooLarge):
		return fmt.Errorf("%w: %w", flightsql.ErrTooLarge, err)
	}
	return err
}

// startFlight serves Flight SQL over store on c.Addr in the background
// and returns the function that stops it: running calls get the shutdown
// grace to finish, then are cut (which interrupts their queries).
func startFlight(c flightConfig, store *duckstore.Store, keys map[string]api.Plan, obs flightsql.Observer, log *slog.Logger) (func(), error) {
	var tlsConfig *tls.Config
	if c.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("-flight-tls-cert/-flight-tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	// Every key works, community ones too: the community plan limits the
	// HTTP API's modelling, not reading one's own data.
	accepted := make(map[string]bool, len(keys))
	for k := range keys {
		accepted[k] = true
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	srv, err := flightsql.New(flightQuerier{store}, flightsql.Options{
		Logger: log, Keys: accepted, TLS: tlsConfig, QueryTimeout: c.QueryTimeout,
		MaxRows: c.MaxRows, MaxBytes: c.MaxBytes, Version: version, MaxQueries: c.MaxQueries, Observer: obs,
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return nil, fmt.Errorf("-flight-addr: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil {
			log.Warn("flight sql server", engine.LogErr, err)
		}
	}()
	log.Info("flight sql serving", "addr", ln.Addr().String(), "tls", tlsConfig != nil)
	if c.ready != nil {
		c.ready(ln.Addr().String())
	}
	return func() {
		stopped := make(chan struct{})
		go func() { srv.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(c.shutdownDeadline):
			srv.Stop()
			<-stopped
		}
		<-done
	}, nil
}
