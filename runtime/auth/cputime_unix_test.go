//go:build unix

package auth

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) this process used so far.
func cpuTime() (time.Duration, bool) {
	var self syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil {
		return 0, false
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano()), true
}
