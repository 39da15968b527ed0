// Package archive writes and reads a run directory: the contract between running and reporting.
//
//	<run>/run.json                 provenance: command, versions, host, target, seed, steps
//	<run>/<step>/summary.json      per-op counts, rates, latency percentiles, errors, checks
//	<run>/<step>/intervals.csv     one row a second
//	<run>/<step>/latency.hlog      HdrHistogram interval log, one histogram per op type a second
//
// Every file appears whole (written to a temporary name and renamed). A step's files are
// streamed while it runs under *.partial names and renamed when it ends, also when it is
// interrupted, so an interrupted run keeps every finished step and the seconds of the last one.
package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// Run is the content of run.json.
type Run struct {
	Name     string         `json:"name"`
	Workload string         `json:"workload"`
	Command  []string       `json:"command"` // passwords removed
	Dbperf   Build          `json:"dbperf"`
	Host     Host           `json:"host"`
	Target   Target         `json:"target"`
	Seed     uint64         `json:"seed"`
	Settings map[string]any `json:"settings"`
	// Figures is what the workload declared about its op types and figures.
	Figures  Figures      `json:"figures"`
	Start    time.Time    `json:"start"`
	End      time.Time    `json:"end,omitzero"`
	Complete bool         `json:"complete"`
	Error    string       `json:"error,omitempty"`
	Steps    []StepStatus `json:"steps"`
	// Shard is set in one shard's directory of a sharded run, Shards in a merged run
	// (shard.go; docs/scale-out.md).
	Shard  *Shard  `json:"shard,omitempty"`
	Shards []Shard `json:"shards,omitempty"`
}

// Target is what the run measured, as the opened target described itself: run.json's
// "target". Its fields are those of the driver's description (driver.Info), which the command
// that creates the run converts, so that the archive does not depend on the drivers; a field
// added to one and not the other stops that conversion from compiling.
type Target struct {
	Kind     string         `json:"kind"`
	Target   string         `json:"target"` // the redacted target string
	Engine   string         `json:"engine"` // e.g. "PostgreSQL", "Pebble"
	Version  string         `json:"version"`
	Settings map[string]any `json:"settings,omitempty"`
}

// StepStatus is a step's line in run.json.
type StepStatus struct {
	Name     string  `json:"name"`
	Dir      string  `json:"dir"`
	Complete bool    `json:"complete"`
	Faults   *Faults `json:"faults,omitempty"` // as in the step's summary.json
}

// Step is the content of a step's summary.json.
type Step struct {
	Step     string                       `json:"step"`
	Complete bool                         `json:"complete"`
	Start    time.Time                    `json:"start"`
	End      time.Time                    `json:"end"`
	Seconds  float64                      `json:"seconds"`
	Errors   int64                        `json:"errors"`
	Ops      map[string]measure.OpSummary `json:"ops"`
	// ClientCPUSec is this process's CPU time during the step: the client's own cost on a server
	// target; client and engine together on an embedded one.
	ClientCPUSec       float64 `json:"client_cpu_sec"`
	ClientCPUUserSec   float64 `json:"client_cpu_user_sec"`
	ClientCPUSystemSec float64 `json:"client_cpu_system_sec"`
	// ClientCPUUsPerOp divides it by the units of the step's main op type (rows inserted, ...).
	ClientCPUUsPerOp float64        `json:"client_cpu_us_per_op"`
	Verified         bool           `json:"verified"`
	Problems         []string       `json:"problems,omitempty"`
	Error            string         `json:"error,omitempty"`
	Workload         map[string]any `json:"workload,omitempty"` // step-specific figures
	// Host is the monitor's summary: host and DBMS figures normalized per operation.
	Host *HostSummary `json:"host,omitempty"`
	// Faults says what the step went through when its target failed (faults.go).
	Faults *Faults `json:"faults,omitempty"`
	// Hosts is a merged step's: each shard's host block and whether any was client-bound.
	Hosts *ShardHosts `json:"hosts,omitempty"`
	// Stalls are the seconds whose throughput dropped or whose latency exploded.
	Stalls *measure.Stalls `json:"stalls,omitempty"`
	// Dropped counts open-loop arrivals that found the backlog full and never ran.
	Dropped int64 `json:"dropped,omitempty"`
	// OpenLoop accounts for every open-loop arrival: offered, achieved, dropped, not started,
	// and whether a stream was overloaded (docs/open-loop.md).
	OpenLoop *measure.OpenLoop `json:"open_loop,omitempty"`
	// SLAs are the run's response-time goals of this step's op types, and how it fared.
	SLAs []measure.SLAResult `json:"slas,omitempty"`
}

