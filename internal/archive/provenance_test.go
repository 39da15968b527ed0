package archive

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

// TestThisHost reads this machine's description through procfs.
func TestThisHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	h := ThisHost(t.TempDir())
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if h.CPU == "" || h.MemoryGB <= 0 || h.Cores <= 0 || h.Kernel != strings.TrimSpace(string(rel)) || h.OS == "" {
		t.Errorf("host: %+v", h)
	}
	if !strings.Contains(h.Disk, " on /") || !strings.Contains(h.Disk, "GB free of") {
		t.Errorf("disk of a temporary directory: %q", h.Disk)
	}
}

func TestMountOf(t *testing.T) {
	mounts := []*procfs.MountInfo{
		{Source: "/dev/vda", MountPoint: "/", FSType: "ext4"},
		{Source: "tmpfs", MountPoint: "/tmp", FSType: "tmpfs"},
		{Source: "/dev/vdb", MountPoint: "/data", FSType: "xfs"},
		{Source: "/dev/vdc", MountPoint: "/data", FSType: "ext4"}, // mounted over the one before
		{Source: "/dev/vdd", MountPoint: "/data/pg/wal", FSType: "xfs"},
	}
	for path, want := range map[string]string{
		"/":               "/dev/vda",
		"/home/u":         "/dev/vda",
		"/tmp/x":          "tmpfs",
		"/tmpfoo":         "/dev/vda", // a prefix of the name is not a directory above
		"/data":           "/dev/vdc",
		"/data/pg/base":   "/dev/vdc",
		"/data/pg/wal/00": "/dev/vdd",
	} {
		if m := mountOf(path, mounts); m == nil || m.Source != want {
			t.Errorf("mountOf(%s) = %+v, want %s", path, m, want)
		}
	}
	if m := mountOf("relative", mounts); m != nil {
		t.Errorf("a relative path's mount: %+v", m)
	}
}
