package main

import "time"

// faultTimeout is --fault-timeout: how long a step goes on while its target cannot be reached,
// its clients redialing, before it ends (internal/runner/faults.go, docs/reliability.md).
var faultTimeout = defaultFaultTimeout

// defaultFaultTimeout covers a server's restart with crash recovery on a small database.
const defaultFaultTimeout = 60 * time.Second
