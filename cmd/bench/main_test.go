package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	f := func(args []string, getenv func(string) (string, bool), wantErr string) {
		t.Helper()
		err := run(t.Context(), args, getenv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("run(%q) = %v, want an error containing %q", args, err, wantErr)
		}
	}
	f([]string{"-vatic", "/nonexistent/vatic"}, noEnv, "not found")
	f([]string{"-workloads", "bogus"}, noEnv, "unknown workload")
	f([]string{"extra"}, noEnv, "unexpected arguments")
	// The environment twin applies when the flag is not given …
	env := func(k string) (string, bool) {
		if k == "VATIC_BENCH_WORKLOADS" {
			return "nope", true
		}
		return "", false
	}
	f(nil, env, `unknown workload "nope"`)
	// … and the command line wins over it.
	f([]string{"-workloads", "csv", "-vatic", "/nonexistent/vatic"}, env, "not found")

	// The regression workload's flags reach the configuration.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f([]string{"-vatic", exe, "-predict-rows", "5"}, noEnv, "PredictRows = 5")
	f([]string{"-vatic", exe, "-linear-train-rows", "-1"}, noEnv, "LinearTrainRows = -1")
	// So do the classification workload's.
	f([]string{"-vatic", exe, "-classification-repeats", "-1"}, noEnv, "Classification.Repeats = -1")
	f([]string{"-vatic", exe, "-classification-predict-rows", "5"}, noEnv, "Classification.PredictRows = 5")
	f([]string{"-vatic", exe, "-classification-sets", "iris,../wine"}, noEnv, `classification set "../wine"`)
	// And the anomalies workload's.
	f([]string{"-vatic", exe, "-anomaly-seeds", "-1"}, noEnv, "Anomalies.Seeds = -1")
	f([]string{"-vatic", exe, "-anomaly-tasks", "wine, digits"}, noEnv, `unknown anomaly task "digits"`)
	// And the text workload's.
	f([]string{"-vatic", exe, "-text-max-per-topic", "-1"}, noEnv, "Text.MaxPerTopic = -1")
	f([]string{"-vatic", exe, "-text-topics", "people"}, noEnv, "want at least two")
	f([]string{"-vatic", exe, "-text-topics", "people,../etc/passwd"}, noEnv, `text topic "../etc/passwd"`)

	if err := run(t.Context(), []string{"-h"}, noEnv, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("run(-h) = %v, want flag.ErrHelp", err)
	}
}

// TestRunForecastWorkload: the forecast workload needs no vatic binary; its
// flags reach the configuration, and the report names the contest.
func TestRunForecastWorkload(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	var out strings.Builder
	only, vaticLine := "AirPassengers, co2", "BenchmarkForecast/series=co2/impl=vatic\t"
	if raceOn {
		only, vaticLine = "AirPassengers", "BenchmarkForecast/series=AirPassengers/impl=vatic\t"
	}
	args := []string{"-workloads", "forecast", "-vatic", "/nonexistent/vatic", "-runs", "1", "-dir", t.TempDir(),
		"-forecast-series", "../../stats/forecast/testdata/series.json", "-forecast-only", only,
		"-forecast-r-json", "../../bench/testdata/forecast-r.json"}
	if err := run(t.Context(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("run(%q) = %v", args, err)
	}
	for _, want := range []string{vaticLine, "BenchmarkForecast/series=AirPassengers/method=arima/impl=r\t",
		"forecast.Contest (both variants", "MASE geomean vatic÷best R"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "UKDriverDeaths") {
		t.Errorf("-forecast-only ignored:\n%s", out.String())
	}
	err := run(t.Context(), []string{"-workloads", "forecast", "-forecast-only", "nottem"}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `unknown forecast series "nottem"`) {
		t.Errorf("-forecast-only nottem: %v", err)
	}
	err = run(t.Context(), []string{"-workloads", "forecast,csv", "-vatic", "/nonexistent/vatic"}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("forecast,csv without the binary: %v", err)
	}
}
