package hostproc

import (
	"testing"
	"time"
)

func TestProcessCPU(t *testing.T) {
	c := CPUTime{User: 3 * time.Second, System: time.Second}
	if got := c.Total(); got != 4*time.Second {
		t.Errorf("Total = %v, want 4s", got)
	}
	if got := c.Sub(CPUTime{User: time.Second, System: 250 * time.Millisecond}); got != (CPUTime{User: 2 * time.Second, System: 750 * time.Millisecond}) {
		t.Errorf("Sub = %+v, want 2s user, 750ms system", got)
	}

	before := ProcessCPU()
	x := 0
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		for i := range 1000 {
			x += i
		}
	}
	used := ProcessCPU().Sub(before)
	if used.User <= 0 || used.System < 0 {
		t.Errorf("50ms of spinning used %+v (x=%d), want some user time", used, x)
	}
}
