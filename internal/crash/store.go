package crash

import (
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is a crash target opened in the process that inserts into it or reads it back.
type Store interface {
	// Insert commits rows in one transaction; it returns once the engine acknowledged it.
	Insert(rows []Row) error
	// ReadAll calls fn for every row present: its client and sequence number, whether it is
	// intact; an error means the read back failed.
	ReadAll(fn func(client int, seq int64, ok bool)) error
	// Settings are the engine's settings as it reports them after opening.
	Settings() map[string]string
	Close() error
}

// Embedded are the target kinds a child dbperf process opens itself.
var Embedded = []string{"sqlite", "pebble", "bbolt", "badger", "rocksdb"}

// syncSetting is each key-value engine's own name for its sync choice and its default.
var syncSetting = map[string]struct {
	name    string
	invert  bool // the name means "do not sync" (bbolt's NoSync)
	deflt   bool // the library's default for sync
	library string
}{
	"pebble":  {"sync", false, true, "pebble.Sync (nil WriteOptions) or pebble.NoSync"},
	"rocksdb": {"sync", false, false, "WriteOptions.sync"},
	"bbolt":   {"NoSync", true, true, "DB.NoSync"},
	"badger":  {"SyncWrites", false, false, "Options.SyncWrites"},
}

// CheckSettings says whether kind is a known target and settings are names it takes, in one
// sentence when not: dbperf crash checks before anything runs, and the child checks again.
// A server's own names are checked by the server (an unknown one stops it starting).
func CheckSettings(kind string, settings map[string]string) error {
	known := append(slices.Clone(Embedded), Servers...)
	if !slices.Contains(known, kind) {
		return fmt.Errorf("crash: unknown target %q: use one of %s", kind, strings.Join(known, ", "))
	}
	for k, v := range settings {
		switch ss, kv := syncSetting[kind]; {
		case kind == "sqlite" && k != "synchronous" && k != "journal_mode":
			return fmt.Errorf("crash: sqlite setting %q is not one the crash test varies: use synchronous or journal_mode", k)
		case kv && !strings.EqualFold(k, ss.name):
			return fmt.Errorf("crash: %s has no setting %q here: use %s=true or %s=false", kind, k, ss.name, ss.name)
		case kv:
			if _, err := strconv.ParseBool(v); err != nil {
				return fmt.Errorf("crash: %s=%q: use true or false", k, v)
			}
		case isServer(kind) && (k == "" || strings.ContainsAny(k, " ;'\"`=#\n")):
			return fmt.Errorf("crash: %q is not a %s setting name: use the name of its config file", k, kind)
		}
	}
	return nil
}

// OpenStore opens kind at dir (created if absent) with settings in the engine's own terms.
func OpenStore(kind, dir string, settings map[string]string) (Store, error) {
	if kind == "sqlite" {
		return openSQLite(filepath.Join(dir, "crash.db"), settings)
	}
	if _, ok := serverEngines[kind]; ok {
		return openServerStore(kind, dir, settings)
	}
	if err := CheckSettings(kind, settings); err != nil {
		return nil, err
	}
	ss := syncSetting[kind]
	sync := ss.deflt
	for _, v := range settings {
		b, _ := strconv.ParseBool(v)
		sync = b != ss.invert
	}
	path := dir
	if kind == "bbolt" {
		path = filepath.Join(dir, "crash.bolt")
	}
	db, err := kvdriver.OpenTuned(kind, path, kvdriver.Options{Sync: sync, Setup: "crash"})
	if err != nil {
		return nil, err
	}
	return &kvStore{db: db, settings: map[string]string{ss.name: strconv.FormatBool(sync != ss.invert)}}, nil
}

type kvStore struct {
	db       *kvdriver.DB
	settings map[string]string
}

func (s *kvStore) Insert(rows []Row) error {
	return s.db.Write(func(w kvdriver.Writer) error {
		for _, r := range rows {
			if err := w.Set(kvKey(r.Client, r.Seq), kvValue(r)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *kvStore) ReadAll(fn func(int, int64, bool)) error {
	var bad error
	err := s.db.Scan([]byte{'r'}, []byte{'s'}, func(k, v []byte) bool {
		c, seq, ok, err := decodeKV(k, v)
		if err != nil {
			bad = err
			return false
		}
		fn(c, seq, ok)
		return true
	})
	if err == nil {
		err = bad
	}
	return err
}

func (s *kvStore) Settings() map[string]string { return s.settings }
func (s *kvStore) Close() error                { return s.db.Close() }

// sqliteStore keeps rows in a table without a key on (client, seq), so a row stored twice is
// seen as a duplicate.
type sqliteStore struct {
	db       *sql.DB
	settings map[string]string
}

func openSQLite(path string, settings map[string]string) (Store, error) {
	q := url.Values{}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := CheckSettings("sqlite", settings); err != nil {
		return nil, err
	}
	for _, k := range keys {
		q.Add("_pragma", k+"("+settings[k]+")")
	}
	q.Add("_pragma", "busy_timeout(60000)")
	// A '#' or '?' in the path would end the URI's path (a test's directory has '#').
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	db, err := sql.Open("sqlite", "file:"+esc+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one writer at a time, as SQLite allows; clients take turns
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS crash_rows (client INTEGER, seq INTEGER, sum INTEGER, payload BLOB)`); err != nil {
		db.Close()
		return nil, err
	}
	s := &sqliteStore{db: db, settings: map[string]string{}}
	for _, p := range []string{"synchronous", "journal_mode"} {
		var v string
		if err := db.QueryRow("PRAGMA " + p).Scan(&v); err != nil {
			db.Close()
			return nil, err
		}
		s.settings[p] = sqliteName(p, v)
	}
	return s, nil
}

// sqliteName turns PRAGMA synchronous's number back into its name.
func sqliteName(pragma, v string) string {
	if pragma == "synchronous" {
		if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < 4 {
			return []string{"OFF", "NORMAL", "FULL", "EXTRA"}[i]
		}
	}
	return strings.ToUpper(v)
}

func (s *sqliteStore) Insert(rows []Row) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := tx.Exec(`INSERT INTO crash_rows VALUES (?, ?, ?, ?)`, r.Client, r.Seq, int64(Checksum(r.Client, r.Seq, r.Payload)), r.Payload); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func (s *sqliteStore) ReadAll(fn func(int, int64, bool)) error {
	var check string
	if err := s.db.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil {
		return fmt.Errorf("quick_check: %w", err)
	}
	if check != "ok" {
		return fmt.Errorf("quick_check: %s", check)
	}
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
		fn(int(c), seq, uint32(sum) == Checksum(int(c), seq, p) && sum >= 0 && sum <= 0xffffffff)
	}
	return rows.Err()
}

func (s *sqliteStore) Settings() map[string]string { return s.settings }
func (s *sqliteStore) Close() error                { return s.db.Close() }
