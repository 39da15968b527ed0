package merge

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// hdrPacked is the histogram every interval and step total is kept in.
type hdrPacked = hdr.PackedHistogram

// row is one line of a shard's intervals.csv, as counts: the running totals turned back into
// each interval's units, so that sums are exact.
type row struct {
	endMs    int64   // unix_ms, on the shard's own clock
	startMs  int64   // the interval's start, from latency.hlog (0: not known)
	tMs      int64   // t_sec, in ms
	seconds  float64 // interval_sec
	units    []int64 // per op, this interval
	errors   []int64 // per op, this interval
	arrivals int64   // open loop: arrivals that came due (from the rounded rate: see openLoopRow)
	dropped  int64
	backlog  int64
	lagMaxUs float64
	openLoop bool
}

// stepFiles is what merging reads of one shard's step: its rows and, per row, each op type's
// histogram from latency.hlog (nil where the op type had no statement in that second).
type stepFiles struct {
	ops   []string
	rows  []row
	hists [][]*hdr.PackedHistogram // [row][op]
	// service is service.hlog's histograms as hists: open-loop service times (nil: the step
	// has no service.hlog, e.g. a closed loop, or a run written before the file existed).
	service [][]*hdr.PackedHistogram
}

// readIntervals reads intervals.csv: the op types from the header, each row's counts.
func readIntervals(path string) (ops []string, rows []row, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil && !partial(path) {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if n := len(recs); partial(path) && n > 1 && len(recs[n-1]) != len(recs[0]) {
		recs = recs[:n-1] // the row being written when the shard was killed
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s is empty", path)
	}
	head := recs[0]
	for _, h := range head[3:] {
		if n, ok := strings.CutSuffix(h, "_per_sec"); ok && n != "arrivals" {
			ops = append(ops, n)
		}
	}
	open := len(head) == 3+5*len(ops)+len(archive.OpenLoopColumns)
	prev := make([]int64, len(ops))
	for i, rec := range recs[1:] {
		r, err := parseRow(rec, len(ops), open, prev)
		if err != nil {
			return nil, nil, fmt.Errorf("%s line %d: %w", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return ops, rows, nil
}

// parseRow turns one CSV row into counts; prev holds the running totals before it.
func parseRow(rec []string, nops int, open bool, prev []int64) (row, error) {
	var r row
	var err error
	num := func(s string) float64 {
		v, e := strconv.ParseFloat(s, 64)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	r.tMs, r.endMs, r.seconds = int64(math.Round(num(rec[0])*1000)), int64(num(rec[1])), num(rec[2])
	r.units, r.errors = make([]int64, nops), make([]int64, nops)
	for o := range nops {
		c := rec[3+5*o:]
		total := int64(num(c[1]))
		r.units[o], prev[o] = total-prev[o], total
		r.errors[o] = int64(num(c[2]))
	}
	if open {
		c := rec[3+5*nops:]
		r.openLoop = true
		r.arrivals = openLoopRow(num(c[0]), r.seconds)
		r.dropped, r.backlog, r.lagMaxUs = int64(num(c[1])), int64(num(c[2])), num(c[3])
	}
	return r, err
}

// openLoopRow recovers an interval's arrivals from intervals.csv's arrivals_per_sec (one
// decimal) and interval_sec (three): exact while the rate's rounding, times the interval, stays
// under half an arrival, i.e. below about 1,000 arrivals in the interval; the step's totals in
// summary.json's open_loop are always exact.
func openLoopRow(perSec, seconds float64) int64 { return int64(math.Round(perSec * seconds)) }

// hlogLine is one histogram of latency.hlog, with its instants in unix ms.
type hlogLine struct {
	tag            string
	startMs, endMs int64
	hist           *hdr.PackedHistogram
}

// readHlog reads latency.hlog's histograms. Timestamps are read from the text, not through
// floating point seconds since the epoch, so that each histogram's end matches its row's unix_ms.
func readHlog(path string) ([]hlogLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []hlogLine
	var baseMs int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if b, ok := strings.CutPrefix(line, "#[BaseTime: "); ok {
			secs, _, _ := strings.Cut(b, " ")
			v, err := strconv.ParseFloat(secs, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", path, line, err)
			}
			baseMs = int64(math.Round(v * 1000))
			continue
		}
		if !strings.HasPrefix(line, "Tag=") {
			continue
		}
		f := strings.Split(strings.TrimPrefix(line, "Tag="), ",")
		if len(f) != 5 && partial(path) {
			break
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("%s: a line of %d fields: %.60q", path, len(f), line)
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		length, err2 := strconv.ParseFloat(f[2], 64)
		h, err3 := hdr.DecodePacked([]byte(f[4]))
		if err := firstErr(err1, err2, err3); err != nil {
			if partial(path) {
				break // the line being written when the shard was killed
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s := baseMs + int64(math.Round(start*1000))
		out = append(out, hlogLine{tag: f[0], startMs: s, endMs: s + int64(math.Round(length*1000)), hist: h})
	}
	return out, sc.Err()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// readStep reads a shard's intervals.csv, latency.hlog and service.hlog (if any) and puts
// each histogram with its row: the row whose unix_ms is the histogram's end (both are the
// runner's interval end).
func readStep(dir string) (*stepFiles, error) {
	ops, rows, err := readIntervals(stepFile(dir, "intervals.csv"))
	if err != nil {
		return nil, err
	}
	sf := &stepFiles{ops: ops, rows: rows}
	if sf.hists, err = sf.attach(dir, "latency.hlog", true); err != nil {
		return nil, err
	}
	if _, err := os.Stat(stepFile(dir, archive.ServiceLog)); err == nil {
		if sf.service, err = sf.attach(dir, archive.ServiceLog, false); err != nil {
			return nil, err
		}
	}
	return sf, nil
}

// attach reads an interval log of the step and returns its histograms by row and op type;
// starts says whether the log's interval starts are the rows' (latency.hlog's are).
func (sf *stepFiles) attach(dir, name string, starts bool) ([][]*hdr.PackedHistogram, error) {
	path := stepFile(dir, name)
	lines, err := readHlog(path)
	if err != nil {
		return nil, err
	}
	out := make([][]*hdr.PackedHistogram, len(sf.rows))
	byEnd := map[int64]int{}
	for i, r := range sf.rows {
		byEnd[r.endMs] = i
		out[i] = make([]*hdr.PackedHistogram, len(sf.ops))
	}
	opIdx := map[string]int{}
	for i, o := range sf.ops {
		opIdx[o] = i
	}
	for _, l := range lines {
		i, ok := byEnd[l.endMs]
		o, known := opIdx[l.tag]
		if !ok && known && partial(path) {
			continue // a second whose row the killed shard did not write
		}
		if !ok || !known {
			return nil, fmt.Errorf("%s/%s: a histogram of %s ending at %d ms has no row in intervals.csv", dir, name, l.tag, l.endMs)
		}
		if out[i][o] != nil {
			return nil, fmt.Errorf("%s/%s: two histograms of %s end at %d ms", dir, name, l.tag, l.endMs)
		}
		out[i][o] = l.hist
		if starts {
			sf.rows[i].startMs = l.startMs
		}
	}
	return out, nil
}

// startMs is the instant the step's files count t_sec from, on the shard's clock.
func (sf *stepFiles) startMs() (int64, bool) {
	if len(sf.rows) == 0 {
		return 0, false
	}
	return sf.rows[0].endMs - sf.rows[0].tMs, true
}

// partial tells whether a step file is the stream of a shard killed in the step.
func partial(path string) bool { return strings.HasSuffix(path, ".partial") }

// stepFile is a step's file, or its .partial stream when the shard was killed in the step
// (its seconds until then are whole rows: the streams are written row by row).
func stepFile(dir, name string) string {
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		if _, perr := os.Stat(p + ".partial"); perr == nil {
			return p + ".partial"
		}
	}
	return p
}

// summaryOf stands in for the summary.json of a shard killed in the step: its counts from its
// rows, its instants from its first and last row, not complete.
func (sf *stepFiles) summaryOf(name string, shard int) archive.Step {
	s := archive.Step{Step: name, Ops: map[string]measure.OpSummary{},
		Error: fmt.Sprintf("shard %d stopped in this step without ending it (killed): its seconds until then are merged", shard)}
	if from, ok := sf.startMs(); ok {
		s.Start, s.End = time.UnixMilli(from), time.UnixMilli(sf.rows[len(sf.rows)-1].endMs)
	}
	for o, op := range sf.ops {
		var sum measure.OpSummary
		for j, r := range sf.rows {
			sum.Count += r.units[o]
			sum.Errors += r.errors[o]
			if h := sf.hists[j][o]; h != nil {
				sum.Statements += h.TotalCount()
			}
		}
		s.Ops[op] = sum
	}
	return s
}

// total is the step's histogram of op o: every interval's, added bucket by bucket. The runner's
// step total is the same sum of the same intervals, so its figures are the summary's.
func (sf *stepFiles) total(o int) *hdr.PackedHistogram {
	t := measure.NewPacked()
	for _, hs := range sf.hists {
		if hs[o] != nil {
			t.Merge(hs[o])
		}
	}
	return t
}

// serviceOf is row j's service-time histograms (nil without service.hlog).
func (sf *stepFiles) serviceOf(j int) []*hdr.PackedHistogram {
	if sf.service == nil {
		return nil
	}
	return sf.service[j]
}

// copyFile copies a file into dir, keeping its name; a missing file is no error (a step without
// monitoring has no host.csv).
func copyFile(src, dstDir string) error {
	in, err := os.Open(src)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	b, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dstDir, 0o755); err != nil {
		return err
	}
	return archive.WriteFile(filepath.Join(dstDir, filepath.Base(src)), b)
}
