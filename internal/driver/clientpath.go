package driver

import "fmt"

// ClientPath is how a server target's hot statements reach the server (--client-path): it
// changes what the client costs, so it is a run setting recorded in run.json, never an
// environment variable.
type ClientPath string

const (
	// ClientKernel writes the hot statements on the driver's own socket with raw system calls
	// (driver/wire, driver/rawsock) and waits for each reply in the kernel, on a socket taken
	// out of Go's network poller (rawsock.KernelConn): the default, a C client's way to wait.
	ClientKernel ClientPath = "kernel"
	// ClientRaw is the same raw calls, waiting for replies on Go's network poller.
	ClientRaw ClientPath = "raw"
	// ClientNetConn is the same lean statements through the socket's net.Conn (Go's scheduler
	// enters and leaves a system call each time).
	ClientNetConn ClientPath = "netconn"
	// ClientDriver sends every statement through the driver (pgx, go-sql-driver/mysql).
	ClientDriver ClientPath = "driver"
)

// ClientPaths are the accepted values, in the order help lists them.
var ClientPaths = []ClientPath{ClientKernel, ClientRaw, ClientNetConn, ClientDriver}

// ParseClientPath reads --client-path.
func ParseClientPath(s string) (ClientPath, error) {
	for _, p := range ClientPaths {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("--client-path must be kernel, raw, netconn or driver (got %q)", s)
}

// Lean tells whether the hot statements bypass the driver.
func (p ClientPath) Lean() bool { return p != ClientDriver }

// Poll tells whether a lean path reads and writes through net.Conn rather than raw calls.
func (p ClientPath) Poll() bool { return p == ClientNetConn }

// PathTarget is a target whose statements can take a lean path. ClientPath is the path its
// connections take: the one asked for, or ClientDriver with the reason when the lean path
// cannot keep the driver's guarantees on this connection (TLS, a socket it cannot verify).
type PathTarget interface {
	ClientPath() (used ClientPath, fallback string)
}
