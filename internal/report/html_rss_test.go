package report

import (
	"strings"
	"testing"
)

// TestMemoryChartIsAllProcesses: the memory chart plots host.csv's dbms_rss_mb, the sum over
// all the DBMS's processes, under a label that says so; summary's rss is the largest process's
// (the reference's), and the two once shared one label.
func TestMemoryChartIsAllProcesses(t *testing.T) {
	v := 100.0
	files := []*htmlStepFiles{{host: &htmlCSV{cols: map[string][]*float64{"t_sec": {&v}, "dbms_rss_mb": {&v}}}}}
	c := hostMemoryChart("l.i0", 0, []string{"run"}, files)
	if len(c.Series) == 0 {
		t.Fatal("no memory series")
	}
	if label := c.Series[0].What; !strings.Contains(label, "all DBMS processes") {
		t.Errorf("memory series labelled %q: it sums all the DBMS's processes", label)
	}
	if strings.Contains(hostHelp["rss"], "all") && !strings.Contains(hostHelp["rss"], "largest") {
		t.Errorf("rss is described as %q", hostHelp["rss"])
	}
}
