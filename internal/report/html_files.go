package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// The step files the HTML report draws from: intervals.csv, host.csv and latency.hlog.

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
			f.sortTags()
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

// intervalCount is the number of rows of the step's intervals.csv: the points of a chart over time.
func (f *htmlStepFiles) intervalCount() int {
	if f == nil || f.intervals == nil {
		return 0
	}
	return len(f.intervals.cols["t_sec"])
}

// sortTags puts the latency log's op types in their declared order, so that every chart lists
// them alike; undeclared ones last, in the log's order.
func (f *htmlStepFiles) sortTags() {
	place := func(tag string) int {
		for i, o := range f.figures.Ops {
			if o.Name == tag {
				return i
			}
		}
		return len(f.figures.Ops)
	}
	sort.SliceStable(f.tags, func(i, j int) bool { return place(f.tags[i]) < place(f.tags[j]) })
}
