package report

import (
	"bytes"
	"embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// The page's template, script and style, and the charting library (uPlot, MIT, see
// assets/uPlot.LICENSE), all inlined into the report so that it works offline.
//
//go:embed assets/report.html.tmpl assets/report.js assets/report.css assets/uPlot.iife.min.js assets/uPlot.min.css assets/uPlot.LICENSE
var htmlAssets embed.FS

// HTML writes one self-contained HTML page comparing runs: provenance, the summary table, the
// comparison with runs[base], and per step charts of throughput (stalls shaded), maximum
// latency, the latency percentile distribution and host metrics over time. It only reads the
// run directories. The page makes no network request: the charting library, the data (as JSON)
// and the script are inlined.
func HTML(w io.Writer, runs []Run, base int) error {
	if len(runs) == 0 {
		return errors.New("no runs")
	}
	if base < 0 || base >= len(runs) {
		return fmt.Errorf("base run %d out of range", base)
	}
	page, err := buildHTMLPage(runs, base)
	if err != nil {
		return err
	}
	tmpl, err := template.New("report.html.tmpl").Funcs(template.FuncMap{
		"markClass": htmlMarkClass,
	}).ParseFS(htmlAssets, "assets/report.html.tmpl")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, page); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

type htmlPage struct {
	Title      string
	Generated  string
	Base       string
	Provenance htmlTable
	Summary    Table
	Compare    Table
	Steps      []htmlStep
	Data       template.JS // the charts' data: JSON, with <, > and & escaped
	UPlotJS    template.JS
	UPlotCSS   template.CSS
	PageCSS    template.CSS
	PageJS     template.JS
	License    string
}

type htmlTable struct {
	Header []string
	Rows   [][]string
}

// htmlStep is a step's section of the page; its charts come from the data.
type htmlStep struct {
	Name   string
	Anchor string
	Stalls []htmlStall
	Charts []string // chart ids, in order
}

type htmlStall struct {
	Run      string
	Color    string
	Present  bool
	Count    int
	TotalSec float64
	Longest  float64
}

// htmlData is the JSON the page's script draws from.
type htmlData struct {
	Runs   []htmlRunInfo `json:"runs"`
	Charts []htmlChart   `json:"charts"`
}

type htmlRunInfo struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

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
}

type htmlScale struct {
	Label string `json:"label"`
	Log   bool   `json:"log,omitempty"`
	Side  int    `json:"side"` // 3 left, 1 right (uPlot's sides)
}

type htmlSeries struct {
	Label string `json:"label"`
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

var htmlColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

func htmlColor(i int) string { return htmlColors[i%len(htmlColors)] }

func htmlMarkClass(m Mark) string {
	switch m {
	case MarkWorse:
		return "worse"
	case MarkBetter:
		return "better"
	case MarkNotComparable:
		return "nc"
	}
	return ""
}

func buildHTMLPage(runs []Run, base int) (*htmlPage, error) {
	names := htmlRunNames(runs)
	others := make([]Run, 0, len(runs)-1)
	for i, r := range runs {
		if i != base {
			others = append(others, r)
		}
	}
	p := &htmlPage{
		Title:      "dbperf report: " + strings.Join(names, ", "),
		Generated:  time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Base:       names[base],
		Provenance: htmlProvenance(runs, names),
		Summary:    SummaryTable(runs),
		Compare:    CompareTable(runs[base], others),
	}
	data := htmlData{}
	for i, n := range names {
		data.Runs = append(data.Runs, htmlRunInfo{Name: n, Color: htmlColor(i)})
	}
	for si, step := range htmlStepNames(runs) {
		files := make([]*htmlStepFiles, len(runs))
		st := htmlStep{Name: step, Anchor: fmt.Sprintf("step-%d", si)}
		for ri, r := range runs {
			f, err := readStepFiles(r, step)
			if err != nil {
				return nil, err
			}
			files[ri] = f
			s := htmlStall{Run: names[ri], Color: htmlColor(ri)}
			if f != nil && f.summary.Stalls != nil {
				s.Present, s.Count, s.TotalSec, s.Longest = true, f.summary.Stalls.Count, f.summary.Stalls.TotalSec, f.summary.Stalls.LongestSec
			}
			st.Stalls = append(st.Stalls, s)
		}
		charts := []*htmlChart{
			throughputChart(step, si, names, files),
			maxLatencyChart(step, si, names, files),
			percentileChart(step, si, names, files),
			hostChart(step, si, names, files),
			hostMemoryChart(step, si, names, files),
		}
		for _, c := range charts {
			if c != nil && len(c.Series) > 0 {
				data.Charts = append(data.Charts, *c)
				st.Charts = append(st.Charts, c.ID)
			}
		}
		p.Steps = append(p.Steps, st)
	}
	j, err := json.Marshal(data) // escapes <, >, &, U+2028 and U+2029: safe inside <script>
	if err != nil {
		return nil, err
	}
	p.Data = template.JS(j)
	read := func(name string) (string, error) {
		b, err := htmlAssets.ReadFile("assets/" + name)
		if err != nil {
			return "", err
		}
		if strings.Contains(strings.ToLower(string(b)), "</script") || strings.Contains(strings.ToLower(string(b)), "</style") {
			return "", fmt.Errorf("asset %s cannot be inlined: it contains a closing tag", name)
		}
		return string(b), nil
	}
	var errs []error
	for _, a := range []struct {
		name string
		set  func(string)
	}{
		{"uPlot.iife.min.js", func(s string) { p.UPlotJS = template.JS(s) }},
		{"uPlot.min.css", func(s string) { p.UPlotCSS = template.CSS(s) }},
		{"report.js", func(s string) { p.PageJS = template.JS(s) }},
		{"report.css", func(s string) { p.PageCSS = template.CSS(s) }},
		{"uPlot.LICENSE", func(s string) { p.License = s }},
	} {
		s, err := read(a.name)
		errs = append(errs, err)
		a.set(s)
	}
	return p, errors.Join(errs...)
}

// htmlRunNames are the runs' names, made unique.
func htmlRunNames(runs []Run) []string {
	seen := map[string]int{}
	var names []string
	for _, r := range runs {
		n := r.Meta.Name
		if n == "" {
			n = filepath.Base(filepath.Clean(r.Path))
		}
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s#%d", n, seen[n])
		}
		names = append(names, n)
	}
	return names
}