// HostSummary is a step's host and DBMS figures, as rates and normalized per operation, from
// the monitor. What the figures divide by is the workload's: "per op" figures divide by the units
// of the step's main op type (or of the op types the step names for per-op costs), "per write"
// figures by those of its write op type, and the write and read rates count the units of its
// write and read op types (workload.StepPlan). The JSON keys keep the reference's abbreviations
// (ips, qps, rpq, wpi, cpupq, ...), which the reports and every archive already written read.
type HostSummary struct {
	Seconds         float64  `json:"seconds"`
	Devices         []string `json:"devices,omitempty"` // block devices whose IO is counted
	WriteRate       float64  `json:"ips"`               // units of the write op type per second
	ReadRate        float64  `json:"qps"`               // units of the read op type per second
	RPS             *float64 `json:"rps,omitempty"`     // storage reads per second
	RMBPS           *float64 `json:"rmbps,omitempty"`   // MB read per second
	WPS             *float64 `json:"wps,omitempty"`     // storage writes per second
	WMBPS           *float64 `json:"wmbps,omitempty"`   // MB written per second
	ReadsPerOp      *float64 `json:"rpq,omitempty"`     // storage reads per op
	ReadKBPerOp     *float64 `json:"rkbpq,omitempty"`   // KB read per op
	WritesPerWrite  *float64 `json:"wpi,omitempty"`     // storage writes per unit written
	WriteKBPerWrite *float64 `json:"wkbpi,omitempty"`   // KB written per unit written
	CSPS            float64  `json:"csps"`              // context switches per second (host)
	CPUPS           float64  `json:"cpups"`             // host CPU busy, % of all cores: vmstat's us+sy
	CtxPerOp        *float64 `json:"cspq,omitempty"`    // context switches per op
	CPUUsPerOp      *float64 `json:"cpupq,omitempty"`   // host CPU µs per op
	DBGB1           *float64 `json:"dbgb1,omitempty"`   // database size as the DBMS reports it, GB
	DBGB2           *float64 `json:"dbgb2,omitempty"`   // size of the data directory on disk, GB
	RSS             *float64 `json:"rss,omitempty"`     // DBMS resident memory, GB (the step's maximum)
	MaxOp           float64  `json:"maxop"`             // max response time of the main op, µs
	// RateP50All and RateP99All are dbperf's percentiles of the main op's per-second rates, all
	// clients together, ascending (p99 is the high tail). A workload whose reference reports
	// other percentiles of rates has them among its own step figures.
	RateP50All float64 `json:"rate_p50_all"`
	RateP99All float64 `json:"rate_p99_all"`
	// DBMSCPUUsPerOp is the DBMS processes' CPU µs per op; ClientCPUUsPerOp this process's.
	DBMSCPUUsPerOp   *float64 `json:"dbms_cpupq,omitempty"`
	ClientCPUUsPerOp float64  `json:"client_cpupq"`
	// ClientCPUCores is the client's CPU use in cores. ClientBound flags a step whose figures
	// measure the client rather than the DBMS: the client used at least the set share of a core,
	// or more than 1% of its paced operations woke up late. Never flagged for an embedded
	// engine, which shares the client's process: the counts are still there.
	ClientCPUCores float64 `json:"client_cpu_cores"`
	// ClientHostPct and DBMSHostPct are the client's and the DBMS's processes' CPU as a share of
	// the host's capacity (all cores, the scale of cpups): who used the host, side by side.
	ClientHostPct *float64 `json:"client_host_pct,omitempty"`
	DBMSHostPct   *float64 `json:"dbms_host_pct,omitempty"`
	// ClientProcs is the most Go processors (GOMAXPROCS) the client used in the step, when
	// --client-procs auto sized them (server targets; internal/clientprocs).
	ClientProcs int `json:"client_procs,omitempty"`
	// PacedOps are the operations whose worker slept until they were due (rate-limited
	// inserters); LateWakeups those whose worker woke up 5 ms or more late, and WakeupMaxUs the
	// latest: the client falling behind its own schedule.
	PacedOps    int64   `json:"paced_ops,omitempty"`
	LateWakeups int64   `json:"late_wakeups,omitempty"`
	WakeupMaxUs float64 `json:"wakeup_max_us,omitempty"`
	ClientBound bool    `json:"client_bound"`
	// ClientBoundWhy says what flagged the step.
	ClientBoundWhy string `json:"client_bound_why,omitempty"`
	Embedded       bool   `json:"embedded,omitempty"`
	SampleErrors   int    `json:"sample_errors,omitempty"`
	// StallCounters are, for each of the step's stalls, the counters that moved most in it
	// (counters.go).
	StallCounters []StallCounters `json:"stall_counters,omitempty"`
}

// Dir is an open run directory.
type Dir struct {
	Path string
	Meta Run
}

// Create makes a new run directory. It refuses one that exists and is not empty, so that no run
// is ever overwritten.
func Create(path string, meta Run) (*Dir, error) {
	if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("run directory %s already exists and is not empty: choose another --out or remove it", path)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create run directory: %w", err)
	}
	d := &Dir{Path: path, Meta: meta}
	return d, d.WriteMeta()
}

// WriteMeta (re)writes run.json.
func (d *Dir) WriteMeta() error { return WriteJSON(filepath.Join(d.Path, "run.json"), d.Meta) }

// WriteJSON writes v as indented JSON to path atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile writes data to path atomically: a temporary file in the same directory, synced,
// then renamed over path.
func WriteFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes files readable by the owner only
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Read loads a run directory: run.json and the summary.json of every step it lists, in order.
// A step without summary.json (a run killed hard) is returned with Complete false.
func Read(path string) (Run, []Step, error) {
	var meta Run
	b, err := os.ReadFile(filepath.Join(path, "run.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return meta, nil, fmt.Errorf("%s is not a dbperf run directory (no run.json)", path)
		}
		return meta, nil, err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return meta, nil, fmt.Errorf("%s/run.json: %w", path, err)
	}
	if len(meta.Figures.Ops) == 0 { // archived before run.json carried the declaration
		meta.Figures = declared[meta.Workload]
	}
	var steps []Step
	for _, s := range meta.Steps {
		var st Step
		b, err := os.ReadFile(filepath.Join(path, s.Dir, "summary.json"))
		if errors.Is(err, fs.ErrNotExist) {
			steps = append(steps, Step{Step: s.Name})
			continue
		}
		if err != nil {
			return meta, nil, err
		}
		if err := json.Unmarshal(b, &st); err != nil {
			return meta, nil, fmt.Errorf("%s/%s/summary.json: %w", path, s.Dir, err)
		}
		steps = append(steps, st)
	}
	return meta, steps, nil
}
