package monitor

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/runner"
)

// Monitor watches one target's host and DBMS during a run.
type Monitor struct {
	target      any // the opened target, asked for its optional abilities
	dataDir     string
	embedded    bool
	ClientBound float64 // client CPU, in cores, from which a step is flagged client-bound
}

// New discovers what the target can tell (see sources.go).
func New(ctx context.Context, target any) *Monitor {
	m := &Monitor{target: target, ClientBound: 0.9}
	if d, ok := target.(DataDir); ok {
		if dir, err := d.DataDir(ctx); err == nil {
			m.dataDir = dir
		}
	}
	return m
}

// HostColumns are host.csv's columns, one row per interval of intervals.csv.
var HostColumns = []string{"t_sec", "unix_ms", "interval_sec",
	"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_idle_pct", "cpu_busy_pct", "cs_per_sec",
	"r_per_sec", "rkb_per_sec", "w_per_sec", "wkb_per_sec",
	"dbms_cpu_pct", "dbms_rss_mb", "dbms_vsz_mb", "client_cpu_pct", "db_disk_mb"}

// Step monitors one step: a baseline sample when it starts, one per interval, and the step's
// totals at the end.
type Step struct {
	m        *Monitor
	host     *HostSampler
	counters Counters
	hostCSV  *archive.Stream
	dbmsCSV  *archive.Stream
	dbmsCols []string
	w        *archive.StepWriter // its TSec gives the rows' t_sec
	first    HostSample
	last     HostSample
	rssMax   float64
	errs     int
	rows     int  // host.csv rows written
	slowWalk bool // the last walk of the data directory took more than 5 ms
}

// Begin starts monitoring a step into w's host.csv and dbms.csv, whose rows take their t_sec
// from w as intervals.csv does, so that row n of each is the same interval.
func (m *Monitor) Begin(ctx context.Context, w *archive.StepWriter) (*Step, error) {
	var pids []int
	if p, ok := m.target.(Processes); ok {
		var err error
		if pids, m.embedded, err = p.DBMSProcesses(ctx); err != nil {
			pids = nil
		}
	}
	s := &Step{m: m, w: w, host: NewHostSampler(m.dataDir, func() []int { return pids })}
	if c, ok := m.target.(Counters); ok {
		s.counters = c
	}
	var err error
	if s.hostCSV, err = w.Stream("host.csv", HostColumns); err != nil {
		return nil, err
	}
	if s.counters != nil {
		vals, err := s.counters.DBMSCounters(ctx)
		if err == nil {
			for k := range vals {
				s.dbmsCols = append(s.dbmsCols, k)
			}
			sort.Strings(s.dbmsCols)
			if s.dbmsCSV, err = w.Stream("dbms.csv", append([]string{"t_sec", "unix_ms"}, s.dbmsCols...)); err != nil {
				return nil, err
			}
		}
	}
	if s.first, err = s.host.Sample(); err != nil {
		return nil, err
	}
	s.last = s.first
	return s, nil
}

// Sample reads the host and the DBMS at the end of an interval and writes their rows. Failures
// to read are counted, not fatal: monitoring must not stop a benchmark.
func (s *Step) Sample(ctx context.Context, at time.Time) {
	h, err := s.host.Sample()
	if err != nil {
		s.errs++
		return
	}
	iv := Diff(s.last, h)
	s.last = h
	s.rssMax = math.Max(s.rssMax, iv.DBMSRSSMB)
	row := []string{f3(s.w.TSec(at)), strconv.FormatInt(at.UnixMilli(), 10), f3(iv.Seconds),
		f1(iv.CPUUserPct), f1(iv.CPUSystemPct), f1(iv.CPUIOWaitPct), f1(iv.CPUIdlePct), f1(iv.CPUBusyPct), f1(iv.CtxPerSec),
		opt(iv.HasDisk, iv.ReadsPerSec), opt(iv.HasDisk, iv.ReadKBPerSec), opt(iv.HasDisk, iv.WritesPerSec), opt(iv.HasDisk, iv.WriteKBPerSec),
		opt(iv.HasDBMS, pct(iv.DBMSCPUSec, iv.Seconds)), opt(iv.HasDBMS, iv.DBMSRSSMB), opt(iv.HasDBMS, iv.DBMSVSZMB),
		f1(pct(iv.ClientCPUSec, iv.Seconds)), s.diskMB()}
	if s.hostCSV.Write(row) != nil {
		s.errs++
	}
	if s.dbmsCSV == nil {
		return
	}
	vals, err := s.counters.DBMSCounters(ctx)
	if err != nil {
		s.errs++
		return
	}
	drow := []string{f3(s.w.TSec(at)), strconv.FormatInt(at.UnixMilli(), 10)}
	for _, c := range s.dbmsCols {
		v, ok := vals[c]
		drow = append(drow, opt(ok, v))
	}
	if s.dbmsCSV.Write(drow) != nil {
		s.errs++
	}
}

// Totals are the step's operation figures the summary divides by.
type Totals struct {
	Inserts, Queries, MainOps float64 // units of the step
	MaxOpUs                   float64
	Rates                     []float64  // per-second rates of the main op
	Lag                       runner.Lag // how late paced workers woke up
}

