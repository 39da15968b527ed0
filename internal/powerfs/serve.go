package powerfs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// ServeEnv carries a server process's Spec as JSON.
const ServeEnv = "DBPERF_POWERFS"

// Spec is what a server process mounts.
type Spec struct {
	Backing string `json:"backing"`
	Mount   string `json:"mount"`
	// FileEntries makes a file's fsync also make its creation durable (ext4's and XFS's
	// behaviour in practice); by default only its directory's fsync does (POSIX's promise).
	FileEntries bool `json:"file_entries,omitempty"`
}

// Trash is where removed names wait until their directory is fsynced: beside the backing
// directory, on its file system, out of the database's sight.
func Trash(backing string) string { return filepath.Clean(backing) + ".powerfs-trash" }

// Mount serves spec in this process and returns the server and the file system's state.
func mount(spec Spec) (*fuse.Server, *fsys, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(spec.Backing, &st); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(Trash(spec.Backing), 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(spec.Mount, 0o755); err != nil {
		return nil, nil, err
	}
	f := &fsys{root: spec.Backing, states: map[uint64]*fileState{}, fileEntries: spec.FileEntries,
		log: &undoLog{root: spec.Backing, trash: Trash(spec.Backing)}}
	rd := &fs.LoopbackRoot{Path: spec.Backing, Dev: uint64(st.Dev), NewNode: f.newNode}
	root := f.newNode(rd, nil, "", &st)
	rd.RootNode = root
	zero := time.Duration(0)
	srv, err := fs.Mount(spec.Mount, root, &fs.Options{
		// Sizes change behind the kernel's back only through this layer, but a short attribute
		// cache keeps every stat truthful at little cost.
		AttrTimeout: &zero, EntryTimeout: &zero,
		MountOptions: fuse.MountOptions{AllowOther: true, DirectMount: true, FsName: "powerfs:" + spec.Backing, Name: "powerfs",
			DisableXAttrs: true},
	})
	if err != nil {
		return nil, nil, err
	}
	return srv, f, nil
}

// ServeMain serves the mount that the environment describes, if any, and exits. Signals
// command it: SIGUSR2 makes everything durable and answers "synced"; SIGUSR1 cuts the power
// (unsynced data dropped, unsynced namespace changes undone) and exits; SIGTERM syncs
// everything and exits, as a clean shutdown.
func ServeMain() {
	js := os.Getenv(ServeEnv)
	if js == "" {
		return
	}
	var spec Spec
	if err := json.Unmarshal([]byte(js), &spec); err != nil {
		fail(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)
	srv, f, err := mount(spec)
	if err != nil {
		fail(fmt.Errorf("mounting %s: %w (the layer needs /dev/fuse and root, or fuse3's fusermount3 and user_allow_other in /etc/fuse.conf)", spec.Mount, err))
	}
	fmt.Println("mounted")
	for s := range sigs {
		switch s {
		case syscall.SIGUSR2:
			if err := f.syncAll(); err != nil {
				fail(err)
			}
			fmt.Println("synced")
		case syscall.SIGUSR1:
			errs := f.cut()
			unmount(srv, spec.Mount)
			if len(errs) > 0 {
				fail(fmt.Errorf("undoing namespace changes: %v", errors.Join(errs...)))
			}
			os.Exit(0)
		default:
			err := f.syncAll()
			unmount(srv, spec.Mount)
			if err != nil {
				fail(err)
			}
			os.Exit(0)
		}
	}
}

// unmount unmounts, lazily if something still holds the mount.
func unmount(srv *fuse.Server, mnt string) {
	if srv.Unmount() != nil {
		unix.Unmount(mnt, unix.MNT_DETACH)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "powerfs:", err)
	os.Exit(1)
}

// Process runs the layer in a process of its own (a process that reads its own FUSE mount
// through mmap can deadlock with the Go runtime); Command runs ServeMain.
type Process struct {
	Command     []string
	FileEntries bool // see Spec
	cmd         *exec.Cmd
	out         *bufio.Reader
	mnt         string
	exited      chan error
}

// NewProcess returns a layer served by command (which runs ServeMain).
func NewProcess(command []string) *Process { return &Process{Command: command} }

// Mount serves backing at mnt and returns once it is mounted.
func (p *Process) Mount(backing, mnt string) error {
	js, _ := json.Marshal(Spec{Backing: backing, Mount: mnt, FileEntries: p.FileEntries})
	p.cmd = exec.Command(p.Command[0], p.Command[1:]...)
	p.cmd.Env = append(os.Environ(), ServeEnv+"="+string(js))
	p.cmd.Stderr = os.Stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.out, p.mnt, p.exited = bufio.NewReader(out), mnt, make(chan error, 1)
	if err := p.expect("mounted"); err != nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		return fmt.Errorf("powerfs did not mount %s: %w", mnt, err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	return nil
}

func (p *Process) expect(line string) error {
	got, err := p.out.ReadString('\n')
	if err != nil {
		return err
	}
	if got != line+"\n" {
		return fmt.Errorf("powerfs said %q, not %q", got, line)
	}
	return nil
}

// Sync makes everything written so far durable, as if the files and directories had been
// fsynced (the state a database is in long after its creation).
func (p *Process) Sync() error {
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return err
	}
	return p.expect("synced")
}

// Cut cuts the power: what was not synced is gone, and the mount with it.
func (p *Process) Cut() error { return p.stop(syscall.SIGUSR1) }

// Unmount stops the layer cleanly, keeping everything.
func (p *Process) Unmount() error { return p.stop(syscall.SIGTERM) }

func (p *Process) stop(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case err := <-p.exited:
		unix.Unmount(p.mnt, unix.MNT_DETACH) // in case the server could not
		if err != nil {
			return fmt.Errorf("powerfs: %w", err)
		}
		return nil
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		unix.Unmount(p.mnt, unix.MNT_DETACH)
		return errors.New("powerfs did not stop within a minute")
	}
}
