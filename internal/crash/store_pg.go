package crash

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pgStore is the crash table on PostgreSQL through pgx, with a connection per client (taken
// from a free list, dialled when it is empty).
type pgStore struct {
	url      string
	free     chan *pgx.Conn
	settings map[string]string
}

func openPG(url string, settings map[string]string) (Store, error) {
	s := &pgStore{url: url, free: make(chan *pgx.Conn, 64), settings: map[string]string{}}
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	defer s.put(c)
	ctx := context.Background()
	if _, err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS crash_rows (client INTEGER, seq BIGINT, sum BIGINT, payload BYTEA)`); err != nil {
		return nil, err
	}
	names := append([]string(nil), reported["postgres"]...)
	for k := range settings {
		names = append(names, k)
	}
	for _, n := range names {
		if strings.ContainsAny(n, " ;'\"") {
			return nil, fmt.Errorf("crash: bad setting name %q", n)
		}
		var v string
		if err := c.QueryRow(ctx, "SHOW "+n).Scan(&v); err != nil {
			return nil, fmt.Errorf("reading setting %s: %w", n, err)
		}
		s.settings[n] = v
	}
	return s, nil
}

func (s *pgStore) conn() (*pgx.Conn, error) {
	select {
	case c := <-s.free:
		return c, nil
	default:
		return pgx.Connect(context.Background(), s.url)
	}
}

func (s *pgStore) put(c *pgx.Conn) {
	select {
	case s.free <- c:
	default:
		c.Close(context.Background())
	}
}

func (s *pgStore) Insert(rows []Row) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	ctx := context.Background()
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		for _, r := range rows {
			if _, err := tx.Exec(ctx, `INSERT INTO crash_rows VALUES ($1, $2, $3, $4)`, r.Client, r.Seq, int64(Checksum(r.Client, r.Seq, r.Payload)), r.Payload); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.Close(ctx)
		return err
	}
	s.put(c)
	return nil
}

func (s *pgStore) ReadAll(fn func(int, int64, bool)) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	defer s.put(c)
	rows, err := c.Query(context.Background(), `SELECT client, seq, sum, payload FROM crash_rows`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cl int32
		var seq, sum int64
		var p []byte
		if err := rows.Scan(&cl, &seq, &sum, &p); err != nil {
			return err
		}
		fn(int(cl), seq, sum >= 0 && sum <= 0xffffffff && uint32(sum) == Checksum(int(cl), seq, p))
	}
	return rows.Err()
}

// Reset drops the table: each crash starts from row 1 in a new one.
func (s *pgStore) Reset() error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	defer s.put(c)
	_, err = c.Exec(context.Background(), `DROP TABLE crash_rows`)
	return err
}

// Checkpoint makes the new table durable whatever synchronous_commit says.
func (s *pgStore) Checkpoint() error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	defer s.put(c)
	_, err = c.Exec(context.Background(), `CHECKPOINT`)
	return err
}

func (s *pgStore) Settings() map[string]string { return s.settings }

func (s *pgStore) Close() error {
	for {
		select {
		case c := <-s.free:
			c.Close(context.Background())
		default:
			return nil
		}
	}
}
