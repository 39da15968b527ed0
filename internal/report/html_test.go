package report_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/dbperf/dbperf/internal/session"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/insertbench/stores"
)

const chromiumPath = "/usr/bin/chromium"

// makeRun runs the Insert Benchmark at tiny scale on an embedded target into a run directory,
// with the monitor (host.csv), as 'dbperf run' does.
func makeRun(t *testing.T, dir, name, targetStr string) string {
	t.Helper()
	ctx := context.Background()
	spec, err := driver.Parse(targetStr)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	cfg := ib.DefaultConfig()
	cfg.Clients, cfg.Rows, cfg.QSeconds = 2, 2000, 1
	cfg.Steps = []string{"l.i0", "l.x", "qr100"}
	cfg.Seed = 7
	st, err := stores.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	bench, err := ib.New(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	d, err := archive.Create(out, archive.Run{Name: name, Workload: "insert", Dbperf: archive.ThisBuild(),
		Host: archive.ThisHost(dir), Target: archive.Target(tg.Info(ctx)), Seed: cfg.Seed, Settings: bench.Settings(), Figures: bench.Figures(), Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true, Tick: 250 * time.Millisecond,
		Monitor: monitor.New(ctx, tg)}
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// artifactPath is where the test leaves its screenshot: $DBPERF_ARTIFACTS, else
// .testdata/artifacts under the repository's root.
func artifactPath(t *testing.T, name string) string {
	dir := os.Getenv("DBPERF_ARTIFACTS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(wd, "..", "..", ".testdata", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

type chartInfo struct {
	Legend int      `json:"legend"` // entries in the chart's legend
	ID     string   `json:"id"`
	Step   string   `json:"step"`
	Kind   string   `json:"kind"`
	Title  string   `json:"title"`
	Series []string `json:"series"`
}

// TestHTMLReportInChromium renders a report of two real runs (SQLite and Pebble) and opens it
// in headless Chromium at 1400 px and at a phone's 390 px: no console error, no exception, no
// network request, the headlines first with the overview chart on the first screen above every
// table, no sideways scrolling of the page (tables scroll in their box), every chart of every
// step drawn with both runs and a legend entry per line, a note instead of charts over time for
// a step too short for them, and a counter picker that draws the counter chosen.
func TestHTMLReportInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if testing.Short() {
			t.Skip("no " + chromiumPath + " (-short)")
		}
		t.Fatal(chromiumPath + " is missing: install the Debian package chromium (scripts/test.sh does)")
	}
	dir := t.TempDir()
	runA := makeRun(t, dir, "run-a", "sqlite:"+filepath.Join(dir, "a.sqlite"))
	runB := makeRun(t, dir, "run-b", "pebble:"+filepath.Join(dir, "p"))
	runs, err := report.Load([]string{runA, runB})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.HTML(&buf, runs, 0); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"run-a", "run-b", "Compared with run-a", "uPlot", "SQLite", "Pebble"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report does not mention %q", want)
		}
	}
	for _, bad := range []string{"<link", " src=", "@import", "url("} { // nothing to fetch
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("the report contains %q: %q", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: file}).String()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(filepath.Join(dir, "chromium-profile")),
		chromedp.WindowSize(1280, 1600),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var problems []string
	// Listen before the navigation, so that every event of the page is seen; the callback
	// only records (it runs in chromedp's reading loop).
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, strings.TrimSpace(string(a.Value)+" "+a.Description))
				}
				problems = append(problems, "console error: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("uncaught exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				problems = append(problems, "network request: "+u)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// The page at a desktop width, then at a phone's: each a screenshot in the artifacts.
	var steps []stepInfo
	var charts []chartInfo
	for _, width := range []int64{1400, 390} {
		var layout pageLayout
		charts, steps, layout = openReport(t, ctx, fileURL, width)
		png := artifactPath(t, fmt.Sprintf("report-%d.png", width))
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(png, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d px: %d px tall, screenshot %s", width, layout.Height, png)
		if layout.FirstSection != "glance" {
			t.Errorf("%d px: the page starts with section %q, not the headlines", width, layout.FirstSection)
		}
		checkFirstScreen(t, ctx, width)
		checkPicker(t, ctx, width)
		if layout.ScrollWidth > layout.InnerWidth {
			t.Errorf("%d px: the page scrolls sideways: %d px wide in a %d px window (widest: %s)", width, layout.ScrollWidth, layout.InnerWidth, layout.Widest)
		}
	}
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()

	have := map[string]chartInfo{}
	for _, c := range charts {
		have[c.Step+"/"+c.Kind] = c
	}
	if len(steps) != 3 {
		t.Fatalf("steps on the page: %+v", steps)
	}
	for _, st := range steps {
		// A step too short for charts over time (decided from the archive, not asserted)
		// says so and keeps its percentile chart.
		kinds := []string{"throughput", "max-latency", "percentile", "host"}
		if st.Short {
			kinds = []string{"percentile"}
			for _, k := range []string{"throughput", "max-latency", "host"} {
				if _, ok := have[st.Step+"/"+k]; ok {
					t.Errorf("step %s has a note and a %s chart", st.Step, k)
				}
			}
		}
		for _, kind := range kinds {
			c, ok := have[st.Step+"/"+kind]
			if !ok {
				t.Errorf("no %s chart for step %s (charts: %v)", kind, st.Step, charts)
				continue
			}
			for _, run := range []string{"run-a", "run-b"} {
				found := false
				for _, s := range c.Series {
					found = found || strings.HasPrefix(s, run+" ")
				}
				if !found {
					t.Errorf("%s chart of step %s has no series of %s: %v", kind, st.Step, run, c.Series)
				}
			}
		}
	}
	if c, ok := have["qr100/throughput"]; ok && (!contains(c.Series, "run-a query") || !contains(c.Series, "run-b insert")) {
		t.Errorf("qr100 throughput series: %v, want queries and inserts of each run", c.Series)
	}
	for _, c := range charts {
		if c.Legend != len(c.Series) {
			t.Errorf("chart %s: %d legend entries for %d lines", c.ID, c.Legend, len(c.Series))
		}
	}
}

type stepInfo struct {
	Step  string `json:"step"`
	Short bool   `json:"short"`
}

type pageLayout struct {
	FirstSection string `json:"firstSection"`
	ScrollWidth  int    `json:"scrollWidth"`
	InnerWidth   int    `json:"innerWidth"`
	Height       int    `json:"height"`
	Widest       string `json:"widest"`
}

// openReport loads the page in a window of that width and waits for its charts.
func openReport(t *testing.T, ctx context.Context, fileURL string, width int64) ([]chartInfo, []stepInfo, pageLayout) {
	t.Helper()
	height := int64(900) // a desktop's window; a phone's (390 px wide) is 844 px tall
	if width < 600 {
		height = 844
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height), chromedp.Navigate(fileURL), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Poll[[]chartInfo](`window.dbperfCharts && window.dbperfCharts.map(c => Object.assign({legend: document.querySelectorAll("#" + CSS.escape(c.id) + " .legend-box .k").length}, c))`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := chromedp.Run(ctx, chromedp.Evaluate[[]stepInfo](`Array.from(document.querySelectorAll("details.step")).map(d => ({step: d.querySelector("h2").textContent.replace(/^Step /, ""), short: !!d.querySelector(".short")}))`))
	if err != nil {
		t.Fatal(err)
	}
	layout, err := chromedp.Run(ctx, chromedp.Evaluate[pageLayout](`(() => {
		let widest = "", w = 0;
		for (const e of document.querySelectorAll("body *")) {
			const r = e.getBoundingClientRect();
			if (r.right > w && !e.closest(".scroll")) { w = r.right; widest = e.tagName + "." + e.className + "#" + e.id; }
		}
		return {firstSection: document.querySelector("main > section").id, scrollWidth: document.documentElement.scrollWidth,
			innerWidth: window.innerWidth, height: document.documentElement.scrollHeight, widest: widest + " " + w};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond)); err != nil { // late console messages
		t.Fatal(err)
	}
	return charts, steps, layout
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// firstScreen is where the first screen's parts are, in CSS pixels from the page's top.
type firstScreen struct {
	Inner       int      `json:"inner"`       // the window's height
	Headlines   []string `json:"headlines"`   // their text
	FirstTop    int      `json:"firstTop"`    // the first headline's
	FirstBottom int      `json:"firstBottom"` //
	ChartTop    int      `json:"chartTop"`    // the overview's canvas
	ChartBottom int      `json:"chartBottom"` //
	TableTop    int      `json:"tableTop"`    // the first table's
}

// checkFirstScreen: the page's first screen (the window's height at the top of the page) holds
// the first step's headline, with each run's main figure, and the overview chart, drawn; every
// table starts below the chart.
func checkFirstScreen(t *testing.T, ctx context.Context, width int64) {
	t.Helper()
	fs, err := chromedp.Run(ctx, chromedp.Evaluate[firstScreen](`(() => {
		window.scrollTo(0, 0);
		const top = e => Math.round(e.getBoundingClientRect().top + window.scrollY);
		const bottom = e => Math.round(e.getBoundingClientRect().bottom + window.scrollY);
		const hs = Array.from(document.querySelectorAll("li.headline"));
		const canvas = document.querySelector("#overview canvas");
		const tables = Array.from(document.querySelectorAll("table")).map(top);
		return {inner: window.innerHeight, headlines: hs.map(h => h.textContent.replace(/\s+/g, " ").trim()),
			firstTop: hs.length ? top(hs[0]) : -1, firstBottom: hs.length ? bottom(hs[0]) : -1,
			chartTop: canvas ? top(canvas) : -1, chartBottom: canvas ? bottom(canvas) : -1,
			tableTop: tables.length ? Math.min(...tables) : -1};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d px: first screen %+v", width, fs)
	if len(fs.Headlines) != 3 {
		t.Errorf("%d px: %d headlines, want one per step: %q", width, len(fs.Headlines), fs.Headlines)
	} else if h := fs.Headlines[0]; !strings.HasPrefix(h, "l.i0 ips") || !strings.Contains(h, "×") {
		t.Errorf("%d px: first headline %q: want l.i0's ips in both runs, with the ratio", width, h)
	}
	if fs.FirstTop < 0 || fs.FirstBottom > fs.Inner {
		t.Errorf("%d px: the first headline spans %d-%d px, not within the first %d px", width, fs.FirstTop, fs.FirstBottom, fs.Inner)
	}
	if fs.ChartTop < 0 || fs.ChartBottom > fs.Inner {
		t.Errorf("%d px: the overview chart spans %d-%d px, not within the first %d px", width, fs.ChartTop, fs.ChartBottom, fs.Inner)
	}
	if fs.TableTop < fs.ChartBottom {
		t.Errorf("%d px: a table starts at %d px, above the overview chart's bottom (%d px)", width, fs.TableTop, fs.ChartBottom)
	}
}

type pickerState struct {
	Pickers int      `json:"pickers"`
	Names   int      `json:"names"`
	Initial string   `json:"initial"` // drawn when the page opened
	Chosen  string   `json:"chosen"`
	Drawn   []string `json:"drawn"`
	Legend  []string `json:"legend"`
	Canvas  bool     `json:"canvas"`
}

// checkPicker checks that the last step's picker drew a counter when the page opened, then
// chooses a running total, per second then per op, and checks that it is drawn.
func checkPicker(t *testing.T, ctx context.Context, width int64) {
	t.Helper()
	st, err := chromedp.Run(ctx, chromedp.Evaluate[pickerState](`(() => {
		const boxes = document.querySelectorAll(".picker");
		if (!boxes.length) return {pickers: 0};
		const box = boxes[boxes.length - 1];
		const initial = box.getAttribute("data-drawn") || "";
		const opts = Array.from(box.querySelectorAll("datalist option")).map(o => o.value);
		const input = box.querySelector("input[type=search]");
		const drawn = [];
		let chosen = opts[0];
		for (const o of opts) { // a running total: it has a rate and a figure per op
			input.value = chosen = o;
			input.dispatchEvent(new Event("change"));
			if ((box.getAttribute("data-drawn") || "").endsWith(" per second")) break;
		}
		drawn.push(box.getAttribute("data-drawn"));
		const perOp = box.querySelector("input[value=op]");
		perOp.checked = true;
		perOp.dispatchEvent(new Event("change"));
		drawn.push(box.getAttribute("data-drawn"));
		return {pickers: boxes.length, names: opts.length, initial: initial, chosen: chosen, drawn: drawn,
			legend: Array.from(box.querySelectorAll(".legend-box .k")).map(k => k.textContent),
			canvas: !!box.querySelector(".pick-chart canvas")};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d px: picker %+v", width, st)
	if st.Pickers == 0 || st.Names == 0 {
		t.Fatalf("%d px: %d pickers, %d counters in the last: want a picker with the Pebble run's counters", width, st.Pickers, st.Names)
	}
	if st.Initial == "" {
		t.Errorf("%d px: the picker drew no counter when the page opened", width)
	}
	if !st.Canvas || len(st.Legend) == 0 || len(st.Drawn) != 2 || !strings.HasPrefix(st.Drawn[0], st.Chosen+" ") ||
		st.Drawn[0] == st.Drawn[1] {
		t.Errorf("%d px: picker chose %q: drawn %q, legend %q, canvas %v", width, st.Chosen, st.Drawn, st.Legend, st.Canvas)
	}
	for _, k := range st.Legend {
		if !strings.Contains(k, st.Chosen) {
			t.Errorf("%d px: picker legend %q does not name %s", width, k, st.Chosen)
		}
	}
}
