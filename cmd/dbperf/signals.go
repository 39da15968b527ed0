package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

// interruptContext is a run's context: the first of sigs (Ctrl-C, SIGTERM as from timeout(1),
// SIGHUP) ends it, and the run keeps its files and says it was interrupted. A second one exits
// at once with an interrupt's status, for when that ending waits on a server that does not
// answer (docs/reliability.md).
func interruptContext(sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-ch:
			fmt.Fprintf(os.Stderr, "dbperf: a second %v: exiting at once, without finishing the run's files\n", s)
			os.Exit(130)
		case <-done:
		}
	}()
	var once bool
	return ctx, func() {
		if !once {
			once = true
			signal.Stop(ch)
			close(done)
		}
		cancel()
	}
}
