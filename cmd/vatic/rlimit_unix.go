//go:build unix

package main

import "syscall"

// openFileLimit is the process's soft RLIMIT_NOFILE (which the Go runtime
// raises to the hard limit at start), or 0 when it cannot be read.
func openFileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}
