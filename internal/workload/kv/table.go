package kv

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
)

// ReferenceHeader is the reference's summary row (benchmark.sh:414) as dbperf fills it, plus the
// read steps' hit ratio; GiB and MiB as the reference's GB and MB.
var ReferenceHeader = []string{"test", "ops_sec", "mb_sec", "lsm_sz", "blob_sz", "c_wgb", "w_amp", "c_mbps",
	"c_wsecs", "usec_op", "p50", "p99", "p99.9", "p99.99", "pmax", "stall%", "Nstall", "u_cpu", "s_cpu",
	"rss", "hit", "date", "version"}

// ReferenceRows are one row per step of a key-value run, from its archive alone: "-" where the
// engine cannot supply a figure, "n/a" for a step the engine cannot run.
func ReferenceRows(meta archive.Run, steps []archive.Step) [][]string {
	var rows [][]string
	for _, s := range steps {
		w := s.Workload
		num := func(key, format string) string {
			if v, ok := w[key].(float64); ok {
				return fmt.Sprintf(format, v)
			}
			return "-"
		}
		size := func(key string) string {
			if v, ok := w[key].(float64); ok {
				return fmt.Sprintf("%.3fGB", v/bytesPerGiB)
			}
			return "-"
		}
		test, _ := w["test"].(string)
		if test == "" {
			test = s.Step
		}
		row := []string{test, num("ops_sec", "%.0f"), num("mb_sec", "%.1f"), size(colLSM), size(colBlob),
			num(colCWGB, "%.3f"), num(colWAmp, "%.2f"), num(colCMBps, "%.1f"), num(colCWSecs, "%.1f"),
			num("usec_op", "%.1f"), num("p50", "%.1f"), num("p99", "%.1f"), num("p99.9", "%.1f"),
			num("p99.99", "%.1f"), num("pmax", "%.0f"), num(colStallPct, "%.1f"), num(colNStall, "%.0f"),
			num("u_cpu", "%.1f"), num("s_cpu", "%.1f"), "-", num("hit_ratio", "%.6f"),
			s.Start.UTC().Format("2006-01-02T15:04:05"), meta.Target.Engine + " " + meta.Target.Version}
		if s.Host != nil && s.Host.RSS != nil {
			row[19] = fmt.Sprintf("%.3f", *s.Host.RSS)
		}
		if why, ok := w["not_applicable"].(string); ok {
			row = append(row[:1], "n/a: "+why)
		}
		if !s.Complete {
			msg, _, _ := strings.Cut(s.Error, "\n")
			row = append(row, "(incomplete: "+msg+")")
		}
		rows = append(rows, row)
	}
	return rows
}

// CompactReferenceColumns are the reference row's columns `dbperf run kv` prints by default, in
// at most 100 characters: the rate, size, write amplification, latencies and stalls; --wide
// prints every column of ReferenceHeader.
var CompactReferenceColumns = []string{"test", "ops_sec", "mb_sec", "lsm_sz", "w_amp", "usec_op", "p50", "p99",
	"p99.9", "pmax", "stall%"}

// FormatReference lays out ReferenceRows under ReferenceHeader, in the given columns (all of
// them when nil), each right after the widest cell of its column, one space apart. A step the
// engine cannot run ("n/a: why") and a step that did not complete keep the columns of the rows
// after them aligned: their reason runs on past the columns rather than being one of them.
func FormatReference(rows [][]string, columns []string) []string {
	idx := make([]int, 0, len(ReferenceHeader))
	for i, h := range ReferenceHeader {
		if columns == nil || slices.Contains(columns, h) {
			idx = append(idx, i)
		}
	}
	pick := func(r []string) (cells []string, tail string) {
		if len(r) < len(ReferenceHeader) { // n/a: the test name, then the reason
			return []string{r[0]}, strings.Join(r[1:], " ")
		}
		for _, i := range idx {
			cells = append(cells, r[i])
		}
		return cells, strings.Join(r[len(ReferenceHeader):], " ")
	}
	header, _ := pick(ReferenceHeader)
	width := make([]int, len(header))
	all := [][]string{header}
	tails := []string{""}
	for _, r := range rows {
		cells, tail := pick(r)
		all, tails = append(all, cells), append(tails, tail)
	}
	for _, cells := range all {
		for i, c := range cells {
			width[i] = max(width[i], len(c))
		}
	}
	lines := make([]string, len(all))
	for n, cells := range all {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(' ')
			}
			if i < len(cells)-1 || tails[n] != "" || len(cells) < len(width) {
				fmt.Fprintf(&b, "%-*s", width[i], c)
			} else {
				b.WriteString(c)
			}
		}
		if tails[n] != "" {
			b.WriteString(" " + tails[n])
		}
		lines[n] = strings.TrimRight(b.String(), " ")
	}
	return lines
}
