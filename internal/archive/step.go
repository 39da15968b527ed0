package archive

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/measure"
)

// StepWriter streams one step's per-second files while it runs.
type StepWriter struct {
	dir       string
	ops       []measure.OpType
	start     time.Time
	intervals *Stream
	hlog      *hdr.HistogramLogWriter
	service   *hdr.HistogramLogWriter // service.hlog: open-loop steps only
	totals    []int64
	openLoop  bool
	streams   []*Stream // every file streamed, renamed by Finish
}

// TSec is the t_sec column of a row ending at at: seconds since the step started, in
// milliseconds. Every per-interval file of a step (intervals.csv, host.csv, dbms.csv) and the
// stall list use it, so that their rows line up exactly.
func (w *StepWriter) TSec(at time.Time) float64 {
	return measure.Round(at.Sub(w.start).Seconds(), 3)
}

// Stream is a file of a step written while it runs (intervals.csv, latency.hlog, host.csv,
// dbms.csv), under a .partial name until Finish renames it.
type Stream struct {
	name string
	f    *os.File
	w    *bufio.Writer
	csv  *csv.Writer
	gz   *gzip.Writer // a compressed stream's (counters.csv.gz), closed before the file
}

// open starts a streamed file.
func (w *StepWriter) open(name string) (*Stream, error) {
	f, err := os.Create(filepath.Join(w.dir, name+".partial"))
	if err != nil {
		return nil, err
	}
	st := &Stream{name: name, f: f, w: bufio.NewWriter(f)}
	st.csv = csv.NewWriter(st.w)
	w.streams = append(w.streams, st)
	return st, nil
}

// Stream opens a CSV file of the step with its header.
func (w *StepWriter) Stream(name string, header []string) (*Stream, error) {
	st, err := w.open(name)
	if err != nil {
		return nil, err
	}
	return st, st.Write(header)
}

// close flushes, syncs and renames the file to its final name.
func (s *Stream) close() error {
	s.csv.Flush()
	err := s.csv.Error()
	if err == nil {
		err = s.w.Flush()
	}
	if err == nil && s.gz != nil {
		err = s.gz.Close()
	}
	if err == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(s.f.Name(), strings.TrimSuffix(s.f.Name(), ".partial"))
	}
	return err
}

// Write appends one CSV row. It is buffered: the file is written when the buffer fills and at
// close, which reports any error writing it.
func (s *Stream) Write(row []string) error { return s.csv.Write(row) }

// NotApplicable is the key of summary.json's workload map that says, with the reason, that the
// target cannot run the step as its reference means it, so it was not run (a key-value engine
// without batched reads); the reports show such a step as n/a, not as a checked one.
const NotApplicable = "not_applicable"

// IntervalColumns are the columns of intervals.csv for a step's op types: for each op, its rate
// in the interval (units/s), running total, errors in the interval, and the interval's p99 and
// max latency (µs).
func IntervalColumns(ops []measure.OpType) []string {
	cols := []string{"t_sec", "unix_ms", "interval_sec"}
	for _, o := range ops {
		n := o.Name
		cols = append(cols, n+"_per_sec", n+"_total", n+"_errors", n+"_p99_us", n+"_max_us")
	}
	return cols
}

// OpenLoopColumns end intervals.csv's rows of a step with an open-loop stream: arrivals a
// second, arrivals dropped (the backlog was full), arrivals waiting at the interval's end, and
// the latest an arrival was handed out after it was due (µs), over every open-loop stream of the
// step (the Insert Benchmark's rate-limited inserters included).
var OpenLoopColumns = []string{"arrivals_per_sec", "dropped", "backlog", "lag_max_us"}

// StartStep creates the step's directory (named after the step, in the run directory) and
// opens its streamed files.
func (d *Dir) StartStep(step string, ops []measure.OpType, start time.Time) (*StepWriter, error) {
	return d.StartStepOpen(step, ops, start, false)
}

// StartStepOpen is StartStep for a step that may have an open-loop stream, whose figures a
// second then end intervals.csv's rows (OpenLoopColumns).
func (d *Dir) StartStepOpen(step string, ops []measure.OpType, start time.Time, openLoop bool) (*StepWriter, error) {
	dir := filepath.Join(d.Path, step)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &StepWriter{dir: dir, ops: ops, start: start, totals: make([]int64, len(ops)), openLoop: openLoop}
	cols := IntervalColumns(ops)
	if openLoop {
		cols = append(cols, OpenLoopColumns...)
	}
	var err error
	if w.intervals, err = w.Stream("intervals.csv", cols); err != nil {
		return nil, err
	}
	hl, err := w.open("latency.hlog")
	if err != nil {
		w.intervals.f.Close()
		return nil, err
	}

	w.hlog = w.startLog(hl, fmt.Sprintf("[dbperf step %s: latency in nanoseconds, one histogram per op type a second, tagged with the op type; Interval_Max in ms]", step))
	if openLoop {
		sl, err := w.open(ServiceLog)
		if err != nil {
			w.intervals.f.Close()
			hl.f.Close()
			return nil, err
		}
		w.service = w.startLog(sl, fmt.Sprintf("[dbperf step %s: open-loop service time (from the actual send) in nanoseconds, one histogram per op type a second, tagged with the op type; Interval_Max in ms]", step))
	}
	return w, nil
}

