package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/dbperf/dbperf/internal/server"
	"github.com/spf13/cobra"
)

const serverLong = `server manages benchmark servers from the machine's packages (postgresql-15; mariadb-server
and mariadb-plugin-rocksdb), each in its own data directory, on its own port and socket on
127.0.0.1, never the system's default instance. start creates the data directory on first use,
writes the config, starts the server, waits until it accepts connections and prints the target
to give 'dbperf run --target'.

Configs: cached-by-dbms (the DBMS's cache, shared_buffers / innodb_buffer_pool_size /
rocksdb_block_cache_size, is 4 GB: larger than the database) and cached-by-os (a tenth of it,
or SIZE with cached-by-os:SIZE: reads go to the OS page cache), the published Insert
Benchmark settings with each one's source (docs/servers.md), or a file of settings in the server's own syntax, appended to its
config. --config may change from one start to the next.

The benchmark user (postgres; dbperf on MariaDB) has no password on loopback unless
DBPERF_SERVER_PASSWORD is set; the password is set in the server and written to no file.`

const serverExample = `  dbperf server start postgres --config cached-by-os
  dbperf server start mariadb --datadir /data/mdb --port 3310
  dbperf run insert --target "mysql://dbperf@127.0.0.1:13306/ib?engine=rocksdb"
  dbperf server status mariadb
  dbperf server stop postgres`

func serverCmd() *cobra.Command {
	var o server.Options
	c := &cobra.Command{
		Use:     "server start|stop|status postgres|mariadb",
		Short:   "Start, stop or describe a private PostgreSQL or MariaDB server on loopback",
		Long:    serverLong,
		Example: serverExample,
		Args:    checkServerArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Kind = args[1]
			o.Password = os.Getenv("DBPERF_SERVER_PASSWORD")
			s, err := findServer(o, args[0], c.Flags().Changed("datadir"))
			if err != nil {
				return err
			}
			return serverAction(c, s, args[0], o.Kind)
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "datadir", "", "data directory (default /tmp/dbperf-KIND-PORT; status and stop also find a server dbperf started on --port elsewhere)")
	f.StringVar(&o.Config, "config", "cached-by-dbms", "config: "+strings.Join(server.ConfigNames(), ", ")+", or a file of settings")
	f.IntVar(&o.Port, "port", 0, "TCP port on 127.0.0.1 (default 15432 for postgres, 13306 for mariadb)")
	return c
}

// checkServerArgs takes an action and a server.
func checkServerArgs(_ *cobra.Command, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("give an action and a server, e.g. 'dbperf server start postgres'")
	}
	switch args[0] {
	case "start", "stop", "status":
	default:
		return fmt.Errorf("unknown action %q: use start, stop or status", args[0])
	}
	return nil
}

// findServer is the server of o. Without --datadir, status and stop look for the server
// dbperf started on the port, wherever its data directory is.
func findServer(o server.Options, action string, dataDirGiven bool) (server.Server, error) {
	s, err := server.New(o)
	if err != nil || action == "start" || dataDirGiven {
		return s, err
	}
	if st, _ := s.Status(); !st.Running {
		if found, ok := server.Find(o); ok {
			return server.New(found)
		}
	}
	return s, nil
}

// serverAction starts, stops or describes s; a server not running makes status exit 3.
func serverAction(c *cobra.Command, s server.Server, action, kind string) error {
	out := c.OutOrStdout()
	switch action {
	case "start":
		target, err := s.Start(c.Context())
		if err != nil {
			return err
		}
		st, _ := s.Status()
		fmt.Fprintf(c.ErrOrStderr(), "%s started: %s\n", kind, st)
		fmt.Fprintln(out, target)
	case "stop":
		if err := s.Stop(c.Context()); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s stopped\n", kind)
	case "status":
		st, err := s.Status()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %s\n", kind, st)
		if !st.Running {
			if server.PortInUse(st.Port) {
				fmt.Fprintf(out, "port %d on 127.0.0.1 is in use, but not by a %s server dbperf started that it can see: give its --datadir\n", st.Port, kind)
			}
			return errNotRunning
		}
	}
	return nil
}

// errNotRunning makes 'server status' exit non-zero (3, like pg_ctl status) without a message.
var errNotRunning = &exitError{code: 3}

type exitError struct{ code int }

func (e *exitError) Error() string { return "" }
