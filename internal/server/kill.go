package server

// Added for the crash test (internal/crash): a real crash of a private server, not a stop.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/hostproc"
)

// Kill crashes s: SIGKILL of every process of the server at once (PostgreSQL's postmaster and
// all its children, MariaDB's mariadbd), then waits until they are gone, so that the next Start
// runs crash recovery and does not meet the old processes. It returns the instant the signals
// were sent and how many processes it killed.
func Kill(ctx context.Context, s Server) (time.Time, int, error) {
	var pidFile string
	switch s := s.(type) {
	case *postgres:
		pidFile = filepath.Join(s.data(), "postmaster.pid")
	case *mariadb:
		pidFile = s.pidFile()
	default:
		return time.Time{}, 0, fmt.Errorf("cannot kill a %T", s)
	}
	pid, alive := pidAlive(pidFile)
	if !alive {
		return time.Time{}, 0, fmt.Errorf("no server runs with pid file %s", pidFile)
	}
	// The parent first, so that it starts no new child; then every child it had.
	pids := append([]int{pid}, hostproc.Children(pid)...)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	at := time.Now()
	// Wait until each is reaped, not only dead: a zombie's pid still answers kill(pid, 0), and
	// the restarted server (and Start) would take it for the old server still running.
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range pids {
		for hostproc.Exists(p) {
			if time.Now().After(deadline) {
				z := ""
				if zombie(p) {
					z = " (a zombie its parent does not reap)"
				}
				return at, len(pids), fmt.Errorf("process %d of the server is still there 30 s after SIGKILL%s", p, z)
			}
			select {
			case <-ctx.Done():
				return at, len(pids), ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return at, len(pids), nil
}

// zombie says whether pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone
	}
	// The state follows the command name in parentheses, which may itself hold ") ".
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}
