package powerfs

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A namespace change since its directory's last fsync, as the way to undo it. Paths are
// relative to the backing root. Each entry names the directories whose fsync makes it durable.
type undo struct {
	dirs []string // the entry is durable once one of these directories is fsynced
	// exactly one of:
	remove  string    // a created file, directory or link: remove it
	rename  [2]string // a rename: move [0] back to [1]
	restore [2]string // a replaced or removed name: move the trash file [0] back to [1]
	ino     uint64    // the created file's backing inode, for Spec.FileEntries
}

// undoLog holds the changes not yet durable, oldest first, and the trash that keeps what an
// unlink or a replacing rename removed until its directory is synced.
type undoLog struct {
	mu      sync.Mutex
	root    string // the backing directory
	trash   string // beside it, on the same file system
	entries []undo
	n       int
}

// toTrash moves the backing file at rel into the trash and returns its trash path.
func (l *undoLog) toTrash(rel string) (string, error) {
	l.n++
	t := filepath.Join(l.trash, fmt.Sprint(l.n))
	return t, os.Rename(filepath.Join(l.root, rel), t)
}

func (l *undoLog) add(u undo) {
	l.mu.Lock()
	l.entries = append(l.entries, u)
	l.mu.Unlock()
}

// synced makes durable every change that dir's fsync covers; a removed file's trash copy goes.
func (l *undoLog) synced(dir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.entries[:0]
	for _, u := range l.entries {
		if covers(u.dirs, dir) {
			if u.restore[0] != "" {
				os.RemoveAll(u.restore[0])
			}
			continue
		}
		kept = append(kept, u)
	}
	l.entries = kept
}

func covers(dirs []string, dir string) bool {
	for _, d := range dirs {
		if d == dir {
			return true
		}
	}
	return false
}

// syncedFile makes the creation of the file with backing inode ino durable.
func (l *undoLog) syncedFile(ino uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.entries[:0]
	for _, u := range l.entries {
		if u.remove == "" || u.ino != ino {
			kept = append(kept, u)
		}
	}
	l.entries = kept
}

// syncAll makes every change durable, as a clean shutdown does.
func (l *undoLog) syncAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.entries {
		if u.restore[0] != "" {
			os.RemoveAll(u.restore[0])
		}
	}
	l.entries = nil
}

// cut undoes every change not yet durable, newest first: the namespace a power cut leaves.
// A step that no longer applies (its name already moved on by a durable change) is skipped.
func (l *undoLog) cut() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	abs := func(rel string) string { return filepath.Join(l.root, rel) }
	for i := len(l.entries) - 1; i >= 0; i-- {
		u := l.entries[i]
		var err error
		switch {
		case u.remove != "":
			err = os.RemoveAll(abs(u.remove))
		case u.rename[0] != "":
			err = os.Rename(abs(u.rename[0]), abs(u.rename[1]))
		case u.restore[0] != "":
			err = os.Rename(u.restore[0], abs(u.restore[1]))
		}
		if err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	l.entries = nil
	return errs
}
