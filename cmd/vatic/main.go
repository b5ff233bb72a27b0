// Command vatic is the Vatic server: `vatic serve` answers the Nexosis API
// v1 over HTTP on one embedded DuckDB file (and, with -flight-addr,
// read-only Arrow Flight SQL over it); `vatic sql` runs statements on that
// file while the server is stopped.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "vatic:", err)
		os.Exit(1)
	}
}

const usage = `Vatic — a self-hosted predictive-modelling data service speaking the Nexosis API v1.

Usage:
  vatic serve [flags]     run the HTTP server (vatic serve -h lists its flags)
  vatic sql [flags] SQL…  run SQL statements on the database file (server stopped)

Every flag has an environment twin: VATIC_ plus the flag name in upper snake
case (e.g. -max-body → VATIC_MAX_BODY); the command line beats the
environment, which beats the default.
`

// run is main without the process: tests drive it with their own
// arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) (string, bool), stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("missing command")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServe(args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stderr)
	case "sql":
		return runSQL(ctx, args[1:], getenv, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		fmt.Fprintln(stdout, "\nvatic serve flags:")
		_, _ = parseServe([]string{"-h"}, getenv, stdout)
		fmt.Fprintln(stdout, "\nvatic sql flags:")
		_ = runSQL(ctx, []string{"-h"}, getenv, io.Discard, stdout)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
