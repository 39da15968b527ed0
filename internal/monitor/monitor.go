package monitor

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// DefaultQueryTimeout bounds every question the monitor asks the DBMS (counters, size,
// processes): a slow or dead DBMS costs the monitor a missing value, never a late row.
const DefaultQueryTimeout = 500 * time.Millisecond

// Monitor watches one target's host and DBMS during a run.
type Monitor struct {
	target      any // the opened target, asked for its optional abilities
	dataDir     string
	main        int  // the DBMS's main process on this host, 0 when unknown
	embedded    bool // the DBMS is this process
	ClientBound float64
	// NoCounters asks the DBMS for no counters (no dbms.csv, no counters.csv.gz): --dbms-counters
	// off, the baseline that docs/counters.md measures sampling against.
	NoCounters bool
	// Procs, when set, reports the most Go processors the client used since its last call
	// (clientprocs.Governor.Most): a step's client_procs.
	Procs func() int
	// QueryTimeout bounds each DBMS query of the monitor (DefaultQueryTimeout).
	QueryTimeout time.Duration
}

// New discovers what the target can tell (see sources.go).
func New(ctx context.Context, target any) *Monitor {
	m := &Monitor{target: target, ClientBound: 0.9, QueryTimeout: DefaultQueryTimeout}
	if d, ok := target.(DataDir); ok {
		m.ask(ctx, func(ctx context.Context) {
			if dir, err := d.DataDir(ctx); err == nil {
				m.dataDir = dir
			}
		})
	}
	if p, ok := target.(Processes); ok {
		m.ask(ctx, func(ctx context.Context) {
			if pids, embedded, err := p.DBMSProcesses(ctx); err == nil && len(pids) > 0 {
				m.main, m.embedded = pids[0], embedded
			}
		})
	}
	return m
}

// Embedded tells whether the DBMS runs in this process (an embedded engine).
func (m *Monitor) Embedded() bool { return m.embedded }

// DataDir is the directory holding the database on this host, as the target said; empty when
// it did not (a server elsewhere).
func (m *Monitor) DataDir() string { return m.dataDir }

// ask runs one DBMS question under the query timeout.
func (m *Monitor) ask(ctx context.Context, fn func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(ctx, m.QueryTimeout)
	defer cancel()
	fn(ctx)
}

// HostColumns are host.csv's columns, one row per interval of intervals.csv.
var HostColumns = []string{"t_sec", "unix_ms", "interval_sec",
	"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_idle_pct", "cpu_busy_pct", "cs_per_sec",
	"r_per_sec", "rkb_per_sec", "w_per_sec", "wkb_per_sec",
	"dbms_cpu_pct", "dbms_rss_mb", "dbms_vsz_mb", "client_cpu_pct", "db_disk_mb",
	// Added after the first release, at the end: vmstat's us+sy (the reference's cpups) and
	// the RSS of the DBMS process with the largest VSZ (the reference's rss); then the DBMS's
	// and the client's CPU split into user and system time (% of one core).
	"cpu_us_sy_pct", "dbms_rss1_mb", "dbms_user_pct", "dbms_sys_pct", "client_user_pct", "client_sys_pct"}

// Step monitors one step on a goroutine of its own: a first sample when the runner starts the
// step, then one at every interval boundary the runner hands it, each row stamped with that
// boundary. Nothing it does delays the runner: Tick never blocks.
type Step struct {
	m        *Monitor
	host     *HostSampler
	counters Counters
	set      CounterSet // every counter, when the target has them all
	hostCSV  *archive.Stream
	dbmsCSV  *archive.Stream
	dbmsCols []string
	all      *archive.CountersWriter // counters.csv.gz
	w        *archive.StepWriter     // its TSec gives the rows' t_sec
	ticks    chan time.Time
	done     sync.WaitGroup
	skipped  atomic.Int64 // boundaries Tick could not hand over

	// Owned by the monitor's goroutine until End.
	start, lastAt time.Time
	first, last   HostSample
	rssMax        float64 // the most RSS of all DBMS processes together, MB
	// refRSS is the reference's rss (np.sh:596-600): of the process with the largest VSZ seen
	// (topVSZ) where the DBMS has several (PostgreSQL), else the largest RSS of its one process.
	refRSS, topVSZ float64
	errs           int
	nextWalk       time.Time // when the data directory may be walked again (walkBudget)
}

