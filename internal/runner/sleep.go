package runner

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Go's timers wake a sleeping process through the network poller, whose timeout has a
// granularity of a millisecond here: a 100µs sleep ends about 1 ms late (measured: p50 1.0 ms
// late for 20µs and 100µs sleeps). An open-loop schedule that late would add its own lag to
// every response time it measures. So the pools' dispatchers sleep the last millisecond before
// an arrival in nanosleep(2) on a thread of their own whose timer slack is 1 ns (p50 20-35µs late
// on a loaded 2-core machine), and use Go's timer only for the part before that.

// preciseSleep is off in tests that run in virtual time (testing/synctest), where a sleep in a
// system call would not let the virtual clock move.
var preciseSleep = true

// preciseThread prepares the calling goroutine's thread for precise sleeps; call it first in a
// goroutine that will only dispatch (the thread ends with the goroutine).
func preciseThread() {
	if !preciseSleep {
		return
	}
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) // a hint: a failure leaves the default 50µs
}

// sleepUntilPrecise waits until due, unless ctx ends or stop closes first (then false).
func sleepUntilPrecise(ctx context.Context, due time.Time, stop <-chan struct{}, timer *time.Timer) bool {
	if d := time.Until(due) - time.Millisecond; d > 0 || !preciseSleep {
		if !preciseSleep {
			d += time.Millisecond
		}
		if d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return false
			case <-stop:
				timer.Stop()
				return false
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		default:
		}
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		ts := unix.NsecToTimespec(int64(min(d, time.Millisecond)))
		unix.Nanosleep(&ts, nil) // EINTR: the loop sleeps again for what is left
	}
}
