// Package counters reads a step's DBMS counters back from the archive and explains them: each
// counter as a rate per second and per operation, the vital signs and user definitions as
// expressions over them (expr.go, defs.go), and which counters moved most in a window. It
// only reads run directories.
package counters

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// Step is one step's counters, one value per tick (the step's start, then each interval's
// end; NaN where unknown): the DBMS's, and beside them the op types' running totals (op.NAME,
// op.all) and the host's from host.csv as running totals (host.*), so that every figure of
// an explanation is a counter read the same way.
type Step struct {
	Name   string
	TSec   []float64
	Names  []string // sorted
	Kinds  map[string]archive.CounterKind
	Values map[string][]float64
	MainOp string // what "per op" divides by: the op type with the most units
	// Bursty: the main op's median latency is a second or more (the Insert Benchmark's l.x
	// index builds), so its units land in the few intervals its ops end in and the seconds'
	// rates are gaps and bursts, not noise around a rate (ExplainRuns does not judge by them).
	Bursty bool
	// SummaryRates are each op type's units a second from the step's summary.json (compare's
	// and the report's figures), which an explanation's line quotes; nil without one.
	SummaryRates map[string]float64
	Sections     []string // the definition sections that apply to the run's target
	matches      map[string][]string
	bases        map[string]moveBase // Movers' baselines, computed once
}

// LoadStep reads step (a name in run.json) of the run at dir.
func LoadStep(dir string, meta archive.Run, step string) (*Step, error) {
	var stepDir string
	for _, s := range meta.Steps {
		if s.Name == step {
			stepDir = filepath.Join(dir, s.Dir)
		}
	}
	if stepDir == "" {
		return nil, errors.New("the run has no step " + step)
	}
	series, err := archive.ReadCounters(stepDir)
	if errors.Is(err, fs.ErrNotExist) {
		series, err = &archive.CounterSeries{Kinds: map[string]archive.CounterKind{}, Values: map[string][]float64{}}, nil
	}
	if err != nil {
		return nil, err
	}
	s := FromSeries(step, series, sections(meta.Target))
	if err := s.addIntervals(stepDir, meta.Figures.Ops); err != nil {
		return nil, err
	}
	if err := s.addHost(stepDir, meta.Host.Cores); err != nil {
		return nil, err
	}
	if err := s.addBursty(stepDir); err != nil {
		return nil, err
	}
	for _, n := range s.Names {
		if s.Kinds[n] == archive.KindUnknown { // an old dbms.csv: a total never goes down
			s.Kinds[n] = guessKind(s.Values[n])
		}
	}
	sort.Strings(s.Names)
	return s, nil
}

// FromSeries is a step of the DBMS's counters alone, without its op types or the host's
// figures: what the monitor has at a step's end, before the step's other files are written.
// Its definitions are those of the given sections (AllSections: any target's).
func FromSeries(step string, series *archive.CounterSeries, sections []string) *Step {
	return &Step{Name: step, TSec: series.TSec, Names: series.Names, Kinds: series.Kinds, Values: series.Values,
		Sections: sections, matches: map[string][]string{}}
}

// AllSections are every section the definitions name: for a step whose target is not known,
// where a definition of another DBMS simply matches no counter.
func AllSections(defs []*Def) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range defs {
		for _, sec := range d.Sections {
			if !seen[sec] {
				seen[sec] = true
				out = append(out, sec)
			}
		}
	}
	return out
}

// sections are the names of the definition sections for a target: its kind, its engine, and
// for MySQL/MariaDB innodb or myrocks by the tables' engine.
func sections(t archive.Target) []string {
	out := []string{"*", strings.ToLower(t.Kind), strings.ToLower(t.Engine)}
	if t.Kind == "mysql" {
		switch e, _ := t.Settings["engine"].(string); strings.ToLower(e) {
		case "rocksdb":
			out = append(out, "myrocks")
		default:
			out = append(out, "innodb")
		}
	}
	return out
}

func guessKind(v []float64) archive.CounterKind {
	prev := math.NaN()
	for _, x := range v {
		if x < prev {
			return archive.KindGauge
		}
		if !math.IsNaN(x) {
			prev = x
		}
	}
	return archive.KindCumulative
}

// readCSV reads a step file by column, or its .partial; nil when there is neither.
func readCSV(dir, name string) (map[string][]string, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(dir, name+".partial"))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil && len(rows) == 0 {
		return nil, err
	}
	cols := map[string][]string{}
	if len(rows) == 0 {
		return cols, nil
	}
	for _, row := range rows[1:] {
		for i, h := range rows[0] {
			v := ""
			if i < len(row) {
				v = row[i]
			}
			cols[h] = append(cols[h], v)
		}
	}
	return cols, nil
}

// ticksFor aligns a file's rows with the counters' ticks by t_sec; without counters the
// ticks are the step's start and the file's rows.
func (s *Step) ticksFor(tsec []string) []int {
	if len(s.TSec) == 0 && len(tsec) > 0 {
		s.TSec = []float64{0}
		for _, t := range tsec {
			v, _ := strconv.ParseFloat(t, 64)
			s.TSec = append(s.TSec, v)
		}
	}
	at := map[string]int{}
	for i, t := range s.TSec {
		at[strconv.FormatFloat(t, 'f', 3, 64)] = i
	}
	out := make([]int, len(tsec))
	for i, t := range tsec {
		v, _ := strconv.ParseFloat(t, 64)
		j, ok := at[strconv.FormatFloat(v, 'f', 3, 64)]
		if !ok {
			j = -1
		}
		out[i] = j
	}
	return out
}

