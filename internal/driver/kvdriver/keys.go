package kvdriver

import "encoding/binary"

// Key helpers every workload's layout needs: integers that sort as numbers do, and the bound
// of a prefix's key range.

// AppendInt appends an order-preserving encoding of v: 8 bytes big-endian with the sign bit
// flipped, so that byte order is numeric order.
func AppendInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^(1<<63))
}

// ReadInt decodes AppendInt's 8 bytes.
func ReadInt(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// PrefixEnd is the smallest key greater than every key starting with p; nil (no upper bound)
// when p is all 0xff.
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
