package crash

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// serverStore keeps the rows in a MariaDB table, without a key on (client, seq) so that a row
// stored twice is seen; pgStore does the same on PostgreSQL. The URL is ChildSpec.Dir.
type serverStore struct {
	db       *sql.DB
	kind     string
	settings map[string]string
}

// serverEngines are the server kinds and their storage engines (empty for PostgreSQL).
var serverEngines = map[string]string{"postgres": "", "mariadb-innodb": "InnoDB", "mariadb-myrocks": "ROCKSDB"}

// reported are the settings each server kind reports beside the ones asked for, because they
// decide what a crash can lose.
var reported = map[string][]string{
	"postgres":        {"synchronous_commit", "fsync", "full_page_writes", "wal_sync_method"},
	"mariadb-innodb":  {"innodb_flush_log_at_trx_commit", "innodb_flush_method", "innodb_doublewrite", "innodb_use_native_aio", "log_bin"},
	"mariadb-myrocks": {"rocksdb_flush_log_at_trx_commit", "rocksdb_manual_wal_flush", "rocksdb_wal_recovery_mode", "log_bin"},
}

func openServerStore(kind, url string, settings map[string]string) (Store, error) {
	engine, ok := serverEngines[kind]
	if !ok {
		return nil, fmt.Errorf("crash: unknown server kind %q", kind)
	}
	if engine == "" {
		return openPG(url, settings)
	}
	s := &serverStore{kind: kind, settings: map[string]string{}}
	cfg, err := mysql.ParseDSN(url)
	if err != nil {
		return nil, err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	s.db = sql.OpenDB(conn)
	create := `CREATE TABLE IF NOT EXISTS crash_rows (client INTEGER, seq BIGINT, sum BIGINT, payload BLOB) ENGINE=` + engine
	if _, err := s.db.Exec(create); err != nil {
		s.db.Close()
		return nil, err
	}
	names := append([]string(nil), reported[kind]...)
	for k := range settings {
		names = append(names, k)
	}
	for _, n := range names {
		if err := s.show(n); err != nil {
			s.db.Close()
			return nil, err
		}
	}
	return s, nil
}

// show reads one setting's value from the server.
func (s *serverStore) show(name string) error {
	if strings.ContainsAny(name, " ;'\"`") {
		return fmt.Errorf("crash: bad setting name %q", name)
	}
	var v sql.NullString
	if err := s.db.QueryRow("SELECT @@" + name).Scan(&v); err != nil {
		return fmt.Errorf("reading setting %s: %w", name, err)
	}
	s.settings[name] = v.String
	return nil
}

// Reset drops the table: each crash starts from row 1 in a new one.
func (s *serverStore) Reset() error {
	_, err := s.db.Exec(`DROP TABLE crash_rows`)
	return err
}

func (s *serverStore) Insert(rows []Row) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	q := `INSERT INTO crash_rows VALUES (?, ?, ?, ?)`
	for _, r := range rows {
		if _, err := tx.Exec(q, r.Client, r.Seq, int64(Checksum(r.Client, r.Seq, r.Payload)), r.Payload); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func (s *serverStore) ReadAll(fn func(int, int64, bool)) error {
	rows, err := s.db.Query(`SELECT client, seq, sum, payload FROM crash_rows`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c, seq, sum int64
		var p []byte
		if err := rows.Scan(&c, &seq, &sum, &p); err != nil {
			return err
		}
		fn(int(c), seq, sum >= 0 && sum <= 0xffffffff && uint32(sum) == Checksum(int(c), seq, p))
	}
	return rows.Err()
}

func (s *serverStore) Settings() map[string]string { return s.settings }
func (s *serverStore) Close() error                { return s.db.Close() }