// Begin prepares monitoring a step into w's host.csv and dbms.csv, whose rows take their t_sec
// from w as intervals.csv does, so that row n of each is the same interval. Start begins it.
func (m *Monitor) Begin(ctx context.Context, w *archive.StepWriter) (*Step, error) {
	s := &Step{m: m, w: w, host: NewHostSampler(m.dataDir, m.main, !m.embedded), ticks: make(chan time.Time, 1024)}
	if c, ok := m.target.(Counters); ok && !m.NoCounters {
		s.counters = c
	}
	if !m.NoCounters {
		s.set, _ = m.target.(CounterSet)
	}
	var err error
	if s.hostCSV, err = w.Stream("host.csv", HostColumns); err != nil {
		return nil, err
	}
	if s.counters != nil {
		var vals map[string]float64
		m.ask(ctx, func(ctx context.Context) { vals, err = s.counters.DBMSCounters(ctx) })
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
	if s.counters != nil || s.set != nil {
		if s.all, err = w.Counters(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Start takes the step's first sample, at the runner's start instant, and starts the monitor's
// goroutine. The runner calls it (through its step's Begin hook) before any worker starts.
func (s *Step) Start(ctx context.Context, at time.Time) {
	h, err := s.host.Sample()
	if err != nil {
		s.errs++
	}
	s.start, s.lastAt, s.first, s.last = at, at, h, h
	if s.m.Procs != nil {
		s.m.Procs() // the step's count starts from the processors in use now
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		s.writeDBMS(s.readDBMS(ctx, at, false)) // counters.csv.gz's first tick: the step's start
		// Each tick's DBMS sample is read at its tick and written at the next: the last is
		// written at End, its running totals taken after the target's counters settled.
		var held *dbmsSample
		for at := range s.ticks {
			if held != nil {
				s.writeDBMS(*held)
			}
			held = s.sample(ctx, at)
		}
		if held != nil {
			s.settle(ctx, held)
			s.writeDBMS(*held)
		}
	}()
}

// Tick hands the monitor the end of an interval. It never blocks: should the monitor be 1024
// intervals behind, the boundary is counted as a sample error.
func (s *Step) Tick(at time.Time) {
	select {
	case s.ticks <- at:
	default:
		s.skipped.Add(1)
	}
}

// sample reads the host and the DBMS for the interval ending at at, writes the host's row and
// returns the DBMS's sample for writeDBMS (nil without counters). A failure to read leaves the
// row's cells empty and is counted: monitoring must not stop a benchmark, and every file keeps
// one row per interval.
func (s *Step) sample(ctx context.Context, at time.Time) *dbmsSample {
	h, err := s.host.Sample()
	if err != nil {
		s.errs++
		h = s.last
	}
	iv := DiffOver(s.last, h, at.Sub(s.lastAt).Seconds())
	s.last, s.lastAt = h, at
	s.rssMax = max(s.rssMax, iv.DBMSRSSMB)
	if s.host.children {
		if iv.TopVSZMB > s.topVSZ {
			s.topVSZ, s.refRSS = iv.TopVSZMB, iv.TopRSSMB
		}
	} else {
		s.refRSS = max(s.refRSS, iv.TopRSSMB)
	}
	row := []string{f3(s.w.TSec(at)), strconv.FormatInt(at.UnixMilli(), 10), f3(iv.Seconds),
		f1(iv.CPUUserPct), f1(iv.CPUSystemPct), f1(iv.CPUIOWaitPct), f1(iv.CPUIdlePct), f1(iv.CPUBusyPct), f1(iv.CtxPerSec),
		opt(iv.HasDisk, iv.ReadsPerSec), opt(iv.HasDisk, iv.ReadKBPerSec), opt(iv.HasDisk, iv.WritesPerSec), opt(iv.HasDisk, iv.WriteKBPerSec),
		opt(iv.HasDBMS, pct(iv.DBMSCPUSec, iv.Seconds)), opt(iv.HasDBMS, iv.DBMSRSSMB), opt(iv.HasDBMS, iv.DBMSVSZMB),
		f1(pct(iv.ClientCPUSec, iv.Seconds)), s.diskMB(), f1(iv.CPUUsSyPct), opt(iv.HasDBMS, iv.TopRSSMB),
		opt(iv.HasDBMS, pct(iv.DBMSUserSec, iv.Seconds)), opt(iv.HasDBMS, pct(iv.DBMSSysSec, iv.Seconds)),
		f1(pct(iv.ClientUserSec, iv.Seconds)), f1(pct(iv.ClientSysSec, iv.Seconds))}
	if s.hostCSV.Write(row) != nil {
		s.errs++
	}
	if s.all == nil {
		return nil
	}
	d := s.readDBMS(ctx, at, true)
	return &d
}

// dbmsSample is the DBMS's counters read at one tick; boundary says an interval's end (not the
// step's start), which also has a dbms.csv row.
type dbmsSample struct {
	at       time.Time
	vals     map[string]float64
	err      error
	boundary bool
}

// readDBMS reads the DBMS's counters once, under the query timeout.
func (s *Step) readDBMS(ctx context.Context, at time.Time, boundary bool) dbmsSample {
	d := dbmsSample{at: at, boundary: boundary}
	if s.all == nil {
		return d
	}
	s.m.ask(ctx, func(ctx context.Context) {
		if s.set != nil {
			d.vals, d.err = s.set.DBMSCounterSet(ctx)
		} else {
			d.vals, d.err = s.counters.DBMSCounters(ctx)
		}
	})
	for n, v := range d.vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(d.vals, n)
		}
	}
	return d
}

// settleTimeout bounds the wait for a target's counters to settle at a step's end: time for
// the step's closed connections to go (PostgreSQL: their backends publish as they exit), not
// for connections left open to publish (up to 10 s there: docs/counters.md).
const settleTimeout = time.Second

// settle takes the step's last tick's running totals again after the target's counters have
// published the step's work (CountersSettler); its gauges stay as read at the tick. A settle
// that fails or times out still reads again: the totals can only be more complete.
func (s *Step) settle(ctx context.Context, last *dbmsSample) {
	st, ok := s.m.target.(CountersSettler)
	if !ok || len(last.vals) == 0 { // no sample at the tick: nothing to complete
		return
	}
	sctx, cancel := context.WithTimeout(ctx, settleTimeout)
	st.SettleCounters(sctx)
	cancel()
	late := s.readDBMS(ctx, last.at, last.boundary)
	kind := s.kinds()
	for n, v := range late.vals {
		if kind(n) != archive.KindGauge {
			last.vals[n] = v
		}
	}
}

// writeDBMS writes a sample into counters.csv.gz and, for a boundary, dbms.csv's columns; a
// failed read is counted as a sample error.
func (s *Step) writeDBMS(d dbmsSample) {
	if s.all == nil {
		return
	}
	at, vals, err := d.at, d.vals, d.err
	if err != nil {
		s.errs++
	}
	if s.all.Sample(s.w.TSec(at), at.UnixMilli(), vals, len(vals) == 0 && err != nil, s.kinds()) != nil {
		s.errs++
	}
	if s.dbmsCSV == nil || !d.boundary {
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

// kinds tells a new counter's kind from the target's gauge patterns, asked once per sample
// and only when a new name appears.
func (s *Step) kinds() func(string) archive.CounterKind {
	if s.set == nil {
		return func(string) archive.CounterKind { return archive.KindUnknown }
	}
	var gauges []string
	asked := false
	return func(name string) archive.CounterKind {
		if !asked {
			gauges, asked = s.set.DBMSGauges(), true
		}
		for _, g := range gauges {
			if ok, _ := path.Match(g, name); ok {
				return archive.KindGauge
			}
		}
		return archive.KindCumulative
	}
}

// Totals are the step's operation figures the summary divides by.
type Totals struct {
	// Writes are the units of the step's write op type: per-write figures divide by them, and
	// the write rate counts them; Reads those of its read op type; MainOps those of its main op
	// type (or its per-op op types), which per-op figures divide by.
	Writes, Reads, MainOps float64
	MaxOpUs                float64
	Rates                  []float64 // per-second rates of the main op
	Wakeups                Wakeups   // how late paced workers woke up
	// Stalls are the step's stalls (summary.json's): the counters that moved most in each are
	// the summary's stall_counters.
	Stalls *measure.Stalls
}

// Wakeups are how late the paced workers woke up, as the runner counted them (its Lag and
// LateWakeup), in plain numbers: Paced operations whose worker slept until they were due, Late
// of them that started LateAfter or more after it, and Max the latest.
type Wakeups struct {
	Paced, Late    int64
	Max, LateAfter time.Duration
}

// End waits for the monitor to write the last interval's rows and computes the step's summary
// over the runner's window: from the start instant to the last boundary it was handed.
func (s *Step) End(ctx context.Context, t Totals) archive.HostSummary {
	close(s.ticks)
	s.done.Wait()
	sum := s.summary(ctx, t)
	sum.StallCounters = s.stallCounters(t.Stalls)
	return sum
}

func (s *Step) summary(ctx context.Context, t Totals) archive.HostSummary {
	iv := DiffOver(s.first, s.last, s.lastAt.Sub(s.start).Seconds())
	sum := archive.HostSummary{Seconds: round(iv.Seconds, 3), Devices: s.host.Devices(), Embedded: s.m.embedded, SampleErrors: s.errs + int(s.skipped.Load()), MaxOp: t.MaxOpUs}
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
	sum.WriteRate, sum.ReadRate = round(t.Writes/iv.Seconds, 1), round(t.Reads/iv.Seconds, 1)
	// cpups and cpupq as the reference's: vmstat us+sy, steal not included (ios.sh:58,
	// etl.sh:66-70); host.csv keeps cpu_busy_pct with steal.
	sum.CSPS, sum.CPUPS = round(iv.CtxPerSec, 1), round(iv.CPUUsSyPct, 1)
	sum.CtxPerOp, sum.CPUUsPerOp = per(iv.Ctx, t.MainOps), per(iv.CPUUsSySec*1e6, t.MainOps)
	if iv.HasDisk {
		sum.RPS, sum.RMBPS = val(iv.ReadsPerSec), val(iv.ReadKBPerSec/1024)
		sum.WPS, sum.WMBPS = val(iv.WritesPerSec), val(iv.WriteKBPerSec/1024)
		sum.ReadsPerOp, sum.ReadKBPerOp = per(iv.Reads, t.MainOps), per(iv.ReadKB, t.MainOps)
		sum.WritesPerWrite, sum.WriteKBPerWrite = per(iv.Writes, t.Writes), per(iv.WriteKB, t.Writes)
	}
	if iv.HasDBMS {
		sum.RSS = val(s.refRSS / 1024) // the reference's; the sum over processes is host.csv's dbms_rss_mb
		sum.DBMSCPUUsPerOp = per(iv.DBMSCPUSec*1e6, t.MainOps)
	}
	if t.MainOps > 0 {
		sum.ClientCPUUsPerOp = round(iv.ClientCPUSec*1e6/t.MainOps, 3)
	}
	sum.ClientCPUCores = round(iv.ClientCPUSec/iv.Seconds, 3)
	sum.ClientHostPct = val(pct(iv.ClientCPUSec, iv.CPUTotalSec))
	if iv.HasDBMS && !s.m.embedded { // an embedded engine's CPU is the client's process
		sum.DBMSHostPct = val(pct(iv.DBMSCPUSec, iv.CPUTotalSec))
	}
	if s.m.Procs != nil {
		sum.ClientProcs = s.m.Procs()
	}
	sum.PacedOps, sum.LateWakeups = t.Wakeups.Paced, t.Wakeups.Late
	sum.WakeupMaxUs = round(float64(t.Wakeups.Max.Nanoseconds())/1e3, 1)
	sum.ClientBound, sum.ClientBoundWhy = s.m.clientBound(sum.ClientCPUCores, iv.CPUBusyPct, t.Wakeups)
	if sz, ok := s.m.target.(Size); ok {
		s.m.ask(ctx, func(ctx context.Context) {
			if b, err := sz.DatabaseSize(ctx); err == nil {
				sum.DBGB1 = val(float64(b) / (1 << 30))
			}
		})
	}
	if s.m.dataDir != "" {
		if b, err := dirSize(s.m.dataDir); err == nil {
			sum.DBGB2 = val(float64(b) / (1 << 30))
		}
	}
	sum.RateP50All, sum.RateP99All = round(measure.Percentile(t.Rates, 50), 1), round(measure.Percentile(t.Rates, 99), 1)
	return sum
}

// clientBound separates the client's own CPU saturation, which makes a step's figures measure
// dbperf (flagged), from a busy host, which wakes paced workers late while dbperf itself is far
// from a core (not flagged: the figures measure the DBMS on a loaded host, and why says so).
// Late wakeups count against the client only when it used at least half of its threshold.
// Never for an embedded engine: its own work runs in this process and can starve the paced
// workers, which is the engine's load, not the client's.
func (m *Monitor) clientBound(cores, hostBusyPct float64, lag Wakeups) (bool, string) {
	if m.embedded {
		return false, ""
	}
	if cores >= m.ClientBound {
		return true, fmt.Sprintf("the client's own CPU is saturated: dbperf used %.2f cores (threshold %.2f)", cores, m.ClientBound)
	}
	if lag.Paced == 0 || float64(lag.Late) <= 0.01*float64(lag.Paced) {
		return false, ""
	}
	late := fmt.Sprintf("%d of %d paced operations started %v or more late (latest %v)", lag.Late, lag.Paced, lag.LateAfter, lag.Max.Round(time.Microsecond))
	if cores >= m.ClientBound/2 {
		return true, fmt.Sprintf("%s while dbperf used %.2f cores: the client falls behind its schedule", late, cores)
	}
	return false, fmt.Sprintf("a busy host, not the client: %s while dbperf used only %.2f cores and the host's CPU was %.0f%% busy", late, cores, hostBusyPct)
}

// walkBudget is the share of a core the walks of the data directory may take: after a walk that
// took d, the next waits d / walkBudget, so a large data directory is not walked every second:
// a cost per operation the C clients dbperf is compared with do not pay (figures:
// docs/performance.md, "Host monitor").
const walkBudget = 0.001

// maxWalkWait bounds the wait, so that one walk slowed by a busy host does not leave the size
// out for minutes.
const maxWalkWait = 30 * time.Second

// diskMB is the data directory's size now, in MB, or empty when it is not known or not walked
// this interval (walkBudget).
func (s *Step) diskMB() string {
	if s.m.dataDir == "" {
		return ""
	}
	t0 := time.Now()
	if t0.Before(s.nextWalk) {
		return ""
	}
	b, err := dirSize(s.m.dataDir)
	s.nextWalk = t0.Add(min(time.Duration(float64(time.Since(t0))/walkBudget), maxWalkWait))
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

func pct(sec, over float64) float64 {
	if over <= 0 {
		return 0
	}
	return 100 * sec / over
}

func round(v float64, digits int) float64 { return measure.Round(v, digits) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// opt formats a figure, or leaves the cell empty when it is not known.
func opt(ok bool, v float64) string {
	if !ok {
		return ""
	}
	return strconv.FormatFloat(round(v, 3), 'f', -1, 64)
}
