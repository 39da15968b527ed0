package hostproc

import (
	"syscall"
	"time"
)

// CPUTime is CPU time used by this process, split into user and system (kernel) time. For a
// server target it is the client's own cost; for an embedded engine it includes the engine.
type CPUTime struct {
	User, System time.Duration
}

// Total is user plus system time.
func (c CPUTime) Total() time.Duration { return c.User + c.System }

// Sub returns c - o.
func (c CPUTime) Sub(o CPUTime) CPUTime { return CPUTime{c.User - o.User, c.System - o.System} }

// ProcessCPU returns the CPU time this process has used so far: the runner's per-step client
// CPU and the monitor's per-interval one both read it.
func ProcessCPU() CPUTime {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPUTime{}
	}
	return CPUTime{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}
