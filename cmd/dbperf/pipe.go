package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/dbperf/dbperf/internal/session"
)

// A run's standard output may be a pipe that closes before the run ends (`dbperf run insert |
// head`). Left to Go's default, the next write would raise SIGPIPE and kill the process with no
// cleanup: temporary databases left behind, step files left .partial, run.json without an
// error. So `dbperf run` asks for SIGPIPE (writes then return EPIPE instead), writes through
// pipeOut, and treats a closed standard output as an interrupt.

// errStdoutClosed cancels a run whose standard output was closed.
var errStdoutClosed = fmt.Errorf("%w: standard output was closed (broken pipe)", session.ErrInterrupted)

// pipeOut writes to w until a write fails with EPIPE; from then on it writes nothing more and
// closed is closed.
type pipeOut struct {
	w      io.Writer
	mu     sync.Mutex
	broken bool
	closed chan struct{}
}

func newPipeOut(w io.Writer) *pipeOut { return &pipeOut{w: w, closed: make(chan struct{})} }

func (p *pipeOut) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken {
		return len(b), nil // the reader is gone: what it would have read is dropped
	}
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken = true
		close(p.closed)
		return len(b), nil
	}
	return n, err
}

// stdout is the standard output of `dbperf run`, set up by catchSIGPIPE.
var stdout *pipeOut

// catchSIGPIPE makes a write to a closed standard output return EPIPE rather than kill the
// process, and sends the command's output through stdout.
func catchSIGPIPE(root interface{ SetOut(io.Writer) }) {
	if stdout != nil {
		return
	}
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // delivered to a channel nobody reads: not fatal
	stdout = newPipeOut(os.Stdout)
	root.SetOut(stdout)
}

// cancelOnClosedStdout cancels ctx, with errStdoutClosed as its cause, once standard output is
// closed (at once if it already is). The function it returns releases it.
func cancelOnClosedStdout(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if stdout == nil {
		return ctx, func() { cancel(nil) }
	}
	go func() {
		select {
		case <-stdout.closed:
			cancel(errStdoutClosed)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}
