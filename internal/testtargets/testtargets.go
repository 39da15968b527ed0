// Package testtargets names the targets every workload's integration tests run on: SQLite,
// Pebble and bbolt in a test's temporary directory, and the real PostgreSQL and MariaDB (InnoDB
// and MyRocks) servers that scripts/test.sh starts and names in DBPERF_TEST_POSTGRES and
// DBPERF_TEST_MYSQL. Without those the test fails rather than skip, unless -short. Badger is
// not in All, whose targets every workload's tests share: a test adds it (Badger) where the
// workload is known to run on it, as YCSB's TestWorkloadsOnEveryTarget does. Only tests
// import it.
package testtargets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
)

// Open opens a target string, failing the test on an error, and closes it when the test ends.
// The target's kind must be registered: import its driver package, as the tests do.
func Open(tb testing.TB, target string) driver.Target {
	tb.Helper()
	return OpenPath(tb, target, "")
}

// OpenPath is Open with the target's statements on client path ("": the default).
func OpenPath(tb testing.TB, target string, path driver.ClientPath) driver.Target {
	tb.Helper()
	spec, err := driver.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	spec.Client = path
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tg.Close() })
	return tg
}

// All returns the targets by name. db names the servers' databases (dbperf creates them),
// one per package and test so that packages can test in parallel; file names the embedded
// engines' files.
func All(t testing.TB, db, file string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	m := map[string]string{
		"sqlite": "sqlite:" + filepath.Join(dir, file+".sqlite"),
		"pebble": "pebble:" + filepath.Join(dir, "pebble"),
		"bbolt":  "bbolt:" + filepath.Join(dir, file+".bbolt"),
	}
	if dsn := os.Getenv("DBPERF_TEST_POSTGRES"); dsn != "" {
		m["postgres"] = WithDatabase(dsn, db)
	} else if !testing.Short() {
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, which installs and starts PostgreSQL, or use go test -short to leave PostgreSQL out")
	}
	if dsn := os.Getenv("DBPERF_TEST_MYSQL"); dsn != "" {
		for _, engine := range []string{"innodb", "rocksdb"} { // a database each
			u := WithDatabase(dsn, db+"_"+engine)
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			m["mysql-"+engine] = u + sep + "engine=" + engine
		}
	} else if !testing.Short() {
		t.Fatal("DBPERF_TEST_MYSQL is not set: run scripts/test.sh, which installs and starts MariaDB with MyRocks, or use go test -short to leave MySQL out")
	}
	return m
}

// Badger is a Badger target in a test's temporary directory; file names its directory.
func Badger(t testing.TB, file string) string {
	t.Helper()
	return "badger:" + filepath.Join(t.TempDir(), file+".badger")
}

// WithDatabase replaces the database of a server URL (dbperf creates it if missing).
func WithDatabase(dsn, db string) string {
	base, query, _ := strings.Cut(dsn, "?")
	base = base[:strings.LastIndex(base, "/")+1] + db
	if query != "" {
		return base + "?" + query
	}
	return base
}
