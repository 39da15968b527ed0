package sqldriver

import (
	"net"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/rawsock"
)

// onPath gives a dialed connection the socket calls of the client path: raw system calls
// waiting on Go's poller (raw), or a socket out of the poller waiting in the kernel (kernel);
// the other paths keep the connection as dialed.
func onPath(c net.Conn, path driver.ClientPath) (net.Conn, error) {
	switch path {
	case driver.ClientRaw:
		return rawsock.Wrap(c), nil
	case driver.ClientKernel:
		d, err := rawsock.Detach(c)
		if err != nil {
			c.Close()
		}
		return d, err
	}
	return c, nil
}
