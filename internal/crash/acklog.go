package crash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// An acknowledgement log holds one 24-byte record per acknowledged transaction: the first and
// last sequence numbers of its rows and the instant (Unix ns) the commit returned. Each record
// is one write(2) with no buffer and no fsync: a killed writer loses at most the record being
// written, and the log lives outside the crashed file system, so a power cut of the data's
// layer does not touch it.
const ackRecord = 24

// AckLog appends a client's acknowledgements.
type AckLog struct {
	mu  sync.Mutex
	f   *os.File
	buf [ackRecord]byte
}

func ackPath(dir string, client int) string {
	return filepath.Join(dir, fmt.Sprintf("acks-%d.log", client))
}

// CreateAckLog creates client's log in dir.
func CreateAckLog(dir string, client int) (*AckLog, error) {
	f, err := os.OpenFile(ackPath(dir, client), os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &AckLog{f: f}, nil
}

// Ack records that rows first..last were committed, at the instant it is called.
func (a *AckLog) Ack(first, last int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	binary.BigEndian.PutUint64(a.buf[0:8], uint64(first))
	binary.BigEndian.PutUint64(a.buf[8:16], uint64(last))
	binary.BigEndian.PutUint64(a.buf[16:24], uint64(time.Now().UnixNano()))
	_, err := a.f.Write(a.buf[:])
	return err
}

// Close closes the log.
func (a *AckLog) Close() error { return a.f.Close() }

// Ack is one acknowledged transaction.
type Ack struct {
	First, Last int64
	At          time.Time
}

// ReadAcks reads client's log; a partial record at the end (a write cut by the kill) is left
// out, since its commit was never reported.
func ReadAcks(dir string, client int) ([]Ack, error) {
	b, err := os.ReadFile(ackPath(dir, client))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var acks []Ack
	for len(b) >= ackRecord {
		acks = append(acks, Ack{
			First: int64(binary.BigEndian.Uint64(b[0:8])),
			Last:  int64(binary.BigEndian.Uint64(b[8:16])),
			At:    time.Unix(0, int64(binary.BigEndian.Uint64(b[16:24]))),
		})
		b = b[ackRecord:]
	}
	return acks, nil
}
