//go:build race

package api_test

// raceEnabled says the race detector is on: the time-series contest then
// runs many times slower, and waits for sessions are longer.
const raceEnabled = true
