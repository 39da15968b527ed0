package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/dbperf/dbperf/internal/measure"
)

// The charts of a step, as data for the page's script (assets/report.js): the colour of a line
// is its run's, its dash pattern its op type's (by the op type's place in the run's declaration)
// or, on host charts, the measure's.

// htmlChart is one chart: x values shared by all series (null where a series has no point).
type htmlChart struct {
	ID     string               `json:"id"`
	Step   string               `json:"step"`
	Kind   string               `json:"kind"` // throughput, max-latency, percentile, host, host-memory
	Title  string               `json:"title"`
	XLabel string               `json:"xLabel"`
	Scales map[string]htmlScale `json:"scales"`
	Series []htmlSeries         `json:"series"`
	X      []float64            `json:"x"`
	Y      [][]*float64         `json:"y"`
	Shade  []htmlShade          `json:"shade,omitempty"`
	Bands  []htmlBand           `json:"bands,omitempty"` // the overview's steps
	// XRange is the step's time axis, shared by its charts over time so that a second is
	// at one place in each; nil: the data's own.
	XRange *[2]float64 `json:"xRange,omitempty"`
	Doc    string      `json:"doc,omitempty"` // a vital sign's meaning (vitals.conf)
}

type htmlScale struct {
	Label string `json:"label"`
	Log   bool   `json:"log,omitempty"`
	Side  int    `json:"side"` // 3 left, 1 right (uPlot's sides)
}

// htmlSeries is a line: Label names run and what ("run-a insert"), What only the latter.
type htmlSeries struct {
	Label string `json:"label"`
	What  string `json:"what"`
	Run   int    `json:"run"`
	Scale string `json:"scale"`
	Dash  []int  `json:"dash,omitempty"`
}

