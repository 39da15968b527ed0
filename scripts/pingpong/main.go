// Command pingpong is the Go side of scripts/pingpong.sh: N closed-loop clients, each sending a
// 16-byte request to srv and reading its 64-byte reply, THINK_US of CPU between, with one of
// dbperf's ways to wait for the reply (docs/performance.md, "Waiting in the kernel"):
//
//	net     Go's net.Conn
//	raw     rawsock.Wrap: raw system calls, waiting on Go's network poller (--client-path raw),
//	        one Go processor, as --client-procs auto starts
//	kernel  rawsock.Detach: raw calls, waiting in the kernel (--client-path kernel), a processor
//	        per CPU plus one per client, each client locked to its OS thread, as dbperf runs it
//
// A ticker runs beside the clients, as dbperf's monitor and runner keep timers.
//
// Usage: go run ./scripts/pingpong PORT CLIENTS SECS THINK_US MODE
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/driver/rawsock"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: pingpong PORT CLIENTS SECS THINK_US net|raw|kernel")
		os.Exit(2)
	}
	port, mode := os.Args[1], os.Args[5]
	n, secs, think := atoi(os.Args[2]), atoi(os.Args[3]), time.Duration(atoi(os.Args[4]))*time.Microsecond
	switch mode {
	case "raw":
		runtime.GOMAXPROCS(1)
	case "kernel":
		runtime.GOMAXPROCS(runtime.NumCPU() + n)
	case "net":
	default:
		fmt.Fprintln(os.Stderr, "pingpong: MODE must be net, raw or kernel")
		os.Exit(2)
	}
	go func() {
		for range time.NewTicker(time.Second).C {
		}
	}()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i] = client(port, mode, think, time.Duration(secs)*time.Second)
		}()
	}
	wg.Wait()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	total := 0
	for _, c := range counts {
		total += c
	}
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	fmt.Printf("Go %-6s %6.0f req/s  %5.1f us CPU/req\n", mode, float64(total)/float64(secs),
		float64(cpu.Microseconds())/float64(total))
}

// client runs one connection's loop for d and returns its round trips.
func client(port, mode string, think, d time.Duration) int {
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		fail(err)
	}
	switch mode {
	case "raw":
		c = rawsock.Wrap(c)
	case "kernel":
		runtime.LockOSThread()
		if c, err = rawsock.Detach(c); err != nil {
			fail(err)
		}
	}
	req, rep := make([]byte, 16), make([]byte, 64)
	count := 0
	for stop := time.Now().Add(d); time.Now().Before(stop); count++ {
		if _, err := c.Write(req); err != nil {
			fail(err)
		}
		if _, err := io.ReadFull(c, rep); err != nil {
			fail(err)
		}
		for end := time.Now().Add(think); time.Now().Before(end); {
		}
	}
	c.Close()
	return count
}

func atoi(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		fail(fmt.Errorf("%q is not a count", s))
	}
	return v
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pingpong:", err)
	os.Exit(1)
}
