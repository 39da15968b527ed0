package script

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Mode is pgbench's -M: how SQL reaches the server.
type Mode uint8

// The query modes (pgbench.c:716-725, 3170-3218 in 15.18).
const (
	ModeSimple   Mode = iota // variables written into the text; the simple protocol
	ModeExtended             // :x as parameters, parsed at every execution
	ModePrepared             // :x as parameters, prepared once per connection
)

// ParseMode reads --query-mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "simple", "":
		return ModeSimple, nil
	case "extended":
		return ModeExtended, nil
	case "prepared":
		return ModePrepared, nil
	}
	return 0, fmt.Errorf("--query-mode %q: give simple, extended or prepared", s)
}

func (m Mode) String() string { return [...]string{"simple", "extended", "prepared"}[m] }

// Stmt is one execution of an SQL command, reused by its client, so that filling it in
// allocates nothing: in simple mode SQL has the variables' values written into the text; in
// extended and prepared modes Text has placeholders and Params their values as text (nil:
// NULL), slices of one reused buffer.
type Stmt struct {
	ID     int // unique among all scripts' SQL commands: a prepared statement's name
	Mode   Mode
	Text   string // extended, prepared: the text with placeholders
	SQL    []byte // simple: the text with the values in it
	Params [][]byte
	Store  ResultVars
	buf    []byte   // the parameters' text
	ends   []uint32 // where each parameter's text ends in buf; null: nullParam
}

// nullParam marks a NULL parameter in Stmt.ends.
const nullParam = ^uint32(0)

// Result is one result set, every value as text (NULL as "").
type Result struct {
	Cols []string
	Rows [][]string
}

// Conn is one client's connection, bound to a DBMS by the workload's store.
type Conn interface {
	// Exec runs st; with st.Store set it returns the results (all of a compound query's).
	Exec(ctx context.Context, st *Stmt) ([]Result, error)
	// Rollback ends a failed transaction; an error (none open) is ignored by the caller.
	Rollback(ctx context.Context) error
	// InTransaction tells whether a transaction block is open, when the DBMS says.
	InTransaction() bool
	Close() error
}

// Outcome classifies a failed SQL command as pgbench does: retryable (serialization,
// deadlock: pgbench.c:3224-3245), or any other error, which aborts the client.
type Outcome func(err error) (kind string, retryable bool)

// ErrAbort is what a client's other errors wrap: pgbench aborts the client; dbperf fails the step.
var ErrAbort = errors.New("client aborted")

// client runs scripts on one connection: its variables, its random stream, and where it is
// in the current transaction.
type client struct {
	scripts []*Script
	total   int64 // the weights' sum
	choose  *PRNG // the weighted choice of a script (pgbench's ts_choose_rs)
	env     Env
	conn    Conn
	stmts   [][]Stmt // per script, per SQL command
	mode    Mode
	sleep   func(ctx context.Context, d time.Duration) error

	cur, pc int // the transaction's script and next command
	saved   PRNG
	inTxn   bool // within a transaction (per-statement mode: across calls)
	// reconnect: the next transaction needs a new connection (--connect-per-transaction).
	reconnect bool
	tries     int
	st        Stats
	b         *Bench
	id        int
}

// Stats are a client's transaction counts, as pgbench's summary has them.
type Stats struct {
	Transactions  int64 // succeeded
	Failed        int64 // failed after the last try (serialization or deadlock)
	Serialization int64 // failures by kind
	Deadlock      int64
	Retried       int64 // transactions retried at least once
	Retries       int64 // retries in all
	// Connections opened by --connect-per-transaction, and the time spent closing the last
	// and opening each (pgbench's conn_duration: pgbench.c:3680-3697, 4268-4276).
	Connections int64
	ConnectTime time.Duration
}

func (s *Stats) add(o Stats) {
	s.Transactions += o.Transactions
	s.Failed += o.Failed
	s.Serialization += o.Serialization
	s.Deadlock += o.Deadlock
	s.Retried += o.Retried
	s.Retries += o.Retries
	s.Connections += o.Connections
	s.ConnectTime += o.ConnectTime
}

// sub is s less an earlier count of the same client.
func (s Stats) sub(o Stats) Stats {
	return Stats{Transactions: s.Transactions - o.Transactions, Failed: s.Failed - o.Failed,
		Serialization: s.Serialization - o.Serialization, Deadlock: s.Deadlock - o.Deadlock,
		Retried: s.Retried - o.Retried, Retries: s.Retries - o.Retries,
		Connections: s.Connections - o.Connections, ConnectTime: s.ConnectTime - o.ConnectTime}
}

