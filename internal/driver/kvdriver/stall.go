package kvdriver

// The engine's operations through a DB, which a stall target (stall+KIND...) blocks during its
// windows; without one they are the engine's own, at the cost of a nil check. Optional
// abilities an engine offers beside these (batched reads, flushes) are not stalled.

// Stalls implements driver.Staller.
func (s *DB) Stalls() bool { return s.stall != nil }

func (s *DB) wait() {
	if s.stall != nil {
		s.stall.Wait()
	}
}

// Write implements Engine, after any stall.
func (s *DB) Write(fn func(w Writer) error) error {
	s.wait()
	return s.Engine.Write(fn)
}

// Get implements Engine, after any stall.
func (s *DB) Get(key []byte, fn func(value []byte)) (bool, error) {
	s.wait()
	return s.Engine.Get(key, fn)
}

// Scan implements Engine, after any stall.
func (s *DB) Scan(lower, upper []byte, fn func(key, value []byte) bool) error {
	s.wait()
	return s.Engine.Scan(lower, upper, fn)
}

// DropRange implements Engine, after any stall.
func (s *DB) DropRange(lower, upper []byte) error {
	s.wait()
	return s.Engine.DropRange(lower, upper)
}
