// Package hostproc answers questions about this host's processes (which exist, their command
// lines, parents and children) through prometheus/procfs, in one place for the monitor, the
// drivers' process discovery and the managed servers.
package hostproc

import (
	"slices"

	"github.com/prometheus/procfs"
)

func fs() (procfs.FS, error) { return procfs.NewFS(procfs.DefaultMountPoint) }

// Exists tells whether a process with this id runs.
func Exists(pid int) bool {
	f, err := fs()
	if err != nil {
		return false
	}
	_, err = f.Proc(pid)
	return err == nil
}

// Cmdline is a process's arguments; nil when it cannot be read (ended, or a kernel thread).
func Cmdline(pid int) []string {
	f, err := fs()
	if err != nil {
		return nil
	}
	p, err := f.Proc(pid)
	if err != nil {
		return nil
	}
	args, err := p.CmdLine()
	if err != nil {
		return nil
	}
	return args
}

// Parent is a process's parent.
func Parent(pid int) (int, error) {
	f, err := fs()
	if err != nil {
		return 0, err
	}
	p, err := f.Proc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.PPID, nil
}

// All lists the processes on this host in pid order.
func All() []int {
	f, err := fs()
	if err != nil {
		return nil
	}
	procs, err := f.AllProcs()
	if err != nil {
		return nil
	}
	pids := make([]int, len(procs))
	for i, p := range procs {
		pids[i] = p.PID
	}
	slices.Sort(pids)
	return pids
}

// Children lists a process's children in pid order.
func Children(parent int) []int {
	f, err := fs()
	if err != nil {
		return nil
	}
	procs, err := f.AllProcs()
	if err != nil {
		return nil
	}
	var out []int
	for _, p := range procs {
		if st, err := p.Stat(); err == nil && st.PPID == parent {
			out = append(out, p.PID)
		}
	}
	slices.Sort(out)
	return out
}
