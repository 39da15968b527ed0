package archive

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/measure"
)

// TestServiceLog: an open-loop step writes its service times a second to service.hlog, tagged
// with the op type, beside latency.hlog's response times (which the merge of a sharded run adds
// up); a closed-loop step writes no service.hlog.
func TestServiceLog(t *testing.T) {
	d, err := Create(filepath.Join(t.TempDir(), "run"), Run{Name: "run"})
	if err != nil {
		t.Fatal(err)
	}
	ops := []measure.OpType{{Name: "insert"}, {Name: "query"}}
	start := time.UnixMilli(1_700_000_000_250)
	for _, open := range []bool{true, false} {
		step := map[bool]string{true: "open", false: "closed"}[open]
		w, err := d.StartStepOpen(step, ops, start, open)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 2 {
			iv := measure.NewInterval(len(ops))
			iv.Start, iv.End = start.Add(time.Duration(j)*time.Second), start.Add(time.Duration(j+1)*time.Second)
			for k := range 10 * (j + 1) {
				iv.Ops[1].Hist.RecordValue(int64(2000 + k))
				if open {
					if iv.Ops[1].Service == nil {
						iv.Ops[1].Service = measure.NewPacked()
					}
					iv.Ops[1].Service.RecordValue(int64(1000 + k))
				}
			}
			if err := w.Interval(iv); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(Step{Step: step, Complete: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(d.Path, "closed", ServiceLog)); !os.IsNotExist(err) {
		t.Errorf("a closed-loop step has a service.hlog: %v", err)
	}
	f, err := os.Open(filepath.Join(d.Path, "open", ServiceLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var counts []int64
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if h.Tag() != "query" || h.Max() < 1000 || h.Max() > 1100 {
			t.Errorf("a histogram tagged %q with max %d ns; want query's service times, 1000-1019 ns", h.Tag(), h.Max())
		}
		counts = append(counts, h.TotalCount())
	}
	if len(counts) != 2 || counts[0] != 10 || counts[1] != 20 {
		t.Errorf("service.hlog's histograms count %v; want [10 20], one a second", counts)
	}
}
