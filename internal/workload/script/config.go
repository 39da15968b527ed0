package script

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/workload"
)

// Name is the workload's name in run.json and on the command line.
const Name = "script"

// The steps: init is pgbench -i for the built-in scripts' tables; run runs the scripts.
const (
	StepInit = "init"
	StepRun  = "run"
)

// Source is one script to run: a file's text, or a built-in's name; its op type is Name.
type Source struct {
	Name    string
	Text    string // a file's text; empty for a built-in
	Builtin string // a built-in's name (any unambiguous prefix)
	Weight  int    // pgbench's @weight; 1 by default
}

// Check is a user's check after each run step: the query's single value must equal Want.
type Check struct{ SQL, Want string }

// Config is the script workload's configuration; each field's default is DefaultConfig's.
type Config struct {
	Sources      []Source
	Clients      int           // pgbench -c; 1
	Transactions int64         // per client, pgbench -t; 0 with Duration
	Duration     time.Duration // pgbench -T; 0 with Transactions
	Mode         Mode          // pgbench -M; simple
	PerStatement bool          // pgbench -r: each SQL command its own op type
	MaxTries     int           // pgbench --max-tries; 1 (no retry), 0 unlimited (needs Duration)
	Scale        int           // pgbench -s: init's size and :scale of user scripts; 1
	Defines      []string      // pgbench -D NAME=VALUE, in order
	NoVacuum     bool          // pgbench -n: no vacuum and truncate of history before a run
	// ConnectEach is pgbench -C: each transaction on a new connection (client.go, connect).
	ConnectEach bool
	Init        InitOptions // pgbench -i's options for the init step (initsteps.go)
	Checks      []Check
	Steps       []string
	Seed        uint64 // the base of every random stream, pgbench's --random-seed
	Arrival     workload.Arrival
	// Sleep, if set, replaces the context-aware sleep of \sleep (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// Shard and Shards: this process runs share Shard of Shards of the run (shard.go); 0 and
	// 0 (or 1) for a whole run.
	Shard, Shards int
}

// DefaultConfig is pgbench's defaults, with 10 transactions per client (-t 10).
func DefaultConfig() Config {
	return Config{Clients: 1, Transactions: 10, MaxTries: 1, Scale: 1, Steps: []string{StepRun},
		Init: InitOptions{Steps: DefaultInitSteps, Fillfactor: 100}}
}

// Builtin tells whether any script is a built-in one (they need pgbench's tables).
func (c *Config) Builtin() bool {
	for _, s := range c.Sources {
		if s.Builtin != "" {
			return true
		}
	}
	return false
}

// Validate fills the init options' defaults (a zero InitOptions is pgbench's) and reports
// every problem at once.
func (c *Config) Validate() error {
	c.Init.ensureDefaults()
	var errs []error
	if len(c.Sources) == 0 {
		errs = append(errs, errors.New("give a script: --file FILE or --builtin NAME"))
	}
	total := 0
	for _, s := range c.Sources {
		if s.Weight < 0 {
			errs = append(errs, fmt.Errorf("script %s: weight %d is negative", s.Name, s.Weight))
		}
		total += s.Weight
	}
	if len(c.Sources) > 0 && total == 0 {
		errs = append(errs, errors.New("the scripts' weights add up to 0"))
	}
	errs = append(errs, checkNames(c.Sources)...)
	if c.Clients < 1 {
		errs = append(errs, fmt.Errorf("--clients must be at least 1 (got %d)", c.Clients))
	}
	if c.Transactions < 0 || c.Transactions == 0 && c.Duration <= 0 {
		errs = append(errs, errors.New("give --transactions per client or --step-seconds"))
	}
	if c.MaxTries < 0 {
		errs = append(errs, fmt.Errorf("--max-tries must be 0 (unlimited) or more (got %d)", c.MaxTries))
	}
	if c.MaxTries == 0 && c.Duration <= 0 {
		errs = append(errs, errors.New("--max-tries 0 (unlimited) needs --step-seconds, as pgbench's needs -T (pgbench.c:7173-7177)"))
	}
	if c.Scale < 1 {
		errs = append(errs, fmt.Errorf("--scale must be at least 1 (got %d)", c.Scale))
	}
	for _, d := range c.Defines {
		if n, v, ok := strings.Cut(d, "="); !ok || n == "" || v == "" || !validName(n) {
			errs = append(errs, fmt.Errorf("--define %q: give NAME=VALUE with a valid variable name", d))
		}
	}
	for _, s := range c.Steps {
		if s != StepInit && s != StepRun {
			errs = append(errs, fmt.Errorf("unknown step %q: the steps are init and run", s))
		}
		if s == StepInit && !c.Builtin() {
			errs = append(errs, errors.New("the init step creates the built-in scripts' tables: give --builtin, or --steps run"))
		}
	}
	if len(c.Steps) == 0 {
		errs = append(errs, errors.New("give at least one step"))
	}
	errs = append(errs, c.Init.validate()...)
	if def := DefaultConfig().Init; c.Init != def && !slices.Contains(c.Steps, StepInit) {
		errs = append(errs, errors.New("--init-steps, --fillfactor, --partitions and --partition-method are the init step's options: add init to --steps (pgbench refuses them without -i too)"))
	}
	if c.PerStatement && c.Arrival.Open() {
		errs = append(errs, errors.New("--per-statement times each SQL command as its own operation, which an open-loop arrival cannot schedule: use a closed loop"))
	}
	return errors.Join(errs...)
}

// ParseCheck reads --check 'SQL = VALUE': the last " = " (an equals sign with a space on
// each side) splits the query from the value, so a query may hold "a=1" or "a = 1" before it.
// Without one, or with nothing after it, there is no VALUE to compare: refused, rather than
// split at some other "=" inside the query.
func ParseCheck(s string) (Check, error) {
	i := strings.LastIndex(s, " = ")
	if i < 0 {
		return Check{}, fmt.Errorf("--check %q has no \" = \": give 'SQL = VALUE' with a space on each side of the last =, e.g. 'SELECT count(*) FROM t = 100'", s)
	}
	c := Check{SQL: strings.TrimSpace(s[:i]), Want: strings.TrimSpace(s[i+3:])}
	if c.SQL == "" || c.Want == "" {
		return Check{}, fmt.Errorf("--check %q: the query or the VALUE after the last \" = \" is empty: give 'SQL = VALUE', e.g. 'SELECT count(*) FROM t = 100'", s)
	}
	return c, nil
}
