// Command shot takes a screenshot of one element of a local HTML page with headless Chromium:
// the documentation's pictures are parts of dbperf's own reports.
//
//	go run ./scripts/shot -page report.html -selector '#step-2' -out docs/open-loop.png
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	page := flag.String("page", "", "the HTML file")
	selector := flag.String("selector", "body", "CSS selector of the element to shoot")
	out := flag.String("out", "shot.png", "the PNG to write")
	width := flag.Int("width", 1400, "window width, px")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium binary")
	flag.Parse()
	if err := shoot(*page, *selector, *out, *width, *chromium); err != nil {
		fmt.Fprintln(os.Stderr, "shot:", err)
		os.Exit(1)
	}
}

func shoot(page, selector, out string, width int, chromium string) error {
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-quic", true), chromedp.WindowSize(width, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	if _, err := chromedp.Run(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		return err
	}
	if _, err := chromedp.Run(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
		return err
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(selector, chromedp.NodeVisible))
	if err != nil {
		return err
	}
	return os.WriteFile(out, png, 0o644)
}
