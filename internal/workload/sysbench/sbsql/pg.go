package sbsql

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgStore is PostgreSQL: DDL and checks on the target's admin connection, the clients on their
// own, with every statement they use (BEGIN and COMMIT too, oltp_common.lua:274-280) prepared
// once per connection under a name, as sysbench's PQprepare (drv_pgsql.c:298-305).
type pgStore struct {
	t *sqldriver.Postgres
	o Options
}

func (s *pgStore) Dialect() string          { return "postgres" }
func (s *pgStore) QueryMode() string        { return s.o.QueryMode }
func (s *pgStore) Ignorable(err error) bool { return pgIgnorable(err) }
func (s *pgStore) Exec(ctx context.Context, q string) error {
	_, err := s.t.Admin().Exec(ctx, q)
	return err
}

func (s *pgStore) Count(ctx context.Context, table int) (n, ids int64, err error) {
	err = s.t.Admin().QueryRow(ctx, fmt.Sprintf("SELECT count(*), count(DISTINCT id) FROM sbtest%d", table)).Scan(&n, &ids)
	return n, ids, err
}

// Connect opens a client's connection; the run step's survives a restart of the server
// (redial.go).
func (s *pgStore) Connect(ctx context.Context, stmts bool) (sb.Conn, error) {
	if !stmts {
		return s.connect(ctx, false)
	}
	return redialing(ctx, func(ctx context.Context) (sb.Conn, error) { return s.connect(ctx, true) })
}

func (s *pgStore) connect(ctx context.Context, stmts bool) (sb.Conn, error) {
	c, err := s.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc := &pgConn{c: c, pg: c.PgConn(), prepared: stmts && s.o.QueryMode == sb.QueryPrepared, names: make([]string, slots(s.o))}
	if pc.prepared {
		err = s.o.each(func(st sb.Stmt, table int) error {
			name := "sb" + strconv.Itoa(key(st, table))
			if _, err := pc.pg.Prepare(ctx, name, placeholders(sb.SQL(st, table)), nil); err != nil {
				return fmt.Errorf("prepare %s: %w", sb.SQL(st, table), err)
			}
			pc.names[key(st, table)] = name
			return nil
		})
		if path, _ := s.t.ClientPath(); err == nil && path.Lean() {
			pc.w, err = wire.NewPostgres(pc.pg, path.Poll())
		}
	}
	if err != nil {
		c.Close(context.Background())
		return nil, err
	}
	return pc, nil
}

// pgConn runs the statements prepared, on the connection's socket (wire.Postgres) or through
// pgconn, or as text through pgconn with --query-mode simple.
type pgConn struct {
	c        *pgx.Conn
	pg       *pgconn.PgConn
	w        *wire.Postgres // nil: pgconn
	prepared bool
	names    []string
	pbuf     []byte
	params   [][]byte
	text     []byte
}

// encode writes args as text parameters.
func (c *pgConn) encode(args []sb.Arg) {
	c.pbuf, c.params = c.pbuf[:0], c.params[:0]
	var ends [4]int
	for i, a := range args {
		if a.Str == nil {
			c.pbuf = strconv.AppendInt(c.pbuf, a.Int, 10)
		} else {
			c.pbuf = append(c.pbuf, a.Str...)
		}
		ends[i] = len(c.pbuf)
	}
	start := 0
	for i := range args {
		c.params = append(c.params, c.pbuf[start:ends[i]:ends[i]])
		start = ends[i]
	}
}

func (c *pgConn) Exec(ctx context.Context, s sb.Stmt, table int, args []sb.Arg) (sb.Result, error) {
	if !c.prepared {
		var err error
		if c.text, err = interpolate(c.text[:0], sb.SQL(s, table), args, false); err != nil {
			return sb.Result{}, err
		}
		return c.Text(ctx, c.text)
	}
	name := c.names[key(s, table)]
	if name == "" {
		return sb.Result{}, fmt.Errorf("%s was not prepared", sb.SQL(s, table))
	}
	c.encode(args)
	r := sb.Result{Rows: isSelect(s)}
	if c.w == nil {
		res := c.pg.ExecPrepared(ctx, name, c.params, nil, nil).Read()
		r.Affected = res.CommandTag.RowsAffected()
		return r, res.Err
	}
	err := c.w.ExecPrepared(ctx, name, c.params)
	if err == nil { // sysbench reads none of the values
		_, err = c.w.Discard()
	}
	if err != nil {
		return sb.Result{}, err
	}
	if !r.Rows {
		r.Affected = c.w.Affected()
	}
	return r, nil
}

// Text sends q over the simple protocol; its last result counts.
func (c *pgConn) Text(ctx context.Context, q []byte) (sb.Result, error) {
	if c.w != nil {
		if err := c.w.ExecSimple(ctx, q); err != nil {
			return sb.Result{}, err
		}
		return sb.Result{Affected: c.w.Affected()}, nil
	}
	results, err := c.pg.Exec(ctx, string(q)).ReadAll()
	if err != nil {
		return sb.Result{}, err
	}
	var r sb.Result
	for _, res := range results {
		r = sb.Result{Rows: len(res.FieldDescriptions) > 0, Affected: res.CommandTag.RowsAffected()}
		if r.Rows {
			r.Affected = 0
		}
	}
	return r, nil
}

func (c *pgConn) Rollback(ctx context.Context) error {
	_, err := c.Text(ctx, []byte("ROLLBACK"))
	return err
}

func (c *pgConn) Close() error {
	if c.w != nil {
		c.w.Close()
		c.w.Release()
	}
	return errors.Join(c.c.Close(context.Background()))
}