// connect closes the client's connection, if any, and opens a new one: pgbench -C before each
// transaction, whose retries keep it (pgbench.c:3675-3701, 4185-4209). A connection that
// fails aborts the client, as pgbench's (3683-3692), so the step ends.
func (c *client) connect(ctx context.Context) error {
	start := time.Now()
	if c.conn != nil {
		_ = c.conn.Close() // as pgbench's finishCon, which reports nothing
		c.conn = nil
	}
	conn, err := c.b.store.Connect(ctx)
	if err != nil {
		return fmt.Errorf("%w: client %d could not open its next connection (--connect-per-transaction): %w", ErrAbort, c.id, err)
	}
	c.conn, c.reconnect = conn, false
	c.st.Connections++
	c.st.ConnectTime += time.Since(start)
	return nil
}

// chooseScript is pgbench's chooseScript (pgbench.c:3062-3078): a weighted draw.
func (c *client) chooseScript() int {
	if len(c.scripts) == 1 {
		return 0
	}
	w := c.choose.Random(0, c.total-1)
	i := 0
	for {
		w -= int64(c.scripts[i].Weight)
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// begin starts a transaction: a script, and the random state a retry restores.
func (c *client) begin() {
	c.cur, c.pc, c.tries, c.inTxn = c.chooseScript(), 0, 1, true
	c.saved = *c.env.RNG
}

// step runs commands from c.pc: the whole script, or with oneSQL up to and including the next
// SQL command and the meta-commands after it. It returns the last SQL command run (-1: none)
// and whether the script ended.
func (c *client) step(ctx context.Context, oneSQL bool) (sqlN int, done bool, err error) {
	s := c.scripts[c.cur]
	sqlN = -1
	for c.pc < len(s.Cmds) {
		cmd := s.Cmds[c.pc]
		if cmd.Kind == CmdSQL && oneSQL && sqlN >= 0 {
			return sqlN, false, nil
		}
		if err := c.exec(ctx, s, cmd); err != nil {
			if cmd.Kind == CmdSQL {
				sqlN = cmd.N
			}
			return sqlN, false, err
		}
		if cmd.Kind == CmdSQL {
			sqlN = cmd.N
		}
	}
	if c.conn.InTransaction() {
		return sqlN, true, fmt.Errorf("%w: script %s ended inside a transaction block: end it with COMMIT or ROLLBACK (pgbench.c:4246-4257)", ErrAbort, s.Name)
	}
	return sqlN, true, nil
}

// exec runs one command and moves c.pc on.
func (c *client) exec(ctx context.Context, s *Script, cmd *Command) error {
	switch cmd.Kind {
	case CmdSQL:
		c.pc++
		return c.sql(ctx, s, cmd)
	case CmdSet:
		v, err := c.env.Eval(cmd.Expr)
		if err != nil {
			return c.metaErr(s, cmd, "\\set", err)
		}
		c.env.Vars[cmd.Var].SetValue(v)
		c.pc++
	case CmdSleep:
		d, err := c.sleepTime(cmd)
		if err != nil {
			return c.metaErr(s, cmd, "\\sleep", err)
		}
		c.pc++
		return c.sleep(ctx, d)
	case CmdIf:
		return c.branch(s, cmd, c.pc)
	case CmdElif, CmdElse: // the branch before it ran: leave the chain
		c.pc = cmd.End + 1
	case CmdEndif:
		c.pc++
	}
	return nil
}

// branch evaluates an \if and the \elif after it until one holds (pgbench.c:4391-4452).
func (c *client) branch(s *Script, cmd *Command, at int) error {
	for {
		if cmd.Kind == CmdElse || cmd.Kind == CmdEndif {
			c.pc = at + 1
			return nil
		}
		v, err := c.env.Eval(cmd.Expr)
		if err != nil {
			return c.metaErr(s, cmd, "\\"+kindName(cmd.Kind), err)
		}
		if v.truth() {
			c.pc = at + 1
			return nil
		}
		at = cmd.Next
		cmd = s.Cmds[at]
	}
}

func (c *client) metaErr(s *Script, cmd *Command, name string, err error) error {
	return fmt.Errorf("%w in %s of script %s (line %d): %v", ErrAbort, name, s.Name, cmd.Line, err)
}

// sleepTime is \sleep's duration; a variable must hold an integer (pgbench.c:3411-3449).
func (c *client) sleepTime(cmd *Command) (time.Duration, error) {
	n := cmd.Sleep
	if cmd.SleepVar >= 0 {
		v := &c.env.Vars[cmd.SleepVar]
		if !v.Set {
			return 0, fmt.Errorf("undefined variable %q", cmd.SleepName)
		}
		x, err := v.Value()
		if err != nil || x.Kind != KindInt {
			return 0, fmt.Errorf("invalid sleep time %q, must be an integer", v.Text())
		}
		n = x.I
	}
	return time.Duration(n*cmd.SleepUnit) * time.Microsecond, nil
}

// sql fills the command's statement with the variables' values, runs it, and stores what
// \gset or \aset asks for.
func (c *client) sql(ctx context.Context, s *Script, cmd *Command) error {
	st := &c.stmts[c.cur][cmd.N]
	if c.mode == ModeSimple {
		st.SQL = c.substitute(st.SQL[:0], cmd.Parts)
	} else {
		c.params(st, cmd.Parts)
	}
	res, err := c.conn.Exec(ctx, st)
	if err != nil {
		return &sqlError{script: s.Name, line: cmd.Line, err: err}
	}
	if cmd.Store != StoreNone {
		return c.store(s, cmd, res)
	}
	return nil
}

// params sets st.Params to the variables' text, an unset variable NULL (pgbench.c:5438-5484).
// The text goes into one buffer first, then the slices, as the buffer may move while it grows.
func (c *client) params(st *Stmt, parts []Part) {
	st.buf, st.ends = st.buf[:0], st.ends[:0]
	for _, p := range parts {
		if p.Slot < 0 {
			continue
		}
		if v := &c.env.Vars[p.Slot]; v.Set {
			st.buf = v.AppendText(st.buf)
			st.ends = append(st.ends, uint32(len(st.buf)))
		} else {
			st.ends = append(st.ends, nullParam)
		}
	}
	if st.buf == nil {
		st.buf = make([]byte, 0, 64) // an empty value is an empty slice, not nil (NULL)
	}
	start := uint32(0)
	for i, end := range st.ends {
		if end == nullParam {
			st.Params[i] = nil
			continue
		}
		st.Params[i] = st.buf[start:end:end]
		start = end
	}
}

// substitute appends the text with the variables' values written in to b; an unset variable
// stays as written (pgbench.c:1954-1987).
func (c *client) substitute(b []byte, parts []Part) []byte {
	for _, p := range parts {
		if p.Slot >= 0 && c.env.Vars[p.Slot].Set {
			b = c.env.Vars[p.Slot].AppendText(b)
		} else {
			b = append(b, p.Text...)
		}
	}
	return b
}

// store sets variables from a query's results (pgbench.c:3283-3336): \gset needs exactly one
// row in the last result; \aset takes the last row of every result that has rows.
func (c *client) store(s *Script, cmd *Command, res []Result) error {
	if cmd.Store == StoreGset {
		if len(res) == 0 || len(res[len(res)-1].Rows) != 1 {
			n := 0
			if len(res) > 0 {
				n = len(res[len(res)-1].Rows)
			}
			return fmt.Errorf("%w: script %s line %d: \\gset expects one row, got %d", ErrAbort, s.Name, cmd.Line, n)
		}
		res = res[len(res)-1:]
	}
	for _, r := range res {
		if len(r.Rows) == 0 {
			continue
		}
		row := r.Rows[len(r.Rows)-1]
		for i, col := range r.Cols {
			name := cmd.Prefix + col
			slot := c.env.Syms.Lookup(name)
			if slot < 0 {
				if !validName(name) {
					return fmt.Errorf("%w: script %s line %d: invalid variable name %q", ErrAbort, s.Name, cmd.Line, name)
				}
				continue // no script reads it
			}
			c.env.Vars[slot].SetText(row[i])
		}
	}
	return nil
}

// sqlError is an SQL command's failure, with where it happened.
type sqlError struct {
	script string
	line   int
	err    error
}

func (e *sqlError) Error() string {
	return fmt.Sprintf("script %s line %d: %v", e.script, e.line, e.err)
}
func (e *sqlError) Unwrap() error { return e.err }
