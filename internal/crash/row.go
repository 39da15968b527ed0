// Package crash is dbperf's lost-commit test: clients insert numbered rows, each acknowledged
// commit is written to a log outside the crashed file system, the target is crashed (SIGKILL or
// a power cut of internal/powerfs), recovered and read back, and the rows present are compared
// with the acknowledgements (docs/reliability.md).
package crash

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
)

// Row is one inserted row: its client, its sequence number within the client (from 1) and a
// payload whose checksum is stored beside it, so a torn or mixed-up row is seen as corrupt.
type Row struct {
	Client  int
	Seq     int64
	Payload []byte
}

// Checksum covers the client and sequence number as well as the payload, so a payload stored
// under another row's key is corrupt too.
func Checksum(client int, seq int64, payload []byte) uint32 {
	var h [12]byte
	binary.BigEndian.PutUint32(h[:4], uint32(client))
	binary.BigEndian.PutUint64(h[4:], uint64(seq))
	return crc32.Update(crc32.ChecksumIEEE(h[:]), crc32.IEEETable, payload)
}

// payloadFor makes a row's payload (100 to 299 bytes) from the run's seed, so runs repeat.
func payloadFor(seed uint64, client int, seq int64) []byte {
	r := rand.New(rand.NewPCG(seed^uint64(client)<<40, uint64(seq)))
	p := make([]byte, 100+r.IntN(200))
	for i := range p {
		p[i] = byte('a' + r.IntN(26))
	}
	return p
}

// kvKey is a row's key on the key-value engines: 'r', client, sequence number, big-endian, so
// that a client's rows are contiguous and in order.
func kvKey(client int, seq int64) []byte {
	k := make([]byte, 13)
	k[0] = 'r'
	binary.BigEndian.PutUint32(k[1:5], uint32(client))
	binary.BigEndian.PutUint64(k[5:], uint64(seq))
	return k
}

// kvValue repeats the key's client and sequence number before the checksum and the payload.
func kvValue(r Row) []byte {
	v := make([]byte, 16+len(r.Payload))
	binary.BigEndian.PutUint32(v[0:4], uint32(r.Client))
	binary.BigEndian.PutUint64(v[4:12], uint64(r.Seq))
	binary.BigEndian.PutUint32(v[12:16], Checksum(r.Client, r.Seq, r.Payload))
	copy(v[16:], r.Payload)
	return v
}

// decodeKV returns the row a key and value hold and whether they are intact.
func decodeKV(k, v []byte) (client int, seq int64, ok bool, err error) {
	if len(k) != 13 || k[0] != 'r' {
		return 0, 0, false, fmt.Errorf("unexpected key %x", k)
	}
	client, seq = int(binary.BigEndian.Uint32(k[1:5])), int64(binary.BigEndian.Uint64(k[5:]))
	if len(v) < 16 {
		return client, seq, false, nil
	}
	ok = int(binary.BigEndian.Uint32(v[0:4])) == client && int64(binary.BigEndian.Uint64(v[4:12])) == seq &&
		binary.BigEndian.Uint32(v[12:16]) == Checksum(client, seq, v[16:])
	return client, seq, ok, nil
}
