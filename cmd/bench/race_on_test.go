//go:build race

package main

// raceOn reports a -race build, under which TestRunForecastWorkload runs
// one series: the contests exercise numerics, not concurrency, and take
// minutes under the race detector; the plain test run covers both.
const raceOn = true