// ServiceLog is the interval log of an open-loop step's service times, beside latency.hlog's
// response times: the merge of a sharded run adds it up as it adds latency.hlog, so that the
// merged summary's service percentiles are exact (docs/archive.md).
const ServiceLog = "service.hlog"

// startLog writes an interval log's header. The log's StartTime and BaseTime lines have whole
// seconds; interval timestamps are relative to that same whole second so that base + offset is
// exact.
func (w *StepWriter) startLog(st *Stream, comment string) *hdr.HistogramLogWriter {
	base := w.start.Unix() * 1000
	l := hdr.NewHistogramLogWriter(st.w)
	l.OutputLogFormatVersion()
	l.OutputComment(comment)
	l.OutputStartTime(base)
	l.OutputBaseTime(base)
	l.SetBaseTime(base)
	l.OutputLegend()
	return l
}

// Interval appends one interval to intervals.csv and latency.hlog, and its service times to
// service.hlog.
func (w *StepWriter) Interval(iv *measure.Interval) error {
	secs := iv.Seconds()
	row := []string{
		strconv.FormatFloat(w.TSec(iv.End), 'f', 3, 64),
		strconv.FormatInt(iv.End.UnixMilli(), 10),
		strconv.FormatFloat(secs, 'f', 3, 64),
	}
	for o, op := range w.ops {
		a := &iv.Ops[o]
		w.totals[o] += a.Units
		p99, max := a.Hist.ValueAtPercentile(99), a.Hist.Max()
		row = append(row,
			strconv.FormatFloat(iv.PerSec(measure.Op(o)), 'f', 1, 64),
			strconv.FormatInt(w.totals[o], 10),
			strconv.FormatInt(a.Errors, 10),
			strconv.FormatFloat(measure.Micros(p99), 'f', 1, 64),
			strconv.FormatFloat(measure.Micros(max), 'f', 1, 64),
		)
		if a.Hist.TotalCount() > 0 {
			a.Hist.SetTag(op.Name)
			a.Hist.SetStartTimeMs(iv.Start.UnixMilli())
			a.Hist.SetEndTimeMs(iv.End.UnixMilli())
			if err := w.hlog.OutputIntervalPackedHistogram(a.Hist); err != nil {
				return err
			}
		}
		if w.service != nil && a.Service != nil && a.Service.TotalCount() > 0 {
			a.Service.SetTag(op.Name)
			a.Service.SetStartTimeMs(iv.Start.UnixMilli())
			a.Service.SetEndTimeMs(iv.End.UnixMilli())
			if err := w.service.OutputIntervalPackedHistogram(a.Service); err != nil {
				return err
			}
		}
	}
	if w.openLoop {
		row = append(row, strconv.FormatFloat(float64(iv.Arrivals)/max(secs, 1e-9), 'f', 1, 64), strconv.FormatInt(iv.Dropped, 10),
			strconv.FormatInt(iv.Backlog, 10), strconv.FormatFloat(measure.Micros(int64(iv.LagMax)), 'f', 1, 64))
	}
	return w.intervals.Write(row)
}

// Finish flushes and renames the streamed files and writes summary.json. It is called for
// finished and interrupted steps alike; the summary says which. A step whose files could not
// be written (a full disk: the buffered rows only reach the disk here) is not complete, and its
// summary.json says so when it can still be written.
func (w *StepWriter) Finish(s Step) error {
	var errs []error
	for _, st := range w.streams {
		if err := st.close(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		s.Complete = false
		if s.Error == "" {
			s.Error = writeError(s.Step, errs).Error()
		}
	}
	if err := WriteJSON(filepath.Join(w.dir, "summary.json"), s); err != nil {
		errs = append(errs, err)
	}
	return writeError(s.Step, errs)
}

// writeError is the first of a step's write errors, which is its cause (a full disk fails
// every file after it alike), with how many other files failed; nil for none.
func writeError(step string, errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("writing step %s: %w", step, errs[0])
	}
	return fmt.Errorf("writing step %s: %w (and %d more of its files)", step, errs[0], len(errs)-1)
}