// htmlStepNames is the union of the runs' steps, in run order.
func htmlStepNames(runs []Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Meta.Steps {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}

func htmlProvenance(runs []Run, names []string) htmlTable {
	t := htmlTable{Header: append([]string{""}, names...)}
	row := func(label string, f func(r Run) string) {
		cells := []string{label}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		t.Rows = append(t.Rows, cells)
	}
	kv := func(m map[string]any) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			v := m[k]
			parts = append(parts, k+"="+htmlValue(v))
		}
		return strings.Join(parts, " ")
	}
	row("directory", func(r Run) string { return r.Path })
	row("workload", func(r Run) string { return r.Meta.Workload })
	row("target", func(r Run) string { return r.Meta.Target.Target })
	row("engine", func(r Run) string { return strings.TrimSpace(r.Meta.Target.Engine + " " + r.Meta.Target.Version) })
	row("DBMS settings", func(r Run) string { return kv(r.Meta.Target.Settings) })
	row("workload settings", func(r Run) string { return kv(r.Meta.Settings) })
	row("host", func(r Run) string {
		h := r.Meta.Host
		return fmt.Sprintf("%s: %s, %d cores, %.1f GB", h.Hostname, h.CPU, h.Cores, h.MemoryGB)
	})
	row("disk", func(r Run) string { return r.Meta.Host.Disk })
	row("OS", func(r Run) string { return strings.TrimSpace(r.Meta.Host.OS + ", kernel " + r.Meta.Host.Kernel) })
	row("dbperf", func(r Run) string {
		b := r.Meta.Dbperf
		s := fmt.Sprintf("%s commit %s (%s)", b.Version, b.Commit, b.GoVersion)
		if b.Modified {
			s += ", uncommitted changes"
		}
		return s
	})
	row("seed", func(r Run) string { return strconv.FormatUint(r.Meta.Seed, 10) })
	row("start", func(r Run) string { return r.Meta.Start.UTC().Format("2006-01-02 15:04:05 UTC") })
	row("duration", func(r Run) string {
		if r.Meta.End.IsZero() {
			return "-"
		}
		return r.Meta.End.Sub(r.Meta.Start).Round(100 * time.Millisecond).String()
	})
	row("complete", func(r Run) string {
		if r.Meta.Complete {
			return "yes"
		}
		if r.Meta.Error != "" {
			return "no: " + r.Meta.Error
		}
		return "no"
	})
	row("steps", func(r Run) string {
		var s []string
		for _, st := range r.Meta.Steps {
			n := st.Name
			if !st.Complete {
				n += " (incomplete)"
			}
			s = append(s, n)
		}
		return strings.Join(s, ", ")
	})
	row("command", func(r Run) string { return strings.Join(r.Meta.Command, " ") })
	return t
}

