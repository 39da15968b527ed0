package archive

import (
	"bufio"
	"fmt"
	"github.com/dbperf/dbperf/internal/measure"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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

// ThisHost reads the host's description from /proc and /etc; dataPath, if set, is a path on
// the disk holding the database.
func ThisHost(dataPath string) Host {
	h := Host{Cores: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	h.CPU = procField("/proc/cpuinfo", "model name")
	if f := strings.Fields(procField("/proc/meminfo", "MemTotal")); len(f) > 0 {
		kb, _ := strconv.ParseFloat(f[0], 64)
		h.MemoryGB = measure.Round(kb/(1<<20), 1)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.OS = osRelease()
	if dataPath != "" {
		h.Disk = diskOf(dataPath)
	}
	return h
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
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

// diskOf names the mount (device, mount point, file system) holding path: the longest mount
// point in /proc/mounts that is a prefix of path.
func diskOf(path string) string {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return ""
	}
	best, bestLen := "", -1
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (path == mp || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > bestLen {
			best, bestLen = f[0]+" on "+mp+" ("+f[2]+")", len(mp)
		}
	}
	var st syscall.Statfs_t
	if best != "" && syscall.Statfs(path, &st) == nil {
		free := float64(st.Bavail) * float64(st.Bsize) / (1 << 30)
		total := float64(st.Blocks) * float64(st.Bsize) / (1 << 30)
		best += fmt.Sprintf(", %.1f GB free of %.1f GB", free, total)
	}
	return best
}
