package archive

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// counters.csv.gz: every DBMS counter of a step, once per interval, in long form. Only values
// that changed are written, so a few hundred counters of which most stand still cost little
// (docs/counters.md has the measured size). Rows are t_sec,name,value,kind:
//
//   - a tick row (empty name) opens each sample: value is the wall clock in ms, kind is empty,
//     or "error" when the sample failed and no value is known at that tick;
//   - a counter row gives the counter's value at that tick when it differs from the last one
//     written; its kind ("counter" or "gauge", "" when the driver did not say) is written on
//     the first row of each name only;
//   - a counter row with an empty value says the counter was not read at that tick (its query
//     timed out, or the row went away): unknown there, never carried forward.

// CountersFile is the name of a step's long-format counters file.
const CountersFile = "counters.csv.gz"

// CounterKind says whether rates can be taken of a counter.
type CounterKind uint8

const (
	KindUnknown    CounterKind = iota // an old dbms.csv, or a driver that did not say
	KindCumulative                    // a running total: its rate is meaningful
	KindGauge                         // a level: only its value is
)

func (k CounterKind) String() string {
	switch k {
	case KindCumulative:
		return "counter"
	case KindGauge:
		return "gauge"
	}
	return ""
}

func parseKind(s string) CounterKind {
	switch s {
	case "counter":
		return KindCumulative
	case "gauge":
		return KindGauge
	}
	return KindUnknown
}

// CountersWriter streams counters.csv.gz. It is used from the monitor's goroutine only.
type CountersWriter struct {
	st    *Stream
	last  map[string]float64 // last value written; NaN after an empty cell
	names []string           // every name written, in first-seen order
}

// Counters opens the step's counters.csv.gz (as .partial until Finish).
func (w *StepWriter) Counters() (*CountersWriter, error) {
	f, err := os.Create(filepath.Join(w.dir, CountersFile+".partial"))
	if err != nil {
		return nil, err
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.DefaultCompression)
	st := &Stream{name: CountersFile, f: f, gz: gz, w: bufio.NewWriter(gz)}
	st.csv = csv.NewWriter(st.w)
	w.streams = append(w.streams, st)
	if err := st.Write([]string{"t_sec", "name", "value", "kind"}); err != nil {
		return nil, err
	}
	return &CountersWriter{st: st, last: map[string]float64{}}, nil
}

