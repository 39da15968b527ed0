package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// InitOptions are pgbench -i's options for the init step (pgbench.c in 15.18); each field's
// default is DefaultConfig's.
type InitOptions struct {
	// Steps is pgbench's -I: one letter per step, run in the order given, spaces ignored
	// (pgbench.c:175-176, 5224-5321): d drop, t create tables, g generate client-side, G
	// generate server-side, v vacuum, p primary keys, f foreign keys. "dtgvp".
	Steps string
	// Fillfactor is -F, 10 to 100, of pgbench_accounts, _tellers and _branches (and each
	// partition of pgbench_accounts): pgbench.c:200, 4900-4907, 6901-6906. 100. PostgreSQL only.
	Fillfactor int
	// Partitions is --partitions: pgbench_accounts split in this many partitions (0: none) by
	// PartitionMethod, range or hash (range when Partitions > 0; pgbench.c:4767-4829,
	// 6993-7009, 7103-7108). PostgreSQL only.
	Partitions      int
	PartitionMethod string
}

// DefaultInitSteps is pgbench's DEFAULT_INIT_STEPS (pgbench.c:175).
const DefaultInitSteps = "dtgvp"

// allInitSteps is ALL_INIT_STEPS (pgbench.c:176), and the space checkInitSteps allows.
const allInitSteps = "dtgGvpf "

// ensureDefaults makes a zero field pgbench's default: steps dtgvp, fillfactor 100.
func (o *InitOptions) ensureDefaults() {
	if o.Steps == "" {
		o.Steps = DefaultInitSteps
	}
	if o.Fillfactor == 0 {
		o.Fillfactor = 100
	}
}

// validate reports every problem of the options themselves, whatever the target.
func (o *InitOptions) validate() []error {
	var errs []error
	if strings.TrimSpace(o.Steps) == "" {
		errs = append(errs, errors.New("--init-steps has no step: give pgbench's letters, e.g. dtgvp (pgbench.c:5226-5227)"))
	}
	for _, r := range o.Steps {
		if !strings.ContainsRune(allInitSteps, r) {
			errs = append(errs, fmt.Errorf("--init-steps %q: unknown step %q; the steps are d (drop), t (create tables), g (generate client-side), G (generate server-side), v (vacuum), p (primary keys), f (foreign keys)", o.Steps, r))
			break
		}
	}
	if o.Fillfactor < 10 || o.Fillfactor > 100 {
		errs = append(errs, fmt.Errorf("--fillfactor must be 10 to 100, as pgbench's -F (got %d)", o.Fillfactor))
	}
	if o.Partitions < 0 {
		errs = append(errs, fmt.Errorf("--partitions must be 0 (none) or more (got %d)", o.Partitions))
	}
	switch o.PartitionMethod {
	case "", "range", "hash":
	default:
		errs = append(errs, fmt.Errorf("--partition-method %q: give range or hash", o.PartitionMethod))
	}
	if o.PartitionMethod != "" && o.Partitions == 0 {
		errs = append(errs, errors.New("--partition-method needs --partitions greater than 0, as pgbench's (pgbench.c:7103-7104)"))
	}
	return errs
}

// method is the partition method in effect: range when partitions are asked without one.
func (o *InitOptions) method() string {
	if o.Partitions > 0 && o.PartitionMethod == "" {
		return "range"
	}
	return o.PartitionMethod
}

// steps are the letters to run, in order, without spaces.
func (o *InitOptions) steps() string { return strings.ReplaceAll(o.Steps, " ", "") }

// generates tells whether the steps load pgbench's rows (g or G).
func (o *InitOptions) generates() bool { return strings.ContainsAny(o.Steps, "gG") }

