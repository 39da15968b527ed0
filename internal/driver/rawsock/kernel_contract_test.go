package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitResults waits for n results on ch, up to limit; it reports how many came.
func waitResults(ch <-chan error, n int, limit time.Duration) (got []error) {
	deadline := time.After(limit)
	for len(got) < n {
		select {
		case err := <-ch:
			got = append(got, err)
		case <-deadline:
			return got
		}
	}
	return got
}

// freeSleepers ends the Reads a lost wake-up left asleep, so that a failing test does not leave
// them holding processors. It holds a call of its own so that the descriptors it pokes stay open.
func freeSleepers(k *KernelConn, done <-chan error, left int) {
	k.mu.Lock()
	open := k.ops > 0
	if open {
		k.ops++
	}
	k.mu.Unlock()
	k.Close()
	for open && left > 0 {
		poke(k.rwake)
		left -= len(waitResults(done, left, time.Second))
	}
	if open {
		k.leave()
	}
}

// waitingReads starts n Reads of k and returns once each is in (or right before) ppoll; their
// errors come on the channel.
func waitingReads(k *KernelConn, n int) chan error {
	done := make(chan error, n)
	for range n {
		go func() {
			_, err := k.Read(make([]byte, 8))
			done <- err
		}()
	}
	for rawWaiters.Load() < int64(n) {
		runtime.Gosched()
	}
	return done
}

// TestCloseEndsEveryWaitingRead: net.Conn lets several goroutines call Read at once, and Close
// must end every blocked one. All waiting Reads share one eventfd, and the first to wake
// drains it, so the others can sleep on through Close.
func TestCloseEndsEveryWaitingRead(t *testing.T) {
	const readers, rounds = 4, 30
	for round := range rounds {
		k, _ := kernelPair(t, "tcp")
		done := waitingReads(k, readers)
		k.Close()
		got := waitResults(done, readers, 10*time.Second)
		if len(got) < readers {
			freeSleepers(k, done, readers-len(got))
			t.Fatalf("round %d: Close ended %d of %d waiting Reads; the rest slept on", round, len(got), readers)
		}
		for _, err := range got {
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("round %d: a Read waiting at Close returned %v", round, err)
			}
		}
	}
}

// TestDeadlineEndsEveryWaitingRead: a deadline ends every Read waiting at it, not just one.
func TestDeadlineEndsEveryWaitingRead(t *testing.T) {
	const readers, rounds = 4, 30
	for round := range rounds {
		k, _ := kernelPair(t, "tcp")
		done := waitingReads(k, readers)
		k.SetReadDeadline(time.Now())
		got := waitResults(done, readers, 10*time.Second)
		if len(got) < readers {
			freeSleepers(k, done, readers-len(got))
			t.Fatalf("round %d: the deadline ended %d of %d waiting Reads", round, len(got), readers)
		}
		for _, err := range got {
			if !isTimeout(err) {
				t.Fatalf("round %d: a Read waiting at its deadline returned %v", round, err)
			}
		}
		k.Close()
	}
}

// TestFarDeadline: a deadline far in the future (past 2262, where UnixNano overflows)
// must not end a Read at once; net.TCPConn waits for the data.
func TestFarDeadline(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	for _, dl := range []time.Time{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Now().Add(math.MaxInt64)} {
		if err := k.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(20 * time.Millisecond)
			s.Write([]byte("hi"))
		}()
		b := make([]byte, 8)
		if n, err := io.ReadFull(k, b[:2]); err != nil || string(b[:n]) != "hi" {
			t.Fatalf("a Read with deadline %v returned %q, %v; want the data", dl, b[:n], err)
		}
	}
}

// TestReadAndWriteWaitAtOnce: Read and Write on two goroutines at once, both waiting
// (8 MiB each way through buffers far smaller), and Close ending a Write that waits for room.
// (kernel_test.go moves data one way at a time.)
func TestReadAndWriteWaitAtOnce(t *testing.T) {
	k, s := kernelPair(t, "unix")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19)
	go io.Copy(s, s) // echo: fills the client's receive buffer while the client still writes
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() { _, werr = k.Write(big) })
	got := make([]byte, len(big))
	if _, err := io.ReadFull(k, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("echoed read: equal %v, %v", bytes.Equal(got, big), err)
	}
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	// A Write that waits for room (nobody reads now) ends at Close with net.ErrClosed.
	s.Close()
	k2, _ := kernelPair(t, "tcp")
	done := make(chan error, 1)
	go func() {
		_, err := k2.Write(make([]byte, 64<<20))
		done <- err
	}()
	for rawWaiters.Load() < 1 {
		runtime.Gosched()
	}
	k2.Close()
	if err := waitResults(done, 1, 10*time.Second); len(err) != 1 || !errors.Is(err[0], net.ErrClosed) {
		t.Fatalf("a Write waiting for room at Close: %v", err)
	}
}

// TestPeerReset: a reset from the peer ends a waiting Read with ECONNRESET (it wakes,
// not spins), and a later Write fails with an error instead of killing the process (SIGPIPE).
func TestPeerReset(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	done := make(chan error, 1)
	go func() {
		_, err := k.Read(make([]byte, 8))
		done <- err
	}()
	for rawWaiters.Load() < 1 {
		runtime.Gosched()
	}
	s.(*net.TCPConn).SetLinger(0)
	s.Close()
	got := waitResults(done, 1, 10*time.Second)
	if len(got) != 1 || !errors.Is(got[0], syscall.ECONNRESET) {
		t.Fatalf("a Read waiting at a reset: %v, want ECONNRESET", got)
	}
	var err error
	for range 3 { // the first write after a reset may still be taken
		if _, err = k.Write([]byte("x")); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a Write after a reset: %v, want EPIPE", err)
	}
}

// TestWaitWithoutAsyncPreemption: GODEBUG=asyncpreemptoff=1 is a documented runtime
// setting. Under it the runtime sends no preemption signal, so nothing ends a raw ppoll: a
// collection (stop the world) waits for the reply of every Read that waits in the kernel, and
// the whole process stops with it. The child process is this test binary.
func TestWaitWithoutAsyncPreemption(t *testing.T) {
	if os.Getenv("RAWSOCK_STW_CHILD") == "1" {
		runtime.GOMAXPROCS(2)
		k, s := kernelPair(t, "tcp")
		go k.Read(make([]byte, 8))
		for rawWaiters.Load() < 1 {
			runtime.Gosched()
		}
		runtime.GC()
		s.Write([]byte("x"))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestWaitWithoutAsyncPreemption$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "RAWSOCK_STW_CHILD=1", "GODEBUG=asyncpreemptoff=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a collection with a Read waiting in the kernel, GODEBUG=asyncpreemptoff=1: %v (killed after 30 s: the process stopped)\n%s", err, out)
	}
}
