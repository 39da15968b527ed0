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

// Put writes one key, after any stall: the engine's Put where it has one (Putter), else a
// write of one Set.
func (s *DB) Put(key, value []byte) error {
	s.wait()
	if p, ok := s.Engine.(Putter); ok {
		return p.Put(key, value)
	}
	return s.Engine.Write(func(w Writer) error { return w.Set(key, value) })
}

// ScanN is Scan of at most n entries, after any stall; the engine reads no more than n where
// it can (LimitScanner).
func (s *DB) ScanN(lower []byte, n int, fn func(key, value []byte) bool) error {
	s.wait()
	if l, ok := s.Engine.(LimitScanner); ok {
		return l.ScanLimit(lower, nil, n, fn)
	}
	seen := 0
	return s.Engine.Scan(lower, nil, func(k, v []byte) bool { seen++; return fn(k, v) && seen < n })
}

// ScanReverseN is ReverseScanner's scan of at most n entries, after any stall; false when the
// engine has no reverse scan.
func (s *DB) ScanReverseN(start []byte, n int, fn func(key, value []byte) bool) (bool, error) {
	s.wait()
	if l, ok := s.Engine.(LimitScanner); ok {
		return true, l.ScanReverseLimit(start, n, fn)
	}
	r, ok := s.Engine.(ReverseScanner)
	if !ok {
		return false, nil
	}
	seen := 0
	return true, r.ScanReverse(start, func(k, v []byte) bool { seen++; return fn(k, v) && seen < n })
}
