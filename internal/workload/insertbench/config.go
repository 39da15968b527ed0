package insertbench

import (
	"errors"
	"fmt"
	"github.com/dbperf/dbperf/internal/workload"
	"math"
	"strconv"
	"strings"
	"time"
)

// Config is the Insert Benchmark's configuration. Defaults (DefaultConfig) are small so that a
// whole run finishes in seconds; every size scales to the published ones by flags.
type Config struct {
	// Clients is the number of clients; each has an inserter, a deleter (l.i1, l.i2, q steps) and
	// a querier (q steps), each with its own connection. Default 2.
	Clients int
	// SharedTable puts every client on one table instead of a table per client. Default false.
	SharedTable bool
	// Rows is the number of rows each client loads in l.i0. Default 10000.
	Rows int64
	// L1Rows is the number of rows each client inserts (and deletes) in l.i1; l.i2 does a quarter
	// of it, as the reference does. Default 5000.
	L1Rows int64
	// QSeconds sizes each q step: each client inserts rate x QSeconds rows; queries run until
	// the inserts are done. Default 3 (the reference runs 1800).
	QSeconds float64
	// Data sizes the data column. Default 10..20 characters, 50% random setting (37.5% random).
	Data DataSpec
	// Steps to run, in order. Default AllSteps.
	Steps []string
	// SettleWait, when positive, replaces the reference's wait rule (SettleRule): how long the
	// settle step lasts from its start. Default 0: the rule.
	SettleWait time.Duration
	// SettleScale multiplies the reference's settle waits and pauses: 1 (the default) is the
	// reference's; the CLI's small default run sets 0.01 explicitly and run.json records it.
	SettleScale float64
	// Seed of every random stream; each step, role and client gets its own stream from it.
	Seed uint64
	// ClientFrom and ClientTo, when ClientTo > 0, make this process one shard of a sharded
	// run: it runs clients [ClientFrom, ClientTo) of Clients (shard.go). NotFirstShard is set
	// on every shard but shard 0, which alone runs the DBMS's settle, on every shard's tables.
	ClientFrom, ClientTo int
	NotFirstShard        bool
	// FullChecks runs the full check (counts, index scans) after every step instead of a bounded
	// sample between steps and the full check after the last one. Default false: the checks
	// between steps must not load the caches the next step measures.
	FullChecks bool
	// Drop lets l.i0 replace tables of the benchmark's names that dbperf did not create.
	// Default false: l.i0 refuses (no silent destruction); dbperf's own tables are replaced.
	Drop bool
	// StepSeconds, when positive, ends each load step (l.i0, l.i1, l.i2) after that long even
	// if its rows are not all inserted. Default 0: the row counts alone, as the reference.
	StepSeconds float64
	// Prepared sends range and point queries and deletes as prepared statements on every SQL
	// target. Default false: the reference's statements (see StatementMode).
	Prepared bool
	// Retries of a failed statement before the step fails. Default 3.
	Retries int
	// Arrival is how the q steps' queries arrive: closed loop (the reference's: each querier
	// as fast as it can, the default) or open loop at a rate. The inserts keep the reference's
	// rate whatever it is.
	Arrival workload.Arrival
	// Now gives dateandtime for each statement. Default time.Now; tests fix it so that every
	// target gets identical rows.
	Now func() time.Time
}

