package archive

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/measure"
)

// listFiles returns every name under dir (relative, sorted by the walk).
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestWriteFileReplacesAndLeavesNoTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	for _, content := range []string{"first, longer content\n", "second\n", ""} {
		if err := WriteFile(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("after WriteFile(%q) the file holds %q", content, got)
		}
		if names := listFiles(t, dir); !reflect.DeepEqual(names, []string{"run.json"}) {
			t.Fatalf("directory holds %v after WriteFile, want only run.json", names)
		}
	}
}

func TestWriteFileErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "missing", "x.json"), []byte("x")); err == nil {
		t.Fatal("WriteFile into a missing directory: no error")
	}
	// A path that is a directory cannot be replaced by a file: the temporary file must go.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "sub"), []byte("x")); err == nil {
		t.Fatal("WriteFile over a non-empty directory: no error")
	}
	if names := listFiles(t, dir); !reflect.DeepEqual(names, []string{"sub", "sub/keep"}) {
		t.Fatalf("directory holds %v after failed writes, want only sub and sub/keep", names)
	}
}

func TestWriteJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	if err := WriteJSON(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if want := "{\n  \"a\": 1\n}\n"; string(got) != want {
		t.Fatalf("WriteJSON wrote %q, want %q", got, want)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("WriteJSON made a file with mode %v (%v), want 0644 like the run's other files", fi.Mode().Perm(), err)
	}
	if err := WriteJSON(p, func() {}); err == nil {
		t.Fatal("WriteJSON of a func: no error")
	}
	got, _ = os.ReadFile(p)
	if want := "{\n  \"a\": 1\n}\n"; string(got) != want {
		t.Fatalf("a failed WriteJSON changed the file to %q", got)
	}
}

