package shard

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// SQLDB is the rendezvous's DB on a database/sql pool with ? placeholders (MySQL, MariaDB).
type SQLDB struct{ DB *sql.DB }

func (d SQLDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := d.DB.ExecContext(ctx, q, args...)
	return err
}

func (d SQLDB) QueryInts(ctx context.Context, n int, q string, args ...any) ([]int64, error) {
	vals := make([]sql.NullInt64, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := d.DB.QueryRowContext(ctx, q, args...).Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i, v := range vals {
		out[i] = v.Int64
	}
	return out, nil
}

func (d SQLDB) Ints(ctx context.Context, q string, args ...any) ([]int64, error) {
	rows, err := d.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// PgxDB is the rendezvous's DB on one PostgreSQL connection of its own; ? placeholders become
// $1, $2, ...
type PgxDB struct{ Conn *pgx.Conn }

// dollars rewrites ? placeholders as $n (the rendezvous's statements have no ? in strings).
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (d PgxDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := d.Conn.Exec(ctx, dollars(q), args...)
	return err
}

func (d PgxDB) QueryInts(ctx context.Context, n int, q string, args ...any) ([]int64, error) {
	vals := make([]*int64, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := d.Conn.QueryRow(ctx, dollars(q), args...).Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i, v := range vals {
		if v != nil {
			out[i] = *v
		}
	}
	return out, nil
}

func (d PgxDB) Ints(ctx context.Context, q string, args ...any) ([]int64, error) {
	rows, err := d.Conn.Query(ctx, dollars(q), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
