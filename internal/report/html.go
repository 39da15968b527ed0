package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// The page's template, script and style, and the charting library (uPlot, MIT, see
// assets/uPlot.LICENSE), all inlined into the report so that it works offline.
//
//go:embed assets/report.html.tmpl assets/report.js assets/report.css assets/uPlot.iife.min.js assets/uPlot.min.css assets/uPlot.LICENSE
var htmlAssets embed.FS

// HTML writes one self-contained HTML page comparing runs, in the order people read it: the
// summary (runs, warnings for runs not made like the base, the default summary table), the
// comparison with runs[base] filtered to what changed, the settings that differ (every setting
// folded), and a foldable section per step with charts of throughput (stalls shaded), worst
// latency, the latency percentile distribution and host metrics over time. It only reads the
// run directories. The page makes no network request: the charting library, the data (as
// JSON) and the script are inlined. Its first screen is a headline per step and the overview
// chart (html_headline.go). With opts' crash runs and no runs, the page is their section alone.
func HTML(w io.Writer, runs []Run, base int, opts ...HTMLOptions) error {
	var o HTMLOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if len(runs) == 0 && len(o.Crash) > 0 {
		return writeCrashPage(w, o.Crash)
	}
	if len(runs) == 0 {
		return errors.New("no runs")
	}
	if base < 0 || base >= len(runs) {
		return fmt.Errorf("base run %d out of range", base)
	}
	page, err := buildHTMLPage(runs, base, o)
	if err != nil {
		return err
	}
	return writeHTMLPage(w, page)
}

// writeCrashPage writes the page of crash runs alone.
func writeCrashPage(w io.Writer, crash []CrashRun) error {
	p := &htmlPage{Title: "dbperf report: lost commits", Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Crash: crashSection(crash), Data: template.JS(`{"runs":[],"charts":[]}`)}
	if err := p.inlineAssets(); err != nil {
		return err
	}
	return writeHTMLPage(w, p)
}