// Sample writes the counters read at tSec. failed says the sample failed as a whole (vals is
// then ignored); otherwise a known counter missing from vals is written as unknown at this
// tick. kind is asked once per new name.
func (c *CountersWriter) Sample(tSec float64, unixMs int64, vals map[string]float64, failed bool, kind func(string) CounterKind) error {
	status := ""
	if failed {
		status = "error"
	}
	if err := c.st.Write([]string{ftoa3(tSec), "", strconv.FormatInt(unixMs, 10), status}); err != nil {
		return err
	}
	if failed {
		for _, n := range c.names {
			c.last[n] = math.NaN()
		}
		return nil
	}
	t := ftoa3(tSec)
	for _, n := range c.names {
		v, ok := vals[n]
		old := c.last[n]
		switch {
		case !ok && !math.IsNaN(old):
			c.last[n] = math.NaN()
			if err := c.st.Write([]string{t, n, "", ""}); err != nil {
				return err
			}
		case ok && (v != old || math.IsNaN(old)):
			c.last[n] = v
			if err := c.st.Write([]string{t, n, strconv.FormatFloat(v, 'g', -1, 64), ""}); err != nil {
				return err
			}
		}
	}
	var fresh []string
	for n := range vals {
		if _, seen := c.last[n]; !seen {
			fresh = append(fresh, n)
		}
	}
	sort.Strings(fresh)
	for _, n := range fresh {
		v := vals[n]
		c.last[n] = v
		c.names = append(c.names, n)
		if err := c.st.Write([]string{t, n, strconv.FormatFloat(v, 'g', -1, 64), kind(n).String()}); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes what is buffered, so that the .partial file reads whole so far.
func (c *CountersWriter) Flush() error {
	c.st.csv.Flush()
	if err := c.st.csv.Error(); err != nil {
		return err
	}
	if err := c.st.w.Flush(); err != nil {
		return err
	}
	return c.st.gz.Flush()
}

// Dir is the step's directory.
func (w *StepWriter) Dir() string { return w.dir }

// StallCounters are the counters that moved most in one stall of a step (summary.json's
// host.stall_counters): from and to are the stall's window in seconds since the step started.
type StallCounters struct {
	FromSec float64        `json:"from_sec"`
	ToSec   float64        `json:"to_sec"`
	Moved   []MovedCounter `json:"moved"`
}

// MovedCounter is a counter's figure in a stall (a running total's rate a second, a gauge's
// mean) beside the step's median second.
type MovedCounter struct {
	Name   string  `json:"name"`
	Stall  float64 `json:"stall"`
	Median float64 `json:"median"`
	Gauge  bool    `json:"gauge,omitempty"`
}

func ftoa3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// CounterSeries is a step's counters read back: one value per tick for each counter, NaN where
// it is not known.
type CounterSeries struct {
	TSec   []float64
	UnixMs []int64
	Names  []string // sorted
	Kinds  map[string]CounterKind
	Values map[string][]float64
}

// ReadCounters reads a step's counters: counters.csv.gz, or its .partial of an interrupted
// step, or the dbms.csv of a run written before counters.csv.gz existed (kinds unknown). A
// truncated file gives the ticks read before the cut.
func ReadCounters(stepDir string) (*CounterSeries, error) {
	for _, name := range []string{CountersFile, CountersFile + ".partial"} {
		f, err := os.Open(filepath.Join(stepDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readLong(f)
	}
	return readWide(filepath.Join(stepDir, "dbms.csv"))
}

func readLong(f io.Reader) (*CounterSeries, error) {
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", CountersFile, err)
	}
	r := csv.NewReader(bufio.NewReader(gz))
	r.FieldsPerRecord = 4
	r.ReuseRecord = true
	s := &CounterSeries{Kinds: map[string]CounterKind{}, Values: map[string][]float64{}}
	cur := map[string]float64{} // the values carried forward to the current tick
	flush := func() {
		for n, v := range cur {
			s.Values[n] = append(s.Values[n], v)
		}
	}
	for line := 0; ; line++ {
		rec, err := r.Read()
		if err != nil {
			if err != io.EOF && len(s.TSec) == 0 {
				return nil, fmt.Errorf("%s: %v", CountersFile, err)
			}
			break // a cut file keeps the ticks read so far
		}
		if line == 0 {
			continue
		}
		if rec[1] == "" { // a tick
			if len(s.TSec) > 0 {
				flush()
			}
			t, _ := strconv.ParseFloat(rec[0], 64)
			ms, _ := strconv.ParseInt(rec[2], 10, 64)
			s.TSec, s.UnixMs = append(s.TSec, t), append(s.UnixMs, ms)
			if rec[3] == "error" {
				for n := range cur {
					cur[n] = math.NaN()
				}
			}
			continue
		}
		n := rec[1]
		if _, ok := cur[n]; !ok {
			s.Kinds[n] = parseKind(rec[3])
			s.Names = append(s.Names, n)
			s.Values[n] = nanSlice(len(s.TSec) - 1)
		}
		v := math.NaN()
		if rec[2] != "" {
			v, _ = strconv.ParseFloat(rec[2], 64)
		}
		cur[n] = v
	}
	if len(s.TSec) > 0 {
		flush()
	}
	sort.Strings(s.Names)
	return s, nil
}

func nanSlice(n int) []float64 {
	s := make([]float64, max(n, 0))
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// readWide reads an old dbms.csv: t_sec, unix_ms, then one column per counter.
func readWide(path string) (*CounterSeries, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	s := &CounterSeries{Kinds: map[string]CounterKind{}, Values: map[string][]float64{}}
	if len(rows) == 0 || len(rows[0]) < 2 {
		return s, nil
	}
	head := rows[0]
	for _, n := range head[2:] {
		s.Names = append(s.Names, n)
		s.Kinds[n] = KindUnknown
	}
	for _, row := range rows[1:] {
		t, _ := strconv.ParseFloat(row[0], 64)
		ms, _ := strconv.ParseInt(row[1], 10, 64)
		s.TSec, s.UnixMs = append(s.TSec, t), append(s.UnixMs, ms)
		for i, n := range head[2:] {
			v := math.NaN()
			if i+2 < len(row) && strings.TrimSpace(row[i+2]) != "" {
				v, _ = strconv.ParseFloat(row[i+2], 64)
			}
			s.Values[n] = append(s.Values[n], v)
		}
	}
	sort.Strings(s.Names)
	return s, nil
}
