package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/report"
)

// faultTimeout is --fault-timeout: how long a step goes on while its target cannot be reached,
// its clients redialing, before it ends (internal/runner/faults.go, docs/reliability.md).
var faultTimeout = defaultFaultTimeout

// defaultFaultTimeout covers a server's restart with crash recovery on a small database.
const defaultFaultTimeout = 60 * time.Second

// writeFaultLines prints, under dbperf summary's table, a line for each step that had faults
// (lost connections, retries, time without its target), as the step printed it when it ran.
func writeFaultLines(w io.Writer, runs []report.Run) {
	for _, r := range runs {
		for _, s := range r.Steps {
			if s.Faults == nil {
				continue
			}
			name := s.Step
			if len(runs) > 1 {
				name = filepath.Base(r.Path) + " " + name
			}
			fmt.Fprintf(w, "  %s %s\n", name, s.Faults)
		}
	}
}
