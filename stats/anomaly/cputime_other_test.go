//go:build !linux

package anomaly_test

import "time"

// cpuTime is not measured off Linux; benchmarks then omit rows/cpu-s.
func cpuTime() time.Duration { return 0 }
