package archive

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/prometheus/procfs"
)

// Build identifies the dbperf binary that made a run.
type Build struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	GoVersion string `json:"go"`
}

// Commit can be set at link time (-ldflags "-X .../archive.Commit=..."), for builds without VCS
// information.
var Commit string

// Version is dbperf's release version.
const Version = "0.1.0-dev"

// ThisBuild describes the running binary, from the VCS information Go embeds (go build
// -buildvcs=true, the default in a git checkout).
func ThisBuild() Build {
	b := Build{Version: Version, Commit: Commit, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// Host describes the machine a run was measured on.
type Host struct {
	Hostname string  `json:"hostname"`
	CPU      string  `json:"cpu"`
	Cores    int     `json:"cores"`
	MemoryGB float64 `json:"memory_gb"`
	Kernel   string  `json:"kernel"`
	OS       string  `json:"os"`
	// Disk is the device and file system holding the database, where dbperf can tell (embedded
	// targets and local servers).
	Disk string `json:"disk,omitempty"`
}

// ThisHost reads the host's description from /proc (through procfs) and /etc; dataPath, if set,
// is a path on the disk holding the database.
func ThisHost(dataPath string) Host {
	h := Host{Cores: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	fs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		h.OS = osRelease()
		return h
	}
	if cpus, err := fs.CPUInfo(); err == nil && len(cpus) > 0 {
		h.CPU = cpus[0].ModelName
	}
	if mem, err := fs.Meminfo(); err == nil && mem.MemTotal != nil {
		h.MemoryGB = measure.Round(float64(*mem.MemTotal)/(1<<20), 1) // kB
	}
	if rel, err := fs.SysctlStrings("kernel/osrelease"); err == nil && len(rel) > 0 {
		h.Kernel = rel[0]
	}
	h.OS = osRelease()
	if dataPath != "" {
		h.Disk = diskOf(dataPath)
	}
	return h
}

func osRelease() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

// diskOf names the mount (device, mount point, file system) holding path, with the space free
// on it.
func diskOf(path string) string {
	mounts, err := procfs.GetMounts()
	if err != nil {
		return ""
	}
	best := mountOf(path, mounts)
	if best == nil {
		return ""
	}
	disk := best.Source + " on " + best.MountPoint + " (" + best.FSType + ")"
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) == nil {
		free := float64(st.Bavail) * float64(st.Bsize) / (1 << 30)
		total := float64(st.Blocks) * float64(st.Bsize) / (1 << 30)
		disk += fmt.Sprintf(", %.1f GB free of %.1f GB", free, total)
	}
	return disk
}

// mountOf is the mount holding path: the one with the longest mount point that is path or a
// directory above it; of mounts at the same point, the last (the one on top). nil when none.
func mountOf(path string, mounts []*procfs.MountInfo) *procfs.MountInfo {
	var best *procfs.MountInfo
	for _, m := range mounts {
		mp := m.MountPoint
		if path != mp && !strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/") {
			continue
		}
		if best == nil || len(mp) >= len(best.MountPoint) {
			best = m
		}
	}
	return best
}
