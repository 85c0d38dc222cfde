//go:build unix

package gen

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) used so far by this process and
// its waited-for children, the go commands that go/packages runs.
func cpuTime() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	var d time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		d += time.Duration(tv.Nano())
	}
	return d, true
}
