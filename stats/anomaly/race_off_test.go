//go:build !race

package anomaly_test

const raceOn = false
