package powerfs

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	ServeMain() // the test binary serves the mounts too
	os.Exit(m.Run())
}

// mounted mounts a fresh backing directory and returns it, the mount point and the layer.
func mounted(t *testing.T) (backing, mnt string, p *Process) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting FUSE with allow_other needs root here")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	dir := t.TempDir()
	backing, mnt = filepath.Join(dir, "data"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(backing, 0o755); err != nil {
		t.Fatal(err)
	}
	p = NewProcess([]string{os.Args[0]})
	if err := p.Mount(backing, mnt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Unmount() })
	return backing, mnt, p
}

func write(t *testing.T, path string, data string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// What a file's fsync covered survives a cut; what was written after it does not.
func TestFsyncKeepsUnsyncedDiscarded(t *testing.T) {
	backing, mnt, p := mounted(t)
	a := filepath.Join(mnt, "a")
	write(t, a, "synced ", true)
	syncDir(t, mnt)
	write(t, a, "unsynced", false)
	if got, _ := content(t, a); got != "synced unsynced" {
		t.Fatalf("before the cut the mount reads %q", got)
	}
	if got, _ := content(t, filepath.Join(backing, "a")); got != "synced " {
		t.Fatalf("an unsynced write reached the backing file: %q", got)
	}
	if err := p.Cut(); err != nil {
		t.Fatal(err)
	}
	if got, ok := content(t, filepath.Join(backing, "a")); !ok || got != "synced " {
		t.Fatalf("after the cut: %q (present %v), want the synced part", got, ok)
	}
}

// A created file whose directory was not fsynced is gone after a cut, even if the file was;
// with its directory fsynced it stays.
func TestDirectoryFsyncForCreates(t *testing.T) {
	backing, mnt, p := mounted(t)
	write(t, filepath.Join(mnt, "kept"), "k", true)
	syncDir(t, mnt)
	write(t, filepath.Join(mnt, "lost"), "l", true)
	if err := os.Mkdir(filepath.Join(mnt, "newdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Cut(); err != nil {
		t.Fatal(err)
	}
	if got, ok := content(t, filepath.Join(backing, "kept")); !ok || got != "k" {
		t.Errorf("kept: %q, %v", got, ok)
	}
	for _, name := range []string{"lost", "newdir"} {
		if _, err := os.Lstat(filepath.Join(backing, name)); !os.IsNotExist(err) {
			t.Errorf("%s survived a cut without a directory fsync (%v)", name, err)
		}
	}
}

// A rename (also one that replaces a file) and an unlink are undone by a cut unless the
// directory was fsynced; the replaced file comes back whole.
func TestDirectoryFsyncForRenamesAndUnlinks(t *testing.T) {
	backing, mnt, p := mounted(t)
	for _, n := range []string{"old", "target", "gone", "moved"} {
		write(t, filepath.Join(mnt, n), n+" data", true)
	}
	syncDir(t, mnt)
	// a durable rename: fsync of the new name's directory after it
	must(t, os.Mkdir(filepath.Join(mnt, "sub"), 0o755))
	syncDir(t, mnt)
	must(t, os.Rename(filepath.Join(mnt, "moved"), filepath.Join(mnt, "sub", "moved")))
	syncDir(t, filepath.Join(mnt, "sub"))
	// undoable ones
	must(t, os.Rename(filepath.Join(mnt, "old"), filepath.Join(mnt, "target")))
	must(t, os.Remove(filepath.Join(mnt, "gone")))
	if _, err := os.Stat(filepath.Join(mnt, "gone")); !os.IsNotExist(err) {
		t.Fatalf("unlinked file still visible: %v", err)
	}
	if err := p.Cut(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"old": "old data", "target": "target data", "gone": "gone data", "sub/moved": "moved data"} {
		if got, ok := content(t, filepath.Join(backing, name)); !ok || got != want {
			t.Errorf("%s after the cut: %q (present %v), want %q", name, got, ok, want)
		}
	}
	if _, err := os.Stat(filepath.Join(backing, "moved")); !os.IsNotExist(err) {
		t.Errorf("a rename made durable by its directory's fsync was undone")
	}
}

// Reads, sizes and truncations see the unsynced state; a clean unmount keeps everything.
func TestReadsSeeUnsyncedWritesAndUnmountKeeps(t *testing.T) {
	backing, mnt, p := mounted(t)
	f := filepath.Join(mnt, "f")
	write(t, f, string(bytes.Repeat([]byte("x"), 10000)), true)
	syncDir(t, mnt)
	must(t, os.Truncate(f, 100))
	fh, err := os.OpenFile(f, os.O_WRONLY, 0)
	must(t, err)
	_, err = fh.WriteAt([]byte("end"), 9000)
	must(t, err)
	fh.Close()
	st, err := os.Stat(f)
	must(t, err)
	if st.Size() != 9003 {
		t.Fatalf("size %d, want 9003", st.Size())
	}
	got, _ := content(t, f)
	want := string(bytes.Repeat([]byte("x"), 100)) + string(make([]byte, 8900)) + "end"
	if got != want {
		t.Fatalf("read back after truncate and write: wrong bytes (len %d)", len(got))
	}
	if err := p.Unmount(); err != nil {
		t.Fatal(err)
	}
	if got, _ := content(t, filepath.Join(backing, "f")); got != want {
		t.Fatalf("a clean unmount lost data (len %d)", len(got))
	}
}

// Writes through a shared mmap reach the layer; msync makes them durable.
func TestMmapMsync(t *testing.T) {
	backing, mnt, p := mounted(t)
	path := filepath.Join(mnt, "m")
	write(t, path, string(make([]byte, 8192)), true)
	syncDir(t, mnt)
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	defer fh.Close()
	m, err := unix.Mmap(int(fh.Fd()), 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	must(t, err)
	copy(m, "durable")
	must(t, unix.Msync(m, unix.MS_SYNC))
	copy(m[4096:], "lost")
	must(t, unix.Munmap(m))
	fh.Close()
	must(t, p.Cut())
	got, _ := content(t, filepath.Join(backing, "m"))
	if got[:7] != "durable" || got[4096:4100] == "lost" {
		t.Fatalf("after the cut: %q ... %q", got[:7], got[4096:4100])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var _ = syscall.Sync

// With FileEntries, a file's fsync also keeps its creation (ext4's practice); by default it
// does not (TestDirectoryFsyncForCreates).
func TestFileEntriesKeepCreationOnFileFsync(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting FUSE with allow_other needs root here")
	}
	dir := t.TempDir()
	backing, mnt := filepath.Join(dir, "data"), filepath.Join(dir, "mnt")
	must(t, os.Mkdir(backing, 0o755))
	p := NewProcess([]string{os.Args[0]})
	p.FileEntries = true
	must(t, p.Mount(backing, mnt))
	write(t, filepath.Join(mnt, "synced"), "s", true)
	write(t, filepath.Join(mnt, "unsynced"), "u", false)
	must(t, p.Cut())
	if got, ok := content(t, filepath.Join(backing, "synced")); !ok || got != "s" {
		t.Errorf("a created file fsynced: %q, %v", got, ok)
	}
	if _, err := os.Lstat(filepath.Join(backing, "unsynced")); !os.IsNotExist(err) {
		t.Errorf("a created file never fsynced survived the cut (%v)", err)
	}
}