// End takes the last sample and computes the step's summary.
func (s *Step) End(ctx context.Context, t Totals) archive.HostSummary {
	iv := Diff(s.first, s.last)
	sum := archive.HostSummary{Seconds: round(iv.Seconds, 3), Devices: s.host.Devices(), Embedded: s.m.embedded, SampleErrors: s.errs, MaxOp: t.MaxOpUs}
	if iv.Seconds <= 0 {
		return sum
	}
	per := func(v, n float64) *float64 {
		if n <= 0 {
			return nil
		}
		r := round(v/n, 3)
		return &r
	}
	val := func(v float64) *float64 { r := round(v, 3); return &r }
	sum.IPS, sum.QPS = round(t.Inserts/iv.Seconds, 1), round(t.Queries/iv.Seconds, 1)
	sum.CSPS, sum.CPUPS = round(iv.CtxPerSec, 1), round(iv.CPUBusyPct, 1)
	sum.CSPQ, sum.CPUPQ = per(iv.Ctx, t.MainOps), per(iv.CPUBusySec*1e6, t.MainOps)
	if iv.HasDisk {
		sum.RPS, sum.RMBPS = val(iv.ReadsPerSec), val(iv.ReadKBPerSec/1024)
		sum.WPS, sum.WMBPS = val(iv.WritesPerSec), val(iv.WriteKBPerSec/1024)
		sum.RPQ, sum.RKBPQ = per(iv.Reads, t.MainOps), per(iv.ReadKB, t.MainOps)
		sum.WPI, sum.WKBPI = per(iv.Writes, t.Inserts), per(iv.WriteKB, t.Inserts)
	}
	if iv.HasDBMS {
		sum.RSS = val(s.rssMax / 1024)
		sum.DBMSCPUPQ = per(iv.DBMSCPUSec*1e6, t.MainOps)
	}
	if t.MainOps > 0 {
		sum.ClientCPUPQ = round(iv.ClientCPUSec*1e6/t.MainOps, 3)
	}
	sum.ClientCPUCores = round(iv.ClientCPUSec/iv.Seconds, 3)
	sum.PacedOps, sum.LateWakeups = t.Lag.Paced, t.Lag.Late
	sum.WakeupMaxUs = round(float64(t.Lag.Max.Nanoseconds())/1e3, 1)
	switch {
	case !s.m.embedded && sum.ClientCPUCores >= s.m.ClientBound:
		sum.ClientBound = true
		sum.ClientBoundWhy = fmt.Sprintf("the client used %.2f cores (threshold %.2f)", sum.ClientCPUCores, s.m.ClientBound)
	case !s.m.embedded && t.Lag.Paced > 0 && float64(t.Lag.Late) > 0.01*float64(t.Lag.Paced):
		// Not for an embedded engine either: its own work runs in this process and can starve
		// the paced workers, which is the engine's load, not the client's.
		sum.ClientBound = true
		sum.ClientBoundWhy = fmt.Sprintf("%d of %d paced operations started %v or more late (latest %v)",
			t.Lag.Late, t.Lag.Paced, runner.LateWakeup, t.Lag.Max.Round(time.Microsecond))
	}
	if sz, ok := s.m.target.(Size); ok {
		if b, err := sz.DatabaseSize(ctx); err == nil {
			sum.DBGB1 = val(float64(b) / (1 << 30))
		}
	}
	if s.m.dataDir != "" {
		if b, err := dirSize(s.m.dataDir); err == nil {
			sum.DBGB2 = val(float64(b) / (1 << 30))
		}
	}
	sum.P50, sum.P99 = percentile(t.Rates, 50), percentile(t.Rates, 99)
	return sum
}

// diskMB is the data directory's size now, in MB, or empty when it is not known. Walking a
// directory of thousands of files takes milliseconds (3.2 ms for a 2,575-file PostgreSQL data
// directory here): when a walk took more than 5 ms, only every 10th interval walks again, so
// that the monitor stays well under 1% of a core.
func (s *Step) diskMB() string {
	if s.m.dataDir == "" {
		return ""
	}
	s.rows++
	if s.slowWalk && s.rows%10 != 1 {
		return ""
	}
	t0 := time.Now()
	b, err := dirSize(s.m.dataDir)
	s.slowWalk = time.Since(t0) > 5*time.Millisecond
	return opt(err == nil, float64(b)/(1<<20))
}

// dirSize adds up the sizes of the files below dir (the space they take on disk).
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed while walking (compaction, checkpoint)
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total, err
}

// percentile is the p-th percentile (nearest rank) of values.
func percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	i := int(math.Ceil(p/100*float64(len(v)))) - 1
	return round(v[max(0, min(i, len(v)-1))], 1)
}

func pct(sec, over float64) float64 {
	if over <= 0 {
		return 0
	}
	return 100 * sec / over
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// opt formats a figure, or leaves the cell empty when it is not known.
func opt(ok bool, v float64) string {
	if !ok {
		return ""
	}
	return strconv.FormatFloat(round(v, 3), 'f', -1, 64)
}