// htmlShade is a stalled interval of a run, [From, To] in seconds since the step started.
type htmlShade struct {
	Run  int     `json:"run"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// timeCharts and stepCharts are the charts of a step: those over time need a few intervals.
func timeCharts(step string, si int, names []string, files []*htmlStepFiles) []*htmlChart {
	return []*htmlChart{
		throughputChart(step, si, names, files),
		maxLatencyChart(step, si, names, files),
		hostChart(step, si, names, files),
		hostMemoryChart(step, si, names, files),
	}
}

// opDashes tell op types apart within a run's color: solid, dashed, dotted, dash-dot, ...
var opDashes = [][]int{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {12, 4}}

// opDash is the line style of an op type: by its place in the run's declared op types.
func (f *htmlStepFiles) opDash(op string) []int {
	for i, o := range f.figures.Ops {
		if o.Name == op {
			return opDashes[i%len(opDashes)]
		}
	}
	return nil
}

// opUnit is what an op type's rate counts ("rows", "queries"), "operations" when undeclared.
func (f *htmlStepFiles) opUnit(op string) string {
	for _, o := range f.figures.Ops {
		if o.Name == op && o.Unit != "" {
			return o.Unit
		}
	}
	return "operations"
}

// timeSeries aligns per-run columns on the union of their t_sec values.
type timeSeries struct {
	c      *htmlChart
	points []map[float64]*float64
}

func newTimeChart(id, step, kind, title string) *timeSeries {
	return &timeSeries{c: &htmlChart{ID: id, Step: step, Kind: kind, Title: title, XLabel: "seconds since the step started", Scales: map[string]htmlScale{}}}
}

func (ts *timeSeries) add(s htmlSeries, t, v []*float64) {
	m := map[float64]*float64{}
	for i := range t {
		if t[i] != nil && i < len(v) {
			m[*t[i]] = v[i]
		}
	}
	ts.c.Series = append(ts.c.Series, s)
	ts.points = append(ts.points, m)
}

func (ts *timeSeries) finish() *htmlChart {
	set := map[float64]bool{}
	for _, m := range ts.points {
		for x := range m {
			set[x] = true
		}
	}
	for x := range set {
		ts.c.X = append(ts.c.X, x)
	}
	sort.Float64s(ts.c.X)
	for si, m := range ts.points {
		ys := make([]*float64, len(ts.c.X))
		for i, x := range ts.c.X {
			if v := m[x]; v != nil && (!ts.c.Scales[ts.c.Series[si].Scale].Log || *v > 0) {
				ys[i] = v
			}
		}
		ts.c.Y = append(ts.c.Y, ys)
	}
	return ts.c
}

func throughputChart(step string, si int, names []string, files []*htmlStepFiles) *htmlChart {
	ts := newTimeChart(fmt.Sprintf("s%d-throughput", si), step, "throughput", step+": throughput per second")
	// One scale per unit: rows on the right, queries (or any second unit) on the left, so that
	// 100 rows/s and 30,000 queries/s are both readable.
	scales := map[string]string{}
	for _, f := range files {
		if f == nil || f.intervals == nil {
			continue
		}
		for _, op := range f.intervals.ops() {
			if u := f.opUnit(op); scales[u] == "" {
				name, side := fmt.Sprintf("rate%d", len(scales)), 3
				if len(scales)%2 == 1 {
					side = 1
				}
				scales[u] = name
				ts.c.Scales[name] = htmlScale{Label: u + " per second", Side: side}
			}
		}
	}
	for ri, f := range files {
		if f == nil || f.intervals == nil {
			continue
		}
		t := f.intervals.cols["t_sec"]
		for _, op := range f.intervals.ops() {
			ts.add(htmlSeries{Label: names[ri] + " " + op, What: op, Run: ri, Scale: scales[f.opUnit(op)], Dash: f.opDash(op)}, t, f.intervals.cols[op+"_per_sec"])
		}
		if f.summary.Stalls != nil {
			length := f.intervals.cols["interval_sec"]
			for _, at := range f.summary.Stalls.At {
				d := 1.0
				for i := range t {
					if t[i] != nil && math.Abs(*t[i]-at) < 1e-6 && i < len(length) && length[i] != nil {
						d = *length[i]
					}
				}
				ts.c.Shade = append(ts.c.Shade, htmlShade{Run: ri, From: math.Max(0, at-d), To: at})
			}
		}
	}
	return ts.finish()
}

func maxLatencyChart(step string, si int, names []string, files []*htmlStepFiles) *htmlChart {
	ts := newTimeChart(fmt.Sprintf("s%d-max-latency", si), step, "max-latency", step+": worst latency per second")
	ts.c.Scales["us"] = htmlScale{Label: "µs (log)", Log: true, Side: 3}
	for ri, f := range files {
		if f == nil || f.intervals == nil {
			continue
		}
		for _, op := range f.intervals.ops() {
			if _, ok := f.intervals.cols[op+"_max_us"]; ok {
				ts.add(htmlSeries{Label: names[ri] + " " + op + " max", What: op + " max", Run: ri, Scale: "us", Dash: f.opDash(op)}, f.intervals.cols["t_sec"], f.intervals.cols[op+"_max_us"])
			}
		}
	}
	c := ts.finish()
	addSLALines(c, files)
	return c
}

// percentileXs are the chart's x values: x = -log10(1 - p), from p = 0 to 99.999%.
func percentileXs() []float64 {
	var xs []float64
	for x := 0.0; x <= 5.0001; x += 0.05 {
		xs = append(xs, measure.Round(x, 2))
	}
	return xs
}

func percentileChart(step string, si int, names []string, files []*htmlStepFiles) *htmlChart {
	c := &htmlChart{ID: fmt.Sprintf("s%d-percentile", si), Step: step, Kind: "percentile", Title: step + ": latency by percentile, whole step",
		XLabel: "percentile", Scales: map[string]htmlScale{"us": {Label: "µs (log)", Log: true, Side: 3}}, X: percentileXs()}
	for ri, f := range files {
		if f == nil {
			continue
		}
		for _, tag := range f.tags {
			h := f.latency[tag]
			if h.TotalCount() == 0 {
				continue
			}
			ys := make([]*float64, len(c.X))
			for i, x := range c.X {
				q := 100 * (1 - math.Pow(10, -x))
				v := measure.Micros(h.ValueAtQuantile(q))
				if v > 0 {
					ys[i] = &v
				}
			}
			c.Series = append(c.Series, htmlSeries{Label: names[ri] + " " + tag, What: tag, Run: ri, Scale: "us", Dash: f.opDash(tag)})
			c.Y = append(c.Y, ys)
		}
	}
	addSLALines(c, files)
	return c
}

// slaDash draws an SLA's bound on a latency chart: a long dash and a dot.
var slaDash = []int{12, 4, 2, 4}

// addSLALines draws each SLA the runs' step was judged against as a horizontal line at its
// bound, in the colour of the first run that had it.
func addSLALines(c *htmlChart, files []*htmlStepFiles) {
	seen := map[string]bool{}
	for ri, f := range files {
		if f == nil {
			continue
		}
		for _, r := range f.summary.SLAs {
			if seen[r.SLA] {
				continue
			}
			seen[r.SLA] = true
			sla, err := measure.ParseSLA(r.SLA)
			if err != nil {
				continue
			}
			bound := measure.Micros(int64(sla.Bound))
			ys := make([]*float64, len(c.X))
			for i := range ys {
				ys[i] = &bound
			}
			c.Series = append(c.Series, htmlSeries{Label: "SLA " + r.SLA, What: "sla", Run: ri, Scale: "us", Dash: slaDash})
			c.Y = append(c.Y, ys)
		}
	}
}

// hostColumn is one host.csv column drawn as one series per run.
type hostColumn struct {
	col, label, scale string
	dash              []int
}

// addHostColumns adds each run's series of the given host.csv columns (those it has).
func addHostColumns(ts *timeSeries, names []string, files []*htmlStepFiles, columns []hostColumn) {
	for ri, f := range files {
		if f == nil || f.host == nil {
			continue
		}
		t := f.host.cols["t_sec"]
		for _, m := range columns {
			if col, ok := f.host.cols[m.col]; ok {
				ts.add(htmlSeries{Label: names[ri] + " " + m.label, What: m.label, Run: ri, Scale: m.scale, Dash: m.dash}, t, col)
			}
		}
	}
}

func hostChart(step string, si int, names []string, files []*htmlStepFiles) *htmlChart {
	ts := newTimeChart(fmt.Sprintf("s%d-host", si), step, "host", step+": host CPU and disk IO")
	ts.c.Scales["pct"] = htmlScale{Label: "CPU busy, % of all cores", Side: 3}
	ts.c.Scales["kb"] = htmlScale{Label: "KB/s", Side: 1}
	addHostColumns(ts, names, files, []hostColumn{
		{"cpu_busy_pct", "cpu busy %", "pct", nil},
		{"wkb_per_sec", "write KB/s", "kb", []int{6, 3}},
		{"rkb_per_sec", "read KB/s", "kb", []int{2, 2}},
	})
	return ts.finish()
}

// hostMemoryChart shows the DBMS's processes over time: their memory, their CPU and dbperf's own
// CPU beside it (% of one core), from host.csv.
func hostMemoryChart(step string, si int, names []string, files []*htmlStepFiles) *htmlChart {
	ts := newTimeChart(fmt.Sprintf("s%d-host-memory", si), step, "host-memory", step+": DBMS memory, DBMS and client CPU")
	ts.c.Scales["mb"] = htmlScale{Label: "RSS, MB", Side: 3}
	ts.c.Scales["core"] = htmlScale{Label: "CPU, % of one core", Side: 1}
	addHostColumns(ts, names, files, []hostColumn{
		{"dbms_rss_mb", "all DBMS processes RSS MB", "mb", nil},
		{"dbms_cpu_pct", "dbms cpu %", "core", []int{6, 3}},
		{"client_cpu_pct", "client cpu %", "core", []int{2, 2}},
	})
	return ts.finish()
}
