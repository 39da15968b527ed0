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
	"github.com/dbperf/dbperf/internal/target"
)

// Run is the content of run.json.
type Run struct {
	Name     string         `json:"name"`
	Workload string         `json:"workload"`
	Command  []string       `json:"command"` // passwords removed
	Dbperf   Build          `json:"dbperf"`
	Host     Host           `json:"host"`
	Target   target.Info    `json:"target"`
	Seed     uint64         `json:"seed"`
	Settings map[string]any `json:"settings"`
	Start    time.Time      `json:"start"`
	End      time.Time      `json:"end,omitzero"`
	Complete bool           `json:"complete"`
	Error    string         `json:"error,omitempty"`
	Steps    []StepStatus   `json:"steps"`
}

// StepStatus is a step's line in run.json.
type StepStatus struct {
	Name     string `json:"name"`
	Dir      string `json:"dir"`
	Complete bool   `json:"complete"`
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

// OpNames returns the op names of a step summary in the canonical order.
func (s Step) OpNames() []string {
	var names []string
	for o := range measure.NumOps {
		if _, ok := s.Ops[o.String()]; ok {
			names = append(names, o.String())
		}
	}
	return names
}