// AllSteps is the reference's step sequence.
var AllSteps = []string{"l.i0", "l.x", "l.i1", "l.i2", "settle", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"}

// Rows per statement of the reference.
const (
	rowsPerStatementL0 = 100
	rowsPerStatementL1 = 50
	rowsPerStatementL2 = 5
	rowsPerStatementQ  = 50
)

// DefaultConfig returns the defaults documented on Config.
func DefaultConfig() Config {
	return Config{
		Clients:     2,
		Rows:        10000,
		L1Rows:      5000,
		QSeconds:    3,
		Data:        DataSpec{Min: 10, Max: 20, RandomPct: 50},
		Steps:       AllSteps,
		Retries:     3,
		SettleScale: 1,
		Now:         time.Now,
	}
}

// stepKind classifies a step name.
type stepKind int

const (
	kindLoad stepKind = iota
	kindIndex
	kindInsertDelete
	kindSettle
	kindQuery
	kindCleanup
)

// stepInfo is what a step name means.
type stepInfo struct {
	kind      stepKind
	batch     int     // rows per insert statement
	rate      float64 // q steps: rows per second per client
	pointOnly bool    // q steps: qp (point) rather than qr (range)
}

// parseStep understands the reference's step names; q steps take any rate, e.g. qr2000.
func parseStep(name string) (stepInfo, error) {
	switch name {
	case "l.i0":
		return stepInfo{kind: kindLoad, batch: rowsPerStatementL0}, nil
	case "l.x":
		return stepInfo{kind: kindIndex}, nil
	case "l.i1":
		return stepInfo{kind: kindInsertDelete, batch: rowsPerStatementL1}, nil
	case "l.i2":
		return stepInfo{kind: kindInsertDelete, batch: rowsPerStatementL2}, nil
	case "settle":
		return stepInfo{kind: kindSettle}, nil
	case "cleanup":
		return stepInfo{kind: kindCleanup}, nil
	}
	if strings.HasPrefix(name, "qr") || strings.HasPrefix(name, "qp") {
		rate, err := strconv.Atoi(name[2:])
		if err == nil && rate > 0 && strconv.Itoa(rate) == name[2:] { // canonical: no qr05, qr+5

			return stepInfo{kind: kindQuery, batch: rowsPerStatementQ, rate: float64(rate), pointOnly: name[1] == 'p'}, nil
		}
	}
	return stepInfo{}, fmt.Errorf("unknown step %q: the steps are %s (q steps take any rate, e.g. qr2000), and cleanup, which drops the tables dbperf created",
		name, strings.Join(AllSteps, ","))
}

// NeedsData says what to do when the first step needs tables an earlier run loaded and the
// database has none; empty when the run starts with l.i0.
func (c *Config) NeedsData() string {
	if len(c.Steps) == 0 || c.Steps[0] == "l.i0" || c.Steps[0] == "cleanup" {
		return ""
	}
	return fmt.Sprintf("run l.i0 first (e.g. --steps l.i0,%s)", c.Steps[0])
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Clients < 1 {
		errs = append(errs, fmt.Errorf("--clients must be at least 1 (got %d)", c.Clients))
	}
	if c.Rows < 1 {
		errs = append(errs, fmt.Errorf("--rows must be at least 1 (got %d)", c.Rows))
	}
	if c.L1Rows < 0 {
		errs = append(errs, fmt.Errorf("--l1-rows must not be negative (got %d)", c.L1Rows))
	}
	if c.QSeconds <= 0 {
		errs = append(errs, fmt.Errorf("--q-seconds must be positive (got %g)", c.QSeconds))
	}
	if c.Data.Min < 0 || c.Data.Max < c.Data.Min || c.Data.Max > 4000 {
		errs = append(errs, fmt.Errorf("--data-min/--data-max must satisfy 0 <= min <= max <= 4000 (got %d..%d)", c.Data.Min, c.Data.Max))
	}
	if c.Data.RandomPct < 0 || c.Data.RandomPct > 100 {
		errs = append(errs, fmt.Errorf("--data-random-pct must be in 0..100 (got %d)", c.Data.RandomPct))
	}
	if err := c.validateShard(); err != nil { // sharded runs: shard.go
		errs = append(errs, err)
	}
	if len(c.Steps) == 0 {
		errs = append(errs, errors.New("--steps is empty: name at least one step"))
	}
	seen := map[string]bool{}
	for _, s := range c.Steps {
		if _, err := parseStep(s); err != nil {
			errs = append(errs, err)
		} else if seen[s] {
			errs = append(errs, fmt.Errorf("step %q is listed twice in --steps", s))
		}
		seen[s] = true
	}
	if c.SettleScale < 0 || c.SettleScale > 1 {
		errs = append(errs, fmt.Errorf("--settle-scale must be in 0..1 (got %g): 1 is the reference's settle", c.SettleScale))
	}
	if c.SettleWait < 0 {
		errs = append(errs, fmt.Errorf("--settle-wait must not be negative (got %s)", c.SettleWait))
	}
	if c.StepSeconds < 0 {
		errs = append(errs, fmt.Errorf("--step-seconds must not be negative (got %g)", c.StepSeconds))
	}
	if c.Retries < 0 {
		errs = append(errs, fmt.Errorf("--retries must not be negative (got %d)", c.Retries))
	}
	// Deletes must only reach rows that are committed: keep the FIFO deeper than what concurrent
	// inserters of one table may have in flight.
	if c.SharedTable && c.Rows*int64(c.Clients) < int64(2*c.Clients*rowsPerStatementL0) {
		errs = append(errs, fmt.Errorf("--rows must be at least %d with a shared table and %d clients", 2*rowsPerStatementL0, c.Clients))
	}
	return errors.Join(errs...)
}

// SettleRule is the reference's settle wait for rows loaded by l.i0 in all: 60 s plus 1 s per
// million rows, at most 1200 s (iq.sh:48-49 and 110-111, with nr1 the total, ra.sh:12),
// counted from the settle's start.
func SettleRule(rows int64) time.Duration {
	secs := min(1200, 60+float64(rows)/1e6)
	return time.Duration(math.Round(secs)) * time.Second
}

// settleWait is the settle's length from its start: --settle-wait, or the rule scaled.
func (c *Config) settleWait() time.Duration {
	if c.SettleWait > 0 {
		return c.SettleWait
	}
	return time.Duration(float64(SettleRule(c.Rows*int64(c.Clients))) * c.SettleScale)
}
