package kv

// The read steps count each value's length, as db_bench's readrandom and multireadrandom do
// (they read into a PinnableSlice and add its size): an engine that can say the length without
// handing the bytes over reads that way. RocksDB's Get through cgo would otherwise copy every
// value out of its block cache into Go memory, a copy neither db_bench nor a Go engine makes
// (Pebble's and Badger's Get hand over a view of their own memory).

// lenReader reads a value's length without its bytes (RocksDB's GetLen).
type lenReader interface {
	GetLen(key []byte) (n int, found bool, err error)
}

// lenMultiReader reads a batch's value lengths, lens[i] -1 for an absent key (MultiGetLen).
type lenMultiReader interface {
	MultiGetLen(keys [][]byte, lens []int) (found int, err error)
}

// valueLen is how the client reads a key's value length: the engine's GetLen where it has one
// and no stall target stands in front of it (a stall blocks Get only), else Get.
func (st *stepState) valueLen(c *client) func(key []byte) (int, bool, error) {
	if lr, ok := st.db.Engine.(lenReader); ok && !st.db.Stalls() {
		return lr.GetLen
	}
	return func(key []byte) (int, bool, error) {
		found, err := st.db.Get(key, c.onValue)
		return c.valueSize, found, err
	}
}

// multiGetLen reads the client's batch's value lengths and adds the found keys' and values'
// sizes to its valueSize.
func (st *stepState) multiGetLen(c *client, lr lenMultiReader) (int, error) {
	if len(c.lens) < len(c.batch) {
		c.lens = make([]int, len(c.batch))
	}
	found, err := lr.MultiGetLen(c.batch, c.lens)
	if err != nil {
		return 0, err
	}
	for i, n := range c.lens[:len(c.batch)] {
		if n >= 0 {
			c.valueSize += len(c.batch[i]) + n
		}
	}
	return found, nil
}
