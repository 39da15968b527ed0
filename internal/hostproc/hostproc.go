// Package hostproc answers questions about this host's processes (which exist, their command
// lines, parents and children) through prometheus/procfs, in one place for the monitor, the
// drivers' process discovery and the managed servers.
package hostproc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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

// Children lists a process's children in pid order. The monitor asks every second for the
// DBMS's, so it reads the kernel's list of each of the process's threads' children
// (/proc/PID/task/TID/children: one file for PostgreSQL's single-threaded postmaster) rather
// than every process's stat file (BenchmarkChildren); it scans when the kernel keeps no such
// list (CONFIG_PROC_CHILDREN unset).
func Children(parent int) []int {
	if kids, ok := childLists(parent); ok {
		return kids
	}
	return scanChildren(parent)
}

// childLists reads the children of each of parent's threads; false when the kernel has no
// such lists or parent is gone.
func childLists(parent int) ([]int, bool) {
	mainThread := strconv.Itoa(parent)
	dir := filepath.Join(procfs.DefaultMountPoint, mainThread, "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
		if err != nil {
			if t.Name() == mainThread {
				return nil, false // the main thread's list: missing means no lists at all
			}
			continue // a thread that ended since it was listed
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// scanChildren finds parent's children by reading every process's parent.
func scanChildren(parent int) []int {
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
