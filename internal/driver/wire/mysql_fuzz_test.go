package wire

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
)

// FuzzMySQLReply feeds arbitrary bytes to MySQL's lean path as a server's replies to two
// statements (rows read to their end): it must neither panic nor hang, and whatever it
// returns must leave it in step: a reply read to its end with nothing running, or the
// connection failed for good. flags: bit 0 DEPRECATE_EOF, bit 1 MariaDB's cached metadata,
// bits 2-4 the size of the pieces the server writes (0: all at once). Run it with
//
//	go test -run '^$' -fuzz '^FuzzMySQLReply$' -fuzztime 10s ./internal/driver/wire/
func FuzzMySQLReply(f *testing.F) {
	for _, dep := range []bool{false, true} {
		rs := newReply().rows(dep, 0, []any{"a", "b"}, []any{"1", nil}, []any{"", "x"})
		more := newReply().rows(dep, serverMoreResults, []any{"a"}, []any{"1"}).ok(0, 2, 0)
		flags := byte(0)
		if dep {
			flags = 1
		}
		f.Add(flags, append(rs.b, newReply().ok(0, 3, 0).b...))
		f.Add(flags|4<<2, append(more.b, newReply().err(1062, "23000", "Duplicate entry").b...))
		f.Add(flags|1<<2, append(newReply().ok(0, 1, serverMoreResults).b, (&myReply{seq: 0}).err(4031, "HY000", "gone").b...))
	}
	f.Add(byte(2), newReply().pkt(1, 0).pkt(1, 'x').b)
	f.Fuzz(func(t *testing.T, flags byte, reply []byte) {
		cli, srv := net.Pipe()
		defer cli.Close()
		go io.Copy(io.Discard, srv) // the statements
		go func() {
			chunk := int(flags>>2&7) * 3
			for b := reply; len(b) > 0; {
				n := len(b)
				if chunk > 0 {
					n = min(chunk, n)
				}
				if _, err := srv.Write(b[:n]); err != nil {
					return
				}
				b = b[n:]
			}
			srv.Close()
		}()
		sock := &sqldriver.MySQLSocket{Conn: cli}
		if flags&1 != 0 {
			sock.Capabilities |= sqldriver.MySQLClientDeprecateEOF
		}
		if flags&2 != 0 {
			sock.ExtCapabilities |= sqldriver.MariaDBClientCacheMetadata
		}
		w := NewMySQL(sock, true)
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for i := range 2 {
			rows, _, err := w.Query(ctx, []byte("SELECT 1"))
			for ok := rows; ok; {
				var v [][]byte
				if v, ok, err = w.NextRow(); ok && len(v) != w.cols {
					t.Fatalf("statement %d: a row of %d values in a result of %d columns", i, len(v), w.cols)
				}
			}
			if w.inRows || w.more || w.busy.Load() != 0 {
				t.Fatalf("statement %d (%v): reply left unread (rows %v, more %v, busy %d)", i, err, w.inRows, w.more, w.busy.Load())
			}
			if w.err != nil {
				if _, err := w.Exec(ctx, []byte("DO 1")); err != w.err {
					t.Fatalf("after the fatal %v: %v", w.err, err)
				}
				return
			}
		}
	})
}
