// Package clientprocs sizes the Go runtime's processors (GOMAXPROCS) to what the client needs
// when the DBMS runs in a process of its own.
//
// A client of a server spends most of its time waiting for replies. With a processor per CPU,
// every goroutine that becomes ready while another runs wakes a second thread, which finds
// little to do, spins and sleeps again: futex and epoll calls that a C client (one blocked
// thread per connection) does not make. With one processor the thread that polled the network
// runs the ready goroutine itself. Measured on l.i1 (an inserter and a deleter on two
// connections, docs/performance.md): 17-27% less client CPU per statement pair at the same
// rate. One processor also caps the client at one core, and queueing for it delays replies once
// it is half busy (four closed-loop queriers: 10% fewer queries/s), so the Governor starts at
// one and doubles the processors whenever the process used at least Raise of their capacity
// over a Window; it never lowers them, so a run's later steps keep what its busiest one needed.
package clientprocs

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// Raise is the share of the processors' capacity that makes the Governor double them.
	Raise = 0.4
	// Window is how often the Governor looks at the process's CPU time.
	Window = 250 * time.Millisecond
)

// Next is the decision, a pure function: the processors to use after a window of wall time
// in which the process used cpu time with procs processors, at most max.
func Next(procs, max int, cpu, wall time.Duration) int {
	if procs >= max || wall <= 0 {
		return procs
	}
	if cpu.Seconds() >= Raise*float64(procs)*wall.Seconds() {
		return min(2*procs, max)
	}
	return procs
}

// Governor holds GOMAXPROCS at what the client needs; see the package doc.
type Governor struct {
	max, orig int
	procs     atomic.Int64
	most      atomic.Int64         // the most processors used since the last Most
	cpu       func() time.Duration // the process's CPU time so far
	stop      chan struct{}
	done      sync.WaitGroup
}

// Start sets GOMAXPROCS to 1 and raises it as the process's CPU use demands, up to the value it
// had (the CPUs Go may use). Stop gives that value back.
func Start() *Governor { return start(processCPU) }

func start(cpu func() time.Duration) *Governor {
	orig := runtime.GOMAXPROCS(0)
	g := &Governor{max: orig, orig: orig, cpu: cpu, stop: make(chan struct{})}
	g.set(1)
	g.done.Add(1)
	go g.watch()
	return g
}

func (g *Governor) set(n int) {
	runtime.GOMAXPROCS(n)
	g.procs.Store(int64(n))
	if int64(n) > g.most.Load() {
		g.most.Store(int64(n))
	}
}

func (g *Governor) watch() {
	defer g.done.Done()
	t := time.NewTicker(Window)
	defer t.Stop()
	lastAt, lastCPU := time.Now(), g.cpu()
	for {
		select {
		case <-g.stop:
			return
		case now := <-t.C:
			cpu := g.cpu()
			procs := int(g.procs.Load())
			if n := Next(procs, g.max, cpu-lastCPU, now.Sub(lastAt)); n != procs {
				g.set(n)
			}
			lastAt, lastCPU = now, cpu
		}
	}
}

// Procs is the number of processors now; 0 for a nil Governor (none running).
func (g *Governor) Procs() int {
	if g == nil {
		return 0
	}
	return int(g.procs.Load())
}

// Most is the most processors used since the last call, which a step's summary reports
// (client_procs); 0 for a nil Governor.
func (g *Governor) Most() int {
	if g == nil {
		return 0
	}
	cur := g.procs.Load()
	return int(max(g.most.Swap(cur), cur))
}

// Stop ends the watching and gives GOMAXPROCS its first value back. A nil Governor does nothing.
func (g *Governor) Stop() {
	if g == nil {
		return
	}
	close(g.stop)
	g.done.Wait()
	runtime.GOMAXPROCS(g.orig)
}

// processCPU is this process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ForCallers sizes GOMAXPROCS for a step of an embedded engine called through cgo (RocksDB):
// the processors Go chose plus one for each of the step's n callers, which may all be inside C
// at once. A goroutine in a C call keeps its processor; when every processor is so held, the
// runtime's monitor takes them back to run other goroutines (the ticker, the monitor) and the
// callers, back from C, wait for one and hop between threads (docs/performance.md, "RocksDB
// beside db_bench"). The function returned gives the old value back.
func ForCallers(n int) func() {
	old := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(old + n)
	return func() { runtime.GOMAXPROCS(old) }
}
