package runner

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user+system CPU time this process has used so far. For a server target
// this is the client's own cost; for an embedded engine it includes the engine.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
