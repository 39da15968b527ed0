package archive

import (
	"bufio"
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
	ops       []measure.Op
	start     time.Time
	csvF, hlF *os.File
	csv, hl   *bufio.Writer
	hlog      *hdr.HistogramLogWriter
	totals    [measure.NumOps]int64
}

// IntervalColumns are the columns of intervals.csv for a step's op types: for each op, its rate
// in the interval (units/s), running total, errors in the interval, and the interval's p99 and
// max latency (µs).
func IntervalColumns(ops []measure.Op) []string {
	cols := []string{"t_sec", "unix_ms", "interval_sec"}
	for _, o := range ops {
		n := o.String()
		cols = append(cols, n+"_per_sec", n+"_total", n+"_errors", n+"_p99_us", n+"_max_us")
	}
	return cols
}

// StartStep creates the step's directory (named after the step, in the run directory) and
// opens its streamed files.
func (d *Dir) StartStep(step string, ops []measure.Op, start time.Time) (*StepWriter, error) {
	dir := filepath.Join(d.Path, step)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &StepWriter{dir: dir, ops: ops, start: start}
	var err error
	if w.csvF, err = os.Create(filepath.Join(dir, "intervals.csv.partial")); err != nil {
		return nil, err
	}
	if w.hlF, err = os.Create(filepath.Join(dir, "latency.hlog.partial")); err != nil {
		w.csvF.Close()
		return nil, err
	}
	w.csv, w.hl = bufio.NewWriter(w.csvF), bufio.NewWriter(w.hlF)
	fmt.Fprintln(w.csv, strings.Join(IntervalColumns(ops), ","))

	// The log's StartTime and BaseTime lines have whole seconds; interval timestamps are relative
	// to that same whole second so that base + offset is exact.
	base := start.Unix() * 1000
	w.hlog = hdr.NewHistogramLogWriter(w.hl)
	w.hlog.OutputLogFormatVersion()
	w.hlog.OutputComment(fmt.Sprintf("[dbperf step %s: latency in nanoseconds, one histogram per op type a second, tagged with the op type; Interval_Max in ms]", step))
	w.hlog.OutputStartTime(base)
	w.hlog.OutputBaseTime(base)
	w.hlog.SetBaseTime(base)
	w.hlog.OutputLegend()
	return w, nil
}

// Interval appends one interval to intervals.csv and latency.hlog.
func (w *StepWriter) Interval(iv *measure.Interval) error {
	secs := iv.Seconds()
	row := []string{
		strconv.FormatFloat(iv.End.Sub(w.start).Seconds(), 'f', 3, 64),
		strconv.FormatInt(iv.End.UnixMilli(), 10),
		strconv.FormatFloat(secs, 'f', 3, 64),
	}
	for _, o := range w.ops {
		a := iv.Ops[o]
		w.totals[o] += a.Units
		p99, max := a.Hist.ValueAtQuantile(99), a.Hist.Max()
		row = append(row,
			strconv.FormatFloat(iv.PerSec(o), 'f', 1, 64),
			strconv.FormatInt(w.totals[o], 10),
			strconv.FormatInt(a.Errors, 10),
			strconv.FormatFloat(measure.Micros(p99), 'f', 1, 64),
			strconv.FormatFloat(measure.Micros(max), 'f', 1, 64),
		)
		if a.Hist.TotalCount() > 0 {
			a.Hist.SetTag(o.String())
			a.Hist.SetStartTimeMs(iv.Start.UnixMilli())
			a.Hist.SetEndTimeMs(iv.End.UnixMilli())
			if err := w.hlog.OutputIntervalHistogram(a.Hist); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w.csv, strings.Join(row, ","))
	return err
}

// Finish flushes and renames the streamed files and writes summary.json. It is called for
// finished and interrupted steps alike; the summary says which.
func (w *StepWriter) Finish(s Step) error {
	var errs []error
	for _, f := range []struct {
		b    *bufio.Writer
		f    *os.File
		name string
	}{{w.csv, w.csvF, "intervals.csv"}, {w.hl, w.hlF, "latency.hlog"}} {
		err := f.b.Flush()
		if err == nil {
			err = f.f.Sync()
		}
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.f.Name(), filepath.Join(w.dir, f.name))
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := WriteJSON(filepath.Join(w.dir, "summary.json"), s); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("writing step %s: %v", s.Step, errs)
	}
	return nil
}
