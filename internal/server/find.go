package server

import (
	"github.com/dbperf/dbperf/internal/hostproc"
	"path/filepath"
	"strings"
)

// Find looks for a running server of o.Kind that dbperf started on o.Port (the kind's default
// port when 0), whatever its data directory: for 'dbperf server status|stop KIND --port N'
// without --datadir. It reads the command lines of the machine's processes (a MariaDB started
// by dbperf runs with --defaults-file=DIR/dbperf.cnf, a PostgreSQL with -D DIR/data) and
// returns o with that data directory, or false when there is none.
func Find(o Options) (Options, bool) {
	if o.Port == 0 {
		o.Port = defaultPort(o.Kind)
	}
	for _, pid := range hostproc.All() {
		dir := dataDirOf(o.Kind, hostproc.Cmdline(pid))
		if dir == "" {
			continue
		}
		if _, port := lastStart(dir); port != o.Port {
			continue
		}
		found := o
		found.DataDir = dir
		s, err := New(found)
		if err != nil {
			continue
		}
		if st, _ := s.Status(); st.Running {
			return found, true
		}
	}
	return o, false
}

// dataDirOf returns the dbperf data directory of a server process from its arguments, or "".
func dataDirOf(kind string, args []string) string {
	switch kind {
	case "mariadb":
		for _, a := range args {
			if f, ok := strings.CutPrefix(a, "--defaults-file="); ok && filepath.Base(f) == "dbperf.cnf" {
				return filepath.Dir(f)
			}
		}
	case "postgres":
		if len(args) < 3 || filepath.Base(args[0]) != "postgres" {
			return ""
		}
		for i, a := range args[:len(args)-1] {
			if a == "-D" && filepath.Base(args[i+1]) == "data" {
				return filepath.Dir(args[i+1])
			}
		}
	}
	return ""
}