// htmlValue prints a setting read from JSON: numbers without exponents, lists joined by commas.
func htmlValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		var s []string
		for _, e := range x {
			s = append(s, htmlValue(e))
		}
		return strings.Join(s, ",")
	}
	return fmt.Sprint(v)
}

// htmlStepFiles are a step's files of one run; nil fields are files the run lacks.
type htmlStepFiles struct {
	figures   archive.Figures // the run's declared op types, for units and line styles
	summary   archive.Step
	intervals *htmlCSV
	host      *htmlCSV
	latency   map[string]*hdr.Histogram // per tag, merged over the step
	tags      []string                  // in the log's order
}

// readStepFiles reads a step of a run; nil when the run has no such step. Files still named
// *.partial (a run killed hard) are read too.
func readStepFiles(r Run, step string) (*htmlStepFiles, error) {
	for i, s := range r.Meta.Steps {
		if s.Name != step {
			continue
		}
		f := &htmlStepFiles{figures: r.Meta.Figures}
		if i < len(r.Steps) {
			f.summary = r.Steps[i]
		}
		dir := filepath.Join(r.Path, s.Dir)
		var err error
		if f.intervals, err = readHTMLCSV(dir, "intervals.csv"); err != nil {
			return nil, err
		}
		if f.host, err = readHTMLCSV(dir, "host.csv"); err != nil {
			return nil, err
		}
		if err = f.readLatency(dir); err != nil {
			return nil, err
		}
		return f, nil
	}
	return nil, nil
}

func openStepFile(dir, name string) (*os.File, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(dir, name+".partial"))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// htmlCSV is a CSV file by column.
type htmlCSV struct {
	header []string
	cols   map[string][]*float64
}

func readHTMLCSV(dir, name string) (*htmlCSV, error) {
	f, err := openStepFile(dir, name)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	c := &htmlCSV{header: recs[0], cols: map[string][]*float64{}}
	for _, rec := range recs[1:] {
		for j, h := range c.header {
			var v *float64
			if j < len(rec) {
				if x, err := strconv.ParseFloat(rec[j], 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
					v = &x
				}
			}
			c.cols[h] = append(c.cols[h], v)
		}
	}
	return c, nil
}

func (f *htmlStepFiles) readLatency(dir string) error {
	file, err := openStepFile(dir, "latency.hlog")
	if file == nil || err != nil {
		return err
	}
	defer file.Close()
	f.latency = map[string]*hdr.Histogram{}
	lr := hdr.NewHistogramLogReader(file)
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, "latency.hlog"), err)
		}
		if h == nil {
			return nil
		}
		tag := h.Tag()
		m, ok := f.latency[tag]
		if !ok {
			m = measure.NewHistogram()
			f.latency[tag] = m
			f.tags = append(f.tags, tag)
		}
		m.Merge(h)
	}
}

// htmlOps are the op names of a step's intervals.csv, in its order.
func (c *htmlCSV) ops() []string {
	var ops []string
	for _, h := range c.header {
		if op, ok := strings.CutSuffix(h, "_per_sec"); ok {
			ops = append(ops, op)
		}
	}
	return ops
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
			ts.add(htmlSeries{Label: names[ri] + " " + op, Run: ri, Scale: scales[f.opUnit(op)], Dash: f.opDash(op)}, t, f.intervals.cols[op+"_per_sec"])
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
				ts.add(htmlSeries{Label: names[ri] + " " + op + " max", Run: ri, Scale: "us", Dash: f.opDash(op)}, f.intervals.cols["t_sec"], f.intervals.cols[op+"_max_us"])
			}
		}
	}
	return ts.finish()
}

// percentileXs are the chart's x values: x = -log10(1 - p), from p = 0 to 99.999%.
func percentileXs() []float64 {
	var xs []float64
	for x := 0.0; x <= 5.0001; x += 0.05 {
		xs = append(xs, math.Round(x*100)/100)
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
			c.Series = append(c.Series, htmlSeries{Label: names[ri] + " " + tag, Run: ri, Scale: "us", Dash: f.opDash(tag)})
			c.Y = append(c.Y, ys)
		}
	}
	return c
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
				ts.add(htmlSeries{Label: names[ri] + " " + m.label, Run: ri, Scale: m.scale, Dash: m.dash}, t, col)
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
		{"dbms_rss_mb", "dbms rss MB", "mb", nil},
		{"dbms_cpu_pct", "dbms cpu %", "core", []int{6, 3}},
		{"client_cpu_pct", "client cpu %", "core", []int{2, 2}},
	})
	return ts.finish()
}
