package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// compare --why: for each step whose main op's rate changed by 5% or more against the base,
// one line naming the figures per op that moved most, and a table beneath it, top down:
// throughput; the host's CPU per op (all, user, system; the DBMS's processes and dbperf's);
// IO per op; context switches per op; then the DBMS's vital signs and every counter per op,
// ranked by how much they changed. It names counters, never a cause.

// whyThreshold is the change of the main op's rate that makes a step explained: compare's
// own mark threshold.
const whyThreshold = 0.05

// whyTop is how many of the DBMS's figures the table shows.
const whyTop = 20

// hostWhy are the table's first rows after throughput, in order (vitals.conf's [*] section).
var hostWhy = []string{"cpu_us_per_op", "cpu_user_us_per_op", "cpu_sys_us_per_op", "dbms_cpu_us_per_op",
	"client_cpu_us_per_op", "read_kb_per_op", "write_kb_per_op", "reads_per_op", "writes_per_op", "cs_per_op"}

type whyRun struct {
	path string
	meta archive.Run
}

func writeWhy(out io.Writer, base string, others []string, defs []*counters.Def) error {
	load := func(p string) (whyRun, error) {
		meta, _, err := archive.Read(p)
		return whyRun{p, meta}, err
	}
	b, err := load(base)
	if err != nil {
		return err
	}
	for _, o := range others {
		r, err := load(o)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\nwhy %s differs from %s (steps whose main rate changed by %.0f%% or more):\n", r.path, b.path, 100*whyThreshold)
		explained := 0
		for _, st := range b.meta.Steps {
			bs, err1 := counters.LoadStep(b.path, b.meta, st.Name)
			rs, err2 := counters.LoadStep(r.path, r.meta, st.Name)
			if err1 != nil || err2 != nil || len(bs.TSec) < 2 || len(rs.TSec) < 2 {
				continue
			}
			if whyStep(out, bs, rs, defs) {
				explained++
			}
		}
		if explained == 0 {
			fmt.Fprintln(out, "  no step's main rate changed by that much")
		}
	}
	return nil
}

// whyFig is one figure of both runs: per op (a running total's increase per op, a gauge's
// mean, a definition's value).
type whyFig struct {
	name        string
	base, run   float64
	change      float64 // |log(run/base)|, with zero counted as a millionth of the other
	vital, dbms bool
	gauge       bool // its figure is its mean, not per op
}

func (f whyFig) ratio() string {
	switch {
	case f.base == 0 && f.run == 0:
		return "="
	case f.base == 0:
		return "from 0"
	}
	return fmt.Sprintf("%.3gx", f.run/f.base)
}

func change(a, b float64) float64 {
	e := 1e-6*math.Max(math.Abs(a), math.Abs(b)) + 1e-12
	return math.Abs(math.Log((math.Abs(b) + e) / (math.Abs(a) + e)))
}

// whyStep explains one step when its main rate changed; false when it did not.
func whyStep(out io.Writer, bs, rs *counters.Step, defs []*counters.Def) bool {
	op := bs.MainOp
	if op == "" {
		return false
	}
	bw, rw := bs.Whole(), rs.Whole()
	bRate, rRate := bs.OpsRate(bw), rs.Rate("op."+op, rw)
	if !(bRate > 0) || math.IsNaN(rRate) || math.Abs(rRate/bRate-1) < whyThreshold {
		return false
	}
	rs.MainOp = op // per op means the same op type in both
	figs := whyFigures(bs, rs, defs)
	var moved []string
	for _, f := range figs {
		if f.dbms && len(moved) < 3 && f.change > math.Log(1+whyThreshold) {
			moved = append(moved, fmt.Sprintf("%s %s (%s -> %s)", f.name, f.ratio(), num(f.base), num(f.run)))
		}
	}
	line := fmt.Sprintf("%s: %s/s %s -> %s (%.3gx)", bs.Name, op, num(bRate), num(rRate), rRate/bRate)
	if len(moved) > 0 {
		line += "; per op, moved most: " + strings.Join(moved, ", ")
	}
	fmt.Fprintln(out, line)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  figure\tbase\trun\tratio\t")
	fmt.Fprintf(tw, "  %s/s\t%s\t%s\t%.3gx\t\n", op, num(bRate), num(rRate), rRate/bRate)
	byName := map[string]whyFig{}
	for _, f := range figs {
		byName[f.name] = f
	}
	for _, n := range hostWhy {
		if f, ok := byName[n]; ok {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", f.name, num(f.base), num(f.run), f.ratio())
		}
	}
	shown := 0
	for _, f := range figs {
		if !f.dbms || f.change == 0 || shown >= whyTop {
			continue
		}
		shown++
		name := f.name
		switch {
		case f.gauge:
			name += " (mean)"
		case !f.vital:
			name += " per op"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", name, num(f.base), num(f.run), f.ratio())
	}
	tw.Flush()
	return true
}

// whyFigures are the definitions' values and every DBMS counter per op (gauges: their
// means) known in both runs, the DBMS's ranked by change, largest first.
func whyFigures(bs, rs *counters.Step, defs []*counters.Def) []whyFig {
	bw, rw := bs.Whole(), rs.Whole()
	var figs []whyFig
	host := map[string]bool{}
	for _, n := range hostWhy {
		host[n] = true
	}
	rv := map[string]float64{}
	for _, f := range rs.Defined(defs, rw) {
		rv[f.Name] = f.Value
	}
	for _, f := range bs.Defined(defs, bw) {
		if v, ok := rv[f.Name]; ok && f.Name != "ops_per_sec" {
			figs = append(figs, whyFig{name: f.Name, base: f.Value, run: v, change: change(f.Value, v), vital: true, dbms: !host[f.Name]})
		}
	}
	perOp := func(s *counters.Step, w counters.Window) map[string]float64 {
		m := map[string]float64{}
		for _, f := range s.Counters(w, true) {
			v := f.Value // a gauge's mean
			if f.Kind != archive.KindGauge {
				v = f.PerOp
			}
			if !math.IsNaN(v) {
				m[f.Name] = v
			}
		}
		return m
	}
	bm, rm := perOp(bs, bw), perOp(rs, rw)
	for n, b := range bm {
		if r, ok := rm[n]; ok && (b != 0 || r != 0) {
			figs = append(figs, whyFig{name: n, base: b, run: r, change: change(b, r), dbms: true, gauge: bs.Kinds[n] == archive.KindGauge})
		}
	}
	sort.SliceStable(figs, func(i, j int) bool {
		if figs[i].change != figs[j].change {
			return figs[i].change > figs[j].change
		}
		return figs[i].name < figs[j].name
	})
	return figs
}