// HTMLGroups writes the report of run groups (--repeat): the page of HTML over every run of
// every group, each named group/run, base the base group's first run, with a section of the
// groups' statistics first: medians and 95% intervals, and the comparison with groups[base]
// (p-values adjusted by Benjamini-Hochberg) with its legend.
func HTMLGroups(w io.Writer, groups []Group, base int, opts ...HTMLOptions) error {
	var o HTMLOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Why = nil // the runs' headlines are replaced by the groups' (WhyGroup)
	if base < 0 || base >= len(groups) {
		return fmt.Errorf("base group %d out of range", base)
	}
	var runs []Run
	baseRun := 0
	colors := []string{""}
	for i, g := range groups {
		if i == base {
			baseRun = len(runs)
			colors[0] = htmlColor(len(runs))
		} else {
			colors = append(colors, htmlColor(len(runs)))
		}
		for _, r := range g.Runs {
			r.Meta.Name = groupName(g) + "/" + filepath.Base(filepath.Clean(r.Path))
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return errors.New("no runs in the groups")
	}
	page, err := buildHTMLPage(runs, baseRun, o)
	if err != nil {
		return err
	}
	others := append(append([]Group(nil), groups[:base]...), groups[base+1:]...)
	page.Groups = &htmlGroups{Base: groupName(groups[base]), Summary: GroupSummaryTable(groups)}
	ordered := append([]Group{groups[base]}, others...)
	cmp := GroupCompare(groups[base], others)
	page.Headlines, page.GroupHeadlines = groupHeadlines(cmp, ordered, colors, page.Steps, o.WhyGroup), true
	attachWhy(page.Steps, page.Headlines)
	if len(others) > 0 {
		page.Groups.Compare, page.Groups.Legend = groupCompareTable(cmp), GroupCompareLegend(cmp.Tested)
	}
	return writeHTMLPage(w, page)
}

// htmlGroups is the page's section of run groups.
type htmlGroups struct {
	Base    string
	Summary Table
	Compare Table
	Legend  []string
}

func writeHTMLPage(w io.Writer, page *htmlPage) error {
	tmpl, err := template.New("report.html.tmpl").Funcs(template.FuncMap{
		"markClass": htmlMarkClass,
		"dash":      svgDash,
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
	Title          string
	Generated      string
	Base           string
	Runs           []htmlRun
	NotLikeForLike []string
	Summary        Table
	SummaryWide    Table
	Explain        Table
	Compare        htmlCompare
	Groups         *htmlGroups // run groups (--repeat), if the page is of groups
	Differences    htmlTable
	KindSettings   htmlTable // DBMS settings of runs of different target kinds
	Provenance     htmlTable
	OpStyles       []htmlOpStyle
	Headlines      []htmlHeadline // the first screen: one per step
	GroupHeadlines bool           // of run groups: medians and significant changes
	Overview       bool           // the first screen's chart exists
	Crash          *htmlCrash     // crash runs (dbperf crash)
	Steps          []htmlStep
	Data           template.JS // the charts' data: JSON, with <, > and & escaped
	UPlotJS        template.JS
	UPlotCSS       template.CSS
	PageJS         template.JS
	PageCSS        template.CSS
	License        string
}

type htmlTable struct {
	Header []string
	Rows   [][]string
}

// htmlOpStyle is an op type's line style in the charts' key.
type htmlOpStyle struct {
	Name string
	Dash []int
}

// htmlCompare is CompareTable for the page: rows that changed (a marked ratio, a missed gate)
// show by default, the others on demand.
type htmlCompare struct {
	Header  []string
	Rows    []htmlCompareRow
	Changed int
}

type htmlCompareRow struct {
	Cells     []htmlCell
	Changed   bool
	StepStart bool // the first row of a step
}

type htmlCell struct {
	Text, Class, Title string
}

// htmlStep is a step's section of the page; its charts come from the data.
type htmlStep struct {
	Name     string
	Anchor   string
	Runs     []htmlStepRun
	Charts   []string // chart ids, in order
	Note     string   // why the step has no charts over time
	Patterns string   // how the step inserts into each index, as declared
	Picker   string   // the counter picker's element id, when the step has counters
	Vitals   []string // the vital signs' chart ids (html_counters.go)
	// VitalsZero names the vital signs at 0 throughout in every run, not charted.
	VitalsZero string
	Why        []htmlWhy // the headline's explanations, again beside the step (html_why.go)
	Stalls     []htmlStalls
	Shards     *htmlShards // each merged run's shards (hosts.go)
}

// htmlStepRun is a run's line in a step's heading: its duration, whether it completed, stalls.
type htmlStepRun struct {
	Run, Color, Seconds, OK string
	Present                 bool
	Stalls                  int
	StallSec, Longest       float64
}

// htmlData is the JSON the page's script draws from.
type htmlData struct {
	Runs    []htmlRunInfo `json:"runs"`
	Charts  []htmlChart   `json:"charts"`
	Pickers []pickerStep  `json:"pickers,omitempty"` // every counter of each step (html_picker.go)
}

type htmlRunInfo struct {
	Name  string `json:"name"`
	Color string `json:"color"`
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

// svgDash is a dash pattern as SVG's stroke-dasharray; "none" for a solid line.
func svgDash(d []int) string {
	if len(d) == 0 {
		return "none"
	}
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, " ")
}

// seconds prints a step's duration with two significant digits below a second.
func seconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.2g s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// minIntervals is the fewest intervals a step needs in some run for charts over time: with
// fewer, each run is a dot or two, and the page says so instead.
const minIntervals = 3

func buildHTMLPage(runs []Run, base int, o HTMLOptions) (*htmlPage, error) {
	names := htmlRunNames(runs)
	others := make([]Run, 0, len(runs)-1)
	for i, r := range runs {
		if i != base {
			others = append(others, r)
		}
	}
	p := &htmlPage{
		Title:       "dbperf report: " + strings.Join(names, ", "),
		Generated:   time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Base:        names[base],
		Runs:        htmlRuns(runs, names, base),
		Summary:     CompactSummaryTable(runs),
		SummaryWide: SummaryTable(runs),
		Explain:     ExplainTable(runs),
		Compare:     htmlCompareTable(runs[base], others),
		Provenance:  htmlProvenance(runs, names),
		OpStyles:    htmlOpStyles(runs),
		Crash:       crashSection(o.Crash),
	}
	p.Differences, p.KindSettings = htmlDifferences(runs, names)
	for i, r := range runs {
		if i != base {
			if l := NotLikeForLike(runs[base], r); l != "" {
				p.NotLikeForLike = append(p.NotLikeForLike, strings.TrimPrefix(l, "not like for like: "))
			}
		}
	}
	data := htmlData{}
	for i, n := range names {
		data.Runs = append(data.Runs, htmlRunInfo{Name: n, Color: htmlColor(i)})
	}
	stepNames := htmlStepNames(runs)
	allFiles := make([][]*htmlStepFiles, len(stepNames))
	for si, step := range stepNames {
		st, files, err := buildStep(runs, names, base, step, si, &data)
		if err != nil {
			return nil, err
		}
		allFiles[si] = files
		p.Steps = append(p.Steps, st)
	}
	p.Headlines = headlines(runs, names, base, p.Steps, o.Why)
	attachWhy(p.Steps, p.Headlines)
	if c := overviewChart(names, stepNames, allFiles); c != nil {
		data.Charts = append([]htmlChart{*c}, data.Charts...)
		p.Overview = true
	}
	if st, c, err := searchSection(runs, names); err != nil {
		return nil, err
	} else if st != nil {
		data.Charts = append(data.Charts, *c)
		p.Steps = append([]htmlStep{*st}, p.Steps...)
	}
	j, err := json.Marshal(data) // escapes <, >, &, U+2028 and U+2029: safe inside <script>
	if err != nil {
		return nil, err
	}
	p.Data = template.JS(j)
	return p, p.inlineAssets()
}

// buildStep is a step's section: each run's line, its charts, vital signs and picker (added
// to data), its stalls' counters, and the runs' step files, which the overview chart draws
// from too.
func buildStep(runs []Run, names []string, base int, step string, si int, data *htmlData) (htmlStep, []*htmlStepFiles, error) {
	files := make([]*htmlStepFiles, len(runs))
	st := htmlStep{Name: step, Anchor: fmt.Sprintf("step-%d", si), Patterns: stepPatterns(runs, step)}
	most := 0
	var lasted []string
	sums := make([]*archive.Step, len(runs))
	for ri, r := range runs {
		f, err := readStepFiles(r, step)
		if err != nil {
			return st, nil, err
		}
		files[ri] = f
		sr := htmlStepRun{Run: names[ri], Color: htmlColor(ri), Seconds: "-", OK: "-"}
		if f != nil {
			sums[ri] = &f.summary
			sr.Seconds, sr.OK = seconds(f.summary.Seconds), stepOK(f.summary)
			if s := f.summary.Stalls; s != nil {
				sr.Present, sr.Stalls, sr.StallSec, sr.Longest = true, s.Count, s.TotalSec, s.LongestSec
			}
			most = max(most, f.intervalCount())
			lasted = append(lasted, seconds(f.summary.Seconds)+" in "+names[ri])
		}
		st.Runs = append(st.Runs, sr)
	}
	st.Shards = shardTable(names, sums)
	if most < minIntervals {
		st.Note = fmt.Sprintf("This step lasted %s: fewer than %d intervals in every run, too few for charts over time. "+
			"Its figures are in the summary; the percentile chart shows its latency distribution.", strings.Join(lasted, ", "), minIntervals)
		st.Charts = addCharts(data, percentileChart(step, si, names, files))
		st.Stalls = stallTables(names, sums, make([]*counters.Step, len(runs)))
		return st, files, nil
	}
	csteps := counterSteps(runs, step)
	st.Stalls = stallTables(names, sums, csteps)
	xr := stepAxis(files, csteps)
	charts := timeCharts(step, si, names, files)
	vitals, zero := vitalCharts(step, si, names, runs, base, csteps) // html_counters.go
	for _, c := range append(charts, vitals...) {
		if c != nil {
			c.XRange = xr
		}
	}
	charts = append(charts[:2], append([]*htmlChart{percentileChart(step, si, names, files)}, charts[2:]...)...)
	st.Charts = addCharts(data, charts...)
	st.Vitals, st.VitalsZero = addCharts(data, vitals...), strings.Join(zero, ", ")
	if pk := pickerData(step, si, runs, csteps); pk != nil {
		pk.XRange = xr
		data.Pickers = append(data.Pickers, *pk)
		st.Picker = pk.ID
	}
	return st, files, nil
}

// addCharts adds the charts that have lines to data, returning their ids.
func addCharts(data *htmlData, charts ...*htmlChart) []string {
	var ids []string
	for _, c := range charts {
		if c != nil && len(c.Series) > 0 {
			data.Charts = append(data.Charts, *c)
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// stepAxis is the time axis of a step's charts: from 0 to the last second any run's
// intervals or counters know.
func stepAxis(files []*htmlStepFiles, cs []*counters.Step) *[2]float64 {
	end := 0.0
	for _, f := range files {
		if f != nil && f.intervals != nil {
			for _, t := range f.intervals.cols["t_sec"] {
				if t != nil {
					end = math.Max(end, *t)
				}
			}
		}
	}
	for _, s := range cs {
		if s != nil && len(s.TSec) > 0 {
			end = math.Max(end, s.TSec[len(s.TSec)-1])
		}
	}
	if end <= 0 {
		return nil
	}
	return &[2]float64{0, end}
}

// inlineAssets reads the script, style and library into the page.
func (p *htmlPage) inlineAssets() error {
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
	return errors.Join(errs...)
}

// htmlOpStyles are the line styles of the runs' declared op types, in the first run's order:
// the key that tells op types apart in every chart.
func htmlOpStyles(runs []Run) []htmlOpStyle {
	var out []htmlOpStyle
	seen := map[string]bool{}
	for _, r := range runs {
		f := &htmlStepFiles{figures: r.Meta.Figures}
		for _, o := range r.Meta.Figures.Ops {
			if !seen[o.Name] {
				seen[o.Name] = true
				out = append(out, htmlOpStyle{Name: o.Name, Dash: f.opDash(o.Name)})
			}
		}
	}
	return out
}

// htmlCompareTable is CompareTable with each row's changed flag and each figure's direction.
func htmlCompareTable(base Run, runs []Run) htmlCompare {
	t := CompareTable(base, runs)
	better := map[string]archive.Direction{}
	for _, f := range compareFigures(append([]Run{base}, runs...)) {
		better[f.name] = f.better
	}
	out := htmlCompare{Header: t.Header}
	for i, row := range t.Rows {
		r := htmlCompareRow{StepStart: i == 0 || t.Rows[i-1][0] != row[0]}
		for j, c := range row {
			cell := htmlCell{Text: c, Class: htmlMarkClass(t.Mark(i, j))}
			if cell.Class != "" || strings.HasSuffix(c, "!") {
				r.Changed = true
			}
			if j == 1 {
				switch better[c] {
				case archive.HigherIsBetter:
					cell.Text, cell.Title = c+" ↑", "higher is better"
				case archive.LowerIsBetter:
					cell.Text, cell.Title = c+" ↓", "lower is better"
				}
				cell.Class = "fig"
			}
			r.Cells = append(r.Cells, cell)
		}
		if r.Changed {
			out.Changed++
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}
