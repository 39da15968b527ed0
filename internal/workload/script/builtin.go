package script

import (
	"fmt"
	"strings"
)

// The built-in scripts' text (pgbench.c:789-825 in 15.18), with END; as COMMIT; on MySQL, which
// has no END statement.
const (
	tpcbLike = `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`
	simpleUpdate = `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`
	selectOnly = `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`
)

// Builtins are the built-in scripts by name.
var Builtins = []string{"tpcb-like", "simple-update", "select-only"}

// BuiltinText returns a built-in script's text for a dialect; a name may be any unambiguous
// prefix, as pgbench's -b (pgbench.c:6142-6171).
func BuiltinText(name, dialect string) (full, text string, err error) {
	var found []string
	for _, b := range Builtins {
		if b == name {
			found = []string{b}
			break
		}
		if strings.HasPrefix(b, name) {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("no built-in script %q: give one of %s", name, strings.Join(Builtins, ", "))
	case 1:
	default:
		return "", "", fmt.Errorf("built-in script %q is ambiguous: %s", name, strings.Join(found, ", "))
	}
	text = map[string]string{"tpcb-like": tpcbLike, "simple-update": simpleUpdate, "select-only": selectOnly}[found[0]]
	if dialect == "mysql" {
		text = strings.ReplaceAll(text, "END;", "COMMIT;")
	}
	return found[0], text, nil
}

// Accounts, tellers per branch (pgbench.c:258-262).
const (
	accountsPerBranch = 100000
	tellersPerBranch  = 10
	// scale32Bit is SCALE_32BIT_THRESHOLD: from it aid is a bigint.
	scale32Bit = 20000
)

// beforeRunSQL is what pgbench does before a run unless -n (pgbench.c:7283-7297): vacuum the
// small tables and empty the history.
func beforeRunSQL(dialect string) []string {
	switch dialect {
	case "postgres":
		return []string{"VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"}
	case "mysql":
		return []string{"TRUNCATE TABLE pgbench_history"}
	}
	return []string{"DELETE FROM pgbench_history"}
}