// forDialect refuses, in one sentence each, what only PostgreSQL has: a fillfactor, partitions,
// server-side generation (generate_series) and foreign keys added after the load.
func (o *InitOptions) forDialect(dialect string) error {
	if dialect == "postgres" {
		return nil
	}
	var errs []error
	if o.Fillfactor != 100 {
		errs = append(errs, fmt.Errorf("--fillfactor is PostgreSQL's table storage parameter; %s has none per table: leave it at 100", dialect))
	}
	if o.Partitions > 0 || o.PartitionMethod != "" {
		errs = append(errs, fmt.Errorf("--partitions and --partition-method are pgbench's PostgreSQL partitioning and run on PostgreSQL only, not %s", dialect))
	}
	if strings.Contains(o.Steps, "G") {
		errs = append(errs, fmt.Errorf("--init-steps G generates the rows with PostgreSQL's generate_series, which %s does not have: use g", dialect))
	}
	if strings.Contains(o.Steps, "f") {
		errs = append(errs, fmt.Errorf("--init-steps f adds pgbench's foreign keys with PostgreSQL's ALTER TABLE, which dbperf runs on PostgreSQL only, not %s", dialect))
	}
	return errors.Join(errs...)
}

// tables are pgbench's tables (pgbench.c:4849-4881), history first as pgbench creates them, and
// whether each takes the fillfactor (declare_fillfactor). MySQL and SQLite get their primary
// keys with the table; PostgreSQL after the load, as pgbench's p step.
var tables = []struct {
	name, cols, pk string
	fill           bool
}{
	{"pgbench_history", "tid int,bid int,aid int,delta int,mtime timestamp,filler char(22)", "", false},
	{"pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)", "tid", true},
	{"pgbench_accounts", "aid int not null,bid int,abalance int,filler char(84)", "aid", true},
	{"pgbench_branches", "bid int not null,bbalance int,filler char(88)", "bid", true},
}

// dropSQL is the d step (pgbench.c:4745-4758): one DROP of all four tables, whatever foreign
// keys there are; SQLite drops one table per statement.
func dropSQL(dialect string) []string {
	if dialect == "sqlite" {
		return []string{"DROP TABLE IF EXISTS pgbench_accounts", "DROP TABLE IF EXISTS pgbench_branches",
			"DROP TABLE IF EXISTS pgbench_history", "DROP TABLE IF EXISTS pgbench_tellers"}
	}
	return []string{"DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"}
}

// createSQL is the t step (initCreateTables, pgbench.c:4836-4925): on PostgreSQL the
// fillfactor on the three tables that declare it, or pgbench_accounts partitioned by aid and
// its partitions (createPartitions, 4767-4829) each with the fillfactor.
func createSQL(dialect string, scale int, o InitOptions) []string {
	var out []string
	for _, t := range tables {
		cols := t.cols
		if scale >= scale32Bit {
			cols = strings.Replace(cols, "aid int", "aid bigint", 1)
		}
		q := "CREATE TABLE " + t.name + "(" + cols
		switch {
		case dialect != "postgres" && t.pk != "":
			q += ", PRIMARY KEY (" + t.pk + "))"
		case dialect == "postgres" && o.Partitions > 0 && t.name == "pgbench_accounts":
			q += ") PARTITION BY " + strings.ToUpper(o.method()) + " (aid)"
		case dialect == "postgres" && t.fill:
			q += ") WITH (fillfactor=" + strconv.Itoa(o.Fillfactor) + ")"
		default:
			q += ")"
		}
		out = append(out, q)
	}
	if dialect == "postgres" && o.Partitions > 0 {
		out = append(out, partitionSQL(int64(scale), o)...)
	}
	return out
}

// partitionSQL is createPartitions (pgbench.c:4767-4829): range partitions of nearly equal
// size, the first from MINVALUE and the last to MAXVALUE; or hash partitions with remainders
// 0 to N-1.
func partitionSQL(scale int64, o InitOptions) []string {
	n := int64(o.Partitions)
	size := (accountsPerBranch*scale + n - 1) / n
	var out []string
	for p := int64(1); p <= n; p++ {
		q := fmt.Sprintf("CREATE TABLE pgbench_accounts_%d PARTITION OF pgbench_accounts FOR VALUES ", p)
		if o.method() == "hash" {
			q += fmt.Sprintf("WITH (MODULUS %d, REMAINDER %d)", n, p-1)
		} else {
			from, to := "MINVALUE", "MAXVALUE"
			if p > 1 {
				from = strconv.FormatInt((p-1)*size+1, 10)
			}
			if p < n {
				to = strconv.FormatInt(p*size+1, 10)
			}
			q += "FROM (" + from + ") TO (" + to + ")"
		}
		out = append(out, q+" WITH (fillfactor="+strconv.Itoa(o.Fillfactor)+")")
	}
	return out
}

