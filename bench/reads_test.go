package bench_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// The reads workload against the fake server: its three phases per run,
// in alternating order, each with a rate and latencies, and nothing left
// in Dir.
func TestRunReads(t *testing.T) {
	bin := fakeVaticBin(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	cfg := bench.Config{Vatic: bin, Dir: dir, Runs: 2, ReadsDuration: 200 * time.Millisecond, ReadsConns: 4, ReadsRows: 500, Progress: &progress}
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadReads})
	if err != nil {
		t.Fatalf("Run = %v\nprogress:\n%s", err, progress.String())
	}
	var order []string
	for _, r := range results {
		order = append(order, strings.TrimPrefix(r.Name, "Reads/"))
		for _, u := range []string{bench.UnitReqPerSec, bench.UnitP50Ns, bench.UnitP99Ns} {
			if v, ok := r.Metric(u); !ok || v <= 0 {
				t.Errorf("%s: %s = %v, %v; want a positive value", r.Name, u, v, ok)
			}
		}
	}
	want := "anchor/impl=httprouter session/impl=vatic page/impl=vatic page/impl=vatic session/impl=vatic anchor/impl=httprouter"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("Run gave %s, want %s", got, want)
	}
	if checks := bench.Checks(results); len(checks) != 5 {
		t.Errorf("Checks = %+v, want 5 (anchor note, session rate and p99, page rate and p99 note)", checks)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Dir after Run holds %v, want nothing", entries)
	}
}

func TestParseWorkloadsReads(t *testing.T) {
	got, err := bench.ParseWorkloads("reads,csv")
	if err != nil || strings.Join(got, ",") != "csv,reads" {
		t.Errorf("ParseWorkloads(reads,csv) = %v, %v; want csv,reads", got, err)
	}
}
