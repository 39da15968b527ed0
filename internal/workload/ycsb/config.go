package ycsb

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/workload"
)

// Name is the workload's name in run.json and on the command line.
const Name = "ycsb"

// The steps: YCSB's load phase (-load) and run phase (-t).
const (
	StepLoad = "load"
	StepRun  = "run"
)

// Config holds YCSB's CoreWorkload properties (CoreWorkload.java; defaults as its, noted where
// a workload file sets its own) and dbperf's run settings.
type Config struct {
	Workload                        string        // a..f: the workload file whose proportions and distribution apply
	RecordCount                     int64         // recordcount; 1000 in every workload file
	OperationCount                  int64         // operationcount in all, over the clients; 1000 in every workload file
	FieldCount                      int           // fieldcount; 10
	FieldLength                     int           // fieldlength (constant); 100
	ReadAllFields                   bool          // readallfields; true in every workload file
	WriteAllFields                  bool          // writeallfields; false
	Read, Update, Insert, Scan, RMW float64       // the proportions
	Distribution                    string        // requestdistribution: uniform, zipfian, latest, hotspot
	MinScan                         int           // minscanlength; 1
	MaxScan                         int           // maxscanlength; 1000 (100 in workload e)
	InsertOrder                     string        // insertorder: hashed or ordered
	ZeroPadding                     int           // zeropadding; 1
	InsertStart                     int64         // insertstart; 0
	InsertCount                     int64         // insertcount; recordcount - insertstart when 0
	HotData, HotOpn                 float64       // hotspotdatafraction 0.2, hotspotopnfraction 0.8
	Clients                         int           // threadcount; 1
	Duration                        time.Duration // maxexecutiontime: the run phase ends then, if sooner
	Steps                           []string
	Seed                            uint64
	Arrival                         workload.Arrival
	// QueryMode is how SQL targets send statements (pgbench's -M names): QuerySimple,
	// QueryExtended or QueryPrepared; "" is the store's default, prepared, as the JDBC binding's
	// cached PreparedStatements. Key-value targets refuse any other than "".
	QueryMode string
	// Shard and Shards: this process runs share Shard of Shards of the run (shard.go); 0 and
	// 0 (or 1) for a whole run.
	Shard, Shards int
}

// The query modes, pgbench's names (-M): the values written into the text (a text query),
// the extended protocol's unnamed statement parsed at every execution (MySQL: prepared,
// executed and closed each time), or a statement prepared once per connection.
const (
	QuerySimple   = "simple"
	QueryExtended = "extended"
	QueryPrepared = "prepared"
)

// Workloads are the core workload files' settings (workloads/workloada..f): proportions of
// read, update, insert, scan, read-modify-write, and the request distribution.
var Workloads = map[string]struct {
	read, update, insert, scan, rmw float64
	dist                            string
	maxScan                         int
}{
	"a": {0.5, 0.5, 0, 0, 0, "zipfian", 1000},
	"b": {0.95, 0.05, 0, 0, 0, "zipfian", 1000},
	"c": {1, 0, 0, 0, 0, "zipfian", 1000},
	"d": {0.95, 0, 0.05, 0, 0, "latest", 1000},
	"e": {0, 0, 0.05, 0.95, 0, "zipfian", 100},
	"f": {0.5, 0, 0, 0, 0.5, "zipfian", 1000},
}

// DefaultConfig is workload a as YCSB's file sets it.
func DefaultConfig() Config {
	c := Config{RecordCount: 1000, OperationCount: 1000, FieldCount: 10, FieldLength: 100, ReadAllFields: true,
		MinScan: 1, InsertOrder: "hashed", ZeroPadding: 1, HotData: 0.2, HotOpn: 0.8, Clients: 1,
		Steps: []string{StepLoad, StepRun}}
	c.ApplyWorkload("a")
	return c
}

