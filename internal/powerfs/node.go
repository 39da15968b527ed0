package powerfs

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// fsys is one mount: the backing root, the unsynced state of each file (by backing inode,
// so it survives renames and the kernel forgetting a node) and the namespace's undo log.
type fsys struct {
	root   string
	mu     sync.Mutex
	states map[uint64]*fileState
	log    *undoLog
	down   atomic.Bool // the power is cut: every change fails
	// fileEntries: a file's fsync also makes its creation durable, as ext4 and XFS do in
	// practice (their journal commits the new entry with the inode); POSIX does not promise it.
	fileEntries bool
}

// state returns ino's state, making one from fd (a descriptor of the backing file) if asked.
func (f *fsys) state(ino uint64, fd int, create bool) (*fileState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.states[ino]; ok || !create {
		return s, nil
	}
	dup, err := unix.Dup(fd) // the state's own descriptor: fsync flushes through it
	if err != nil {
		return nil, err
	}
	s, err := newState(dup)
	if err != nil {
		unix.Close(dup)
		return nil, err
	}
	s.fd = dup
	f.states[ino] = s
	return s, nil
}

// syncAll flushes every file and makes every namespace change durable (a clean shutdown).
func (f *fsys) syncAll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.states {
		if err := s.flush(); err != nil {
			return err
		}
	}
	f.log.syncAll()
	return nil
}

// cut is the power cut: unsynced data is dropped, unsynced namespace changes undone.
func (f *fsys) cut() []error {
	f.down.Store(true)
	f.mu.Lock()
	f.states = map[uint64]*fileState{}
	f.mu.Unlock()
	return f.log.cut()
}

// node is a file or directory of the mount: go-fuse's loopback node, with writes buffered and
// namespace changes logged.
type node struct {
	fs.LoopbackNode
	f *fsys
}

func (f *fsys) newNode(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
	return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, f: f}
}

// rel is the node's path relative to the root ("." for the root).
func (n *node) rel() string {
	p := n.Path(n.Root())
	if p == "" {
		return "."
	}
	return p
}

func (n *node) abs(name string) string { return filepath.Join(n.f.root, n.rel(), name) }

// patch sets the size writers see in attributes read from the backing file.
func (n *node) patch(a *fuse.Attr) {
	if s, _ := n.f.state(a.Ino, -1, false); s != nil {
		s.mu.Lock()
		a.Size = uint64(s.size)
		s.mu.Unlock()
	}
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Lookup(ctx, name, out)
	if errno == 0 {
		n.patch(&out.Attr)
	}
	return ch, errno
}

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	errno := n.LoopbackNode.Getattr(ctx, fh, out)
	if errno == 0 {
		n.patch(&out.Attr)
	}
	return errno
}

// Setattr buffers a change of size like a write; the rest goes to the backing file.
func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok {
		if n.f.down.Load() {
			return syscall.EIO
		}
		fd, err := unix.Open(n.abs(""), unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return fs.ToErrno(err)
		}
		s, err := n.f.state(n.StableAttr().Ino, fd, true)
		unix.Close(fd)
		if err != nil {
			return fs.ToErrno(err)
		}
		s.truncate(int64(sz))
		in.Valid &^= fuse.FATTR_SIZE
	}
	errno := n.LoopbackNode.Setattr(ctx, nil, in, out)
	if errno == 0 {
		n.patch(&out.Attr)
	}
	return errno
}

// openFlags are the flags the backing file is opened with: read and write (an fsync flushes
// through any descriptor), and without what the layer does itself (truncation) or cannot pass
// on (O_DIRECT on buffered pages, O_APPEND: the kernel gives the offsets).
func openFlags(flags uint32) int {
	f := int(flags) &^ (unix.O_ACCMODE | unix.O_TRUNC | unix.O_APPEND | unix.O_DIRECT | unix.O_CREAT | unix.O_EXCL | fuse.FMODE_EXEC)
	return f | unix.O_RDWR | unix.O_CLOEXEC
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return n.open(n.abs(""), n.StableAttr().Ino, flags)
}

