//go:build race

package anomaly_test

// raceOn reports a -race build, under which the slowest reference fits
// (500 random FastMCD starts) are skipped: they exercise numerics, not
// concurrency, and the plain test run covers them.
const raceOn = true
