package report

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dbperf/dbperf/internal/counters"
)

// whyChromium is Debian's chromium, which scripts/test.sh installs.
const whyChromium = "/usr/bin/chromium"

// whyPage is what TestWhyPageInChromium reads from the page at one width.
type whyPage struct {
	Inner, ScrollWidth    int
	ChartBottom, TableTop int // the overview chart's bottom; the first visible table's top
	Folded, Rows          int // the headlines' folded tables; rows of the first, opened
	OpenedWidth           int // the page's width with it open
	Vitals, Drawn         int // step 0's vital-sign charts, those with a canvas
	Zoomed                int // of step 0's other charts over time, those that followed a zoom
	Others                int
	Reset                 bool   // a double-click on a vital sign's chart reset step 0's axis
	XLabel                string // the throughput chart's time axis: its label and ticks, when it has room
}

// TestWhyPageInChromium opens the report of the archived buffer-pool pair (with compare
// --why's explanations) in headless Chromium at 1400 and 390 px: the overview chart on the
// first screen above every visible table, the headlines' explanation tables folded and readable
// when opened without widening the page, every vital-sign chart drawn, and step 0's charts over
// time on one axis: zooming the throughput chart zooms the others, a double-click resets all.
func TestWhyPageInChromium(t *testing.T) {
	if _, err := os.Stat(whyChromium); err != nil {
		if testing.Short() {
			t.Skip("no " + whyChromium + " (-short)")
		}
		t.Fatal(whyChromium + " is missing: install the Debian package chromium (scripts/test.sh does)")
	}
	runs, err := Load(whyPair)
	if err != nil {
		t.Fatal(err)
	}
	var o HTMLOptions
	o.Explain(counters.Vitals())
	var buf bytes.Buffer
	if err := HTML(&buf, runs, 0, o); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(whyChromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(filepath.Join(dir, "profile")))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()
	for _, width := range []int64{1400, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate((&url.URL{Scheme: "file", Path: file}).String()),
			chromedp.WaitReady("body")); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[whyPage](whyPageJS))
		if err != nil {
			t.Fatal(err)
		}
		if got.Zoomed, err = chromedp.Run(ctx, chromedp.Evaluate[int](whyZoomJS)); err != nil {
			t.Fatal(err)
		}
		if got.Reset, err = chromedp.Run(ctx, chromedp.Evaluate[bool](whyResetJS)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d px: %+v", width, got)
		if got.ScrollWidth > got.Inner || got.OpenedWidth > got.Inner {
			t.Errorf("%d px: the page is %d px wide (%d with a table open) in a %d px window", width, got.ScrollWidth, got.OpenedWidth, got.Inner)
		}
		if got.ChartBottom <= 0 || got.ChartBottom > 900 || got.TableTop < got.ChartBottom {
			t.Errorf("%d px: overview chart ends at %d px, first visible table at %d px: want the chart on the first screen, above", width, got.ChartBottom, got.TableTop)
		}
		if got.Folded != 2 || got.Rows < 12 {
			t.Errorf("%d px: %d folded tables, the first with %d rows: want load's and run's, a row per figure", width, got.Folded, got.Rows)
		}
		if !strings.Contains(got.XLabel, "seconds since the step started") {
			t.Errorf("%d px: the throughput chart's axes are labelled %q, without its time axis", width, got.XLabel)
		}
		if got.Vitals < 10 || got.Drawn != got.Vitals {
			t.Errorf("%d px: %d of %d vital-sign charts drawn", width, got.Drawn, got.Vitals)
		}
		if got.Others < got.Vitals+3 || got.Zoomed != got.Others || !got.Reset {
			t.Errorf("%d px: %d of %d charts followed the throughput chart's zoom, reset %v", width, got.Zoomed, got.Others, got.Reset)
		}
	}
}

// whyPageJS measures the page and zooms step 0's throughput chart; uPlot redraws (and calls
// its hooks) in a microtask, so whyZoomJS reads the zoom and double-clicks in a later call,
// whyResetJS the reset.
const whyPageJS = `(() => {
	window.scrollTo(0, 0);
	const top = e => Math.round(e.getBoundingClientRect().top + window.scrollY);
	const visible = e => e.getClientRects().length > 0 && !e.closest("details:not([open])");
	const out = {inner: window.innerWidth, scrollWidth: document.documentElement.scrollWidth};
	const canvas = document.querySelector("#overview canvas");
	out.chartBottom = canvas ? Math.round(canvas.getBoundingClientRect().bottom + window.scrollY) : -1;
	out.tableTop = Math.min(...Array.from(document.querySelectorAll("table")).filter(visible).map(top));
	const folded = Array.from(document.querySelectorAll("details.whyt"));
	out.folded = folded.filter(d => !d.open).length;
	if (folded.length) {
		folded[0].open = true;
		out.rows = Array.from(folded[0].querySelectorAll("tbody tr:not(.sec)")).filter(visible).length;
		out.openedWidth = document.documentElement.scrollWidth;
		folded[0].open = false;
	}
	const vitals = Array.from(document.querySelectorAll("#step-0 .charts.vitals .chart"));
	out.vitals = vitals.length;
	out.drawn = vitals.filter(v => v.querySelector("canvas")).length;
	const tp = document.getElementById("s0-throughput").dbperfPlot;
	const others = Array.from(document.querySelectorAll("#step-0 .chart")).filter(e => e.id.indexOf("percentile") < 0)
		.map(e => e.dbperfPlot || (e.closest(".picker") || {}).dbperfPlot).filter(p => p && p !== tp);
	window.whyTest = {tp: tp, others: others, whole: [tp.scales.x.min, tp.scales.x.max], over: vitals[0].querySelector(".u-over")};
	out.others = others.length;
	const ax = tp.axes[0]; // uPlot draws axes on the canvas: its layout (_size) says whether the time axis has room
	out.xLabel = ax._size > 0 ? ax.label + " " + ax._values.join(",") : "";
	tp.setScale("x", {min: 2, max: 4});
	return out;
})()`

const whyZoomJS = `(() => {
	const w = window.whyTest;
	const n = w.others.filter(p => p.scales.x.min === 2 && p.scales.x.max === 4).length;
	w.over.dispatchEvent(new MouseEvent("dblclick", {bubbles: true}));
	return n;
})()`

const whyResetJS = `(() => {
	const w = window.whyTest;
	return w.whole[0] === 0 && [w.tp].concat(w.others).every(p => p.scales.x.min === w.whole[0] && p.scales.x.max === w.whole[1]);
})()`