func (n *node) open(path string, ino uint64, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fd, err := unix.Open(path, openFlags(flags), 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	if flags&unix.O_TRUNC != 0 {
		if n.f.down.Load() {
			unix.Close(fd)
			return nil, 0, syscall.EIO
		}
		s, err := n.f.state(ino, fd, true)
		if err != nil {
			unix.Close(fd)
			return nil, 0, fs.ToErrno(err)
		}
		s.truncate(0)
	}
	return &file{fd: fd, ino: ino, f: n.f}, 0, 0
}

// created logs a new name in this directory, to be removed by a cut unless the directory is
// fsynced first.
func (n *node) created(name string) {
	var st syscall.Stat_t
	syscall.Lstat(n.abs(name), &st)
	n.f.log.add(undo{dirs: []string{n.rel()}, remove: filepath.Join(n.rel(), name), ino: st.Ino})
}

func (n *node) exists(name string) bool {
	_, err := os.Lstat(n.abs(name))
	return err == nil
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if n.f.down.Load() {
		return nil, nil, 0, syscall.EIO
	}
	existed := n.exists(name)
	ch, fh, _, errno := n.LoopbackNode.Create(ctx, name, flags&^(unix.O_TRUNC|unix.O_DIRECT), mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	if r, ok := fh.(fs.FileReleaser); ok {
		r.Release(ctx)
	}
	if !existed {
		n.created(name)
	}
	own, _, errno := n.open(n.abs(name), out.Attr.Ino, flags)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	n.patch(&out.Attr)
	return ch, own, 0, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if n.f.down.Load() {
		return nil, syscall.EIO
	}
	ch, errno := n.LoopbackNode.Mkdir(ctx, name, mode, out)
	if errno == 0 {
		n.created(name)
	}
	return ch, errno
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
	if errno == 0 {
		n.created(name)
	}
	return ch, errno
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Symlink(ctx, target, name, out)
	if errno == 0 {
		n.created(name)
	}
	return ch, errno
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Link(ctx, target, name, out)
	if errno == 0 {
		n.created(name)
	}
	return ch, errno
}

// remove moves name to the trash, whence a cut restores it unless the directory is fsynced.
func (n *node) remove(name string) syscall.Errno {
	if n.f.down.Load() {
		return syscall.EIO
	}
	rel := filepath.Join(n.rel(), name)
	t, err := n.f.log.toTrash(rel)
	if err != nil {
		return fs.ToErrno(err)
	}
	n.f.log.add(undo{dirs: []string{n.rel()}, restore: [2]string{t, rel}})
	return 0
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno { return n.remove(name) }

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	ents, err := os.ReadDir(n.abs(name))
	if err != nil {
		return fs.ToErrno(err)
	}
	if len(ents) > 0 {
		return syscall.ENOTEMPTY
	}
	return n.remove(name)
}

// Rename keeps a replaced target in the trash, and both can be undone until the new name's
// directory is fsynced. RENAME_EXCHANGE goes through unlogged (no engine here uses it).
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok || flags&unix.RENAME_EXCHANGE != 0 {
		return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	}
	if n.f.down.Load() {
		return syscall.EIO
	}
	from, to := filepath.Join(n.rel(), name), filepath.Join(np.rel(), newName)
	if np.exists(newName) {
		if flags&unix.RENAME_NOREPLACE != 0 {
			return syscall.EEXIST
		}
		if errno := np.remove(newName); errno != 0 {
			return errno
		}
	}
	if err := os.Rename(filepath.Join(n.f.root, from), filepath.Join(n.f.root, to)); err != nil {
		return fs.ToErrno(err)
	}
	n.f.log.add(undo{dirs: []string{np.rel()}, rename: [2]string{to, from}})
	return 0
}

// OpendirHandle wraps the loopback's directory so that its fsync makes the directory's
// namespace changes durable.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, ff, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dir{DirStream: fh.(fs.DirStream), n: n}, ff, 0
}

type dir struct {
	fs.DirStream
	n *node
}

func (d *dir) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	if d.n.f.down.Load() {
		return syscall.EIO
	}
	d.n.f.log.synced(d.n.rel())
	return 0
}

func (d *dir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.DirStream.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *dir) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.DirStream.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (d *dir) Releasedir(ctx context.Context, flags uint32) {
	d.DirStream.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

// file is an open file: reads merge the unsynced pages over the backing file, writes go to
// the pages, fsync writes them to the backing file.
type file struct {
	fd  int
	ino uint64
	f   *fsys
}

func (h *file) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	s, _ := h.f.state(h.ino, h.fd, false)
	var n int
	var err error
	if s == nil {
		n, err = unix.Pread(h.fd, buf, off)
	} else {
		n, err = s.read(buf, off)
	}
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(buf[:n]), 0
}

func (h *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if h.f.down.Load() {
		return 0, syscall.EIO
	}
	s, err := h.f.state(h.ino, h.fd, true)
	if err == nil {
		err = s.write(data, off)
	}
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	return uint32(len(data)), 0
}

func (h *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	if h.f.down.Load() {
		return syscall.EIO
	}
	if h.f.fileEntries {
		h.f.log.syncedFile(h.ino)
	}
	s, _ := h.f.state(h.ino, h.fd, false)
	if s == nil {
		return 0
	}
	return fs.ToErrno(s.flush())
}

func (h *file) Flush(ctx context.Context) syscall.Errno { return 0 }

func (h *file) Release(ctx context.Context) syscall.Errno { return fs.ToErrno(unix.Close(h.fd)) }

func (h *file) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	var st syscall.Stat_t
	if err := syscall.Fstat(h.fd, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	if s, _ := h.f.state(h.ino, h.fd, false); s != nil {
		s.mu.Lock()
		out.Size = uint64(s.size)
		s.mu.Unlock()
	}
	return 0
}

// Allocate grows the file with zeros in the buffer, like a write; other modes are refused
// (posix_fallocate then writes zeros itself).
func (h *file) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	if mode != 0 {
		return syscall.EOPNOTSUPP
	}
	if h.f.down.Load() {
		return syscall.EIO
	}
	s, err := h.f.state(h.ino, h.fd, true)
	if err != nil {
		return fs.ToErrno(err)
	}
	s.mu.Lock()
	s.size = max(s.size, int64(off+size))
	s.mu.Unlock()
	return 0
}
