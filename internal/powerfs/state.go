// Package powerfs is dbperf's power-loss layer: a FUSE file system over a backing directory
// that keeps every write since the file's last fsync in memory, and every create, rename and
// unlink since its directory's last fsync undoable. A power cut drops the first and undoes the
// second, so what remains is what the database had made durable (docs/reliability.md says
// what it models and what it does not).
package powerfs

import (
	"math"
	"sync"

	"golang.org/x/sys/unix"
)

const pageSize = 4096

// fileState is a file's unsynced contents: its dirty pages, its size as the writers see it, and
// the offset from which the backing file's old bytes no longer count (a truncation since the
// last fsync). A file without a state reads straight from the backing file.
type fileState struct {
	mu       sync.Mutex
	pages    map[int64]*[pageSize]byte
	size     int64 // the file's size as the writers see it
	zeroFrom int64 // backing bytes at or after this offset read as zeros
	backing  int64 // the backing file's size when the state began
	fd       int   // the state's own descriptor of the backing file
}

func newState(fd int) (*fileState, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return &fileState{pages: map[int64]*[pageSize]byte{}, size: st.Size, zeroFrom: math.MaxInt64, backing: st.Size, fd: fd}, nil
}

// page returns page i, filled from what the file holds now if it was clean.
func (s *fileState) page(i int64) (*[pageSize]byte, error) {
	if p, ok := s.pages[i]; ok {
		return p, nil
	}
	p := new([pageSize]byte)
	if err := s.readBacking(p[:], i*pageSize); err != nil {
		return nil, err
	}
	s.pages[i] = p
	return p, nil
}

// readBacking reads the backing bytes at off that still count, zeros elsewhere.
func (s *fileState) readBacking(buf []byte, off int64) error {
	clear(buf)
	end := min(off+int64(len(buf)), s.zeroFrom, s.backing, s.size)
	for done := off; done < end; {
		n, err := unix.Pread(s.fd, buf[done-off:end-off], done)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		done += int64(n)
	}
	return nil
}

// write buffers data at off.
func (s *fileState) write(data []byte, off int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(data) > 0 {
		i, in := off/pageSize, off%pageSize
		p, err := s.page(i)
		if err != nil {
			return err
		}
		n := copy(p[in:], data)
		data, off = data[n:], off+int64(n)
		s.size = max(s.size, off)
	}
	return nil
}

// read fills buf from off as the writers see the file; it returns how many bytes it read.
func (s *fileState) read(buf []byte, off int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if off >= s.size {
		return 0, nil
	}
	buf = buf[:min(int64(len(buf)), s.size-off)]
	for done := 0; done < len(buf); {
		at := off + int64(done)
		i, in := at/pageSize, at%pageSize
		chunk := buf[done:min(len(buf), done+int(pageSize-in))]
		if p, ok := s.pages[i]; ok {
			copy(chunk, p[in:])
		} else if err := s.readBacking(chunk, at); err != nil {
			return done, err
		}
		done += len(chunk)
	}
	return len(buf), nil
}

// truncate sets the size; bytes beyond it are gone, and read as zeros if the file grows again.
func (s *fileState) truncate(size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if size < s.size {
		s.zeroFrom = min(s.zeroFrom, size)
		for i, p := range s.pages {
			switch {
			case i*pageSize >= size:
				delete(s.pages, i)
			case (i+1)*pageSize > size:
				clear(p[size-i*pageSize:])
			}
		}
	}
	s.size = size
}

// flush writes the state to the backing file: what an fsync makes durable.
func (s *fileState) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.zeroFrom < s.backing {
		if err := unix.Ftruncate(s.fd, s.zeroFrom); err != nil {
			return err
		}
	}
	for i, p := range s.pages {
		n := min(int64(pageSize), s.size-i*pageSize)
		if n <= 0 {
			continue
		}
		if _, err := unix.Pwrite(s.fd, p[:n], i*pageSize); err != nil {
			return err
		}
	}
	if err := unix.Ftruncate(s.fd, s.size); err != nil {
		return err
	}
	clear(s.pages)
	s.zeroFrom, s.backing = math.MaxInt64, s.size
	return nil
}

// dirty reports whether anything is unsynced.
func (s *fileState) dirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pages) > 0 || s.size != s.backing || s.zeroFrom != math.MaxInt64
}