// ApplyWorkload sets a workload file's proportions, distribution and scan length.
func (c *Config) ApplyWorkload(name string) error {
	w, ok := Workloads[strings.ToLower(name)]
	if !ok {
		return fmt.Errorf("--workload %q: give a, b, c, d, e or f", name)
	}
	c.Workload = strings.ToLower(name)
	c.Read, c.Update, c.Insert, c.Scan, c.RMW = w.read, w.update, w.insert, w.scan, w.rmw
	c.Distribution, c.MaxScan = w.dist, w.maxScan
	return nil
}

// Count is insertcount, or recordcount - insertstart when unset (CoreWorkload.java:420-429).
func (c *Config) Count() int64 {
	if c.InsertCount > 0 {
		return c.InsertCount
	}
	return c.RecordCount - c.InsertStart
}

// WholeLoad tells whether the load step loads every record (insertstart 0, insertcount
// recordcount), which starts from an empty usertable; any other load is a part of a split load.
func (c *Config) WholeLoad() bool { return c.InsertStart == 0 && c.Count() == c.RecordCount }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	var errs []error
	if c.RecordCount < 1 || c.RecordCount > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("--records must be 1 to %d (got %d)", math.MaxInt32, c.RecordCount))
	}
	if c.InsertStart < 0 || c.InsertStart+c.Count() > c.RecordCount || c.Count() < 1 {
		errs = append(errs, fmt.Errorf("--insert-start %d plus --insert-count %d must be within --records %d, as YCSB's (CoreWorkload.java:420-429)", c.InsertStart, c.Count(), c.RecordCount))
	}
	if c.OperationCount < 0 || c.OperationCount == 0 && c.Duration <= 0 {
		errs = append(errs, errors.New("give --operations or --step-seconds"))
	}
	if c.FieldCount < 1 || c.FieldLength < 1 {
		errs = append(errs, errors.New("--field-count and --field-length must be at least 1"))
	}
	if c.Read < 0 || c.Update < 0 || c.Insert < 0 || c.Scan < 0 || c.RMW < 0 || c.Read+c.Update+c.Insert+c.Scan+c.RMW <= 0 {
		errs = append(errs, errors.New("the proportions must be 0 or more and not all 0"))
	}
	switch c.Distribution {
	case "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential":
	default:
		errs = append(errs, fmt.Errorf("--request-distribution %q: give uniform, zipfian, latest, hotspot, sequential or exponential", c.Distribution))
	}
	switch c.QueryMode {
	case "", QuerySimple, QueryExtended, QueryPrepared:
	default:
		errs = append(errs, fmt.Errorf("--query-mode %q: give simple, extended or prepared", c.QueryMode))
	}
	if c.InsertOrder != "hashed" && c.InsertOrder != "ordered" {
		errs = append(errs, fmt.Errorf("--insert-order %q: give hashed or ordered", c.InsertOrder))
	}
	if c.MinScan < 1 || c.MaxScan < c.MinScan {
		errs = append(errs, errors.New("scan lengths: 1 <= min <= max"))
	}
	if c.Clients < 1 {
		errs = append(errs, fmt.Errorf("--threads must be at least 1 (got %d)", c.Clients))
	}
	for _, s := range c.Steps {
		if s != StepLoad && s != StepRun {
			errs = append(errs, fmt.Errorf("unknown step %q: the steps are load and run", s))
		}
		if s == StepRun && c.sharded() && c.Insert > 0 {
			errs = append(errs, fmt.Errorf("--shard: workload %s inserts in its run step, and the shards' insert key sequences and their reads of the latest keys would be apart: run it whole, or shard its load alone", c.Workload))
		}
	}
	return errors.Join(errs...)
}

// KeyName is buildKeyName (CoreWorkload.java:517-528): "user" and the keynum (its FNV hash
// with insertorder=hashed), zero-padded to zeropadding digits.
func (c *Config) KeyName(keynum int64) string {
	if c.InsertOrder == "hashed" {
		keynum = FNVHash64(keynum)
	}
	v := strconv.FormatInt(keynum, 10)
	if pad := c.ZeroPadding - len(v); pad > 0 {
		v = strings.Repeat("0", pad) + v
	}
	return "user" + v
}
