// Package kvdriver opens ordered key-value engines (Pebble, bbolt) behind one small Engine
// interface: atomic batch writes, gets, ordered scans and range deletes. A workload lays its
// tables out over the key space itself (insertbench/ibkv for the Insert Benchmark); an engine
// is one file here that registers its kind.
package kvdriver

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
)

// Engine is what an ordered key-value engine provides.
type Engine interface {
	// Write applies every Set and Delete made in fn atomically and durably.
	Write(fn func(w Writer) error) error
	// Get calls fn with key's value, valid only during the call; found is false if absent.
	Get(key []byte, fn func(value []byte)) (found bool, err error)
	// Scan calls fn for keys in [lower, upper) in order until fn returns false; key and value
	// are valid only during the call.
	Scan(lower, upper []byte, fn func(key, value []byte) bool) error
	// DropRange removes every key in [lower, upper).
	DropRange(lower, upper []byte) error
	Name() string
	Version() string
	Settings() map[string]any
	Close() error
}

// Writer collects the changes of one atomic write.
type Writer interface {
	Set(key, value []byte) error
	Delete(key []byte) error
}

// Settler is an optional ability of an engine: flush and compact to a steady shape.
type Settler interface {
	Settle(ctx context.Context) (string, error)
}

// DB is an opened key-value target: its Engine's methods, plus the target's life cycle and
// the monitor's methods (monitor.go).
type DB struct {
	Engine
	kind    string
	display string
	tempDir string // removed on Close when the target had no path
	path    string // where the engine keeps the database: a directory (Pebble) or a file (bbolt)

	stall *driver.Stall // blocks operations during its windows (stall.go); nil for none

	// closeMu keeps the monitor's samples (monitor.go) off an engine being closed.
	closeMu sync.RWMutex
	closed  bool
}

var _ driver.Target = (*DB)(nil)

// open opens an engine at the spec's path, or in a new temporary directory when it has none.
func open(s driver.Spec, file string, openEngine func(path string) (Engine, error)) (*DB, error) {
	st := &DB{kind: s.Kind, display: s.String()}
	path := s.Path
	if path == "" {
		dir, err := os.MkdirTemp("", "dbperf-"+s.Kind+"-")
		if err != nil {
			return nil, err
		}
		st.tempDir = dir
		path = dir + "/" + file
	}
	eng, err := openEngine(path)
	if err != nil {
		if st.tempDir != "" {
			os.RemoveAll(st.tempDir)
		}
		return nil, fmt.Errorf("cannot open %s at %s: %w", s.Kind, path, err)
	}
	st.Engine, st.path = eng, path
	if s.Stall != nil {
		stall := *s.Stall
		stall.Start(time.Now())
		st.stall = &stall
	}
	return st, nil
}

// Info implements driver.Target.
func (s *DB) Info(context.Context) driver.Info {
	settings := s.Engine.Settings()
	settings["temporary"] = s.tempDir != ""
	return driver.Info{Kind: s.kind, Target: s.display, Engine: s.Engine.Name(), Version: s.Engine.Version(), Settings: settings}
}

// Close implements driver.Target; closing it again does nothing.
func (s *DB) Close() error {
	s.closeMu.Lock()
	closed := s.closed
	s.closed = true
	s.closeMu.Unlock()
	if closed {
		return nil
	}
	err := s.Engine.Close()
	if s.tempDir != "" {
		os.RemoveAll(s.tempDir)
	}
	return err
}

// Settle flushes and compacts the engine to a steady shape, if it can (it works on the whole
// key space, whatever the tables); it returns what it did.
func (s *DB) Settle(ctx context.Context, _ []string) (string, error) {
	if st, ok := s.Engine.(Settler); ok {
		return st.Settle(ctx)
	}
	return "none: " + s.Engine.Name() + " writes in place and has nothing to flush", nil
}
