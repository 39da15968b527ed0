package report

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPickerValuesInChromium opens the counters test run's report in headless Chromium and
// reads what the picker draws for db.blks_read: 2,000 blocks a second and 52,000 in the
// stalled second, per second; per op (1,000 queries a second) 2 and 52: the page's decoding
// and division, checked against the archive's counters.
func TestPickerValuesInChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		if testing.Short() {
			t.Skip("no " + chromium + " (-short)")
		}
		t.Fatal(chromium + " is missing: install the Debian package chromium (scripts/test.sh does)")
	}
	runs, err := Load([]string{counterRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, runs, 0); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(chromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(filepath.Join(dir, "profile")))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate((&url.URL{Scheme: "file", Path: file}).String()),
		chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	type drawn struct {
		Default string       `json:"default"`
		PerSec  [][]*float64 `json:"perSec"`
		PerOp   [][]*float64 `json:"perOp"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[drawn](`(() => {
		const box = document.querySelector(".picker");
		const out = {default: box.getAttribute("data-drawn")};
		const input = box.querySelector("input[type=search]");
		input.value = "db.blks_read";
		input.dispatchEvent(new Event("change"));
		out.perSec = box.dbperfPlot.data;
		const perOp = box.querySelector("input[value=op]");
		perOp.checked = true;
		perOp.dispatchEvent(new Event("change"));
		out.perOp = box.dbperfPlot.data;
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Default != "db.blks_read per second" {
		t.Errorf("the picker opened on %q, want db.blks_read per second (it moved in the stall)", got.Default)
	}
	check := func(what string, data [][]*float64, usual, stalled float64) {
		if len(data) != 2 || len(data[0]) != 10 {
			t.Fatalf("%s: %d series, want x and one run's 10 intervals: %v", what, len(data), data)
		}
		for i, y := range data[1] {
			want := usual
			if *data[0][i] == 6 {
				want = stalled
			}
			if y == nil || *y != want {
				t.Errorf("%s at %v s: %v, want %v", what, *data[0][i], y, want)
			}
		}
	}
	check("per second", got.PerSec, 2000, 52000)
	check("per op", got.PerOp, 2, 52)
}
