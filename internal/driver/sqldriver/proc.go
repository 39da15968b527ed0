package sqldriver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Process discovery on this host: whether a server is local, and its processes from /proc.

// localHosts caches isLocalHost's answers by host: the monitor asks every interval.
var localHosts sync.Map

// isLocalHost reports whether a server's host is this machine: a unix socket (a path, or empty),
// a loopback or unspecified address, or an address of one of this machine's interfaces.
func isLocalHost(ctx context.Context, host string) bool {
	if host == "" || strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@") {
		return true
	}
	if v, ok := localHosts.Load(host); ok {
		return v.(bool)
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = append(ips, ip)
	} else {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return false // not cached: the next call asks again
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	local := false
	ifAddrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsUnspecified() {
			local = true
		}
		for _, a := range ifAddrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				local = true
			}
		}
	}
	localHosts.Store(host, local)
	return local
}

// localDir returns a server's data directory when the server is on this host and the directory
// is here.
func localDir(ctx context.Context, host, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("the server reports no data directory")
	}
	if !isLocalHost(ctx, host) {
		return "", fmt.Errorf("the data directory %s is on the server's host %s, not on this one", dir, host)
	}
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("the server's data directory %s is not on this host: %v", dir, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("the server's data directory %s is not a directory here", dir)
	}
	return dir, nil
}

// readPIDFile reads the process id on the first line of a pid file.
func readPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(line)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s: no process id on its first line", path)
	}
	return pid, nil
}
