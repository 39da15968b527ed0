package wire

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/rawsock"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A fake PostgreSQL server for the protocol's edges that a real server does not produce on
// demand (corrupt lengths, a FATAL mid-reply, a COPY where rows were expected). Each case's
// reply is run through the lean path (raw system calls and net.Conn) and through pgconn, and
// must end the same way: the lean path keeps the driver's guarantees.

// fakePG serves one client connection: the startup, then for each request (up to Sync or
// Query) the next scripted reply, written in chunks of split bytes (0: whole). Cancel
// requests, on their own connections, are counted and signaled on canceled.
type fakePG struct {
	ln       net.Listener
	replies  chan []byte
	split    int
	canceled chan struct{}
	requests chan struct{} // a request (up to Sync or Query) arrived
	// closeAfter makes the server close the connection after its next reply (set before the
	// reply is queued).
	closeAfter bool
	mu         sync.Mutex
	conns      []net.Conn
}

const fakePID, fakeKey = 4242, 77

func newFakePG(t *testing.T, split int) *fakePG {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePG{ln: ln, replies: make(chan []byte, 16), split: split, canceled: make(chan struct{}, 4), requests: make(chan struct{}, 64)}
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	go f.accept()
	return f
}

func (f *fakePG) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		go f.serve(c)
	}
}

func (f *fakePG) serve(c net.Conn) {
	be := pgproto3.NewBackend(c, c)
	msg, err := be.ReceiveStartupMessage()
	if err != nil {
		return
	}
	switch msg.(type) {
	case *pgproto3.CancelRequest:
		f.canceled <- struct{}{}
		c.Close()
		return
	case *pgproto3.SSLRequest:
		c.Close()
		return
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.BackendKeyData{ProcessID: fakePID, SecretKey: []byte{0, 0, 0, fakeKey}})
	be.Send(&pgproto3.ParameterStatus{Name: "application_name", Value: "before"})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	for {
		m, err := be.Receive()
		if err != nil {
			return
		}
		switch m.(type) {
		case *pgproto3.Sync, *pgproto3.Query:
		case *pgproto3.Terminate:
			return
		default:
			continue
		}
		select {
		case f.requests <- struct{}{}:
		default:
		}
		reply, ok := <-f.replies
		if !ok {
			return
		}
		if reply == nil { // the script ends the connection here
			c.Close()
			return
		}
		f.write(c, reply)
		if f.closeAfter {
			c.Close()
			return
		}
	}
}

func (f *fakePG) write(c net.Conn, b []byte) {
	for len(b) > 0 {
		n := len(b)
		if f.split > 0 {
			n = min(n, f.split)
		}
		if _, err := c.Write(b[:n]); err != nil {
			return
		}
		b = b[n:]
		if len(b) > 0 {
			time.Sleep(100 * time.Microsecond) // separate segments, so that reads find part of a message
		}
	}
}

// connect opens a pgconn to f as sqldriver's target dials for the lean paths.
func (f *fakePG) connect(t *testing.T, raw bool) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig("postgres://u@" + f.ln.Addr().String() + "/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	var d net.Dialer
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if raw {
			c = rawsock.Wrap(c)
		}
		return rawsock.NewUnreader(c), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(context.Background()) })
	return pg
}

// msgs encodes backend messages into one reply.
func msgs(ms ...pgproto3.BackendMessage) []byte {
	var b []byte
	for _, m := range ms {
		var err error
		if b, err = m.Encode(b); err != nil {
			panic(err)
		}
	}
	return b
}

// Replies the cases use.
var (
	z         = &pgproto3.ReadyForQuery{TxStatus: 'I'}
	zInTx     = &pgproto3.ReadyForQuery{TxStatus: 'T'}
	zFailedTx = &pgproto3.ReadyForQuery{TxStatus: 'E'}
	parsed    = &pgproto3.ParseComplete{}
	bound     = &pgproto3.BindComplete{}
	noData    = &pgproto3.NoData{}
)

func complete(tag string) *pgproto3.CommandComplete {
	return &pgproto3.CommandComplete{CommandTag: []byte(tag)}
}

func pgError(severity, code, msg string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: msg}
}

func oneColumn() *pgproto3.RowDescription {
	return &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}}
}