func TestCreate(t *testing.T) {
	base := t.TempDir()

	// A new directory, with parents.
	p := filepath.Join(base, "a", "run1")
	d, err := Create(p, Run{Name: "run1", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != p || d.Meta.Name != "run1" {
		t.Fatalf("Create = %+v", d)
	}
	meta, steps, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Name != "run1" || meta.Seed != 7 || len(steps) != 0 {
		t.Fatalf("Read after Create = %+v, %v", meta, steps)
	}

	// It now exists and is not empty: refused, and the message names --out.
	_, err = Create(p, Run{Name: "again"})
	if err == nil {
		t.Fatal("Create over an existing run: no error")
	}
	if !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %q does not name the path and --out", err)
	}
	meta, _, _ = Read(p)
	if meta.Name != "run1" {
		t.Fatalf("the refused Create overwrote run.json: name %q", meta.Name)
	}

	// Any non-empty directory is refused, even without run.json.
	other := filepath.Join(base, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Create(other, Run{}); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("Create in a non-empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "run.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused Create wrote run.json: %v", err)
	}

	// An existing empty directory is accepted.
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := Create(empty, Run{Name: "e"}); err != nil {
		t.Fatalf("Create in an empty directory: %v", err)
	}
	if names := listFiles(t, empty); !reflect.DeepEqual(names, []string{"run.json"}) {
		t.Fatalf("empty directory holds %v after Create, want run.json", names)
	}
}

func TestReadNotARun(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Read(dir)
	if err == nil || !strings.Contains(err.Error(), "not a dbperf run directory") {
		t.Fatalf("Read of an empty directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "run.json"), []byte("{not json"), 0o644)
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Fatalf("Read of a malformed run.json: %v", err)
	}
}

// The op types of the test steps, by index.
const (
	opInsert measure.Op = iota
	opDelete
)

// interval builds one interval: for each op, latencies (ns), units and errors.
type opData struct {
	lat    []int64
	units  int64
	errors int64
}

func makeInterval(ops []measure.OpType, start, end time.Time, data map[measure.Op]opData) *measure.Interval {
	iv := measure.NewInterval(len(ops))
	iv.Start, iv.End = start, end
	for o, d := range data {
		a := &iv.Ops[o]
		for _, v := range d.lat {
			a.Hist.RecordValue(v)
		}
		a.Units, a.Statements, a.Errors = d.units, int64(len(d.lat)), d.errors
	}
	return iv
}

func micros(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) }

func TestStepCycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	d, err := Create(dir, Run{Name: "r", Workload: "insert-benchmark", Target: Target{Kind: "pebble"}})
	if err != nil {
		t.Fatal(err)
	}
	ops := []measure.OpType{{Name: "insert"}, {Name: "delete"}}
	// A start time with a fraction of a second: the hlog's base time is the whole second.
	start := time.Unix(1700000000, 250_000_000)
	sec := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }

	d.Meta.Steps = append(d.Meta.Steps, StepStatus{Name: "l.i1", Dir: "l.i1"})
	if err := d.WriteMeta(); err != nil {
		t.Fatal(err)
	}
	w, err := d.StartStep("l.i1", ops, start)
	if err != nil {
		t.Fatal(err)
	}
	var ins1 []int64 // 10, 20, ... 1000 ns, then one 5 ms outlier (not exact in the histogram)
	for v := int64(10); v <= 1000; v += 10 {
		ins1 = append(ins1, v)
	}
	ins1 = append(ins1, 5_000_000)
	ins3 := []int64{700, 800}
	del1 := []int64{1500}
	ivs := []*measure.Interval{
		makeInterval(ops, sec(0), sec(1), map[measure.Op]opData{
			opInsert: {lat: ins1, units: 500, errors: 1},
			opDelete: {lat: del1, units: 50},
		}),
		// A second in which nothing happened.
		makeInterval(ops, sec(1), sec(3), nil),
		makeInterval(ops, sec(3), sec(3.5), map[measure.Op]opData{
			opInsert: {lat: ins3, units: 200, errors: 2},
		}),
	}
	// What each interval's hlog histogram must hold, in order: (tag, values).
	type wantHist struct {
		tag        string
		count      int64
		start, end int64 // ms
		max        int64
	}
	var wantHists []wantHist
	for _, iv := range ivs {
		for o, op := range ops {
			if n := iv.Ops[o].Hist.TotalCount(); n > 0 {
				wantHists = append(wantHists, wantHist{op.Name, n, iv.Start.UnixMilli(), iv.End.UnixMilli(), iv.Ops[o].Hist.Max()})
			}
		}
	}
	// The expected csv cells, computed independently of the writer.
	p99Max := func(vals []int64) (string, string) {
		if len(vals) == 0 {
			return "0.0", "0.0"
		}
		h := measure.NewHistogram()
		for _, v := range vals {
			h.RecordValue(v)
		}
		return micros(h.ValueAtQuantile(99)), micros(h.Max())
	}
	ip1, im1 := p99Max(ins1)
	ip3, im3 := p99Max(ins3)
	if ip1 != "1.0" || im1 != "5001.2" { // the independent computation itself
		t.Fatalf("p99 and max of interval 1 computed as %s and %s µs, want 1.0 and 5001.2", ip1, im1)
	}
	dp1, dm1 := p99Max(del1)
	wantRows := [][]string{
		{"1.000", "1700000001250", "1.000", "500.0", "500", "1", ip1, im1, "50.0", "50", "0", dp1, dm1},
		{"3.000", "1700000003250", "2.000", "0.0", "500", "0", "0.0", "0.0", "0.0", "50", "0", "0.0", "0.0"},
		{"3.500", "1700000003750", "0.500", "400.0", "700", "2", ip3, im3, "0.0", "50", "0", "0.0", "0.0"},
	}

	for _, iv := range ivs {
		if err := w.Interval(iv); err != nil {
			t.Fatal(err)
		}
	}
	// While the step runs only the streamed files exist, under their partial names.
	if names := listFiles(t, filepath.Join(dir, "l.i1")); !reflect.DeepEqual(names, []string{"intervals.csv.partial", "latency.hlog.partial"}) {
		t.Fatalf("step directory during the step holds %v", names)
	}
	sum := Step{
		Step: "l.i1", Complete: true, Start: start, End: sec(3.5), Seconds: 3.5, Errors: 3,
		Ops: map[string]measure.OpSummary{
			"insert": {Count: 700, Statements: 103, PerSec: 200, P99Us: 5002.2, Buckets: []measure.Bucket{{UpTo: "256us", Count: 103}}},
			"delete": {Count: 50, Statements: 1, PerSec: 14.286},
		},
		Verified: true, Problems: []string{"none really"}, Workload: map[string]any{"x": 1.5},
	}
	if err := w.Finish(sum); err != nil {
		t.Fatal(err)
	}

	stepDir := filepath.Join(dir, "l.i1")
	if names := listFiles(t, stepDir); !reflect.DeepEqual(names, []string{"intervals.csv", "latency.hlog", "summary.json"}) {
		t.Fatalf("step directory holds %v, want intervals.csv, latency.hlog, summary.json and nothing partial", names)
	}
	for _, n := range listFiles(t, dir) {
		if strings.Contains(n, ".partial") || strings.Contains(n, ".tmp") {
			t.Fatalf("%s remains in the run directory", n)
		}
	}

	// intervals.csv: the header, then one row per interval.
	f, err := os.Open(filepath.Join(stepDir, "intervals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"t_sec", "unix_ms", "interval_sec",
		"insert_per_sec", "insert_total", "insert_errors", "insert_p99_us", "insert_max_us",
		"delete_per_sec", "delete_total", "delete_errors", "delete_p99_us", "delete_max_us"}
	if !reflect.DeepEqual(IntervalColumns(ops), wantHeader) {
		t.Fatalf("IntervalColumns = %v, want %v", IntervalColumns(ops), wantHeader)
	}
	if len(records) != 1+len(ivs) {
		t.Fatalf("intervals.csv has %d lines, want %d: %v", len(records), 1+len(ivs), records)
	}
	if !reflect.DeepEqual(records[0], wantHeader) {
		t.Fatalf("intervals.csv header = %v, want %v", records[0], wantHeader)
	}
	for i, want := range wantRows {
		if !reflect.DeepEqual(records[1+i], want) {
			t.Errorf("intervals.csv row %d =\n  %v\nwant\n  %v", i+1, records[1+i], want)
		}
	}

	// latency.hlog: readable with the HdrHistogram log reader, tagged histograms in order.
	f, err = os.Open(filepath.Join(stepDir, "latency.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var got []wantHist
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading latency.hlog: %v", err)
		}
		if h == nil {
			break
		}
		got = append(got, wantHist{h.Tag(), h.TotalCount(), h.StartTimeMs(), h.EndTimeMs(), h.Max()})
	}
	if !reflect.DeepEqual(got, wantHists) {
		t.Fatalf("latency.hlog histograms =\n  %+v\nwant\n  %+v", got, wantHists)
	}
	if len(got) != 3 {
		t.Fatalf("latency.hlog has %d histograms, want 3 (insert, delete, insert)", len(got))
	}
	// The decoded values are the recorded ones (exact below 2048 ns at 3 digits).
	f.Seek(0, io.SeekStart)
	r = hdr.NewHistogramLogReader(f)
	var last *hdr.Histogram
	for h, _ := r.NextIntervalHistogram(); h != nil; h, _ = r.NextIntervalHistogram() {
		last = h
	}
	if last.Min() != 700 || last.Max() != 800 || last.ValueAtQuantile(50) != 700 {
		t.Fatalf("last histogram has min %d max %d p50 %d, want 700, 800, 700", last.Min(), last.Max(), last.ValueAtQuantile(50))
	}

	// summary.json holds the step as given.
	b, err := os.ReadFile(filepath.Join(stepDir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Step
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Start.Equal(sum.Start) || !back.End.Equal(sum.End) {
		t.Fatalf("summary times %v..%v, want %v..%v", back.Start, back.End, sum.Start, sum.End)
	}
	back.Start, back.End = sum.Start, sum.End
	if !reflect.DeepEqual(back, sum) {
		t.Fatalf("summary.json =\n  %+v\nwant\n  %+v", back, sum)
	}
	figs := Figures{Ops: []measure.OpType{{Name: "query"}, {Name: "insert"}, {Name: "delete"}}}
	if names := figs.OpNames(back); !reflect.DeepEqual(names, []string{"insert", "delete"}) {
		t.Fatalf("OpNames = %v, want [insert delete]: the declared order, of the ops the step has", names)
	}
}

func TestReadStepsInOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	d, err := Create(dir, Run{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	ops := []measure.OpType{{Name: "insert"}}
	start := time.Unix(1700000100, 0)
	// Listed in an order that is not alphabetical: l.i0, l.x, l.i1 (the last one killed hard,
	// so it has no summary.json).
	for i, name := range []string{"l.i0", "l.x", "l.i1"} {
		d.Meta.Steps = append(d.Meta.Steps, StepStatus{Name: name, Dir: name})
		if err := d.WriteMeta(); err != nil {
			t.Fatal(err)
		}
		w, err := d.StartStep(name, ops, start)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Interval(makeInterval(ops, start, start.Add(time.Second), map[measure.Op]opData{opInsert: {lat: []int64{100}, units: int64(i + 1)}})); err != nil {
			t.Fatal(err)
		}
		if name == "l.i1" {
			break // no Finish
		}
		if err := w.Finish(Step{Step: name, Complete: true, Seconds: float64(i + 1)}); err != nil {
			t.Fatal(err)
		}
		d.Meta.Steps[len(d.Meta.Steps)-1].Complete = true
		if err := d.WriteMeta(); err != nil {
			t.Fatal(err)
		}
	}
	meta, steps, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus := []StepStatus{{Name: "l.i0", Dir: "l.i0", Complete: true}, {Name: "l.x", Dir: "l.x", Complete: true}, {Name: "l.i1", Dir: "l.i1", Complete: false}}
	if !reflect.DeepEqual(meta.Steps, wantStatus) {
		t.Fatalf("run.json steps = %+v, want %+v", meta.Steps, wantStatus)
	}
	if len(steps) != 3 {
		t.Fatalf("Read returned %d steps, want 3", len(steps))
	}
	for i, want := range []Step{
		{Step: "l.i0", Complete: true, Seconds: 1},
		{Step: "l.x", Complete: true, Seconds: 2},
		{Step: "l.i1", Complete: false},
	} {
		got := steps[i]
		if got.Step != want.Step || got.Complete != want.Complete || got.Seconds != want.Seconds {
			t.Errorf("step %d = %+v, want %+v", i, got, want)
		}
	}

	// A malformed summary.json is an error naming the file.
	os.WriteFile(filepath.Join(dir, "l.x", "summary.json"), []byte("{"), 0o644)
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "l.x/summary.json") {
		t.Fatalf("Read with a malformed summary: %v", err)
	}
}

// TestColumnKey: a column with a Key reads a figure of the whole step from its workload map,
// printed with its Format; one without a Format prints whole numbers.
func TestColumnKey(t *testing.T) {
	s := Step{Workload: map[string]any{"w_amp": 1.456, "note": "text"}}
	c := Column{Name: "w_amp", Key: "w_amp", Format: "%.2f"}
	if v, ok := c.Value(s); !ok || c.Print(v) != "1.46" {
		t.Errorf("w_amp = %v, %v (%q)", v, ok, c.Print(v))
	}
	if _, ok := (Column{Key: "note"}).Value(s); ok {
		t.Error("a text figure read as a number")
	}
	if _, ok := (Column{Key: "absent"}).Value(s); ok {
		t.Error("an absent figure read")
	}
	if got := (Column{}).Print(2.6); got != "3" {
		t.Errorf("default format: %q", got)
	}
}