// add puts a synthetic counter beside the DBMS's: vals are per file row, aligned by ticks,
// with 0 at the step's start for a running total.
func (s *Step) add(name string, kind archive.CounterKind, ticks []int, vals []float64) {
	v := make([]float64, len(s.TSec))
	for i := range v {
		v[i] = math.NaN()
	}
	if kind == archive.KindCumulative && len(v) > 0 && len(ticks) > 0 && ticks[0] != 0 {
		v[0] = 0 // the counters' first tick is the step's start, before any row (an old dbms.csv has none)
	}
	for i, j := range ticks {
		if j >= 0 {
			v[j] = vals[i]
		}
	}
	if _, ok := s.Values[name]; !ok {
		s.Names = append(s.Names, name)
	}
	s.Kinds[name], s.Values[name] = kind, v
}

func parse(cells []string) []float64 {
	out := make([]float64, len(cells))
	for i, c := range cells {
		out[i] = math.NaN()
		if v, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err == nil {
			out[i] = v
		}
	}
	return out
}

// addIntervals adds op.NAME (each op type's units so far), op.all, and picks the main op.
func (s *Step) addIntervals(dir string, declared []measure.OpType) error {
	cols, err := readCSV(dir, "intervals.csv")
	if cols == nil || err != nil {
		return err
	}
	ticks := s.ticksFor(cols["t_sec"])
	var all []float64
	best := -1.0
	for h, cells := range cols {
		op, ok := strings.CutSuffix(h, "_total")
		if !ok {
			continue
		}
		vals := parse(cells)
		s.add("op."+op, archive.KindCumulative, ticks, vals)
		if all == nil {
			all = make([]float64, len(vals))
		}
		for i, v := range vals {
			all[i] += v
		}
		last := vals[len(vals)-1]
		if last > best || last == best && declaredBefore(declared, op, s.MainOp) {
			best, s.MainOp = last, op
		}
	}
	if all != nil {
		s.add("op.all", archive.KindCumulative, ticks, all)
	}
	return nil
}

func declaredBefore(ops []measure.OpType, a, b string) bool {
	for _, o := range ops {
		switch o.Name {
		case a:
			return true
		case b:
			return false
		}
	}
	return a < b
}

// hostTotals are host.csv's rates turned into running totals (a rate × the interval's length,
// added up): name, column, scale (CPU columns are % of all cores, or of one core).
var hostTotals = []struct {
	name, col string
	allCores  bool
	scale     float64
}{
	{"host.cpu_user_sec", "cpu_user_pct", true, 0.01}, {"host.cpu_sys_sec", "cpu_sys_pct", true, 0.01},
	{"host.cpu_busy_sec", "cpu_busy_pct", true, 0.01}, {"host.cpu_iowait_sec", "cpu_iowait_pct", true, 0.01},
	{"host.cs", "cs_per_sec", false, 1}, {"host.reads", "r_per_sec", false, 1}, {"host.read_kb", "rkb_per_sec", false, 1},
	{"host.writes", "w_per_sec", false, 1}, {"host.write_kb", "wkb_per_sec", false, 1},
	{"host.dbms_cpu_sec", "dbms_cpu_pct", false, 0.01}, {"host.client_cpu_sec", "client_cpu_pct", false, 0.01},
	{"host.dbms_user_sec", "dbms_user_pct", false, 0.01}, {"host.dbms_sys_sec", "dbms_sys_pct", false, 0.01},
	{"host.client_user_sec", "client_user_pct", false, 0.01}, {"host.client_sys_sec", "client_sys_pct", false, 0.01},
}

// addHost adds hostTotals and the host's gauges (host.dbms_rss_mb, host.db_disk_mb).
func (s *Step) addHost(dir string, cores int) error {
	cols, err := readCSV(dir, "host.csv")
	if cols == nil || err != nil {
		return err
	}
	ticks := s.ticksFor(cols["t_sec"])
	secs := parse(cols["interval_sec"])
	for _, h := range hostTotals {
		cells, ok := cols[h.col]
		if !ok || h.allCores && cores <= 0 {
			continue
		}
		scale := h.scale
		if h.allCores {
			scale *= float64(cores)
		}
		total, vals := 0.0, parse(cells)
		for i, v := range vals {
			if math.IsNaN(v) || math.IsNaN(secs[i]) {
				vals[i] = math.NaN() // unknown here; the next known total counts from before
				continue
			}
			total += v * scale * secs[i]
			vals[i] = total
		}
		s.add(h.name, archive.KindCumulative, ticks, vals)
	}
	for _, g := range []string{"dbms_rss_mb", "db_disk_mb"} {
		if cells, ok := cols[g]; ok {
			s.add("host."+g, archive.KindGauge, ticks, parse(cells))
		}
	}
	return nil
}

// match is every counter a pattern names.
func (s *Step) match(p string) []string {
	if m, ok := s.matches[p]; ok {
		return m
	}
	var out []string
	if _, ok := s.Values[p]; ok {
		out = []string{p}
	} else if strings.ContainsAny(p, "*?[") {
		for _, n := range s.Names {
			if ok, _ := path.Match(p, n); ok {
				out = append(out, n)
			}
		}
	}
	s.matches[p] = out
	return out
}

// addBursty sets Bursty from the step's summary.json (none: not bursty).
func (s *Step) addBursty(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, fs.ErrNotExist) || s.MainOp == "" {
		return nil
	}
	if err != nil {
		return err
	}
	var sum archive.Step
	if err := json.Unmarshal(b, &sum); err != nil {
		return fmt.Errorf("%s/summary.json: %w", dir, err)
	}
	s.Bursty = sum.Ops[s.MainOp].P50Us >= 1e6
	s.SummaryRates = map[string]float64{}
	for n, o := range sum.Ops {
		s.SummaryRates[n] = o.PerSec
	}
	return nil
}