// truncateSQL empties the four tables before g or G (initTruncateTables, pgbench.c:4931-4938):
// in one command on PostgreSQL, whatever foreign keys there are.
func truncateSQL(dialect string) []string {
	switch dialect {
	case "postgres":
		return []string{"TRUNCATE TABLE pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"}
	case "mysql":
		return []string{"TRUNCATE TABLE pgbench_accounts", "TRUNCATE TABLE pgbench_branches",
			"TRUNCATE TABLE pgbench_history", "TRUNCATE TABLE pgbench_tellers"}
	}
	return []string{"DELETE FROM pgbench_accounts", "DELETE FROM pgbench_branches", "DELETE FROM pgbench_history", "DELETE FROM pgbench_tellers"}
}

// serverGenerateSQL is the G step on PostgreSQL (initGenerateDataServerSide,
// pgbench.c:5102-5141): in one transaction, truncate and three INSERT ... SELECT from
// generate_series.
func serverGenerateSQL(scale int64) []string {
	return append(append([]string{"BEGIN"}, truncateSQL("postgres")...),
		fmt.Sprintf("INSERT INTO pgbench_branches(bid,bbalance) SELECT bid, 0 FROM generate_series(1, %d) AS bid", scale),
		fmt.Sprintf("INSERT INTO pgbench_tellers(tid,bid,tbalance) SELECT tid, (tid - 1) / %d + 1, 0 FROM generate_series(1, %d) AS tid", tellersPerBranch, tellersPerBranch*scale),
		fmt.Sprintf("INSERT INTO pgbench_accounts(aid,bid,abalance,filler) SELECT aid, (aid - 1) / %d + 1, 0, '' FROM generate_series(1, %d) AS aid", accountsPerBranch, accountsPerBranch*scale),
		"COMMIT")
}

// vacuumSQL is the v step (initVacuum, pgbench.c:5147-5154); ANALYZE where there is no VACUUM.
func vacuumSQL(dialect string) []string {
	switch dialect {
	case "postgres":
		return []string{"VACUUM ANALYZE pgbench_branches", "VACUUM ANALYZE pgbench_tellers", "VACUUM ANALYZE pgbench_accounts", "VACUUM ANALYZE pgbench_history"}
	case "mysql":
		return []string{"ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history"}
	}
	return []string{"ANALYZE"}
}

// primaryKeySQL is the p step (initCreatePKeys, pgbench.c:5160-5192) on PostgreSQL; MySQL and
// SQLite have the keys from the t step (InnoDB clusters rows by it: adding it after the load
// would rebuild the table), so p does nothing there.
func primaryKeySQL(dialect string) []string {
	if dialect != "postgres" {
		return nil
	}
	var out []string
	for _, t := range tables[1:] {
		out = append(out, "ALTER TABLE "+t.name+" ADD PRIMARY KEY ("+t.pk+")")
	}
	return out
}

// foreignKeySQL is the f step (initCreateFKeys, pgbench.c:5198-5214).
var foreignKeySQL = []string{
	"ALTER TABLE pgbench_tellers ADD CONSTRAINT pgbench_tellers_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches",
	"ALTER TABLE pgbench_accounts ADD CONSTRAINT pgbench_accounts_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches",
	"ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches",
	"ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_tid_fkey FOREIGN KEY (tid) REFERENCES pgbench_tellers",
	"ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_aid_fkey FOREIGN KEY (aid) REFERENCES pgbench_accounts",
}
