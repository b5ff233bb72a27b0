package anomaly_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) of the process so far: with
// other programs competing for the cores, rows per CPU-second measures
// the kernel where rows per wall-second measures the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
